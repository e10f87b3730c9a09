// Opening Toolrow's own state: the store (SQLite in the data dir, or a team's PostgreSQL), its
// migrations, and the handle over it (app state, the staging area, the connection's exports).
import { mkdir } from 'node:fs/promises';
import { isAbsolute, join, resolve } from 'node:path';
import {
  type DataSource,
  DataSourceError,
  type ExportEngine,
  type ExportEngineOptions,
  featureOf,
} from '@toolrow/datasource';
import { ensurePrivateDir } from '@toolrow/datasource-utils';
import { openDatabase } from '@toolrow/postgres';
import { type AppState, createAppState } from './app-state.ts';
import { createExportJobStore } from './export-jobs.ts';
import { createStaging, type Staging, type StagingOptions } from './staging.ts';
import { migrate } from './store/migrations.ts';
import { hasPgliteState, movePgliteState } from './store/move-pglite-state.ts';
import { carryRenamedGrants } from './store/renamed-tools.ts';
import { openSqliteStore, postgresStore, type StateDb } from './store/state-db.ts';
import { LAST_USE_FLUSH_MS } from './verify-cache.ts';

export interface OpenStateOptions {
  /** The user's data the staging area commits to and exports read from. */
  source: DataSource;
  /** Read TOOLROW_STATE_URL, TOOLROW_DATA_DIR, TOOLROW_EXPORTS_DIR (and DATABASE_URL, to refuse sharing it) from here. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Relative directories resolve against this (default: process.cwd()). */
  cwd?: string;
  /** A postgres:// URL for a team's state server; wins over TOOLROW_STATE_URL. */
  url?: string;
  /** The Toolrow data directory: the embedded store is <dataDir>/state.db. Wins over TOOLROW_DATA_DIR. */
  dataDir?: string;
  /** An embedded store in memory (tests, eval). Ignored when a URL is given. */
  memory?: boolean;
  /** Embedded: how long a write waits for another process's write before failing (default 5 s). */
  busyTimeoutMs?: number;
  /** Where one-time messages go (moving an earlier release's state); default: stderr. */
  onNotice?: (message: string) => void;
  /** Where exports go (default: TOOLROW_EXPORTS_DIR, else <dataDir>/exports). */
  exportsDir?: string;
  /** Wall-clock limit of one export, in ms (default: TOOLROW_EXPORT_TIME_LIMIT minutes, else 30 min). */
  exportTimeLimitMs?: number;
  /** Run the migrations on open (default true). */
  migrate?: boolean;
  /** The name the user's connection is listed under by listConnections (default 'default'). */
  connectionName?: string;
  /** Test hooks of the staging area (see StagingOptions). */
  staging?: StagingOptions;
  /** Runs after the store closes (the test helper removes its database here). */
  onClose?: () => Promise<void>;
}

/**
 * Toolrow's own state, in a store of its own — embedded SQLite in <dataDir>/state.db, or the
 * PostgreSQL server TOOLROW_STATE_URL names — and never in the user's database: profiles and grants, UI state,
 * saved specs, query history, the audit log, attachments, conversations, MCP tokens, export jobs
 * and the staging area.
 */
export interface ToolrowState extends AppState {
  /** The store's own connection (typed queries over either dialect). */
  readonly db: StateDb;
  /** Staged changes: recorded here, applied to the user's data only when the user commits. */
  readonly staging: Staging;
  /** Exports of the user's data to files; their jobs are recorded here. */
  readonly exports: ExportEngine;
  /** Where the state lives, without secrets ("SQLite at …/state.db", "PostgreSQL u@h:5432/state"). */
  readonly description: string;
  /** The Toolrow data directory (absolute). */
  readonly dataDir: string;
  /** Waits for background exports, then closes the store (not the user's data). */
  close(): Promise<void>;
}

/** The app state alone (no staging area, no exports): see openAppState. */
export interface AppStateHandle extends AppState {
  readonly db: StateDb;
  readonly description: string;
  readonly dataDir: string;
  /** Writes pending last-use stamps, then closes the store. */
  close(): Promise<void>;
}

const DEFAULT_DATA_DIR = '.toolrow';
/** The embedded store's file in the data dir. */
export const STATE_FILE = 'state.db';
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]', '::1', '']);

