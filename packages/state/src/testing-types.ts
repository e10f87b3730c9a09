// The test helpers' types, apart, so the helpers and their entry point do not import each other.
import type { OpenTestOptions as DataTestOptions } from '@toolrow/postgres/testing';
import type { StagingOptions } from './staging-impl.ts';
import type { Toolrow } from './toolrow.ts';

export interface OpenTestOptions extends DataTestOptions {
  /** Exports folder (default: a fresh temp dir, removed on close). */
  exportsDir?: string;
  /** Test hooks of the staging area. */
  staging?: StagingOptions;
}

export interface StoreEngine {
  name: 'pglite' | 'pglite-disk' | 'postgres' | 'dynamodb';
  /** The user's data (seeded when asked) and an empty, migrated state store. */
  open(options?: OpenTestOptions): Promise<Toolrow>;
}

/** A fresh configuration reachable through environment variables, for code that opens its own (CLI, servers). */
export interface TestEnvironment {
  name: 'pglite' | 'postgres';
  /**
   * Pass to the code under test. PGlite: TOOLROW_DATA_DIR (data and state embedded there, DATABASE_URL
   * and TOOLROW_STATE_URL empty). PostgreSQL: DATABASE_URL and TOOLROW_STATE_URL of two new databases.
   */
  env: Record<string, string>;
  /** A fresh temp folder to run in (holds the data dir and exports). */
  cwd: string;
  /** Drops the databases / deletes the folder. */
  cleanup(): Promise<void>;
}
