// PGlite on disk, hosted in a worker thread. PGlite runs Postgres as synchronous wasm in the thread
// that calls it and has no timer there, so statement_timeout never fires: a runaway read would
// block the whole process. In a worker the main thread stays free, and a READ ONLY statement that
// overruns its timeout is stopped by terminating the worker and opening the same data directory
// in a new one — the same event for Postgres as a crashed backend, which it recovers from. Why that
// is safe only for read-only work: README "Stopping runaway queries on PGlite".
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { messages } from '@electric-sql/pglite';
import { DataSourceError, type Row } from '@toolrow/datasource';
import type { QueryResult, TextLines } from '../database.ts';
import { type Adapter, type Connection, PreemptedError } from './core.ts';
import { type DataDirLock, lockDataDir } from './data-dir-lock.ts';
import { Mutex } from './mutex.ts';
import { compiledModules, hasCluster, makeDataDir, openFailure } from './pglite.ts';
import type { WireError, WorkerInit, WorkerMessage, WorkerRequest } from './pglite-protocol.ts';

// Source (.ts, run by type stripping) or build output (.js): the worker sits beside this module.
const WORKER_URL = new URL(
  `./pglite-worker${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`,
  import.meta.url,
);

// Started from a one-line script that imports the module: a worker started from the file itself
// refuses some inherited Node options (`node --input-type=module -e …`), and passing a filtered
// execArgv instead refuses V8 options such as --max-old-space-size.
const WORKER_BOOT = `import(${JSON.stringify(WORKER_URL.href)});`;

export interface PgliteThreadOptions {
  pgdata: string;
  /** What to name in errors about the directory (e.g. "TOOLROW_DATA_DIR"). */
  dataDirSource: string;
  /** Load this dump when pgdata holds no database yet, instead of running initdb. */
  loadDataDir?: Blob;
  /** postgresql.conf lines, applied in the worker (and again whenever it is replaced). */
  settings?: readonly string[];
}

function fromWire(wire: WireError): Error {
  // Postgres errors come back as PGlite's DatabaseError with their fields (code, hint, position, …).
  const error =
    typeof wire.fields.severity === 'string'
      ? new messages.DatabaseError(wire.message, Number(wire.fields.length ?? 0), 'error')
      : new Error(wire.message);
  for (const [key, value] of Object.entries(wire.fields)) {
    if (key !== 'name' && key !== 'length') (error as unknown as Record<string, unknown>)[key] = value;
  }
  if (!(error instanceof messages.DatabaseError)) error.name = wire.name;
  if (wire.stack) error.stack = wire.stack;
  return error;
}

