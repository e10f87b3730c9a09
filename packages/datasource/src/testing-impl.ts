import type { TestEngine } from './testing.ts';

/** The "now" test seeds pin, so dates in seeded data are the same on every run. */
export const TEST_SEED_NOW = new Date('2026-06-01T00:00:00Z');

export function testEngines(): TestEngine[] {
  throw new Error('not implemented');
}
