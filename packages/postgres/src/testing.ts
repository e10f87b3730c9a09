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

export { type ReadLayerSwitches, withReadLayers } from './drivers/layer-switches.ts';
export { dataFingerprint, stateFingerprint } from './fingerprint.ts';
export { withoutSqlGuard } from './sql-guard.ts';
export {
  createTestDatabase,
  DEFAULT_TEST_ORDERS,
  missingPostgresError,
  pgliteOnDisk,
  pgliteSnapshot,
  TEST_SEED_NOW,
  testEngines,
} from './testing-impl.ts';
export type { OpenTestOptions, TestDatabase, TestEngine } from './testing-types.ts';
