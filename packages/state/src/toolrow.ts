import { type DataSource, type OpenDataSourceOptions, openDataSource } from '@toolrow/datasource';
import type { AppState } from './app-state.ts';
import { createAppState, unknownConnection } from './app-state-impl.ts';
import { readSecrets } from './connection-secrets.ts';
import { targetOf, UNNAMED_CONNECTION, withPassword } from './named-connections.ts';
import type { OpenStateOptions, ToolrowState } from './state.ts';
import {
  checkStateSettings,
  openAppState,
  openStateStore,
  type StateStore,
  settled,
  wireState,
} from './state-impl.ts';

/** Which connection a Toolrow handle works on. */
export interface ActiveConnection {
  /** Its name: a named connection's, or 'default' for the unnamed one (DATABASE_URL, else the embedded sample). */
  readonly name: string;
  readonly named: boolean;
  /** The profile whose mode, tabs, history and audit entries belong to it: the connection's name. */
  readonly profile: string;
}

/** The user's data and Toolrow's own state, opened together: what the apps and the CLI hold. */
export interface Toolrow {
  readonly source: DataSource;
  readonly state: ToolrowState;
  readonly connection: ActiveConnection;
  /** Closes the state (after background exports), then the user's data. */
  close(): Promise<void>;
}

export interface OpenToolrowOptions {
  /** DATABASE_URL, TOOLROW_COMMIT_URL, TOOLROW_STATE_URL, TOOLROW_DATA_DIR, TOOLROW_EXPORTS_DIR (default: process.env). */
  env?: Readonly<Record<string, string | undefined>>;
  cwd?: string;
  /** The Toolrow data directory (wins over TOOLROW_DATA_DIR). */
  dataDir?: string;
  /** Options for the user's data (url, poolSize, …). */
  data?: Omit<OpenDataSourceOptions, 'env' | 'cwd' | 'dataDir'>;
  /** Options for the state store (url, exportsDir, …). */
  state?: Omit<OpenStateOptions, 'source' | 'env' | 'cwd' | 'dataDir' | 'connectionName'>;
  /**
   * A named connection to open (wins over TOOLROW_CONNECTION, which wins over DATABASE_URL; then
   * the `toolrow connections use` default; then DATABASE_URL or the embedded sample). 'default'
   * names the unnamed one.
   */
  connection?: string;
}

/**
 * Opens the user's data and the state. The unnamed connection (DATABASE_URL, else the embedded
 * sample) opens both at once; a named one is looked up in the state first (it is a few
 * milliseconds for the embedded store) and opened with its own URL and password only: the
 * environment's DATABASE_URL and TOOLROW_COMMIT_URL are another connection's, never used for it.
 */
export async function openToolrow(options: OpenToolrowOptions = {}): Promise<Toolrow> {
  const env = options.env ?? process.env;
  const common = {
    ...(options.env ? { env: options.env } : {}),
    ...(options.cwd ? { cwd: options.cwd } : {}),
    ...(options.dataDir ? { dataDir: options.dataDir } : {}),
  };
  checkStateSettings({ ...options.state, ...common });
  const asked = options.connection ?? (env.TOOLROW_CONNECTION?.trim() || undefined);
  const unnamed = asked === UNNAMED_CONNECTION || (asked === undefined && Boolean(env.DATABASE_URL?.trim()));
  if (unnamed) {
    const [data, store] = await Promise.allSettled([
      openDataSource({ ...options.data, ...common, readerRoleSetup: 'later' }),
      openStateStore({ ...options.state, ...common }),
    ]);
    if (data.status === 'rejected' || store.status === 'rejected') {
      if (data.status === 'fulfilled') await data.value.close().catch(() => {});
      if (store.status === 'fulfilled') await store.value.db.close().catch(() => {});
      throw data.status === 'rejected' ? data.reason : (store as PromiseRejectedResult).reason;
    }
    return finish(store.value, data.value, UNNAMED_CONNECTION, options, common);
  }
  const store = await openStateStore({ ...options.state, ...common });
  let source: DataSource;
  let name: string;
  try {
    const { connections } = createAppState(store.db);
    name = asked ?? (await connections.defaultName()) ?? UNNAMED_CONNECTION;
    if (name === UNNAMED_CONNECTION) {
      source = await openDataSource({ ...options.data, ...common, readerRoleSetup: 'later' });
    } else {
      const found = await connections.get(name);
      if (!found?.url) {
        throw unknownConnection(
          name,
          (await connections.list()).filter((each) => each.named).map((each) => each.name),
        );
      }
      const target = targetOf(found.url);
      // Another connection's settings never reach this one.
      const own = { ...env, DATABASE_URL: undefined, TOOLROW_COMMIT_URL: undefined };
      const where =
        target.engine === 'postgres'
          ? {
              url: withPassword(target.url, (await readSecrets(store.dataDir))[name]),
              urlSource: `the connection '${name}'`,
            }
          : { pgdata: target.path, pgdataSource: `the connection '${name}' (${target.path})` };
      source = await openDataSource({
        ...options.data,
        ...common,
        env: own,
        ...where,
        readerRoleSetup: 'later',
      });
    }
  } catch (error) {
    await store.db.close().catch(() => {});
    throw error;
  }
  return finish(store, source, name, options, common);
}

