import type { ChangeWriter } from './changes.ts';
import type { ExportEngine, ExportEngineOptions, ExportJobStore } from './exports.ts';
import type { QueryRunner } from './queries.ts';
import type { ReaderRoleStatus, ReadLayer } from './read-layers.ts';
import type { RowReader } from './rows.ts';
import type { SchemaCache } from './schema-cache.ts';
import type { SeedOptions, SeedResult } from './seed-types.ts';

/**
 * The user's data, behind one handle whatever the engine: the schema cache, the row reader, queries
 * in the engine's dialect, the data side of commits, the sample-shop seeder. No part of it is a
 * driver's handle: a tool asks for a capability, and each engine implements them all. Toolrow's own
 * state (app state, the staging area, export jobs) is not here: it lives in @toolrow/state.
 */
export interface DataSource {
  /** The engine's id (its descriptor's); the tools it serves follow its features, which the rows' `needs` name. */
  readonly engine: string;
  /** The driver it is connected through (one of its engine's `drivers`). */
  readonly driver: string;
  /** What the engine can do that some tools need ('foreignKeys'): the rows' `needs` name them. */
  readonly features: readonly string[];
  /** Where the data is, without secrets ("PostgreSQL u@h:5432/db", "PGlite /path"). */
  readonly description: string;
  readonly schema: SchemaCache;
  readonly rows: RowReader;
  /** Read-only statements in the engine's own dialect (runQuery, validateQuery, explainQuery). */
  readonly queries: QueryRunner;
  /** Reads rows as they are now, converts staged values, applies commits (the user's only). */
  readonly changes: ChangeWriter;
  /** The engine's exporter of tables and queries to files, its jobs kept in `jobs`. */
  createExportEngine(dir: string, jobs: ExportJobStore, options?: ExportEngineOptions): ExportEngine;
  /** Which read-only layers hold on this connection, each with why (`connections test`, `db info`). */
  readLayers(): Promise<ReadLayer[]>;
  /**
   * What a person testing the connection should know beyond its tables and layers: whose
   * credentials it signs with, why a database that should hold tables shows none.
   */
  connectionNotes?(): Promise<string[]>;
  /** Sets up (embedded) or looks for (a server) the engine's read-only login; once is enough. */
  setUpReaderRole(): Promise<ReaderRoleStatus>;
  /** The Toolrow data directory (absolute): PGlite keeps the embedded database in <dataDir>/pgdata. */
  readonly dataDir: string;
  /** Fills the database with the deterministic sample shop (see `toolrow db seed`). */
  seed(options?: SeedOptions): Promise<SeedResult>;
  /** Closes the connection (and the commit connection, and runs any onClose hooks). */
  close(): Promise<void>;
}
