// Named connections: where each points (no password), its MCP exposure, the default one.
import { DataSourceError } from '@toolrow/datasource';
import type { ConnectionInfo, NewConnection } from '../app-types.ts';
import { isUniqueViolation, type StateDb } from '../store/state-db.ts';

/** What the store keeps of connections. */
export interface ConnectionRepository {
  /** The configured connections; the one this process uses is marked active. */
  list(): Promise<ConnectionInfo[]>;
  /** Remembers a connection (no secrets: pass a description, not a password). */
  save(connection: Omit<ConnectionInfo, 'active'>): Promise<ConnectionInfo>;
  /** Adds a named connection; throws DataSourceError 'already-exists' when the name is taken. */
  add(connection: NewConnection): Promise<ConnectionInfo>;
  /** One named connection, or undefined. */
  get(name: string): Promise<ConnectionInfo | undefined>;
  /** Removes a named connection (its staged changes, history and mode stay under its name); false when there was none. */
  remove(name: string): Promise<boolean>;
  /** Sets the MCP scope ceiling of a named connection (null: not exposed). */
  setMcpScope(name: string, scope: string | null): Promise<ConnectionInfo>;
  /** Points a named connection at a new URL of the same engine (a setting changed; no password). */
  setUrl(name: string, url: string, description: string): Promise<ConnectionInfo>;
  /** The connection used when none is named; undefined: the unnamed one. */
  defaultName(): Promise<string | undefined>;
  /** Makes a named connection the default (undefined: back to the unnamed one). */
  setDefault(name: string | undefined): Promise<void>;
}

function toConnection(
  row: { name: string; engine: string; description: string; url: string | null; mcp_scope: string | null },
  active: string | undefined,
  chosen: string | undefined,
): ConnectionInfo {
  return {
    name: row.name,
    engine: row.engine as ConnectionInfo['engine'],
    description: row.description,
    active: row.name === active,
    named: row.url !== null,
    ...(row.url !== null ? { url: row.url, mcpScope: row.mcp_scope, isDefault: row.name === chosen } : {}),
  };
}

/** The error for a connection name that is not configured, naming those that are. */
export function unknownConnection(name: string, names: readonly string[]): DataSourceError {
  return new DataSourceError(
    'not-found',
    `There is no connection named '${name}'. ${names.length > 0 ? `The connections are: ${names.join(', ')}.` : 'No connection is configured yet.'} Add one with toolrow connections add ${name} <url>, or list them with toolrow connections list.`,
  );
}

export function createConnections(
  db: StateDb,
  options: { activeConnection?: Omit<ConnectionInfo, 'active'> },
): ConnectionRepository {
  const { q } = db;
  const DEFAULT_CONNECTION_KEY = 'default_connection';
  const defaultConnection = async (): Promise<string | undefined> =>
    (
      await q
        .selectFrom('settings')
        .select('value')
        .where('key', '=', DEFAULT_CONNECTION_KEY)
        .executeTakeFirst()
    )?.value;
  const setDefaultConnection = async (name: string | undefined): Promise<void> => {
    if (name === undefined) {
      await q.deleteFrom('settings').where('key', '=', DEFAULT_CONNECTION_KEY).execute();
      return;
    }
    const values = { value: name, updated_at: new Date() };
    await q
      .insertInto('settings')
      .values({ key: DEFAULT_CONNECTION_KEY, ...values })
      .onConflict((oc) => oc.column('key').doUpdateSet(values))
      .execute();
  };
  const namedConnections = async (): Promise<string[]> =>
    (
      await q.selectFrom('connections').select('name').where('url', 'is not', null).orderBy('name').execute()
    ).map((row) => row.name);
  const getConnection = async (name: string): Promise<ConnectionInfo | undefined> => {
    const row = await q
      .selectFrom('connections')
      .select(['name', 'engine', 'description', 'url', 'mcp_scope'])
      .where('name', '=', name)
      .where('url', 'is not', null)
      .executeTakeFirst();
    return row ? toConnection(row, options.activeConnection?.name, await defaultConnection()) : undefined;
  };
  return {
    async list() {
      const [rows, chosen] = await Promise.all([
        q
          .selectFrom('connections')
          .select(['name', 'engine', 'description', 'url', 'mcp_scope'])
          .orderBy('name')
          .execute(),
        defaultConnection(),
      ]);
      const active = options.activeConnection;
      const listed: ConnectionInfo[] = rows.map((row) => toConnection(row, active?.name, chosen));
      if (active && !listed.some((row) => row.active)) listed.unshift({ ...active, active: true });
      return listed;
    },
    async save(connection) {
      if (/:\/\/[^/@\s]*:[^/@\s]*@/.test(connection.description)) {
        throw new DataSourceError(
          'misuse',
          'A connection description must not hold a password; describe it as user@host:port/db.',
        );
      }
      const values = {
        engine: connection.engine,
        description: connection.description,
        updated_at: new Date(),
      };
      await q
        .insertInto('connections')
        .values({ name: connection.name, ...values })
        .onConflict((oc) => oc.column('name').doUpdateSet(values))
        .execute();
      return { ...connection, active: connection.name === options.activeConnection?.name };
    },
    async add(connection) {
      if (/:\/\/[^/@\s]*:[^/@\s]*@/.test(connection.url)) {
        throw new DataSourceError(
          'misuse',
          'A stored connection URL must not hold a password; keep it apart.',
        );
      }
      try {
        await q
          .insertInto('connections')
          .values({
            name: connection.name,
            engine: connection.engine,
            description: connection.description,
            url: connection.url,
            mcp_scope: connection.mcpScope ?? null,
            updated_at: new Date(),
          })
          .execute();
      } catch (error) {
        if (isUniqueViolation(error)) {
          throw new DataSourceError(
            'already-exists',
            `name: a connection named '${connection.name}' exists already. Choose another name, or remove it first (toolrow connections remove ${connection.name}).`,
          );
        }
        throw error;
      }
      return (await getConnection(connection.name))!;
    },
    get: getConnection,
    async remove(name) {
      const result = await q
        .deleteFrom('connections')
        .where('name', '=', name)
        .where('url', 'is not', null)
        .executeTakeFirst();
      if ((await defaultConnection()) === name) await setDefaultConnection(undefined);
      return Number(result.numDeletedRows) > 0;
    },
    async setMcpScope(name, scope) {
      const result = await q
        .updateTable('connections')
        .set({ mcp_scope: scope, updated_at: new Date() })
        .where('name', '=', name)
        .where('url', 'is not', null)
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) === 0) throw unknownConnection(name, await namedConnections());
      return (await getConnection(name))!;
    },
    async setUrl(name, url, description) {
      if (/:\/\/[^/@\s]*:[^/@\s]*@/.test(url)) {
        throw new DataSourceError(
          'misuse',
          'A stored connection URL must not hold a password; keep it apart.',
        );
      }
      const result = await q
        .updateTable('connections')
        .set({ url, description, updated_at: new Date() })
        .where('name', '=', name)
        .where('url', 'is not', null)
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) === 0) throw unknownConnection(name, await namedConnections());
      return (await getConnection(name))!;
    },
    defaultName: defaultConnection,
    async setDefault(name) {
      if (name !== undefined && !(await getConnection(name)))
        throw unknownConnection(name, await namedConnections());
      await setDefaultConnection(name);
    },
  };
}