function absolute(dir: string, cwd: string): string {
  return isAbsolute(dir) ? dir : resolve(cwd, dir);
}

/** The Toolrow data directory: the dataDir option, else TOOLROW_DATA_DIR, else ./.toolrow; absolute. */
export function resolveDataDir(
  options: { env?: Readonly<Record<string, string | undefined>>; cwd?: string; dataDir?: string } = {},
): string {
  const env = options.env ?? process.env;
  return absolute(
    options.dataDir ?? (env.TOOLROW_DATA_DIR?.trim() || DEFAULT_DATA_DIR),
    options.cwd ?? process.cwd(),
  );
}

/** host:port/database of a postgres URL, loopback names folded together; undefined when unparsable. */
function databaseIdentity(raw: string | undefined): string | undefined {
  if (!raw) return undefined;
  try {
    const url = new URL(raw);
    const host = LOOPBACK.has(url.hostname) ? 'loopback' : url.hostname.toLowerCase();
    return `${host}:${url.port || '5432'}${decodeURIComponent(url.pathname)}`;
  } catch {
    return undefined;
  }
}

/** Opens (and migrates) Toolrow's own store, and wires the staging area and exports to `source`. */
export async function openState(options: OpenStateOptions): Promise<ToolrowState> {
  return settled(wireState(await openStateStore(options), options));
}

/**
 * Settles interrupted commits before anything else writes the user's data: after a crash, the id
 * of a transaction that never reached the database's log is handed out again (see
 * ChangeWriter.transactionStatus). A data source that cannot answer yet is asked again later.
 */
export async function settled(state: ToolrowState): Promise<ToolrowState> {
  await state.staging.recover().catch(() => []);
  return state;
}

export interface StateStore {
  db: StateDb;
  dataDir: string;
  exportsDir: string;
}

/** The store alone, migrated: what openToolrow opens while the user's data opens beside it. */
export async function openStateStore(options: Omit<OpenStateOptions, 'source'>): Promise<StateStore> {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  // A bad setting is refused before anything opens (opening an embedded store takes seconds).
  checkStateSettings(options);
  const dataDir = resolveDataDir({ env, cwd, dataDir: options.dataDir });
  const url = options.url ?? (env.TOOLROW_STATE_URL?.trim() || undefined);
  const urlSource = options.url !== undefined ? 'the url option' : 'TOOLROW_STATE_URL';
  if (url !== undefined) {
    const state = databaseIdentity(url);
    for (const name of ['DATABASE_URL', 'TOOLROW_COMMIT_URL'] as const) {
      if (state !== undefined && state === databaseIdentity(env[name]?.trim())) {
        throw new DataSourceError(
          'config',
          `${urlSource} points at the same database as ${name} (${state.replace(/^loopback/, 'localhost')}). Toolrow keeps its own state (tokens, audit log, conversations, staging) apart from your data: give it a database of its own (e.g. createdb toolrow_state and point ${urlSource} there), or unset ${urlSource} to keep it embedded in ${join(dataDir, 'state')}.`,
        );
      }
    }
  }
  let db: StateDb;
  if (url !== undefined) {
    db = postgresStore(await openDatabase({ url, urlSource, env: {}, poolSize: 3 }));
  } else if (options.memory) {
    db = await openSqliteStore(':memory:');
  } else {
    await ensurePrivateDir(dataDir, 'The Toolrow data directory');
    const file = join(dataDir, STATE_FILE);
    if (hasPgliteState(dataDir, file)) {
      await movePgliteState(
        dataDir,
        file,
        options.onNotice ?? ((message) => process.stderr.write(`toolrow: ${message}\n`)),
      );
    }
    db = await openSqliteStore(
      file,
      options.busyTimeoutMs === undefined ? {} : { busyTimeoutMs: options.busyTimeoutMs },
    );
  }
  try {
    if (options.migrate !== false) await migrate(db);
    // A renamed tool's remembered grants follow it to its new name.
    await carryRenamedGrants(db);
    const exportsOption = options.exportsDir ?? (env.TOOLROW_EXPORTS_DIR?.trim() || undefined);
    const exportsDir = exportsOption ? absolute(exportsOption, cwd) : join(dataDir, 'exports');
    // Inside the data dir it is checked with it; a folder of the user's choosing is theirs to
    // open, and each export file in it is 0600 anyway.
    if (!exportsOption) await ensurePrivateDir(dataDir, 'The Toolrow data directory');
    await mkdir(exportsDir, { recursive: true, mode: 0o700 });
    return { db, dataDir, exportsDir };
  } catch (error) {
    await db.close().catch(() => {});
    throw error;
  }
}

