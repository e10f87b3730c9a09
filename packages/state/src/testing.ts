/**
 * Test helper for every package above the data layer: the user's data and a state store, fresh
 * per open(): PGlite data with SQLite state (both in memory, always), and PostgreSQL data and
 * state (two databases of their own on the server TOOLROW_TEST_DATABASE_URL names, dropped on
 * close). Between them, every state suite runs on both state dialects. No test-runner imports here.
 *
 *   import { testStores } from '@toolrow/state/testing';
 *   describe.each(testStores())('$name', ({ open }) => {
 *     let toolrow: Toolrow;
 *     beforeAll(async () => { toolrow = await open({ seed: true }); });
 *     afterAll(() => toolrow.close());
 *   });
 */

import { randomInt } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { type DataSource, featureOf } from '@toolrow/datasource';
import { installedEngines } from '@toolrow/engines';
import { openDatabase } from '@toolrow/postgres';
import {
  createTestDatabase,
  type OpenTestOptions as DataTestOptions,
  DEFAULT_TEST_ORDERS,
  missingPostgresError,
  pgliteOnDisk,
  pgliteSnapshot,
  TEST_SEED_NOW,
  testEngines,
} from '@toolrow/postgres/testing';
import type { StagingOptions } from './staging.ts';
import type { OpenStateOptions } from './state.ts';
import { openState } from './state.ts';
import { composeToolrow, type Toolrow } from './toolrow.ts';

export { TEST_SEED_NOW } from '@toolrow/postgres/testing';

export interface OpenTestOptions extends DataTestOptions {
  /** Exports folder (default: a fresh temp dir, removed on close). */
  exportsDir?: string;
  /** Test hooks of the staging area. */
  staging?: StagingOptions;
}

export interface StoreEngine {
  name: 'pglite' | 'pglite-disk' | 'postgres' | 'dynamodb' | 'sqlite' | 'mariadb';
  /** The user's data (seeded when asked) and an empty, migrated state store. */
  open(options?: OpenTestOptions): Promise<Toolrow>;
}

/** A fresh configuration reachable through environment variables, for code that opens its own (CLI, servers). */
export interface TestEnvironment {
  name: 'pglite' | 'postgres';
  /**
   * Pass to the code under test. PGlite: TOOLROW_DATA_DIR (data and state embedded there, DATABASE_URL
   * and TOOLROW_STATE_URL empty). PostgreSQL: DATABASE_URL and TOOLROW_STATE_URL of two new databases.
   */
  env: Record<string, string>;
  /** A fresh temp folder to run in (holds the data dir and exports). */
  cwd: string;
  /** Drops the databases / deletes the folder. */
  cleanup(): Promise<void>;
}

async function exportsDirFor(
  options: OpenTestOptions,
): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  if (options.exportsDir) return { dir: options.exportsDir, cleanup: async () => {} };
  const dir = await mkdtemp(join(tmpdir(), 'toolrow-exports-'));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** Opens the state over `source` (closing the source when that fails). */
async function withState(
  source: DataSource,
  options: OpenTestOptions,
  store: Omit<OpenStateOptions, 'source' | 'exportsDir' | 'onClose'>,
  cleanup: () => Promise<void> = async () => {},
): Promise<Toolrow> {
  const exportsDir = await exportsDirFor(options);
  try {
    const state = await openState({
      ...store,
      source,
      env: {},
      exportsDir: exportsDir.dir,
      ...(options.staging ? { staging: options.staging } : {}),
      onClose: async () => {
        await exportsDir.cleanup();
        await cleanup();
      },
    });
    return composeToolrow(source, state);
  } catch (error) {
    await exportsDir.cleanup();
    await cleanup().catch(() => {});
    await source.close();
    throw error;
  }
}

function dataOptions(options: OpenTestOptions) {
  return options.seed === undefined ? {} : { seed: options.seed };
}

const [pgliteData] = testEngines({});

const pglite: StoreEngine = {
  name: 'pglite',
  async open(options = {}) {
    // The state in SQLite in memory: a fresh one is migrated in milliseconds.
    return withState(await pgliteData!.open(dataOptions(options)), options, { memory: true });
  },
};

/** Data and state on disk in one temp data dir, as the app runs them (the data in its worker thread). */
export const pgliteOnDiskStores: StoreEngine = {
  name: 'pglite-disk',
  async open(options = {}) {
    const source = await pgliteOnDisk.open(dataOptions(options));
    return withState(source, options, { dataDir: source.dataDir });
  },
};

function postgres(adminUrl: string): StoreEngine {
  const data = testEngines({ TOOLROW_TEST_DATABASE_URL: adminUrl })[1]!;
  return {
    name: 'postgres',
    async open(options = {}) {
      const [source, database] = await Promise.all([
        data.open(dataOptions(options)),
        createTestDatabase(adminUrl, 'toolrow_s_'),
      ]);
      return withState(source, options, { url: database.url }, database.drop);
    },
  };
}

/**
 * The configurations to run a suite on: PGlite always; PostgreSQL (data and state each in a
 * database of their own) when TOOLROW_TEST_DATABASE_URL is set, failing loudly in CI without it.
 */
export function testStores(env: Readonly<Record<string, string | undefined>> = process.env): StoreEngine[] {
  const url = env.TOOLROW_TEST_DATABASE_URL?.trim();
  if (url) return [pglite, postgres(url)];
  if (env.CI === 'true' || env.CI === '1')
    return [
      pglite,
      {
        name: 'postgres',
        open: () => Promise.reject(missingPostgresError()),
      },
    ];
  return [pglite];
}

