import {
  type DataSource,
  DataSourceError,
  type EngineCache,
  type OpenEngineOptions,
} from '@toolrow/datasource';
import { connectionDataOptions } from './add-connection.ts';
import type { AppState } from './app-state.ts';
import { createAppState } from './app-state.ts';
import { readSecrets } from './connection-secrets.ts';
import { targetOf, UNNAMED_CONNECTION } from './named-connections.ts';
import { openEngine } from './open-engine.ts';
import { unknownConnection } from './repositories/connections.ts';
import { createEngineCache } from './repositories/engine-cache.ts';
import type { OpenStateOptions, ToolrowState } from './state.ts';
import {
  checkStateSettings,
  openAppState,
  openStateStore,
  type StateStore,
  settled,
  wireState,
} from './state.ts';

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
  data?: OpenEngineOptions;
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
    const opening = openStateStore({ ...options.state, ...common });
    const [data, store] = await Promise.allSettled([
      openEngine({ ...options.data, ...common, readerRoleSetup: 'later', cache: cacheOnceOpen(opening) }),
      opening,
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
    const cache = createEngineCache(store.db);
    if (name === UNNAMED_CONNECTION) {
      source = await openEngine({ ...options.data, ...common, readerRoleSetup: 'later', cache });
    } else {
      source = await openEngine({
        ...options.data,
        ...common,
        ...(await namedDataOptions(connections, store.dataDir, name, env)),
        readerRoleSetup: 'later',
        cache,
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
): Promise<OpenEngineOptions> {
  const found = await connections.get(name);
  if (!found?.url) {
    throw unknownConnection(
      name,
      (await connections.list()).filter((each) => each.named).map((each) => each.name),
    );
  }
  return connectionDataOptions(
    targetOf(found.url),
    (await readSecrets(dataDir))[name],
    `the connection '${name}'`,
    env,
  );
}

/**
 * The name of the connection openToolrow would open with these options, without opening any data:
 * `connection`, else TOOLROW_CONNECTION, else 'default' when DATABASE_URL is set, else the
 * `toolrow connections use` default, else 'default'. What a command sends when it goes through
 * the running app, so the app acts on the connection the command was asked for.
 */
export async function resolveConnectionName(
  options: Pick<OpenToolrowOptions, 'env' | 'cwd' | 'dataDir' | 'connection' | 'state'> = {},
): Promise<string> {
  const env = options.env ?? process.env;
  const asked = options.connection ?? (env.TOOLROW_CONNECTION?.trim() || undefined);
  if (asked !== undefined) return asked;
  if (env.DATABASE_URL?.trim()) return UNNAMED_CONNECTION;
  const app = await openAppState({
    ...options.state,
    ...(options.env ? { env: options.env } : {}),
    ...(options.cwd ? { cwd: options.cwd } : {}),
    ...(options.dataDir ? { dataDir: options.dataDir } : {}),
  });
  try {
    return (await app.connections.defaultName()) ?? UNNAMED_CONNECTION;
  } finally {
    await app.close();
  }
}

/**
 * Which connection a command is on and how to open it, without opening it: a named one's own URL
 * and password, or the unnamed one's (DATABASE_URL in the environment, else the embedded sample).
 */
export async function resolveConnectionOptions(
  options: Pick<OpenToolrowOptions, 'env' | 'cwd' | 'dataDir' | 'connection'> = {},
): Promise<{ connection: ActiveConnection; data: OpenEngineOptions }> {
  const env = options.env ?? process.env;
  const common = {
    ...(options.env ? { env: options.env } : {}),
    ...(options.cwd ? { cwd: options.cwd } : {}),
    ...(options.dataDir ? { dataDir: options.dataDir } : {}),
  };
  const asked = options.connection ?? (env.TOOLROW_CONNECTION?.trim() || undefined);
  let name = asked ?? UNNAMED_CONNECTION;
  let where: OpenEngineOptions = {};
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
  return {
    connection: { name, named: name !== UNNAMED_CONNECTION, profile: name },
    data: { ...common, ...where },
  };
}

/** The engine cache of a state store still opening: an engine opened beside it waits for it. */
function cacheOnceOpen(opening: Promise<StateStore>): EngineCache {
  const cache = opening.then((store) => createEngineCache(store.db));
  cache.catch(() => {});
  return {
    get: async (key) => (await cache).get(key),
    set: async (key, value) => (await cache).set(key, value),
  };
}

/**
 * The data of one connection alone (no state handle kept): what `toolrow db` opens. The state
 * store is read only to look a named connection up.
 */
export async function openConnectionData(
  options: Pick<OpenToolrowOptions, 'env' | 'cwd' | 'dataDir' | 'connection' | 'data'> = {},
): Promise<{ source: DataSource; connection: ActiveConnection }> {
  const { connection, data } = await resolveConnectionOptions(options);
  const source = await openEngine({ ...options.data, ...data });
  return { source, connection };
}

type Common = Pick<OpenStateOptions, 'env' | 'cwd' | 'dataDir'>;

/** How a Toolrow was opened, so a hub can open more connections over the same store. */
const origins = new WeakMap<Toolrow, { store: StateStore; options: OpenToolrowOptions; common: Common }>();

async function finish(
  store: StateStore,
  source: DataSource,
  name: string,
  options: OpenToolrowOptions,
  common: Common,
  ownsStore = true,
): Promise<Toolrow> {
  let state: ToolrowState;
  try {
    state = wireState(store, { ...options.state, ...common, source, connectionName: name }, { ownsStore });
  } catch (error) {
    if (ownsStore) await store.db.close().catch(() => {});
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
    await source.setUpReaderRole?.();
  } catch (error) {
    await toolrow.close().catch(() => {});
    throw error;
  }
  origins.set(toolrow, { store, options, common });
  return toolrow;
}

/** Several connections open at once over one state store: what the app's connection switcher holds. */
export interface ConnectionHub {
  /** The connection of this name ('default': the unnamed one), opened on first use and kept open. */
  open(name: string): Promise<Toolrow>;
  /** The connections open now. */
  openNames(): string[];
  /** Closes what the hub opened (each one's exports finish first); not the Toolrow it started from. */
  close(): Promise<void>;
}

/**
 * A hub that starts from an open Toolrow and opens the others beside it, on the same state store
 * (one SQLite handle, one pool): each has its own data, staging and exports, scoped by its name.
 */
export function createConnectionHub(first: Toolrow): ConnectionHub {
  const origin = origins.get(first);
  const handles = new Map<string, Promise<Toolrow>>([[first.connection.name, Promise.resolve(first)]]);
  let closed = false;
  return {
    open(name) {
      if (closed) return Promise.reject(new DataSourceError('misuse', 'The connection hub is closed.'));
      let handle = handles.get(name);
      if (!handle) {
        handle = origin
          ? openBeside(origin, name)
          : Promise.reject(
              new DataSourceError(
                'misuse',
                `Cannot open '${name}' beside '${first.connection.name}': that one was not opened by openToolrow.`,
              ),
            );
        handles.set(name, handle);
        // A connection that failed to open is tried again next time (the user may have fixed it).
        handle.catch(() => handles.delete(name));
      }
      return handle;
    },
    openNames: () => [...handles.keys()],
    async close() {
      closed = true;
      const others = [...handles.entries()].filter(([name]) => name !== first.connection.name);
      handles.clear();
      await Promise.all(
        others.map(async ([, handle]) => {
          const toolrow = await handle.catch(() => undefined);
          await toolrow?.close().catch(() => {});
        }),
      );
    },
  };
}

async function openBeside(
  { store, options, common }: { store: StateStore; options: OpenToolrowOptions; common: Common },
  name: string,
): Promise<Toolrow> {
  const env = options.env ?? process.env;
  let data: OpenEngineOptions;
  if (name === UNNAMED_CONNECTION) data = { ...options.data, ...common };
  else {
    const { connections } = createAppState(store.db);
    // Not options.data: the first connection's settings (an in-memory database) are not this one's.
    data = { ...common, ...(await namedDataOptions(connections, store.dataDir, name, env)) };
  }
  const source = await openEngine({ ...data, readerRoleSetup: 'later' });
  return finish(store, source, name, options, common, false);
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