function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(3))} s`;
}

/** What a caller whose statement overran gets: what happened, and how to make it fit. */
export function timeoutError(timeoutMs: number): DataSourceError {
  return new DataSourceError(
    'timeout',
    `The query ran longer than ${seconds(timeoutMs)} and was stopped (statement timeout). ` +
      'Narrow it: filter with WHERE (on indexed columns where possible), join on matching keys instead of ' +
      'pairing every row with every row, aggregate or LIMIT early, and check the plan with EXPLAIN — ' +
      'or raise the timeout if it must run longer.',
  );
}

function staleTransaction(): DataSourceError {
  return new DataSourceError(
    'connection',
    'This transaction ended when the embedded database restarted (a read was stopped at its timeout or cancelled, or the worker thread died). Start a new transaction.',
  );
}

/** Sorts and hashes that spilled to disk leave files behind when their statement is stopped; Postgres removes them only at postmaster start, which PGlite never runs. */
async function removeTempFiles(pgdata: string): Promise<void> {
  const dir = join(pgdata, 'base', 'pgsql_tmp');
  const names = await readdir(dir).catch(() => [] as string[]);
  await Promise.all(names.map((name) => rm(join(dir, name), { recursive: true, force: true })));
}

interface Pending {
  resolve(result: QueryResult<Row> | TextLines | null): void;
  reject(error: Error): void;
  timeoutMs: number;
  timer?: ReturnType<typeof setTimeout>;
  signal?: AbortSignal;
  onAbort?: () => void;
}

/** What a stop may be asked for by: the statement's timeout, or its caller's AbortSignal. */
export interface StopOptions {
  timeoutMs?: number;
  signal?: AbortSignal;
}

function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error(String(signal.reason ?? 'aborted'));
}

/** One worker at a time on the data directory; replaced when a statement is stopped or the worker dies. */
class WorkerHost {
  readonly #pgdata: string;
  readonly #settings: readonly string[] | undefined;
  #worker: Worker | undefined;
  #ready: Promise<Worker>;
  #pending = new Map<number, Pending>();
  #nextId = 0;
  #restarts = 0;
  /** The engine's wasm memory now, and when the worker was new: it grows, and only a new worker gives it back. */
  #memory = 0;
  #memoryAtStart: number | undefined;

  constructor(pgdata: string, loadDataDir: Uint8Array | undefined, settings?: readonly string[]) {
    this.#pgdata = pgdata;
    this.#settings = settings;
    this.#ready = this.#start(loadDataDir);
  }

  get restarts(): number {
    return this.#restarts;
  }

  get ready(): Promise<Worker> {
    return this.#ready;
  }

  async #start(loadDataDir?: Uint8Array): Promise<Worker> {
    await removeTempFiles(this.#pgdata);
    const init: WorkerInit = {
      pgdata: this.#pgdata,
      modules: await compiledModules(),
      ...(loadDataDir ? { loadDataDir } : {}),
      ...(this.#settings ? { settings: [...this.#settings] } : {}),
    };
    const worker = await new Promise<Worker>((resolve, reject) => {
      const worker = new Worker(WORKER_BOOT, { eval: true, workerData: init });
      let started = false;
      worker.on('message', (message: WorkerMessage) => {
        if (message.type === 'ready') {
          started = true;
          resolve(worker);
        } else if (message.type === 'failed') {
          reject(fromWire(message.error));
          void worker.terminate();
        } else if (this.#worker === worker) {
          this.#onMessage(message);
        }
      });
      worker.on('error', (error) => {
        if (!started) reject(error);
        else if (this.#worker === worker) this.#replace(worker, () => lostError(error.message));
      });
      worker.on('exit', (code) => {
        if (!started) reject(new Error(`its worker thread exited (code ${code}) before the database opened`));
        else if (this.#worker === worker) this.#replace(worker, () => lostError(`exit code ${code}`));
      });
    });
    // Idle, the worker must not keep the process alive (an in-thread PGlite never did).
    worker.unref();
    this.#worker = worker;
    return worker;
  }

  /** A statement made the engine's memory grow far past where it started (a huge value, a big sort). */
  get bloated(): boolean {
    return this.#memoryAtStart !== undefined && this.#memory > this.#memoryAtStart + RECYCLE_GROWTH;
  }

  /** Gives the memory back: the same data directory in a new worker. Only when nothing is in flight. */
  recycle(): void {
    const worker = this.#worker;
    if (!worker || this.#pending.size > 0) return;
    this.#replace(worker, () => staleTransaction());
  }

  #onMessage(message: WorkerMessage): void {
    if (message.type === 'ready' || message.type === 'failed') return;
    if (message.type === 'memory') {
      this.#memory = message.bytes;
      this.#memoryAtStart ??= message.bytes;
      return;
    }
    const pending = this.#pending.get(message.id);
    if (!pending) return;
    if (message.type === 'armed') {
      const { signal } = pending;
      if (pending.timeoutMs > 0) {
        const error = timeoutError(pending.timeoutMs);
        pending.timer = setTimeout(() => this.#stop(message.id, error), pending.timeoutMs);
      }
      if (signal) {
        pending.onAbort = () => this.#stop(message.id, abortReason(signal));
        if (signal.aborted) pending.onAbort();
        else signal.addEventListener('abort', pending.onAbort, { once: true });
      }
      return;
    }
    this.#settle(message.id, pending);
    if (message.type === 'result') pending.resolve(message.result);
    else if (message.type === 'lines') pending.resolve(message.lines);
    else pending.reject(fromWire(message.error));
  }

  #settle(id: number, pending: Pending): void {
    disarm(pending);
    this.#pending.delete(id);
    if (this.#pending.size === 0) this.#worker?.unref();
  }

  /** A guarded statement overran or was aborted: only armed statements get here, and the worker arms only READ ONLY work. */
  #stop(id: number, error: Error): void {
    const pending = this.#pending.get(id);
    const worker = this.#worker;
    if (!pending || !worker) return;
    this.#replace(worker, (other) => (other === pending ? error : staleTransaction()));
  }

  /** Fail what was in flight, discard the worker and open the data directory in a new one. */
  #replace(worker: Worker, errorFor: (pending: Pending) => Error): void {
    this.#worker = undefined;
    this.#restarts++;
    const inFlight = [...this.#pending.entries()];
    this.#pending.clear();
    for (const [, pending] of inFlight) {
      disarm(pending);
      pending.reject(errorFor(pending));
    }
    this.#memoryAtStart = undefined;
    const restarted = (async () => {
      await worker.terminate();
      try {
        return await this.#start();
      } catch (error) {
        throw new DataSourceError(
          'connection',
          `The embedded database at ${this.#pgdata} could not be reopened after a restart: ${(error as Error).message}. Restart Toolrow; if it still fails, the data directory may be damaged.`,
          { cause: error },
        );
      }
    })();
    restarted.catch(() => {}); // reported to the next caller, not as an unhandled rejection
    this.#ready = restarted;
  }

  async send(
    request: DistributiveOmit<WorkerRequest, 'id'>,
    stop: StopOptions = {},
  ): Promise<QueryResult<Row> | TextLines | null> {
    const worker = await this.#ready;
    const id = ++this.#nextId;
    return new Promise((resolve, reject) => {
      const pending: Pending = {
        resolve,
        reject,
        timeoutMs: stop.timeoutMs ?? 0,
        ...(stop.signal ? { signal: stop.signal } : {}),
      };
      try {
        worker.postMessage({ ...request, id } as WorkerRequest);
      } catch (error) {
        reject(
          new DataSourceError(
            'misuse',
            `A query parameter cannot be passed to the embedded database: ${(error as Error).message}. Pass strings, numbers, booleans, bigints, Dates, Uint8Arrays, arrays or plain objects.`,
            { cause: error },
          ),
        );
        return;
      }
      this.#pending.set(id, pending);
      worker.ref();
    });
  }

  /** Shut PGlite down cleanly (a checkpoint) and end the worker. */
  async close(): Promise<void> {
    let worker: Worker;
    try {
      worker = await this.#ready;
    } catch {
      return; // a failed restart left nothing open
    }
    try {
      await this.send({ op: 'close' });
    } finally {
      this.#worker = undefined;
      await worker.terminate();
    }
  }
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

