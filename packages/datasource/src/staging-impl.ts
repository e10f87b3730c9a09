import type { Database } from './database.ts';
import type { SchemaCache } from './schema-cache.ts';
import type { Staging } from './staging.ts';

export function createStaging(_db: Database, _schema: SchemaCache): Staging {
  throw new Error('not implemented');
}
