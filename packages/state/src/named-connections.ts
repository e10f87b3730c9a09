// What a user types for a named connection, checked before anything is saved: the name, and the
// URL split into where it points (kept in the state store) and its password (kept apart).
import { DataSourceError } from '@toolrow/datasource';
import { installedEngines } from '@toolrow/engines';

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
export interface ConnectionTarget {
  /** The driver it connects through (an installed engine's): what the state stores as its engine. */
  engine: string;
  /** The URL as stored: absolute, without its password. */
  url: string;
  description: string;
}

/** A URL as typed, split: the target to store and the password to keep apart (if it had one). */
export interface ParsedConnectionUrl {
  target: ConnectionTarget;
  password?: string;
}

/** Parses what the user typed for a connection, by the engine that claims its scheme; relative paths resolve against `cwd`. */
export function parseConnectionUrl(raw: string, cwd: string = process.cwd()): ParsedConnectionUrl {
  const { driver, url, description, password } = installedEngines.parseUrl(raw, { cwd, field: 'url' });
  return { target: { engine: driver, url, description }, ...(password !== undefined ? { password } : {}) };
}

/** A stored URL (absolute, no password) read back as its target. */
export function targetOf(url: string): ConnectionTarget {
  return parseConnectionUrl(url).target;
}
