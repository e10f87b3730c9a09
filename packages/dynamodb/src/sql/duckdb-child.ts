// The process DuckDB runs in for SQL over DynamoDB. A statement's functions can allocate outside
// DuckDB's memory_limit (a list of a hundred million elements, a string of two gigabytes) and an
// interrupt lands only when they return, so the statement runs here: this process watches its own
// memory and ends itself past the bound, and the parent kills it at the time limit. Nothing here
// reaches DynamoDB; the parent sends the items it read.
//
// Protocol (IPC, structured clone): requests { id, op, ... }, answers { id, ok, value | error }.
import type {
  DuckDBConnection,
  DuckDBInstance,
  DuckDBResult,
  DuckDBValueConverter,
  Json,
} from '@duckdb/node-api';
import { SANDBOX_SETTINGS } from './sandbox-settings.ts';

interface Session {
  instance: DuckDBInstance;
  connection: DuckDBConnection;
  /** The result being streamed, pulled a batch at a time. */
  streaming?: AsyncIterator<unknown[][]>;
}

export type ChildRequest =
  | { id: number; op: 'open'; sandbox: boolean; memoryLimit: string; settings?: Record<string, string> }
  | { id: number; op: 'run'; session: number; sql: string }
  | { id: number; op: 'append'; session: number; table: string; rows: (string | null)[][] }
  | { id: number; op: 'read'; session: number; sql: string; maxRows: number }
  | { id: number; op: 'stream'; session: number; sql: string }
  | { id: number; op: 'next'; session: number }
  | { id: number; op: 'interrupt'; session: number }
  | { id: number; op: 'close'; session: number };

export interface ReadAnswer {
  names: string[];
  /** Each column's type, its alias first (JSON is VARCHAR with the alias JSON). */
  types: string[];
  rows: unknown[][];
}

export type ChildMessage =
  | { id: number; ok: true; value?: unknown }
  | { id: number; ok: false; error: string }
  | { kind: 'memory'; rss: number; limit: number };

const sessions = new Map<number, Session>();
let nextSession = 1;
let duckdb: typeof import('@duckdb/node-api') | undefined;

const typeName = (type: { alias?: string | undefined; toString(): string }) => type.alias ?? String(type);

/** DuckDB's JSON forms, but binary as base64 (its text form, \\x00 escapes beside raw bytes, cannot be read back). */
const jsonOf: DuckDBValueConverter<Json> = (value, type, converter) =>
  value instanceof duckdb!.DuckDBBlobValue
    ? Buffer.from(value.bytes).toString('base64')
    : duckdb!.JsonDuckDBValueConverter(value, type, converter);

async function handle(request: ChildRequest): Promise<unknown> {
  if (request.op === 'open') {
    duckdb ??= await import('@duckdb/node-api');
    const instance = await duckdb.DuckDBInstance.create(
      ':memory:',
      request.sandbox
        ? { ...SANDBOX_SETTINGS, memory_limit: request.memoryLimit, ...request.settings }
        : { threads: '2', ...request.settings },
    );
    const connection = await instance.connect();
    if (request.sandbox) {
      // Instants in UTC whatever the machine's zone, then no setting changes again.
      await connection.run("SET TimeZone = 'UTC'").catch(() => {});
      await connection.run('SET lock_configuration = true');
    }
    const id = nextSession++;
    sessions.set(id, { instance, connection });
    return id;
  }
  const session = sessions.get(request.session);
  if (!session) throw new Error(`No DuckDB session ${request.session}`);
  const { connection } = session;
  switch (request.op) {
    case 'run':
      await connection.run(request.sql);
      return undefined;
    case 'append': {
      const appender = await connection.createAppender(request.table);
      try {
        for (const row of request.rows) {
          for (const value of row) {
            if (value === null) appender.appendNull();
            else appender.appendVarchar(value);
          }
          appender.endRow();
        }
      } finally {
        appender.closeSync();
      }
      return undefined;
    }
    case 'read': {
      const reader = await connection.streamAndReadUntil(request.sql, request.maxRows);
      return {
        names: reader.columnNames(),
        types: reader.columnTypes().map(typeName),
        rows: reader.convertRows(jsonOf),
      } satisfies ReadAnswer;
    }
    case 'stream': {
      const result: DuckDBResult = await connection.stream(request.sql);
      session.streaming = (async function* () {
        for await (const rows of result.yieldConvertedRows(jsonOf)) yield rows as unknown[][];
      })();
      return { names: result.columnNames(), types: result.columnTypes().map(typeName), rows: [] };
    }
    case 'next': {
      const next = await session.streaming?.next();
      return !next || next.done ? null : next.value;
    }
    case 'interrupt':
      connection.interrupt();
      return undefined;
    case 'close':
      sessions.delete(request.session);
      connection.closeSync();
      session.instance.closeSync();
      return undefined;
  }
}

const memoryLimit = Number(process.env.TOOLROW_SQL_MAX_RSS ?? 0);
if (memoryLimit > 0) {
  // The event loop stays free while DuckDB works on its own threads, so this check keeps running
  // inside a long function call.
  setInterval(() => {
    const rss = process.memoryUsage.rss();
    if (rss > memoryLimit) {
      process.send?.({ kind: 'memory', rss, limit: memoryLimit } satisfies ChildMessage, () =>
        process.kill(process.pid, 'SIGKILL'),
      );
      setTimeout(() => process.kill(process.pid, 'SIGKILL'), 50);
    }
  }, 10).unref();
}

process.on('message', (request: ChildRequest) => {
  handle(request).then(
    (value) => process.send?.({ id: request.id, ok: true, value } satisfies ChildMessage),
    (error: unknown) =>
      process.send?.({
        id: request.id,
        ok: false,
        error: error instanceof Error ? error.message : String(error),
      } satisfies ChildMessage),
  );
});
process.on('disconnect', () => process.exit(0));
