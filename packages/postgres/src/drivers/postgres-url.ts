// postgres:// URLs, checked and described without loading the driver (pg loads only to connect).
import { DataSourceError } from '@toolrow/datasource/errors';

/** host:port/database as user, never the password. */
export function describeUrl(url: URL): string {
  const user = url.username ? `${decodeURIComponent(url.username)}@` : '';
  return `${user}${url.hostname || 'localhost'}:${url.port || '5432'}${url.pathname || '/'}`;
}

export function parsePostgresUrl(raw: string, source: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new DataSourceError(
      'config',
      `${source} is not a valid URL. Expected postgres://user:password@host:5432/database (percent-encode special characters in the password).`,
    );
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw new DataSourceError(
      'config',
      `${source} must start with postgres:// or postgresql://, got '${url.protocol}//…'. Unset it to use the embedded PGlite database.`,
    );
  }
  if (!url.pathname || url.pathname === '/') {
    throw new DataSourceError(
      'config',
      `${source} names no database: add it after the host, e.g. postgres://user@host:5432/shop.`,
    );
  }
  return url;
}
