import type { FieldInfo, ReadOnlyOptions, ReadQueryOptions, ReadQueryResult, Row } from '@toolrow/datasource';

export type { FieldInfo, ReadOnlyOptions, ReadQueryOptions, ReadQueryResult };

/** The drivers of the PostgreSQL engine. */
export type SqlEngine = 'pglite' | 'postgres';

export interface QueryResult<R = Row> {
  rows: R[];
  fields: FieldInfo[];
  /** Rows returned, or affected by INSERT/UPDATE/DELETE. */
  rowCount: number;
}

/** Anything that runs one parameterised statement ($1, $2, …): the database, or a transaction handle. */
export interface Queryable {
  query<R = Row>(sql: string, params?: readonly unknown[]): Promise<QueryResult<R>>;
}

export interface TransactionOptions {
  readOnly?: boolean;
  isolation?: 'read committed' | 'repeatable read' | 'serializable';
}

export interface CursorOptions extends ReadOnlyOptions {
  /** Rows per FETCH (default 1000). */
  batchSize?: number;
  /** Called once with the result's columns, after the first FETCH (also when there are no rows). */
  onFields?: (fields: FieldInfo[]) => void;
}

export interface TextLinesOptions extends ReadOnlyOptions {
  /** Rows per FETCH (default 5000). */
  batchSize?: number;
}

/** Rows of one text column as bytes, each row's value followed by LF. */
export interface TextLines {
  bytes: Uint8Array;
  rows: number;
}

/**
 * One Postgres-dialect connection, the same for both engines. On PGlite every call is serialised
 * (one connection); on PostgreSQL calls share a pool. Inside transaction/readOnly use the handle
 * you are given: calling the Database itself from inside its own transaction throws (it would
 * otherwise deadlock on PGlite).
 */
export interface Database extends Queryable {
  readonly engine: SqlEngine;
  /** Where it points, without secrets: "PGlite at /home/me/.toolrow/pgdata" or "PostgreSQL toolrow@db:5432/shop". */
  readonly description: string;
  /** Runs a script of several statements without parameters (migrations, DDL). */
  exec(sql: string): Promise<void>;
  /** BEGIN … COMMIT around fn; ROLLBACK and rethrow when fn throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>, options?: TransactionOptions): Promise<T>;
  /** A READ ONLY transaction with a statement_timeout; always rolled back. What runQuery uses. */
  readOnly<T>(fn: (tx: Queryable) => Promise<T>, options?: ReadOnlyOptions): Promise<T>;
  /**
   * One SELECT/VALUES statement in a READ ONLY transaction, through a cursor that fetches at most
   * maxRows + 1 rows: bounded memory whatever the statement returns. DECLARE refuses anything but
   * a query, and READ ONLY refuses writes: defence in depth under the tools' SQL guard.
   */
  readQuery<R = Row>(
    sql: string,
    params?: readonly unknown[],
    options?: ReadQueryOptions,
  ): Promise<ReadQueryResult<R>>;
  /**
   * Streams a SELECT in batches with DECLARE … CURSOR / FETCH, read-only. Memory stays constant.
   * On PGlite the cursor is WITH HOLD so other callers can run between batches.
   */
  cursor<R = Row>(sql: string, params?: readonly unknown[], options?: CursorOptions): AsyncIterable<R[]>;
  /**
   * Streams a SELECT of one text column as bytes (each value followed by LF), in batches of
   * FETCH on a cursor that is not held: the read-only transaction stays open (and on PGlite the
   * connection stays taken) until the last batch, so nothing is materialised. For exports; the
   * values must hold no LF of their own for the lines to mean rows.
   */
  textLines(sql: string, params?: readonly unknown[], options?: TextLinesOptions): AsyncIterable<TextLines>;
  /**
   * PostgreSQL only: runs `COPY (…) TO STDOUT …` inside the same read layers as readOnly (READ
   * ONLY transaction, pinned settings, reader role) and streams the server's bytes with
   * backpressure. COPY takes no parameters: inline them first. `copySupported` says whether the
   * engine has it.
   */
  copyOut(sql: string, options?: ReadOnlyOptions): AsyncIterable<Uint8Array>;
  /** Whether copyOut works on this engine (PostgreSQL: yes; PGlite: no). */
  readonly copySupported: boolean;
  /** The role reads run as (SET LOCAL ROLE), when one is set up: see reader-role.ts. */
  readonly readerRole: string | undefined;
  /** Reads (readOnly, readQuery, cursor) run as this role from now on; undefined: as the login user. */
  useReaderRole(role: string | undefined): void;
  close(): Promise<void>;
  readonly closed: boolean;
}

/** Which connection to open; see resolveConnectionConfig for how the environment decides. */
export interface OpenDatabaseOptions {
  /** Read DATABASE_URL and TOOLROW_DATA_DIR from here (default: process.env). */
  env?: Readonly<Record<string, string | undefined>>;
  /** Relative data dirs resolve against this (default: process.cwd()). */
  cwd?: string;
  /** A postgres:// URL; wins over DATABASE_URL. */
  url?: string;
  /** What errors call the url option (default "the url option"), e.g. "TOOLROW_STATE_URL". */
  urlSource?: string;
  /** The Toolrow data directory (PGlite keeps its database in <dataDir>/pgdata); wins over TOOLROW_DATA_DIR. */
  dataDir?: string;
  /** PGlite in memory (tests). Ignored when a URL is given. */
  memory?: boolean;
  /**
   * PGlite: the cluster directory itself (default <dataDir>/pgdata); errors name it as `pgdataSource`.
   * Ignored when a URL is given or DATABASE_URL is read.
   */
  pgdata?: string;
  pgdataSource?: string;
  /**
   * On-disk PGlite runs in a worker thread (default true), so a runaway read can be stopped. A
   * store that only runs its own short statements can stay in the calling thread.
   */
  worker?: boolean;
  /** Embedded PGlite: postgresql.conf lines (a small store can take a small shared_buffers). */
  embeddedSettings?: readonly string[];
  /**
   * PGlite: start from a dumped data directory instead of running initdb — in memory, or in a data
   * directory that holds no database yet (the test helper's fast path). Ignored otherwise.
   */
  loadDataDir?: Blob;
  /** pg pool size (default 5). */
  poolSize?: number;
}

export type ConnectionConfig =
  | { engine: 'postgres'; url: string; dataDir: string; source: 'option' | 'DATABASE_URL' }
  | { engine: 'pglite'; dataDir: string; memory: boolean };
