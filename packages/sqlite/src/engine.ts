// The SQLite engine as the apps see it: sqlite: URLs naming a database file. node:sqlite loads when
// a connection opens, not when the apps list the engines.
import { existsSync } from 'node:fs';
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
    const path = stored.slice('sqlite://'.length);
    if (!existsSync(path))
      throw new DataSourceError(
        'config',
        `${field}: there is no SQLite file at ${path}. Point the URL at an existing database file (Toolrow reads a database; \`sqlite3 ${path} 'VACUUM'\` makes an empty one).`,
      );
    const { openSqliteDataSource } = await import('./source.ts');
    return openSqliteDataSource({
      path,
      ...(options.dataDir ? { dataDir: options.dataDir } : {}),
      ...(options.sqliteLayers ? { layers: options.sqliteLayers as never } : {}),
    });
  },
};
