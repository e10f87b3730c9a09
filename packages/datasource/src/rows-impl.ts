import type { Database } from './database.ts';
import type { RowReader } from './rows.ts';
import type { SchemaCache } from './schema-cache.ts';
import type { TableInfo } from './schema-types.ts';
import type { RowKey } from './types.ts';

/** Turns `5` or `{ id: 5 }` into a full primary-key object for the table; throws 'invalid-key' naming what is missing. */
export function normalizeKey(_table: TableInfo, _key: unknown): RowKey {
  throw new Error('not implemented');
}

export function createRowReader(_db: Database, _schema: SchemaCache): RowReader {
  throw new Error('not implemented');
}
