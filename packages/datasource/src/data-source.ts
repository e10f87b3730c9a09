import type { EngineFeature } from '@toolrow/declarations';
import type { ChangeWriter } from './changes.ts';
import type { ExportEngine, ExportEngineOptions, ExportJobStore } from './exports.ts';
import type { QueryRunner } from './queries.ts';
import type { ReaderRoleStatus, ReadLayer } from './read-layers.ts';
import type { RowReader } from './rows.ts';
import type { SchemaCache } from './schema-cache.ts';
import type { SeedOptions, SeedResult } from './seed-types.ts';

/**
 * The user's data, behind one handle whatever the engine: the schema cache, the row reader, queries
 * in the engine's language, and what its features add (the data side of commits, exports, the
 * sample-shop seeder, a reader role). No part of it is a driver's handle. Toolrow's own
 * state (app state, the staging area, export jobs) is not here: it lives in @toolrow/state.
 */
export interface DataSource {
  /** The engine's id (its descriptor's). */
  readonly engine: string;
  /** The driver it is connected through (one of its engine's `drivers`). */
  readonly driver: string;
  /** Its engine's features (the descriptor's list itself): the tools it serves follow them. */
  readonly features: readonly EngineFeature[];
  /** Where the data is, without secrets ("PostgreSQL u@h:5432/db", "PGlite /path"). */
  readonly description: string;
  readonly schema: SchemaCache;
  readonly rows: RowReader;
  /** Read-only statements in the engine's own dialect (runQuery, validateQuery, explainQuery). */
  readonly queries: QueryRunner;
  /** Reads rows as they are now, converts staged values, applies commits (the user's only): with 'stagedWrites'. */
  readonly changes?: ChangeWriter;
  /** The engine's exporter of tables and queries to files, its jobs kept in `jobs`: with 'exports'. */
  createExportEngine?(dir: string, jobs: ExportJobStore, options?: ExportEngineOptions): ExportEngine;
  /** Which read-only layers hold on this connection, each with why (`connections test`, `db info`). */
  readLayers(): Promise<ReadLayer[]>;
  /**
   * What a person testing the connection should know beyond its tables and layers: whose
   * credentials it signs with, why a database that should hold tables shows none.
   */
  connectionNotes?(): Promise<string[]>;
  /** Sets up (embedded) or looks for (a server) the engine's read-only login; once is enough: with 'readerRoles'. */
  setUpReaderRole?(): Promise<ReaderRoleStatus>;
  /** The Toolrow data directory (absolute): where an embedded engine keeps its database. */
  readonly dataDir: string;
  /** Fills the database with the deterministic sample shop (see `toolrow db seed`): with 'seed'. */
  seed?(options?: SeedOptions): Promise<SeedResult>;
  /** Closes the connection (and the commit connection, and runs any onClose hooks). */
  close(): Promise<void>;
}
