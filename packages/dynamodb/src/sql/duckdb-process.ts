// A statement's DuckDB, in a process of its own (duckdb-child.ts) that the statement cannot take
// past its memory or its time: the child ends itself past MAX_STATEMENT_RSS, and is killed when a
// stopped statement does not return within STOP_GRACE_MS (an interrupt lands only between a
// function's calls). A child serves one statement at a time; one idle child is kept warm.
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { DataSourceError } from '@toolrow/datasource';
import type { ChildMessage, ChildRequest, ReadAnswer } from './duckdb-child.ts';

/** The resident memory a statement's process may reach (DuckDB's own limit is below it). */
export const MAX_STATEMENT_RSS = 448 * 1024 * 1024;
/** DuckDB's buffer manager bound inside that process (what it spills or refuses past). */
export const DUCKDB_MEMORY_LIMIT = '200MB';
/** How long a stopped statement may take to return before its process is killed. */
export const STOP_GRACE_MS = 2000;

export type { ReadAnswer };

type Request = ChildRequest extends infer R ? (R extends unknown ? Omit<R, 'id'> : never) : never;

export interface SqlSession {
  run(sql: string): Promise<void>;
  /** Appends rows of text (or NULL) to a table of VARCHAR columns. */
  append(table: string, rows: (string | null)[][]): Promise<void>;
  /** The statement's first `maxRows` rows (DuckDB's JSON forms). */
  read(sql: string, maxRows: number): Promise<ReadAnswer>;
  /** The statement's rows batch by batch, pulled as they are consumed. */
  stream(sql: string): Promise<{ names: string[]; types: string[]; batches: AsyncIterable<unknown[][]> }>;
  /** Frees the statement's DuckDB (its tables go with it). */
  close(): void;
}

export interface SessionOptions {
  /** The sandbox's settings (off only in the tests of the other layers). */
  sandbox?: boolean;
  /** DuckDB settings besides the sandbox's (binding turns optimizers off). */
  settings?: Record<string, string>;
  /** Stops the statement: DuckDB is interrupted, and its process killed if that does not land. */
  signal?: AbortSignal;
}

const childEntry = (): string =>
  fileURLToPath(
    new URL(import.meta.url.endsWith('.ts') ? './duckdb-child.ts' : './duckdb-child.js', import.meta.url),
  );

class DuckChild {
  readonly process: ChildProcess;
  private nextId = 1;
  private readonly pending = new Map<
    number,
    { resolve(value: unknown): void; reject(error: unknown): void }
  >();
  /** Why the process ended, once it has. */
  ended: Error | undefined;

  constructor() {
    this.process = fork(childEntry(), [], {
      execArgv: [],
      // Nothing of this process's environment it does not need (credentials stay here).
      env: {
        ...(process.env.PATH ? { PATH: process.env.PATH } : {}),
        ...(process.env.NODE_OPTIONS ? { NODE_OPTIONS: process.env.NODE_OPTIONS } : {}),
        TOOLROW_SQL_MAX_RSS: String(MAX_STATEMENT_RSS),
      },
      serialization: 'advanced',
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    let memory: { rss: number; limit: number } | undefined;
    this.process.on('message', (message: ChildMessage) => {
      if ('kind' in message) {
        memory = message;
        return;
      }
      const waiting = this.pending.get(message.id);
      if (!waiting) return;
      this.pending.delete(message.id);
      if (message.ok) waiting.resolve(message.value);
      else waiting.reject(new Error(message.error));
    });
    const end = (error: Error) => {
      this.ended ??= error;
      for (const waiting of this.pending.values()) waiting.reject(this.ended);
      this.pending.clear();
    };
    this.process.on('error', (error) => end(error));
    this.process.on('exit', (code, signal) =>
      end(
        memory
          ? new DataSourceError(
              'too-large',
              `The statement needed more than ${Math.round(memory.limit / 1024 / 1024)} MB of memory and was stopped. Narrow it (fewer rows, shorter lists and strings: range(), repeat(), list functions allocate all at once).`,
            )
          : new DataSourceError(
              'connection',
              `The SQL engine's process ended (${signal ?? `exit ${code}`}) while running the statement.`,
            ),
      ),
    );
  }

  request<T>(request: Request): Promise<T> {
    if (this.ended) return Promise.reject(this.ended);
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      this.process.send({ ...request, id } as ChildRequest, (error) => {
        if (error && this.pending.delete(id)) reject(error);
      });
    });
  }

