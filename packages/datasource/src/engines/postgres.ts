import pg from 'pg';
import type { QueryResult } from '../database.ts';
import { DataSourceError } from '../errors.ts';
import type { Row } from '../types.ts';
import { type Adapter, type Connection, toFields } from './core.ts';
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

/** host:port/database as user, never the password. */
export function describeUrl(url: URL): string {
  const user = url.username ? `${decodeURIComponent(url.username)}@` : '';
  return `${user}${url.hostname || 'localhost'}:${url.port || '5432'}${url.pathname || '/'}`;
}

export function parsePostgresUrl(raw: string, source: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new DataSourceError(
      'config',
      `${source} is not a valid URL. Expected postgres://user:password@host:5432/database (percent-encode special characters in the password).`,
    );
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw new DataSourceError(
      'config',
      `${source} must start with postgres:// or postgresql://, got '${url.protocol}//…'. Unset it to use the embedded PGlite database.`,
    );
  }
  if (!url.pathname || url.pathname === '/') {
    throw new DataSourceError(
      'config',
      `${source} names no database: add it after the host, e.g. postgres://user@host:5432/shop.`,
    );
  }
  return url;
}

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
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.poolSize ?? 5,
    connectionTimeoutMillis: 10_000,
    idleTimeoutMillis: 30_000,
    // Same clock for both engines: PGlite runs in UTC.
    options: '-c TimeZone=UTC',
    types: TYPES,
  });
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
    restarts: 0,
    async acquire() {
      const client = await pool.connect();
      const connection: Connection = {
        query: async (sql, params) => toResult(await client.query(sql, params as unknown[])),
        exec: async (sql) => {
          await client.query(sql);
        },
      };
      return { connection, release: (broken) => client.release(broken === true) };
    },
    query: async (sql, params) => toResult(await pool.query(sql, params as unknown[])),
    close: () => pool.end(),
  };
}