/** Toolrow's own records without the user's data: what a command that reads no data opens. */
export async function openAppState(options: Omit<OpenStateOptions, 'source'>): Promise<AppStateHandle> {
  const { db, dataDir } = await openStateStore(options);
  const app = createAppState(db);
  let closing: Promise<void> | undefined;
  return {
    ...app,
    db,
    description: db.description,
    dataDir,
    close() {
      closing ??= (async () => {
        await app.flushLastUse().catch(() => {});
        await db.close();
        await options.onClose?.();
      })();
      return closing;
    },
  };
}

/** Throws the clear error for a bad state setting, before anything is opened. */
export function checkStateSettings(options: Omit<OpenStateOptions, 'source'>): void {
  exportTimeLimit(options);
}

/** The export time limit: the option, else TOOLROW_EXPORT_TIME_LIMIT (minutes), else the default. */
function exportTimeLimit(options: Omit<OpenStateOptions, 'source'>): ExportEngineOptions {
  if (options.exportTimeLimitMs !== undefined)
    return { timeLimitMs: options.exportTimeLimitMs, timeLimitSource: 'the exportTimeLimitMs option' };
  const raw = (options.env ?? process.env).TOOLROW_EXPORT_TIME_LIMIT?.trim();
  const source = 'TOOLROW_EXPORT_TIME_LIMIT, in minutes';
  if (!raw) return { timeLimitSource: source };
  const minutes = Number(raw);
  if (!Number.isFinite(minutes) || minutes <= 0) {
    throw new DataSourceError(
      'config',
      `TOOLROW_EXPORT_TIME_LIMIT must be a number of minutes greater than 0 (e.g. 90), got '${raw}'.`,
    );
  }
  return { timeLimitMs: Math.round(minutes * 60_000), timeLimitSource: source };
}

/** Builds the state handle over an open store and the user's data. */
export function wireState(
  store: StateStore,
  options: OpenStateOptions,
  { ownsStore = true }: { ownsStore?: boolean } = {},
): ToolrowState {
  const { db, dataDir, exportsDir } = store;
  {
    const { source } = options;
    const app = createAppState(db, {
      activeConnection: {
        name: options.connectionName ?? 'default',
        engine: source.driver,
        description: source.description,
      },
    });
    const exports = source.createExportEngine
      ? source.createExportEngine(
          exportsDir,
          createExportJobStore(db, (id) => app.exportJobs.get(id)),
          exportTimeLimit(options),
        )
      : exportsRefused(source, exportsDir);
    let closing: Promise<void> | undefined;
    // Last use of MCP tokens is written in batches (verify-cache.ts); unref'd, it never keeps a process alive.
    const flushTimer = setInterval(() => void app.flushLastUse().catch(() => {}), LAST_USE_FLUSH_MS);
    flushTimer.unref();
    return {
      ...app,
      db,
      staging: createStaging(db, source, {
        ...options.staging,
        connection: options.connectionName ?? 'default',
      }),
      exports,
      description: db.description,
      dataDir,
      close() {
        closing ??= (async () => {
          clearInterval(flushTimer);
          await exports.idle();
          await app.flushLastUse().catch(() => {});
          // A hub's other connections share the first one's store: it closes with that one.
          if (ownsStore) {
            await db.close();
            await options.onClose?.();
          }
        })();
        return closing;
      },
    };
  }
}

/** The exports of a connection whose engine has none: every start says so, nothing is written. */
function exportsRefused(source: DataSource, dir: string): ExportEngine {
  const refuse = async (): Promise<never> => {
    featureOf(source, 'createExportEngine');
    throw new Error('unreachable: the engine has no exports');
  };
  return {
    dir,
    resolvePath: refuse,
    start: refuse,
    run: refuse,
    status: refuse,
    cancel: refuse,
    idle: async () => {},
  };
}