/**
 * DynamoDB Local (TOOLROW_TEST_DYNAMODB_URL) as a store engine: each open() gets a region of its
 * own (an empty account on DynamoDB Local), the sample shop's tables when seeded, and the state in
 * SQLite in memory. Undefined without the URL; in CI that is an error (the suite would not run).
 */
export function dynamoTestStore(
  env: Readonly<Record<string, string | undefined>> = process.env,
): StoreEngine | undefined {
  const base = env.TOOLROW_TEST_DYNAMODB_URL?.trim();
  if (!base) {
    if (env.CI === 'true' || env.CI === '1')
      throw new Error(
        'CI must set TOOLROW_TEST_DYNAMODB_URL (scripts/ci-dynamodb.sh starts DynamoDB Local).',
      );
    return undefined;
  }
  return {
    name: 'dynamodb',
    open: (options = {}) =>
      openByUrl('toolrow-ddb-', options, async () => {
        const url = new URL(base);
        url.searchParams.set('region', `zz-test-${randomInt(1_000_000_000)}`);
        return url.href;
      }),
  };
}

/**
 * A MariaDB server (TOOLROW_TEST_MARIADB_URL, an account that may create databases) as a store
 * engine: each open() gets a database of its own, dropped on close, the state in SQLite in memory.
 * Undefined without the URL; in CI that is an error (the suite would not run).
 */
export function mariadbTestStore(
  env: Readonly<Record<string, string | undefined>> = process.env,
): StoreEngine | undefined {
  const admin = env.TOOLROW_TEST_MARIADB_URL?.trim();
  if (!admin) {
    if (env.CI === 'true' || env.CI === '1')
      throw new Error('CI must set TOOLROW_TEST_MARIADB_URL (scripts/ci-mariadb.sh starts MariaDB).');
    return undefined;
  }
  return {
    name: 'mariadb',
    async open(options = {}) {
      const { createMysqlTestDatabase } = await import('@toolrow/mysql/testing');
      const database = await createMysqlTestDatabase(admin);
      try {
        return await openByUrl('toolrow-mariadb-', options, async () => database.url, database.drop);
      } catch (error) {
        await database.drop();
        throw error;
      }
    },
  };
}

/** A store over a new SQLite file (made empty here, seeded through the engine): always available. */
export function sqliteTestStore(): StoreEngine {
  return {
    name: 'sqlite',
    open: (options = {}) =>
      openByUrl('toolrow-sqlite-', options, async (dataDir) => {
        const path = join(dataDir, 'shop.db');
        new DatabaseSync(path).close();
        return `sqlite://${path}`;
      }),
  };
}

/**
 * A connection an installed engine opens on the URL `urlIn` makes in a fresh data dir, seeded when
 * asked, with its state in SQLite in memory; the dir goes when it closes, or when opening fails.
 */
async function openByUrl(
  prefix: string,
  options: OpenTestOptions,
  urlIn: (dataDir: string) => Promise<string>,
  onClose: () => Promise<void> = async () => {},
): Promise<Toolrow> {
  const dataDir = await mkdtemp(join(tmpdir(), prefix));
  const removeDir = async () => {
    await rm(dataDir, { recursive: true, force: true });
    await onClose();
  };
  let source: DataSource;
  try {
    const url = await urlIn(dataDir);
    source = await installedEngines.forUrl(url).open({ url, dataDir });
  } catch (error) {
    await removeDir();
    throw error;
  }
  const given = options.seed === true ? {} : options.seed;
  if (given) {
    try {
      await featureOf(source, 'seed')({ orders: DEFAULT_TEST_ORDERS, now: TEST_SEED_NOW, ...given });
    } catch (error) {
      await source.close();
      await removeDir();
      throw error;
    }
  }
  return withState(source, options, { memory: true }, removeDir);
}

/**
 * A fresh configuration reachable through environment variables, for code that opens its own
 * (CLI commands, servers): PGlite → TOOLROW_DATA_DIR of a new temp folder; PostgreSQL →
 * DATABASE_URL and TOOLROW_STATE_URL of two new databases. cleanup() drops / deletes them.
 */
export async function createTestEnvironment(
  name: 'pglite' | 'postgres',
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<TestEnvironment> {
  const cwd = await mkdtemp(join(tmpdir(), 'toolrow-env-'));
  const removeDir = () => rm(cwd, { recursive: true, force: true });
  const dataDir = join(cwd, '.toolrow');
  if (name === 'pglite') {
    // The data's cluster made from a snapshot now: the first command then skips an initdb run
    // (about 4 s and 1 GB on a busy machine). The state (SQLite) is made when first opened.
    const db = await openDatabase({
      env: {},
      dataDir,
      pgdata: join(dataDir, 'pgdata'),
      loadDataDir: await pgliteSnapshot('empty', '1'),
      worker: false,
    });
    await db.close();
    return {
      name,
      cwd,
      env: { DATABASE_URL: '', TOOLROW_STATE_URL: '', TOOLROW_DATA_DIR: dataDir },
      cleanup: removeDir,
    };
  }
  const adminUrl = env.TOOLROW_TEST_DATABASE_URL?.trim();
  if (!adminUrl) {
    await removeDir();
    throw new Error(
      "createTestEnvironment('postgres') needs TOOLROW_TEST_DATABASE_URL (a role that may CREATE DATABASE).",
    );
  }
  const [data, state] = await Promise.all([
    createTestDatabase(adminUrl),
    createTestDatabase(adminUrl, 'toolrow_s_'),
  ]);
  return {
    name,
    cwd,
    env: { DATABASE_URL: data.url, TOOLROW_STATE_URL: state.url, TOOLROW_DATA_DIR: dataDir },
    async cleanup() {
      await Promise.all([data.drop(), state.drop()]);
      await removeDir();
    },
  };
}
