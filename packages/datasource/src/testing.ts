/**
 * Test helper for every package: the same suite on PGlite (in memory, always) and on PostgreSQL
 * (when TOOLROW_TEST_DATABASE_URL is set; each open() creates its own database, dropped on close).
 * No test-runner imports here: use it from vitest, node:test or a script. These open the user's
 * data only; @toolrow/state/testing opens it together with a state store.
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
}

export interface TestEngine {
  name: 'pglite' | 'pglite-disk' | 'postgres';
  /**
   * A fresh data source. pglite: in memory. pglite-disk: a temp data directory, PGlite in a
   * worker thread. postgres: a new database toolrow_t_<random>.
   */
  open(options?: OpenTestOptions): Promise<DataSource>;
}

/** A database created for a test on the PostgreSQL test server. */
export interface TestDatabase {
  name: string;
  /** Its URL (the admin URL with the database replaced). */
  url: string;
  drop(): Promise<void>;
}

export { type ReadLayerSwitches, withReadLayers } from './engines/layer-switches.ts';
export {
  createTestDatabase,
  missingPostgresError,
  pgliteOnDisk,
  pgliteSnapshot,
  TEST_SEED_NOW,
  testEngines,
} from './testing-impl.ts';