/**
 * How to open a named connection's data: its own URL with its stored password, or its PGlite
 * directory. Another connection's settings (DATABASE_URL, TOOLROW_COMMIT_URL) are taken out of the
 * environment it opens with.
 */
export async function namedDataOptions(
  connections: AppState['connections'],
  dataDir: string,
  name: string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<OpenDataSourceOptions> {
  const found = await connections.get(name);
  if (!found?.url) {
    throw unknownConnection(
      name,
      (await connections.list()).filter((each) => each.named).map((each) => each.name),
    );
  }
  const target = targetOf(found.url);
  const own = { ...env, DATABASE_URL: undefined, TOOLROW_COMMIT_URL: undefined };
  return target.engine === 'postgres'
    ? {
        env: own,
        url: withPassword(target.url, (await readSecrets(dataDir))[name]),
        urlSource: `the connection '${name}'`,
      }
    : { env: own, pgdata: target.path, pgdataSource: `the connection '${name}' (${target.path})` };
}

/**
 * The data of one connection alone (no state handle kept): what `toolrow db` opens. The state
 * store is read only to look a named connection up.
 */
export async function openConnectionData(
  options: Pick<OpenToolrowOptions, 'env' | 'cwd' | 'dataDir' | 'connection' | 'data'> = {},
): Promise<{ source: DataSource; connection: ActiveConnection }> {
  const env = options.env ?? process.env;
  const common = {
    ...(options.env ? { env: options.env } : {}),
    ...(options.cwd ? { cwd: options.cwd } : {}),
    ...(options.dataDir ? { dataDir: options.dataDir } : {}),
  };
  const asked = options.connection ?? (env.TOOLROW_CONNECTION?.trim() || undefined);
  let name = asked ?? UNNAMED_CONNECTION;
  let where: OpenDataSourceOptions = {};
  if (asked !== UNNAMED_CONNECTION && !(asked === undefined && env.DATABASE_URL?.trim())) {
    const app = await openAppState(common);
    try {
      name = asked ?? (await app.connections.defaultName()) ?? UNNAMED_CONNECTION;
      if (name !== UNNAMED_CONNECTION)
        where = await namedDataOptions(app.connections, app.dataDir, name, env);
    } finally {
      await app.close();
    }
  }
  const source = await openDataSource({ ...options.data, ...common, ...where });
  return { source, connection: { name, named: name !== UNNAMED_CONNECTION, profile: name } };
}

async function finish(
  store: StateStore,
  source: DataSource,
  name: string,
  options: OpenToolrowOptions,
  common: Pick<OpenStateOptions, 'env' | 'cwd' | 'dataDir'>,
): Promise<Toolrow> {
  let state: ToolrowState;
  try {
    state = wireState(store, { ...options.state, ...common, source, connectionName: name });
  } catch (error) {
    await store.db.close().catch(() => {});
    await source.close().catch(() => {});
    throw error;
  }
  const toolrow = composeToolrow(source, state, {
    name,
    named: name !== UNNAMED_CONNECTION,
    profile: name,
  });
  try {
    // In this order: the reader role's setup writes the data's catalog, which must come after
    // interrupted commits are settled (see settled()).
    await settled(toolrow.state);
    await source.setUpReaderRole();
  } catch (error) {
    await toolrow.close().catch(() => {});
    throw error;
  }
  return toolrow;
}

/** One handle over both: closing it closes the state first, then the data. */
export function composeToolrow(
  source: DataSource,
  state: ToolrowState,
  connection: ActiveConnection = { name: UNNAMED_CONNECTION, named: false, profile: UNNAMED_CONNECTION },
): Toolrow {
  let closing: Promise<void> | undefined;
  return {
    source,
    state,
    connection,
    close() {
      closing ??= (async () => {
        try {
          await state.close();
        } finally {
          await source.close();
        }
      })();
      return closing;
    },
  };
}
