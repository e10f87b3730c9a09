import type { ToolEngine } from '@toolrow/declarations';
import type { ChangeWriter } from './changes.ts';
import type { Database, OpenDatabaseOptions } from './database.ts';
import type { ReaderRoleStatus } from './reader-role.ts';
import type { RowReader } from './rows.ts';
import type { SchemaCache } from './schema-cache.ts';
import type { SeedOptions, SeedResult } from './seed-types.ts';

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

/**
 * The user's data, behind one handle: the connection, the schema cache, the row reader, the
 * data side of commits, the sample-shop seeder. Toolrow's own state (app state, the staging area,
 * export jobs) is not here: it lives in @toolrow/state, in a store of its own.
 */
export interface DataSource {
  /** The engine family, which decides the tools the connection serves (the rows' `engines`). */
  readonly engine: ToolEngine;
  readonly db: Database;
  readonly schema: SchemaCache;
  readonly rows: RowReader;
  /** Reads rows as they are now, converts staged values, applies commits (the user's only). */
  readonly changes: ChangeWriter;
  /** The reader role reads run as, or why there is none (`toolrow db info` shows it). */
  readonly readerRole: ReaderRoleStatus;
  /** Sets up (embedded PGlite) or looks for (a server) the reader role; once is enough. */
  setUpReaderRole(): Promise<ReaderRoleStatus>;
  /** The Toolrow data directory (absolute): PGlite keeps the embedded database in <dataDir>/pgdata. */
  readonly dataDir: string;
  /** Fills the database with the deterministic sample shop (see `toolrow db seed`). */
  seed(options?: SeedOptions): Promise<SeedResult>;
  /** Closes the connection (and the commit connection, and runs any onClose hooks). */
  close(): Promise<void>;
}
