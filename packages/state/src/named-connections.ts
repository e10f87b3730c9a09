// What a user types for a named connection, checked before anything is saved: the name, and the
// URL split into where it points (kept in the state store) and its password (kept apart).
import { isAbsolute, resolve } from 'node:path';
import { DataSourceError } from '@toolrow/datasource';
import { parseDynamoUrl } from '@toolrow/dynamodb/url';
import { describePostgresUrl, parsePostgresUrl } from '@toolrow/postgres';

/** The unnamed connection: DATABASE_URL when set, else the embedded sample in the data dir. */
export const UNNAMED_CONNECTION = 'default';

const NAME = /^[a-z][a-z0-9_-]{0,39}$/;

/** Throws an error naming the rule when `name` cannot name a connection. */
export function checkConnectionName(name: string): string {
  if (name === UNNAMED_CONNECTION) {
    throw new DataSourceError(
      'misuse',
      `name: '${UNNAMED_CONNECTION}' is the unnamed connection (DATABASE_URL, or the embedded sample); choose another name, such as 'local' or 'staging'.`,
    );
  }
  if (!NAME.test(name)) {
    throw new DataSourceError(
      'misuse',
      `name: '${name}' is not a connection name. Use 1 to 40 lowercase letters, digits, '-' or '_', starting with a letter (for example 'staging' or 'prod-eu').`,
    );
  }
  return name;
}

/** Where a named connection points, without its password. */
export type ConnectionTarget =
  | { engine: 'postgres'; url: string; description: string }
  | { engine: 'dynamodb'; url: string; description: string }
  | { engine: 'pglite'; path: string; url: string; description: string };

/** A URL as typed, split: the target to store and the password to keep apart (if it had one). */
export interface ParsedConnectionUrl {
  target: ConnectionTarget;
  password?: string;
}

const SCHEMES =
  'postgres://user@host:5432/database (or postgresql://), pglite:<directory> for an embedded database, or dynamodb://127.0.0.1:8000?region=us-east-1 / dynamodb://aws/<region>?profile=<aws profile>';

/** Parses what the user typed for a connection; relative pglite paths resolve against `cwd`. */
export function parseConnectionUrl(raw: string, cwd: string = process.cwd()): ParsedConnectionUrl {
  const text = raw.trim();
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(text)?.[1]?.toLowerCase();
  if (scheme === 'pglite') {
    const rest = text.slice('pglite:'.length).replace(/^\/\//, '');
    if (rest === '')
      throw new DataSourceError('config', `url: pglite: needs a directory, as in pglite:./sample-db.`);
    const path = isAbsolute(rest) ? rest : resolve(cwd, rest);
    return { target: { engine: 'pglite', path, url: `pglite:${path}`, description: `PGlite ${path}` } };
  }
  if (scheme === 'dynamodb') {
    const target = parseDynamoUrl(text, 'url');
    return { target: { engine: 'dynamodb', url: target.url, description: target.description } };
  }
  if (scheme !== 'postgres' && scheme !== 'postgresql') {
    throw new DataSourceError(
      'config',
      `url: ${scheme ? `the scheme '${scheme}:' is not one Toolrow connects to` : `'${text}' has no scheme`}. Use ${SCHEMES}.`,
    );
  }
  const url = parsePostgresUrl(text, 'url');
  const password = url.password ? decodeURIComponent(url.password) : undefined;
  url.password = '';
  return {
    target: { engine: 'postgres', url: url.href, description: `PostgreSQL ${describePostgresUrl(url)}` },
    ...(password !== undefined ? { password } : {}),
  };
}

/** A stored URL (absolute, no password) read back as its target. */
export function targetOf(url: string): ConnectionTarget {
  return parseConnectionUrl(url).target;
}

/** The URL to open: the stored one with its password put back (percent-encoded). */
export function withPassword(url: string, password: string | undefined): string {
  if (password === undefined) return url;
  const parsed = new URL(url);
  parsed.password = encodeURIComponent(password);
  return parsed.href;
}
