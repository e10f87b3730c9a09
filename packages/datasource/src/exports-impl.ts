import type { Database } from './database.ts';
import type { ExportEngine } from './exports.ts';
import type { SchemaCache } from './schema-cache.ts';

/** Resolves a requested export path inside dir; throws DataSourceError 'export-path' when it escapes. */
export async function resolveExportPath(_dir: string, _requested: string): Promise<string> {
  throw new Error('not implemented');
}

export function createExportEngine(_db: Database, _schema: SchemaCache, _dir: string): ExportEngine {
  throw new Error('not implemented');
}