function disarm(pending: Pending): void {
  clearTimeout(pending.timer);
  if (pending.onAbort) pending.signal?.removeEventListener('abort', pending.onAbort);
}

function lostError(detail: string): DataSourceError {
  return new DataSourceError(
    'connection',
    `The embedded database's worker thread stopped unexpectedly (${detail}); it is being reopened. Run the statement again.`,
  );
}

const EMPTY: QueryResult<Row> = { rows: [], fields: [], rowCount: 0 };

/** How far the engine's memory may grow past a new worker's before the worker is replaced. */
const RECYCLE_GROWTH = 256 * 1024 * 1024;

/** Postgres out of memory (53200) in the embedded engine: said as what it is, and what to do. */
function outOfMemory(error: unknown): DataSourceError | undefined {
  if ((error as { code?: string }).code !== '53200') return undefined;
  return new DataSourceError(
    'too-large',
    'The query needs more memory than the embedded database has (a value or a sort that large cannot be made here): nothing was returned, and the database gives the memory back. Select less: smaller values, fewer rows, or aggregate first.',
    { cause: error },
  );
}

/** On-disk PGlite in a worker thread; see the top of this file. */
export async function openPgliteThread(options: PgliteThreadOptions): Promise<Adapter> {
  await makeDataDir(options.pgdata, options.dataDirSource);
  const lock: DataDirLock = lockDataDir(options.pgdata, options.dataDirSource);
  let host: WorkerHost;
  try {
    const load =
      options.loadDataDir && !hasCluster(options.pgdata)
        ? new Uint8Array(await options.loadDataDir.arrayBuffer())
        : undefined;
    host = new WorkerHost(options.pgdata, load, options.settings);
    await host.ready;
  } catch (error) {
    lock.release();
    throw openFailure(error, options.pgdata, options.dataDirSource);
  }
  const mutex = new Mutex();
  const query = async (sql: string, params: readonly unknown[], stop: StopOptions = {}) => {
    const guarded = (stop.timeoutMs ?? 0) > 0 || stop.signal !== undefined;
    try {
      return (await host.send({ op: 'query', sql, params, guarded }, stop)) as QueryResult<Row>;
    } catch (error) {
      throw outOfMemory(error) ?? error;
    }
  };
  // After a statement that grew the engine's memory far (wasm memory never shrinks), the worker is
  // replaced once no one holds the connection: the process goes back to about its idle size.
  const giveBackMemory = () => {
    if (host.bloated && mutex.idle) host.recycle();
  };
  return {
    engine: 'pglite',
    description: `PGlite at ${options.pgdata}`,
    holdCursors: true,
    copy: false,
    get restarts() {
      return host.restarts;
    },
    async acquire(leaseOptions = {}) {
      // A background read that can run again gives way when the user's own read arrives: its
      // statement is stopped (the worker restarts, ~0.5 s) and the core runs it again after.
      const giveWay = leaseOptions.preemptible ? new AbortController() : undefined;
      const unlock = await mutex.lock(leaseOptions.priority ?? 'interactive', () => {
        if (!giveWay?.signal.aborted) giveWay?.abort(new PreemptedError());
      });
      const restarts = host.restarts;
      const signals = [leaseOptions.signal, giveWay?.signal].filter(
        (each): each is AbortSignal => each !== undefined,
      );
      const stop: StopOptions = {
        timeoutMs: leaseOptions.readOnlyTimeoutMs ?? 0,
        ...(signals.length > 0
          ? { signal: signals.length === 1 ? signals[0] : AbortSignal.any(signals) }
          : {}),
      };
      // After a restart the lease's transaction is gone: a later statement would run outside it.
      const connection: Connection = {
        async query(sql, params) {
          if (host.restarts !== restarts) {
            if (/^\s*rollback\s*;?\s*$/i.test(sql)) return EMPTY;
            throw giveWay?.signal.aborted ? giveWay.signal.reason : staleTransaction();
          }
          if (giveWay?.signal.aborted && !/^\s*rollback\s*;?\s*$/i.test(sql)) throw giveWay.signal.reason;
          return query(sql, params, stop);
        },
        async exec(sql) {
          if (host.restarts !== restarts) throw staleTransaction();
          await host.send({ op: 'exec', sql });
        },
        async queryLines(sql) {
          if (host.restarts !== restarts) throw staleTransaction();
          const guarded = (stop.timeoutMs ?? 0) > 0 || stop.signal !== undefined;
          return (await host.send({ op: 'lines', sql, guarded }, stop)) as TextLines;
        },
      };
      return {
        connection,
        release: () => {
          unlock();
          giveBackMemory();
        },
      };
    },
    query: async (sql, params) => {
      try {
        return await mutex.run(() => query(sql, params));
      } finally {
        giveBackMemory();
      }
    },
    async close() {
      try {
        await mutex.run(() => host.close());
      } finally {
        lock.release();
      }
    },
  };
}
