import type { Database } from './database.ts';
import type { SchemaCache } from './schema-cache.ts';
import type { SchemaSnapshot } from './schema-types.ts';

/** Reads the user's tables from the catalogs (excludes toolrow_app, pg_catalog, information_schema, pg_toast). */
export async function loadSchema(_db: Database): Promise<SchemaSnapshot> {
  throw new Error('not implemented');
}

export function createSchemaCache(_db: Database): SchemaCache {
  throw new Error('not implemented');
}
