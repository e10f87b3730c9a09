// The server behind a connection: a pool of sessions, each pinned to Toolrow's settings before every
// read, every read in a READ ONLY transaction under the server's own time limit, and a second
// connection that stops one (KILL) at its limit, on cancel, or once its bounds are reached.
import { abortedError, DataSourceError, type ReadOnlyOptions } from '@toolrow/datasource';
import mysql, { type Pool, type PoolConnection, type PoolOptions } from 'mysql2/promise';
import { PIN_SESSION } from './sql.ts';
import type { MysqlAddress } from './url.ts';

export type Flavor = 'MariaDB' | 'MySQL';

/** The read-only layers a server connection holds; a test switches some off to show each other holds alone. */
export interface MysqlLayers {
  /** The statement check (QueryRunner.check's grammar check). */
  check: boolean;
  /** Every read inside START TRANSACTION READ ONLY on a session whose settings Toolrow pinned. */
  readOnlyTransaction: boolean;
}

export const ALL_LAYERS: MysqlLayers = { check: true, readOnlyTransaction: true };

/** A value as a read hands it over: text, numbers, JSON text, \x-hex for bytes. */
export type Cell = string | number | null;

export interface Bounds {
  maxRows: number;
  maxBytes: number;
  maxValueBytes: number;
}

export interface BoundedRows {
  columns: string[];
  rows: Cell[][];
  truncatedBy?: 'rows' | 'bytes';
  oversized: { row: number; column: string; bytes: number }[];
}

/** A session inside one read: its statements run in the read's transaction. */
export interface ReadSession {
  rows(sql: string, params: readonly unknown[], bounds: Bounds): Promise<BoundedRows>;
  /** Rows as the server sends them, paused while the consumer is busy (exports). */
  stream(
    sql: string,
    params: readonly unknown[],
  ): { columns: Promise<string[]>; batches: AsyncIterable<Cell[][]> };
}

/** mysql2's conversions: exact numbers as text, dates as the server writes them, bytes as \x-hex. */
const CONVERSIONS: Partial<PoolOptions> = {
  supportBigNumbers: true,
  bigNumberStrings: false,
  decimalNumbers: false,
  dateStrings: true,
  jsonStrings: true,
  multipleStatements: false,
  rowsAsArray: true,
  typeCast(field, next) {
    if (field.type === 'BIT') {
      const bytes = field.buffer();
      if (bytes === null) return null;
      let value = 0n;
      for (const byte of bytes) value = (value << 8n) | BigInt(byte);
      return value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value.toString();
    }
    return next();
  },
};

export function cellOf(value: unknown): Cell {
  if (value === null || value === undefined) return null;
  if (Buffer.isBuffer(value)) return `\\x${value.toString('hex')}`;
  if (typeof value === 'number' || typeof value === 'string') return value;
  if (typeof value === 'bigint') return value.toString();
  return String(value);
}

function sizeOf(value: Cell): number {
  return value === null ? 4 : typeof value === 'number' ? 8 : Buffer.byteLength(value);
}

interface CoreQuery {
  on(event: 'fields', listener: (fields: { name: string }[] | undefined) => void): CoreQuery;
  on(event: 'result', listener: (row: unknown[]) => void): CoreQuery;
  on(event: 'error', listener: (error: Error) => void): CoreQuery;
  on(event: 'end', listener: () => void): CoreQuery;
}
interface CoreConnection {
  query(options: { sql: string; values?: unknown[]; rowsAsArray: true }): CoreQuery;
  execute(options: { sql: string; values?: unknown[]; rowsAsArray: true }): CoreQuery;
  pause(): void;
  resume(): void;
}
const coreOf = (connection: PoolConnection) =>
  (connection as unknown as { connection: CoreConnection }).connection;

/** MySQL error numbers Toolrow reads. */
const ER = {
  interrupted: 1317,
  mariadbStatementTimeout: 1969,
  mysqlQueryTimeout: 3024,
  readOnlyTransaction: 1792,
  accessDenied: 1045,
  badDb: 1049,
  tableAccess: 1142,
  columnAccess: 1143,
  procAccess: 1370,
  commandDenied: 1227,
} as const;

export function errnoOf(error: unknown): number | undefined {
  const errno = (error as { errno?: unknown }).errno;
  return typeof errno === 'number' ? errno : undefined;
}

/** The server's words for a failed read, as Toolrow's error. */
export function readError(error: unknown, flavor: Flavor): unknown {
  const errno = errnoOf(error);
  const message = (error as Error).message;
  if (errno === ER.readOnlyTransaction)
    return new DataSourceError(
      'permission',
      `The statement is refused: it would write, and reads run in a READ ONLY transaction (${flavor} says: ${message}). Send one read-only SELECT.`,
      { cause: error },
    );
  if (
    errno === ER.tableAccess ||
    errno === ER.columnAccess ||
    errno === ER.procAccess ||
    errno === ER.commandDenied
  )
    return new DataSourceError('permission', `${flavor} refuses it: ${message}`, { cause: error });
  return error;
}

