// Adding a named connection, the same from the CLI and the app: check the name and the URL, test
// the connection with exactly what will be saved, then save it (the password apart, 0600).
import { type DataSource, DataSourceError, type OpenEngineOptions } from '@toolrow/datasource';
import type { AppState } from './app-state.ts';
import type { PermissionMode } from './app-types.ts';
import { writeSecret } from './connection-secrets.ts';
import { type ConnectionTarget, checkConnectionName, parseConnectionUrl } from './named-connections.ts';
import { openEngine } from './open-engine.ts';

/** What a connection holds and which read-only layers hold on it (`connections test`, the app's form). */
export interface ConnectionFindings {
  engine: string;
  description: string;
  tables: number;
  readLayers: { layer: string; active: boolean; detail: string }[];
  /** What else to know: whose credentials it signs with, why it may look empty. */
  notes: string[];
}

export async function inspectConnection(source: DataSource): Promise<ConnectionFindings> {
  const snapshot = await source.schema.get();
  return {
    engine: source.driver,
    description: source.description,
    tables: snapshot.tables.length,
    readLayers: await source.readLayers(),
    notes: (await source.connectionNotes?.()) ?? [],
  };
}

export interface AddConnectionInput {
  name: string;
  /** As typed: postgres://user[:password]@host:5432/db, or pglite:<directory>. */
  url: string;
  /** Wins over a password in the URL (the app's form has a field of its own). */
  password?: string;
  mode?: PermissionMode;
  /** The MCP scope ceiling; null or absent: not exposed. */
  mcpScope?: string | null;
}

export interface AddConnectionOptions {
  env?: Readonly<Record<string, string | undefined>>;
  cwd?: string;
  /** Connect before saving (default true); a failure saves nothing. */
  test?: boolean;
}

export interface AddedConnection {
  name: string;
  target: ConnectionTarget;
  passwordStored: boolean;
  /** What the test found (absent with `test: false`). */
  found?: ConnectionFindings;
}

/** Options that open exactly this connection: its URL and password, none of the environment's own. */
export function connectionDataOptions(
  target: ConnectionTarget,
  password: string | undefined,
  field: string,
  env: Readonly<Record<string, string | undefined>>,
): OpenEngineOptions {
  return {
    env: { ...env, DATABASE_URL: undefined, TOOLROW_COMMIT_URL: undefined },
    url: target.url,
    urlSource: field,
    ...(password !== undefined ? { password } : {}),
  };
}

/**
 * Checks, tests and saves a named connection. Every refusal names the field (`name:`, `url:`) and
 * says what to do; nothing is saved unless the whole of it is.
 */
export async function addConnection(
  app: Pick<AppState, 'connections' | 'profiles'> & { readonly dataDir: string },
  input: AddConnectionInput,
  options: AddConnectionOptions = {},
): Promise<AddedConnection> {
  const env = options.env ?? process.env;
  const name = checkConnectionName(input.name);
  const parsed = parseConnectionUrl(input.url, options.cwd);
  const { target } = parsed;
  const password = input.password || parsed.password;
  if (await app.connections.get(name)) {
    throw new DataSourceError(
      'already-exists',
      `name: a connection named '${name}' exists already. Choose another name, or remove it first (toolrow connections remove ${name}). Nothing was saved.`,
    );
  }
  let found: ConnectionFindings | undefined;
  if (options.test ?? true) {
    let source: DataSource;
    try {
      source = await openEngine({
        ...connectionDataOptions(target, password, 'url', env),
        ...(options.cwd ? { cwd: options.cwd } : {}),
      });
    } catch (error) {
      throw new DataSourceError('connection', `${(error as Error).message} Nothing was saved.`, {
        cause: error,
      });
    }
    try {
      found = await inspectConnection(source);
    } finally {
      await source.close();
    }
  }
  await app.connections.add({
    name,
    engine: target.engine,
    url: target.url,
    description: target.description,
    mcpScope: input.mcpScope ?? null,
  });
  try {
    if (password !== undefined) await writeSecret(app.dataDir, name, password);
    await app.profiles.ensure(name);
    if (input.mode) await app.profiles.setMode(name, input.mode);
  } catch (error) {
    await app.connections.remove(name).catch(() => {});
    await writeSecret(app.dataDir, name, undefined).catch(() => {});
    throw error;
  }
  return { name, target, passwordStored: password !== undefined, ...(found ? { found } : {}) };
}
