// A connection in the PostgreSQL dialect, with its driver handle: for SQL-only work.
import { type DataSource, DataSourceError, type DataSourceWith } from '@toolrow/datasource';
import type { Database, OpenDatabaseOptions, SqlEngine } from './database.ts';
import type { ReaderRoleStatus } from './reader-role.ts';

export interface OpenDataSourceOptions extends OpenDatabaseOptions {
  /**
   * Where commits are written (default: TOOLROW_COMMIT_URL, else the same connection). Lets Toolrow
   * read through a SELECT-only user and write only what the user commits through another.
   */
  commitUrl?: string;
  /**
   * 'later': do not set up the reader role on open; the caller calls `setUpReaderRole()` once
   * interrupted commits are settled (setting it up on embedded PGlite writes the catalog, and after
   * a crash the first write can take the id of a commit the crash interrupted). Default: on open.
   */
  readerRoleSetup?: 'on-open' | 'later';
}

/** A connection in the PostgreSQL dialect (PGlite or a server): its driver handle too, for SQL-only work. */
export interface SqlDataSource extends DataSourceWith {
  readonly driver: SqlEngine;
  readonly db: Database;
  /** The reader role reads run as, or why there is none (`toolrow db info` shows it). */
  readonly readerRole: ReaderRoleStatus;
}

export function isSqlSource(source: DataSource): source is SqlDataSource {
  return 'db' in source && (source.driver === 'pglite' || source.driver === 'postgres');
}

/**
 * The SQL handle of a PostgreSQL-dialect connection, for work that only exists there (reader-role
 * DDL, `db info`'s catalog probes); on another engine a clear error naming `what`.
 */
export function sqlDatabaseOf(source: DataSource, what = 'This'): Database {
  if (isSqlSource(source)) return source.db;
  throw new DataSourceError(
    'misuse',
    `${what} works on PostgreSQL and PGlite connections only; this one is ${source.description}.`,
  );
}
