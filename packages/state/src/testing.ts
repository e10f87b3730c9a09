/**
 * Test helper for every package above the data layer: the user's data and a state store, fresh
 * per open(): PGlite data with SQLite state (both in memory, always), and PostgreSQL data and
 * state (two databases of their own on the server TOOLROW_TEST_DATABASE_URL names, dropped on
 * close). Between them, every state suite runs on both state dialects. No test-runner imports here.
 *
 *   import { testStores } from '@toolrow/state/testing';
 *   describe.each(testStores())('$name', ({ open }) => {
 *     let toolrow: Toolrow;
 *     beforeAll(async () => { toolrow = await open({ seed: true }); });
 *     afterAll(() => toolrow.close());
 *   });
 */

export { TEST_SEED_NOW } from '@toolrow/postgres/testing';
export {
  createTestEnvironment,
  dynamoTestStore,
  pgliteOnDiskStores,
  testStores,
} from './testing-impl.ts';
export type { OpenTestOptions, StoreEngine, TestEnvironment } from './testing-types.ts';
