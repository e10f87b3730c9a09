// Toolrow's own store, on either dialect: embedded SQLite (node:sqlite) by default, or a team's
// PostgreSQL server. Everything above talks to it through one typed Kysely layer; the few places
// where the two dialects must differ are the helpers at the bottom of this file.
import { chmod } from 'node:fs/promises';
import { DatabaseSync } from 'node:sqlite';
import { APP_SCHEMA, DataSourceError } from '@toolrow/datasource';
import type { Database } from '@toolrow/postgres';
import { type Expression, Kysely, type RawBuilder, sql, WithSchemaPlugin } from 'kysely';
import { NodeSqliteDialect } from './node-sqlite-dialect.ts';
import { DatabaseDialect } from './postgres-dialect.ts';
import type { StateTables } from './tables.ts';

export type StateDialect = 'sqlite' | 'postgres';

/** Kysely over the state tables: the store itself, or one of its transactions. */
export type StateQueries = Kysely<StateTables>;

export interface StateDb {
  readonly q: StateQueries;
  readonly dialect: StateDialect;
  /** Where the state lives, without secrets ("SQLite at …/state.db", "PostgreSQL u@h:5432/state"). */
  readonly description: string;
  readonly closed: boolean;
  close(): Promise<void>;
}

/** How long a write waits for another process's write to finish before giving up (default). */
export const STATE_BUSY_TIMEOUT_MS = 5_000;

export interface SqliteStoreOptions {
  /** Wait at most this long for another process's write (default STATE_BUSY_TIMEOUT_MS). */
  busyTimeoutMs?: number;
}

function sqliteError(error: unknown, path: string, busyTimeoutMs: number): unknown {
  const code = (error as { errcode?: unknown }).errcode;
  if (typeof code !== 'number') return error;
  const where = path === ':memory:' ? 'in memory' : `at ${path}`;
  switch (code & 0xff) {
    case 5: // SQLITE_BUSY
    case 6: // SQLITE_LOCKED
      return new DataSourceError(
        'connection',
        `Toolrow's state ${where} is being written by another process and stayed locked for ${busyTimeoutMs / 1000} s. Another Toolrow (the app, a CLI command or an MCP server) holds it: let it finish or stop it, then run this again. Nothing was written.`,
        { cause: error },
      );
    case 8: // SQLITE_READONLY
      return new DataSourceError(
        'config',
        `Toolrow's state ${where} cannot be written (read-only file or folder). Give your account write access to it, or point TOOLROW_DATA_DIR elsewhere.`,
        { cause: error },
      );
    case 11: // SQLITE_CORRUPT
    case 26: // SQLITE_NOTADB
      return new DataSourceError(
        'config',
        `Toolrow's state ${where} is not a readable SQLite database (${(error as Error).message}). Move the file aside and start again, or restore it from a backup.`,
        { cause: error },
      );
    case 13: // SQLITE_FULL
      return new DataSourceError(
        'config',
        `The disk holding Toolrow's state ${where} is full. Free some space and run this again; nothing was written.`,
        { cause: error },
      );
    default:
      return error;
  }
}

/**
 * Opens (creating) an embedded store: a SQLite file, or ':memory:'. WAL keeps readers and the
 * writer apart and survives a crash; synchronous=FULL makes every commit durable before it
 * returns, because a staging claim must be on disk before the user's data is committed.
 */
export async function openSqliteStore(path: string, options: SqliteStoreOptions = {}): Promise<StateDb> {
  const busyTimeoutMs = options.busyTimeoutMs ?? STATE_BUSY_TIMEOUT_MS;
  const mapError = (error: unknown) => sqliteError(error, path, busyTimeoutMs);
  let raw: DatabaseSync;
  try {
    raw = new DatabaseSync(path, { timeout: busyTimeoutMs, enableForeignKeyConstraints: true });
    if (path !== ':memory:') raw.exec('PRAGMA journal_mode = WAL');
    raw.exec('PRAGMA synchronous = FULL');
  } catch (error) {
    throw mapError(error);
  }
  if (path !== ':memory:') {
    // The data dir is private already; the files are too, whatever the umask.
    for (const file of [path, `${path}-wal`, `${path}-shm`]) await chmod(file, 0o600).catch(() => {});
  }
  return wrap(new Kysely<StateTables>({ dialect: new NodeSqliteDialect(raw, mapError) }), 'sqlite', {
    description: path === ':memory:' ? 'SQLite in memory' : `SQLite at ${path}`,
  });
}

