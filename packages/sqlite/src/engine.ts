// The SQLite engine as the apps see it: sqlite: URLs naming a database file. node:sqlite loads when
// a connection opens, not when the apps list the engines.
import type { EngineDescriptor } from '@toolrow/datasource/engine';
import { DataSourceError } from '@toolrow/datasource/errors';
import { SQLITE_FEATURES } from './features.ts';
import { parseSqliteUrl, SQLITE_URL_FORMS } from './url.ts';

export const sqliteEngine: EngineDescriptor = {
  id: 'sqlite',
  label: 'SQLite',
  drivers: [{ id: 'sqlite', label: 'SQLite' }],
  schemes: ['sqlite'],
  urlForms: SQLITE_URL_FORMS,
  features: SQLITE_FEATURES,
  parseUrl: parseSqliteUrl,
  async open(options) {
    const env = options.env ?? process.env;
    const url = options.url ?? env.DATABASE_URL?.trim();
    const field = options.urlSource ?? (options.url !== undefined ? 'url' : 'DATABASE_URL');
    if (!url) throw new DataSourceError('config', `A SQLite connection needs its URL: ${SQLITE_URL_FORMS}.`);
    const { url: stored } = parseSqliteUrl(url, { cwd: options.cwd ?? process.cwd(), field });
    const { openSqliteDataSource } = await import('./source.ts');
    return openSqliteDataSource({
      path: stored.slice('sqlite://'.length),
      field,
      ...(options.dataDir ? { dataDir: options.dataDir } : {}),
      ...(options.sqliteLayers ? { layers: options.sqliteLayers as never } : {}),
    });
  },
};
