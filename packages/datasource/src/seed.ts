import type { Database } from './database.ts';
import type { SeedOptions, SeedResult } from './seed-types.ts';

export * from './seed-types.ts';

/** Creates and fills the sample shop (customers, products, orders, order_items) deterministically. */
export async function seedSampleShop(_db: Database, _options: SeedOptions = {}): Promise<SeedResult> {
  throw new Error('not implemented');
}
