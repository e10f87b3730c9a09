import { finished } from 'node:stream/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { DataSourceError, type Row } from '@toolrow/datasource';
import pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import type { QueryResult } from '../database.ts';
import { type Adapter, type Connection, toFields } from './core.ts';
import { describeUrl, parsePostgresUrl } from './postgres-url.ts';
import { PARSERS } from './values.ts';

export interface PostgresOpenOptions {
  url: string;
  /** What to name in errors ("DATABASE_URL", "the url option", …). */
  source: string;
  poolSize?: number;
}

/** pg's parsers, with ours on top for the types where the engines would otherwise disagree. */
const TYPES = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    const ours = PARSERS[oid];
    if (ours && format !== 'binary') return ours;
    return (pg.types.getTypeParser as (oid: number, format?: string) => unknown)(oid, format ?? 'text');
  },
};

function explainConnectError(error: unknown, where: string, source: string): DataSourceError {
  const err = error as { code?: string; message?: string };
  const message = err.message ?? String(error);
  switch (err.code) {
    case 'ECONNREFUSED':
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'ETIMEDOUT':
    case 'EHOSTUNREACH':
      return new DataSourceError(
        'connection',
        `Cannot reach PostgreSQL at ${where} (from ${source}): ${message}. Check that the server is running and that the host and port in ${source} are right, or unset ${source} to use the embedded PGlite database.`,
        { cause: error },
      );
    case '28P01':
    case '28000':
      return new DataSourceError(
        'connection',
        `PostgreSQL at ${where} refused the login: ${message}. Check the user and password in ${source}.`,
        { cause: error },
      );
    case '3D000':
      return new DataSourceError(
        'connection',
        `${message} on ${where}. Create it (createdb) or fix the database name in ${source}.`,
        { cause: error },
      );
    default:
      return new DataSourceError(
        'connection',
        `Cannot connect to PostgreSQL at ${where} (from ${source}): ${message}. Check the server and ${source}.`,
        { cause: error },
      );
  }
}

/**
 * Every parameterised call goes over the extended query protocol, even without parameters: its
 * Parse message takes exactly one statement, so `…; COMMIT; DELETE …` is refused by the server
 * whatever the text hides (the simple protocol would run all three). `exec` keeps the simple
 * protocol for Toolrow's own scripts (migrations, seeding).
 */
function extended(sql: string, params: readonly unknown[]): pg.QueryConfig {
  return { text: sql, values: params as unknown[], queryMode: 'extended' } as pg.QueryConfig;
}

/**
 * COPY … TO STDOUT on the client, as a stream read at the consumer's pace: pg-copy-streams pauses
 * the socket while its buffer is full, so a slow disk slows the server instead of filling memory.
 * `track` learns when the statement ends (for a cancel that must wait for it).
 */
function copyOutOf(client: pg.PoolClient, track?: (ended: Promise<unknown>) => void) {
  return (sql: string): AsyncIterable<Uint8Array> => {
    // A high-water mark of 256 KiB: fewer, larger chunks for the writer than the default 16 KiB.
    const stream = client.query(copyTo(sql, { highWaterMark: 256 * 1024 }));
    track?.(finished(stream));
    return stream;
  };
}

function plainConnection(client: pg.PoolClient): Connection {
  return {
    query: async (sql, params) => toResult(await client.query(extended(sql, params))),
    exec: async (sql) => {
      await client.query(sql);
    },
    copyOut: copyOutOf(client),
  };
}

/**
 * Cancels until the statement ends. A cancel that reaches the backend before it has read the
 * statement (sent a moment before the abort) is ignored by Postgres, so one is not enough. If no
 * cancel can be sent, the statement runs on to its statement_timeout.
 */
async function stopStatement(statement: Promise<unknown>, cancel: () => Promise<void>): Promise<void> {
  let ended = false;
  const end = statement.then(
    () => {
      ended = true;
    },
    () => {
      ended = true;
    },
  );
  while (!ended) {
    await cancel().catch(() => {});
    await Promise.race([end, sleep(RECANCEL_MS)]);
  }
}

