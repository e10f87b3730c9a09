import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { PGlite, type PGliteOptions } from '@electric-sql/pglite';
import { DataSourceError, type Row } from '@toolrow/datasource';
import type { QueryResult } from '../database.ts';
import { type Adapter, type Connection, toFields } from './core.ts';
import { type DataDirLock, lockDataDir } from './data-dir-lock.ts';
import { Mutex } from './mutex.ts';
import { pgliteLines } from './pglite-lines.ts';
import { PARSERS } from './values.ts';

export interface PgliteOpenOptions {
  /** Directory of the Postgres cluster; undefined = in memory. */
  pgdata?: string;
  /** What to name in errors about the directory (e.g. "TOOLROW_DATA_DIR"). */
  dataDirSource: string;
  /** Start from a dumped data directory (PGlite's dumpDataDir) instead of running initdb; ignored when pgdata already holds a database. */
  loadDataDir?: Blob;
  /** postgresql.conf lines for this engine (e.g. a small shared_buffers for a small store). */
  settings?: readonly string[];
}

export interface PgliteAdapter extends Adapter {
  /** The PGlite instance, for dumpDataDir in the test helper. */
  instance: PGlite;
}

export type WasmModules = Pick<PGliteOptions, 'pgliteWasmModule' | 'initdbWasmModule'>;
// The es2023 lib has no WebAssembly types; Node has the global.
const wasm = (globalThis as unknown as { WebAssembly: { compile(bytes: Uint8Array): Promise<never> } })
  .WebAssembly;

let wasmModules: Promise<WasmModules> | undefined;

/** Set to 1 to let V8 optimise PGlite's wasm (more memory and a slower start, faster long queries). */
export const OPTIMIZE_WASM_ENV = 'TOOLROW_PGLITE_OPTIMIZE_WASM';

/**
 * Keeps wasm on V8's baseline compiler (Liftoff), process-wide, before PGlite compiles. Tiering up
 * makes TurboFan compile one 100 kB function of pglite.wasm (the executor) on every start: about
 * 2 s and 600 MB of compiler memory, most of a PGlite process's peak (README, "PGlite's wasm").
 * The flag's implications are not re-derived after start-up, so the ones --liftoff-only implies
 * are set too.
 */
async function baselineWasmOnly(): Promise<void> {
  if (process.env[OPTIMIZE_WASM_ENV] === '1') return;
  const { setFlagsFromString } = await import('node:v8');
  setFlagsFromString('--liftoff-only --no-wasm-tier-up --no-wasm-dynamic-tiering');
}

/**
 * Compile the wasm once per process: later instances (tests open many) skip the compile. Compiled
 * modules can be posted to worker threads, so the worker-hosted engine shares them too.
 */
export function compiledModules(): Promise<WasmModules> {
  wasmModules ??= (async (): Promise<WasmModules> => {
    try {
      await baselineWasmOnly();
      const { readFile } = await import('node:fs/promises');
      const { createRequire } = await import('node:module');
      const require = createRequire(import.meta.url);
      const main = require.resolve('@electric-sql/pglite');
      const dir = main.slice(0, main.lastIndexOf('/'));
      const [pglite, initdb] = await Promise.all([
        readFile(`${dir}/pglite.wasm`).then((bytes) => wasm.compile(bytes)),
        readFile(`${dir}/initdb.wasm`).then((bytes) => wasm.compile(bytes)),
      ]);
      return { pgliteWasmModule: pglite, initdbWasmModule: initdb };
    } catch {
      return {};
    }
  })();
  return wasmModules;
}

export function toResult(result: {
  rows: unknown[];
  fields: { name: string; dataTypeID: number }[];
  rowCount?: number;
  affectedRows?: number;
}): QueryResult<Row> {
  return {
    rows: result.rows as Row[],
    fields: toFields(result.fields),
    rowCount: result.rowCount ?? result.affectedRows ?? result.rows.length,
  };
}

/** A loaded dump only fills an empty directory: PGlite refuses to load over an existing cluster. */
export function hasCluster(pgdata: string): boolean {
  return existsSync(join(pgdata, 'PG_VERSION'));
}

export async function makeDataDir(pgdata: string, dataDirSource: string): Promise<void> {
  try {
    await mkdir(pgdata, { recursive: true, mode: 0o700 });
  } catch (error) {
    throw new DataSourceError(
      'config',
      `Cannot create the PGlite data directory ${pgdata}: ${(error as Error).message}. Point ${dataDirSource} at a writable directory.`,
      { cause: error },
    );
  }
}

export function openFailure(
  error: unknown,
  pgdata: string | undefined,
  dataDirSource: string,
): DataSourceError {
  const where = pgdata ? `the data directory ${pgdata}` : 'memory';
  const message = error instanceof Error ? error.message : String(error);
  return new DataSourceError(
    'connection',
    `PGlite could not open a database in ${where}: ${message}.` +
      (pgdata ? ` Check that ${dataDirSource} points at a Toolrow data directory, or at an empty one.` : ''),
    { cause: error },
  );
}

/**
 * PGlite in the calling thread. Used for in-memory databases (tests): stopping a runaway statement
 * means discarding the instance, which would lose an in-memory database, so there is no timer here.
 * Databases on disk run in a worker thread instead (pglite-thread.ts).
 */
export async function openPglite(options: PgliteOpenOptions): Promise<PgliteAdapter> {
  if (options.pgdata) await makeDataDir(options.pgdata, options.dataDirSource);
  const lock: DataDirLock | undefined = options.pgdata
    ? lockDataDir(options.pgdata, options.dataDirSource)
    : undefined;
  let pglite: PGlite;
  try {
    const load = options.loadDataDir && !(options.pgdata && hasCluster(options.pgdata));
    pglite = await PGlite.create({
      ...(options.pgdata ? { dataDir: options.pgdata } : {}),
      ...(load ? { loadDataDir: options.loadDataDir } : {}),
      ...(options.settings ? { postgresqlconf: [...options.settings] } : {}),
      ...(await compiledModules()),
      parsers: PARSERS,
    });
  } catch (error) {
    lock?.release();
    throw openFailure(error, options.pgdata, options.dataDirSource);
  }
  const mutex = new Mutex();
  const connection: Connection = {
    query: async (sql, params) => toResult(await pglite.query(sql, params as unknown[])),
    exec: async (sql) => {
      await pglite.exec(sql);
    },
    queryLines: (sql) => pgliteLines(pglite, sql),
  };
  return {
    instance: pglite,
    engine: 'pglite',
    description: options.pgdata ? `PGlite at ${options.pgdata}` : 'PGlite in memory',
    holdCursors: true,
    copy: false,
    restarts: 0,
    async acquire(leaseOptions = {}) {
      // In memory nothing can be stopped: the user's reads only go first in the queue.
      const unlock = await mutex.lock(leaseOptions.priority ?? 'interactive');
      return { connection, release: () => unlock() };
    },
    query: (sql, params) => mutex.run(() => connection.query(sql, params)),
    async close() {
      try {
        await mutex.run(() => pglite.close());
      } finally {
        lock?.release();
      }
    },
  };
}
