// mysql:// and mariadb:// URLs: user, host, port (3306) and the database, which names every table
// Toolrow shows. The password is kept apart from the stored URL, as PostgreSQL's is.
import type { ParsedConnectionUrl } from '@toolrow/datasource/engine';
import { DataSourceError } from '@toolrow/datasource/errors';

export const MYSQL_URL_FORMS = 'mysql://user@host:3306/database (or mariadb://user@host:3306/database)';

const KNOWN_PARAMS = new Set(['ssl']);

export interface MysqlAddress {
  user: string;
  password?: string;
  host: string;
  port: number;
  database: string;
  ssl: boolean;
  /** The scheme as written ('mysql' or 'mariadb'). */
  scheme: string;
}

/** The address a URL names; errors name the field and the part that is wrong. */
export function mysqlAddressOf(raw: string, field: string): MysqlAddress {
  const text = raw.trim();
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new DataSourceError(
      'config',
      `${field}: '${text.replace(/:[^:@/]*@/, ':…@')}' is not a URL. Use ${MYSQL_URL_FORMS}.`,
    );
  }
  const scheme = url.protocol.slice(0, -1).toLowerCase();
  if (scheme !== 'mysql' && scheme !== 'mariadb')
    throw new DataSourceError('config', `${field}: a ${scheme}: URL is not MySQL's. Use ${MYSQL_URL_FORMS}.`);
  if (!url.hostname)
    throw new DataSourceError('config', `${field}: the URL names no host. Use ${MYSQL_URL_FORMS}.`);
  const database = decodeURIComponent(url.pathname.replace(/^\//, ''));
  if (!database || database.includes('/'))
    throw new DataSourceError(
      'config',
      `${field}: name the database after the host (${scheme}://user@${url.host}/shop): Toolrow shows the tables of one database.`,
    );
  for (const name of url.searchParams.keys())
    if (!KNOWN_PARAMS.has(name))
      throw new DataSourceError(
        'config',
        `${field}: unknown URL setting '${name}'. A ${scheme}:// URL takes ?ssl=true (TLS to the server) and nothing else.`,
      );
  const ssl = url.searchParams.get('ssl');
  if (ssl !== null && !/^(true|false|1|0)$/i.test(ssl))
    throw new DataSourceError('config', `${field}: ssl=${ssl} is neither true nor false.`);
  const port = url.port ? Number(url.port) : 3306;
  return {
    user: decodeURIComponent(url.username) || 'root',
    ...(url.password ? { password: decodeURIComponent(url.password) } : {}),
    host: url.hostname.replace(/^\[|\]$/g, ''),
    port,
    database,
    ssl: ssl !== null && /^(true|1)$/i.test(ssl),
    scheme,
  };
}

export function describeAddress(
  address: MysqlAddress,
  flavor = address.scheme === 'mariadb' ? 'MariaDB' : 'MySQL',
): string {
  return `${flavor} ${address.user}@${address.host}:${address.port}/${address.database}`;
}

export function parseMysqlUrl(raw: string, { field }: { cwd: string; field: string }): ParsedConnectionUrl {
  const address = mysqlAddressOf(raw, field);
  const url = new URL(raw.trim());
  url.password = '';
  return {
    driver: 'mysql',
    url: url.href,
    description: describeAddress(address),
    ...(address.password !== undefined ? { password: address.password } : {}),
  };
}