  kill(): void {
    this.process.kill('SIGKILL');
  }

  /** Idle children do not keep the process alive. */
  hold(busy: boolean): void {
    if (busy) {
      this.process.ref();
      (this.process.channel as { ref?(): void } | undefined)?.ref?.();
    } else {
      this.process.unref();
      (this.process.channel as { unref?(): void } | undefined)?.unref?.();
    }
  }
}

let idle: DuckChild | undefined;

function acquire(): DuckChild {
  const child = idle && !idle.ended ? idle : new DuckChild();
  idle = undefined;
  child.hold(true);
  return child;
}

function release(child: DuckChild): void {
  if (child.ended) return;
  if (idle && !idle.ended) {
    child.kill();
    return;
  }
  child.hold(false);
  idle = child;
}

/** A DuckDB of the statement's own, in a bounded process. */
export async function openSession(options: SessionOptions = {}): Promise<SqlSession> {
  const child = acquire();
  let closed = false;
  let session: number | undefined;
  const { signal } = options;
  let killTimer: NodeJS.Timeout | undefined;
  const stop = () => {
    if (session !== undefined) void child.request({ op: 'interrupt', session }).catch(() => {});
    killTimer = setTimeout(() => child.kill(), STOP_GRACE_MS);
    killTimer.unref();
  };
  signal?.addEventListener('abort', stop, { once: true });
  /** A request that fails with the stop's reason when the statement was stopped. */
  let inFlight = 0;
  const ask = async <T>(request: Request): Promise<T> => {
    inFlight++;
    try {
      return await child.request<T>(request);
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      if (error instanceof DataSourceError) throw error;
      throw new DataSourceError('invalid-filter', (error as Error).message, { cause: error });
    } finally {
      inFlight--;
    }
  };
  const close = () => {
    if (closed) return;
    closed = true;
    signal?.removeEventListener('abort', stop);
    if (killTimer) clearTimeout(killTimer);
    // A stopped statement still working in DuckDB (a long function call) goes with its process.
    if (inFlight > 0) {
      child.kill();
      return;
    }
    if (session !== undefined && !child.ended) {
      // Messages arrive in order, so the next statement's session opens after this one is gone.
      child.request({ op: 'close', session }).catch(() => child.kill());
    }
    release(child);
  };
  try {
    session = await ask<number>({
      op: 'open',
      sandbox: options.sandbox !== false,
      memoryLimit: DUCKDB_MEMORY_LIMIT,
      ...(options.settings ? { settings: options.settings } : {}),
    });
    if (signal?.aborted) throw signal.reason;
  } catch (error) {
    close();
    child.kill();
    throw error;
  }
  const id = session;
  return {
    run: (sql) => ask({ op: 'run', session: id, sql }),
    append: (table, rows) => ask({ op: 'append', session: id, table, rows }),
    read: (sql, maxRows) => ask({ op: 'read', session: id, sql, maxRows }),
    async stream(sql) {
      const head = await ask<ReadAnswer>({ op: 'stream', session: id, sql });
      return {
        names: head.names,
        types: head.types,
        batches: (async function* () {
          while (true) {
            const rows = await ask<unknown[][] | null>({ op: 'next', session: id });
            if (rows === null) return;
            yield rows;
          }
        })(),
      };
    },
    close,
  };
}
