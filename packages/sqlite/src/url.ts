// sqlite: URLs. sqlite:///absolute/path.db, sqlite:relative/path.db or sqlite:./path.db (relative to
// where the command runs). The file must exist: Toolrow reads a database, it does not make one.
import { isAbsolute, resolve } from 'node:path';
import type { ParsedConnectionUrl } from '@toolrow/datasource/engine';
import { DataSourceError } from '@toolrow/datasource/errors';

export const SQLITE_URL_FORMS = 'sqlite:///absolute/path/to/file.db or sqlite:./relative/file.db';

export function parseSqliteUrl(
  raw: string,
  { cwd, field }: { cwd: string; field: string },
): ParsedConnectionUrl {
  const text = raw.trim();
  const match = /^sqlite:(.*)$/i.exec(text);
  if (!match)
    throw new DataSourceError('config', `${field}: '${text}' is not a sqlite: URL. Use ${SQLITE_URL_FORMS}.`);
  let rest = match[1]!.replace(/[?#].*$/, '');
  // sqlite:///abs → /abs; sqlite://host/… names no host SQLite could have.
  if (rest.startsWith('//')) {
    rest = rest.slice(2);
    if (!rest.startsWith('/'))
      throw new DataSourceError(
        'config',
        `${field}: a sqlite:// URL names a file by its absolute path (three slashes: sqlite:///data/shop.db), or write sqlite:./shop.db for a relative one.`,
      );
  }
  if (rest === '' || rest === ':memory:')
    throw new DataSourceError(
      'config',
      `${field}: a sqlite: URL names a database file, as in ${SQLITE_URL_FORMS}.`,
    );
  const path = isAbsolute(rest) ? rest : resolve(cwd, decodeURIComponent(rest));
  return { driver: 'sqlite', url: `sqlite://${path}`, description: `SQLite ${path}` };
}
