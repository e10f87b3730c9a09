// The test helpers' types, apart, so the helpers and their entry point do not import each other.

import type { SeedOptions } from '@toolrow/datasource';
import type { SqlDataSource } from './sql-source.ts';

export interface OpenTestOptions {
  /** Seed the sample shop (defaults: 200 orders, seed 42, now pinned to 2026-06-01). */
  seed?: SeedOptions | boolean;
}

export interface TestEngine {
  name: 'pglite' | 'pglite-disk' | 'postgres';
  /**
   * A fresh data source. pglite: in memory. pglite-disk: a temp data directory, PGlite in a
   * worker thread. postgres: a new database toolrow_t_<random>.
   */
  open(options?: OpenTestOptions): Promise<SqlDataSource>;
}

/** A database created for a test on the PostgreSQL test server. */
export interface TestDatabase {
  name: string;
  /** Its URL (the admin URL with the database replaced). */
  url: string;
  drop(): Promise<void>;
}