/** A store on a PostgreSQL server, over a connection the data layer opened (tables in APP_SCHEMA). */
export function postgresStore(db: Database): StateDb {
  return wrap(
    new Kysely<StateTables>({
      dialect: new DatabaseDialect(db),
      plugins: [new WithSchemaPlugin(APP_SCHEMA)],
    }),
    'postgres',
    { description: db.description },
  );
}

function wrap(q: StateQueries, dialect: StateDialect, { description }: { description: string }): StateDb {
  let closing: Promise<void> | undefined;
  return {
    q,
    dialect,
    description,
    get closed() {
      return closing !== undefined;
    },
    close() {
      closing ??= q.destroy();
      return closing;
    },
  };
}

// ── Where the dialects differ ───────────────────────────────────────────────────────────────

/** Row locks where the store has them (PostgreSQL's FOR UPDATE); SQLite's one writer needs none. Use with `$call`. */
export function lockRows(dialect: StateDialect) {
  return <QB extends { forUpdate(): QB }>(qb: QB): QB => (dialect === 'postgres' ? qb.forUpdate() : qb);
}

/** A JSON column as its text: PostgreSQL's jsonb output, SQLite's stored text (exact numbers both). */
export function jsonText(dialect: StateDialect, column: string): RawBuilder<string | null> {
  return dialect === 'postgres'
    ? sql<string | null>`${sql.ref(column)}::text`
    : sql<string | null>`${sql.ref(column)}`;
}

/** Bytes in a binary column. */
export function byteLength(dialect: StateDialect, column: string): RawBuilder<number> {
  return dialect === 'postgres'
    ? sql<number>`octet_length(${sql.ref(column)})`
    : sql<number>`length(${sql.ref(column)})`;
}

const COUNTERS = {
  'attachments.seq': `${APP_SCHEMA}.attachments_seq_seq`,
  'export_jobs.seq': `${APP_SCHEMA}.export_jobs_seq_seq`,
  'conversations.touched': `${APP_SCHEMA}.conversations_touched`,
} as const;

/**
 * The next value of a strictly rising counter ("newest first" orders by it, as timestamps can tie).
 * PostgreSQL: its sequence. SQLite: one more than the largest, exact because SQLite has one writer.
 */
export function nextValue(dialect: StateDialect, counter: keyof typeof COUNTERS): Expression<number> {
  if (dialect === 'postgres') return sql<number>`nextval(${COUNTERS[counter]}::regclass)`;
  const [table, column] = counter.split('.') as [string, string];
  return sql<number>`(SELECT coalesce(max(${sql.ref(column)}), 0) + 1 FROM ${sql.table(table)})`;
}

/** Whether an insert failed on a unique index or primary key. */
export function isUniqueViolation(error: unknown): boolean {
  const { code, errcode } = error as { code?: unknown; errcode?: unknown };
  // PostgreSQL 23505; SQLite SQLITE_CONSTRAINT_UNIQUE (2067) and _PRIMARYKEY (1555).
  return code === '23505' || errcode === 2067 || errcode === 1555;
}

/** A JSON column's value, parsed whichever dialect returned it. */
export function jsonValue<T>(value: unknown): T {
  return (typeof value === 'string' ? JSON.parse(value) : value) as T;
}

export function date(value: unknown): Date {
  return value instanceof Date ? value : new Date(String(value));
}

export function dateOrNull(value: unknown): Date | null {
  return value === null || value === undefined ? null : date(value);
}

export function flag(value: unknown): boolean {
  return value === true || value === 1;
}
