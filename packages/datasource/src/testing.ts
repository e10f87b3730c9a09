/**
 * Test helper for every package: the same suite on PGlite (in memory, always) and on PostgreSQL
 * (when TOOLROW_TEST_DATABASE_URL is set; each open() creates its own database, dropped on close).
 * No test-runner imports here: use it from vitest, node:test or a script.
 *
 *   import { testEngines } from '@toolrow/datasource/testing';
 *   describe.each(testEngines())('$name', ({ open }) => {
 *     let ds: DataSource;
 *     beforeAll(async () => { ds = await open({ seed: { orders: 500 } }); });
 *     afterAll(() => ds.close());
 *     it('…', async () => { … });
 *   });
 */
import type { DataSource } from './datasource.ts';
import type { SeedOptions } from './seed-types.ts';

export interface OpenTestOptions {
  /** Seed the sample shop (defaults: 200 orders, seed 42, now pinned to 2026-06-01). */
  seed?: SeedOptions | boolean;
  /** Exports folder (default: a fresh temp dir, removed on close). */
  exportsDir?: string;
}

export interface TestEngine {
  name: 'pglite' | 'pglite-disk' | 'postgres';
  /**
   * A fresh, migrated data source. pglite: in memory. pglite-disk: a temp data directory, PGlite in
   * a worker thread. postgres: a new database toolrow_t_<random>.
   */
  open(options?: OpenTestOptions): Promise<DataSource>;
}

/** A fresh database named by environment variables, for code that opens its own connection. */
export interface TestEnvironment {
  name: 'pglite' | 'postgres';
  /** Pass to the code under test: DATABASE_URL (PostgreSQL, '' for PGlite) and TOOLROW_DATA_DIR. */
  env: Record<string, string>;
  /** A fresh temp folder to run in (holds the PGlite data dir and exports). */
  cwd: string;
  /** Drops the database / deletes the folder. */
  cleanup(): Promise<void>;
}

export { createTestEnvironment, pgliteOnDisk, TEST_SEED_NOW, testEngines } from './testing-impl.ts';