/**
 * The server's own limit for every statement of the session: MariaDB's max_statement_time (seconds,
 * every statement), MySQL's max_execution_time (ms, SELECT only; the client's KILL covers the rest).
 * 0 is no limit on both.
 */
export function timeLimitSql(flavor: Flavor, timeoutMs: number): string {
  const ms = Math.max(0, Math.round(timeoutMs));
  return flavor === 'MariaDB'
    ? `SET SESSION max_statement_time = ${ms / 1000}`
    : `SET SESSION max_execution_time = ${ms}`;
}

export interface MysqlServer {
  readonly flavor: Flavor;
  readonly version: string;
  /** Runs `work` in one read: a pinned session, READ ONLY (unless that layer is off), bounded in time. */
  read<T>(work: (session: ReadSession) => Promise<T>, options?: ReadOnlyOptions): Promise<T>;
  /** A pinned session outside a read, for Toolrow's own catalog reads and the commit writer. */
  withSession<T>(work: (connection: PoolConnection) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export interface OpenServerOptions {
  address: MysqlAddress;
  layers: MysqlLayers;
  /** For messages ('DATABASE_URL', "the connection 'shop'"). */
  field: string;
  connectionLimit?: number;
}

function connectError(error: unknown, options: OpenServerOptions): DataSourceError {
  const { address, field } = options;
  const errno = errnoOf(error);
  const where = `${address.user}@${address.host}:${address.port}/${address.database}`;
  if (errno === ER.accessDenied)
    return new DataSourceError(
      'connection',
      `${field}: ${where} refused the login (${(error as Error).message}). Check the user and password (a named connection keeps its URL's password apart; else MYSQL_PWD).`,
      { cause: error },
    );
  if (errno === ER.badDb)
    return new DataSourceError(
      'connection',
      `${field}: the server has no database '${address.database}'. Name one that exists (SHOW DATABASES lists them).`,
      { cause: error },
    );
  return new DataSourceError(
    'connection',
    `${field}: could not reach ${where}: ${(error as Error).message}. Is the server running there, and the port right?`,
    { cause: error },
  );
}

export async function openServer(options: OpenServerOptions): Promise<MysqlServer> {
  const { address, layers } = options;
  const base: PoolOptions = {
    host: address.host,
    port: address.port,
    user: address.user,
    database: address.database,
    ...(address.password !== undefined ? { password: address.password } : {}),
    ...(address.ssl ? { ssl: {} } : {}),
    charset: 'utf8mb4_unicode_ci',
    connectTimeout: 10_000,
    ...CONVERSIONS,
  };
  const pool: Pool = mysql.createPool({ ...base, connectionLimit: options.connectionLimit ?? 8, maxIdle: 2 });
  // KILL comes from a connection of its own: the reading one is busy.
  const control: Pool = mysql.createPool({ ...base, connectionLimit: 1, maxIdle: 1 });
  let version: string;
  try {
    const [rows] = (await pool.query('SELECT VERSION()')) as unknown as [unknown[][]];
    version = String(rows[0]![0]);
  } catch (error) {
    await Promise.allSettled([pool.end(), control.end()]);
    throw connectError(error, options);
  }
  const flavor: Flavor = /mariadb/i.test(version) ? 'MariaDB' : 'MySQL';

  const kill = (threadId: number) =>
    control.query(`KILL CONNECTION ${Number(threadId)}`).then(
      () => undefined,
      () => undefined,
    );

  const limitSql = (timeoutMs: number) => timeLimitSql(flavor, timeoutMs);

  async function acquire(): Promise<PoolConnection> {
    try {
      const connection = await pool.getConnection();
      await connection.query(PIN_SESSION);
      return connection;
    } catch (error) {
      throw connectError(error, options);
    }
  }

  return {
    flavor,
    version,
    async read(work, readOptions = {}) {
      const { signal } = readOptions;
      const timeoutMs = readOptions.timeoutMs ?? 10_000;
      if (signal?.aborted) throw abortedError();
      const connection = await acquire();
      // Stopped: the connection is killed on the server and dropped here, never reused; the read
      // answers at once (an interrupted SLEEP, say, would otherwise return as if it had finished).
      let stopped: 'timeout' | 'aborted' | 'bounds' | undefined;
      let interrupt!: (why: 'timeout' | 'aborted') => void;
      const interrupted = new Promise<never>((_, reject) => {
        interrupt = (why) => reject(why);
      });
      interrupted.catch(() => {});
      const stop = (why: 'timeout' | 'aborted' | 'bounds') => {
        if (stopped) return;
        stopped = why;
        void kill(connection.threadId);
        if (why !== 'bounds') interrupt(why);
      };
      const onAbort = () => stop('aborted');
      signal?.addEventListener('abort', onAbort, { once: true });
      // The server's limit is the first; this one catches a server that ignores it (MySQL's applies to SELECT only).
      const timer = timeoutMs > 0 ? setTimeout(() => stop('timeout'), timeoutMs + 1000) : undefined;
      let open = false;
      const session: ReadSession = {
        async rows(sql, params, bounds) {
          const answer = await boundedRows(coreOf(connection), sql, params, bounds);
          if (answer.truncatedBy) stop('bounds');
          return answer;
        },
        stream: (sql, params) => streamRows(coreOf(connection), sql, params),
      };
      const timedOut = (cause?: unknown) =>
        new DataSourceError(
          'timeout',
          `The read ran past its time limit of ${timeoutMs} ms and was stopped on the server. Narrow it (a WHERE on an indexed column, fewer rows, LIMIT) or raise the limit.`,
          cause === undefined ? {} : { cause },
        );
      const run = async () => {
        await connection.query(limitSql(timeoutMs));
        await connection.query(
          layers.readOnlyTransaction ? 'START TRANSACTION READ ONLY' : 'START TRANSACTION',
        );
        open = true;
        const result = await work(session);
        if (stopped !== 'bounds') await connection.query('COMMIT');
        open = false;
        return result;
      };
      const running = run();
      running.catch(() => {});
      try {
        return await Promise.race([running, interrupted]);
      } catch (error) {
        if (stopped === 'aborted') throw abortedError();
        if (stopped === 'timeout') throw timedOut(error);
        const errno = errnoOf(error);
        if (errno === ER.mariadbStatementTimeout || errno === ER.mysqlQueryTimeout) throw timedOut(error);
        throw readError(error, flavor);
      } finally {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        if (stopped || open) connection.destroy();
        else connection.release();
      }
    },
    async withSession(work) {
      const connection = await acquire();
      try {
        return await work(connection);
      } finally {
        connection.release();
      }
    },
    async close() {
      await Promise.allSettled([pool.end(), control.end()]);
    },
  };
}

function boundedRows(
  core: CoreConnection,
  sql: string,
  params: readonly unknown[],
  bounds: Bounds,
): Promise<BoundedRows> {
  return new Promise((resolve, reject) => {
    const answer: BoundedRows = { columns: [], rows: [], oversized: [] };
    let bytes = 0;
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      resolve(answer);
    };
    const query =
      params.length > 0
        ? core.execute({ sql, values: [...params], rowsAsArray: true })
        : core.query({ sql, rowsAsArray: true });
    query
      // A statement without rows reports no fields.
      .on('fields', (fields) => {
        if (fields) answer.columns = fields.map((field) => field.name);
      })
      .on('result', (raw) => {
        // A statement without rows (an OK packet) reports a header, not a row.
        if (done || !Array.isArray(raw)) return;
        if (answer.rows.length >= bounds.maxRows) {
          answer.truncatedBy = 'rows';
          core.pause();
          return finish();
        }
        const row = raw.map(cellOf);
        for (let index = 0; index < row.length; index++) {
          const size = sizeOf(row[index]!);
          if (size > bounds.maxValueBytes) {
            answer.oversized.push({
              row: answer.rows.length,
              column: answer.columns[index] ?? String(index),
              bytes: size,
            });
            row[index] = null;
          } else bytes += size;
        }
        answer.rows.push(row);
        if (bytes > bounds.maxBytes) {
          answer.truncatedBy = 'bytes';
          core.pause();
          finish();
        }
      })
      .on('error', (error) => {
        if (!done) {
          done = true;
          reject(error);
        }
      })
      .on('end', finish);
  });
}

function streamRows(
  core: CoreConnection,
  sql: string,
  params: readonly unknown[],
): { columns: Promise<string[]>; batches: AsyncIterable<Cell[][]> } {
  let queue: Cell[][] = [];
  let ended = false;
  let failure: unknown;
  let wake: (() => void) | undefined;
  let resolveColumns!: (columns: string[]) => void;
  let rejectColumns!: (error: unknown) => void;
  const columns = new Promise<string[]>((resolve, reject) => {
    resolveColumns = resolve;
    rejectColumns = reject;
  });
  const HIGH = 2000;
  const query =
    params.length > 0
      ? core.execute({ sql, values: [...params], rowsAsArray: true })
      : core.query({ sql, rowsAsArray: true });
  let paused = false;
  query
    .on('fields', (fields) => resolveColumns((fields ?? []).map((field) => field.name)))
    .on('result', (raw) => {
      if (!Array.isArray(raw)) return;
      queue.push(raw.map(cellOf));
      if (queue.length >= HIGH && !paused) {
        paused = true;
        core.pause();
      }
      wake?.();
    })
    .on('error', (error) => {
      failure = error;
      rejectColumns(error);
      wake?.();
    })
    .on('end', () => {
      ended = true;
      resolveColumns([]);
      wake?.();
    });
  columns.catch(() => {});
  return {
    columns,
    batches: {
      async *[Symbol.asyncIterator]() {
        for (;;) {
          if (queue.length > 0) {
            const batch = queue;
            queue = [];
            if (paused) {
              paused = false;
              core.resume();
            }
            yield batch;
            continue;
          }
          if (failure) throw failure;
          if (ended) return;
          await new Promise<void>((resolve) => {
            wake = resolve;
          });
          wake = undefined;
        }
      },
    },
  };
}
