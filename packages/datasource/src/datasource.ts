import type { AppState } from './app-state.ts';
import type { Database, OpenDatabaseOptions } from './database.ts';
import type { ExportEngine } from './exports.ts';
import type { RowReader } from './rows.ts';
import type { SchemaCache } from './schema-cache.ts';
import type { SeedOptions, SeedResult } from './seed-types.ts';
import type { Staging } from './staging.ts';

export interface OpenDataSourceOptions extends OpenDatabaseOptions {
  /** Where exports go (default: TOOLROW_EXPORTS_DIR, else <dataDir>/exports). */
  exportsDir?: string;
  /** Run the app-state migrations on open (default true). */
  migrate?: boolean;
  /** The name this connection is listed under by listConnections (default 'default'). */
  connectionName?: string;
}

/**
 * Everything Toolrow needs from the database, behind one handle: what tools get in their context,
 * what the agent, MCP server, server app and CLI open once and share.
 */
export interface DataSource {
  readonly db: Database;
  readonly app: AppState;
  readonly schema: SchemaCache;
  readonly rows: RowReader;
  readonly staging: Staging;
  readonly exports: ExportEngine;
  /** The Toolrow data directory (absolute); for PostgreSQL it only holds exports. */
  readonly dataDir: string;
  /** Fills the database with the deterministic sample shop (see `toolrow db seed`). */
  seed(options?: SeedOptions): Promise<SeedResult>;
  /** Waits for background exports, then closes the connection (and runs any onClose hooks). */
  close(): Promise<void>;
}

export { openDataSource } from './datasource-impl.ts';