const RECANCEL_MS = 200;

function toResult(result: pg.QueryResult): QueryResult<Row> {
  return {
    rows: result.rows as Row[],
    fields: toFields(result.fields),
    rowCount: result.rowCount ?? result.rows.length,
  };
}

export async function openPostgres(options: PostgresOpenOptions): Promise<Adapter> {
  const url = parsePostgresUrl(options.url, options.source);
  const where = describeUrl(url);
  const max = options.poolSize ?? 5;
  const clientConfig = {
    connectionString: options.url,
    connectionTimeoutMillis: 10_000,
    // Same clock for both engines (PGlite runs in UTC). The string settings are pinned for the
    // whole session too, over any database or role default: reads pin them again per transaction.
    options: '-c TimeZone=UTC -c client_encoding=UTF8 -c standard_conforming_strings=on',
    types: TYPES,
  };
  const pool = new pg.Pool({ ...clientConfig, max, idleTimeoutMillis: 30_000 });

  /**
   * Stops the statement a backend is running (an aborted read). From a spare pool client, or from
   * a connection of its own when every client is busy — perhaps with reads being aborted too.
   */
  async function cancelBackend(pid: number): Promise<void> {
    const sql = 'SELECT pg_cancel_backend($1)';
    if (pool.idleCount > 0 || pool.totalCount < max) {
      await pool.query(sql, [pid]);
      return;
    }
    const client = new pg.Client(clientConfig);
    client.on('error', () => {});
    try {
      await client.connect();
      await client.query(sql, [pid]);
    } finally {
      await client.end().catch(() => {});
    }
  }

  // An idle client that dies (server restart) must not crash the process; the next query reconnects.
  pool.on('error', () => {});
  try {
    const client = await pool.connect();
    client.release();
  } catch (error) {
    await pool.end().catch(() => {});
    throw explainConnectError(error, where, options.source);
  }
  return {
    engine: 'postgres',
    description: `PostgreSQL ${where}`,
    holdCursors: false,
    copy: true,
    restarts: 0,
    async acquire(leaseOptions = {}) {
      const client = await pool.connect();
      const { signal } = leaseOptions;
      // Aborted before it got the client: the core runs nothing on it, so there is nothing to cancel.
      if (!signal || signal.aborted) {
        return {
          connection: plainConnection(client),
          release: (broken) => client.release(broken === true),
        };
      }
      let running: Promise<unknown> | undefined;
      const connection: Connection = {
        async query(sql, params) {
          const statement = client.query(extended(sql, params));
          running = statement;
          try {
            return toResult(await statement);
          } finally {
            if (running === statement) running = undefined;
          }
        },
        exec: async (sql) => {
          await client.query(sql);
        },
        copyOut: copyOutOf(client, (ended) => {
          running = ended;
          ended.then(
            () => {
              if (running === ended) running = undefined;
            },
            () => {
              if (running === ended) running = undefined;
            },
          );
        }),
      };
      // pg's Client has the backend's pid from the startup handshake (BackendKeyData).
      const pid = (client as unknown as { processID: number }).processID;
      let cancelling: Promise<void> | undefined;
      const onAbort = () => {
        // Between statements there is nothing to stop: the core runs no further statement.
        if (running) cancelling = stopStatement(running, () => cancelBackend(pid));
      };
      signal.addEventListener('abort', onAbort, { once: true });
      return {
        connection,
        release(broken) {
          signal.removeEventListener('abort', onAbort);
          if (!cancelling) {
            client.release(broken === true);
            return;
          }
          // A cancel that lands late would stop another caller's statement: this backend is never reused.
          void cancelling.then(() => client.release(true));
        },
      };
    },
    query: async (sql, params) => toResult(await pool.query(extended(sql, params))),
    close: () => pool.end(),
  };
}
