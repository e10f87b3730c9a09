import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { SeedOptions } from '@toolrow/datasource';
import pg from 'pg';
import type { Database } from './database.ts';
import { dumpEmbeddedDatabase } from './drivers/dump.ts';
import { describeUrl, parsePostgresUrl } from './drivers/postgres-url.ts';
import { openDataSource } from './open-data-source.ts';
import type { SqlDataSource } from './sql-source.ts';
import type { OpenTestOptions, TestDatabase, TestEngine } from './testing-types.ts';

/** The "now" test seeds pin, so dates in seeded data are the same on every run. */
export const TEST_SEED_NOW = new Date('2026-06-01T00:00:00Z');

export const DEFAULT_TEST_ORDERS = 200;

const snapshots = new Map<string, Promise<Blob>>();

/**
 * A PGlite data dir prepared once (`prepare` runs on a fresh cluster), dumped and cached in the
 * temp dir under `name` + `version` + the PGlite version: loading it takes ~1 s where initdb
 * takes 3–8 s, and every vitest worker opens its own. Change `version` when `prepare` changes.
 */
export function pgliteSnapshot(
  name: string,
  version: string,
  prepare: (db: Database) => Promise<void> = async () => {},
): Promise<Blob> {
  const key = `${name}:${version}`;
  let snapshot = snapshots.get(key);
  if (!snapshot) {
    snapshot = (async () => {
      const require = (await import('node:module')).createRequire(import.meta.url);
      const manifest = join(dirname(require.resolve('@electric-sql/pglite')), '..', 'package.json');
      const pgliteVersion = (JSON.parse(await readFile(manifest, 'utf8')) as { version: string }).version;
      const hash = createHash('sha256').update(pgliteVersion).update(key).digest('hex').slice(0, 16);
      const file = join(tmpdir(), `toolrow-pglite-${name}-${hash}.tar`);
      try {
        return new Blob([await readFile(file)]);
      } catch {
        // Not cached yet: build it below.
      }
      const bytes = new Uint8Array(await (await dumpEmbeddedDatabase(prepare)).arrayBuffer());
      // Write then rename: parallel workers never read a half-written snapshot.
      const partial = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
      await writeFile(partial, bytes);
      await rename(partial, file);
      return new Blob([bytes]);
    })();
    snapshots.set(key, snapshot);
  }
  return snapshot;
}

/** An empty cluster: what a user's embedded database starts as. */
const emptyCluster = () => pgliteSnapshot('empty', '1');

function seedOptions(seed: OpenTestOptions['seed']): SeedOptions | undefined {
  if (!seed) return undefined;
  const given = seed === true ? {} : seed;
  return { orders: DEFAULT_TEST_ORDERS, now: TEST_SEED_NOW, ...given };
}

async function finish(ds: SqlDataSource, options: OpenTestOptions): Promise<SqlDataSource> {
  const seed = seedOptions(options.seed);
  try {
    if (seed) await ds.seed(seed);
    return ds;
  } catch (error) {
    await ds.close();
    throw error;
  }
}

const pglite: TestEngine = {
  name: 'pglite',
  async open(options = {}) {
    const ds = await openDataSource({ memory: true, loadDataDir: await emptyCluster(), env: {} });
    return finish(ds, options);
  },
};

/**
 * PGlite with its data directory on disk (a fresh temp folder, removed on close), as the app runs
 * it: hosted in a worker thread, so statement timeouts hold. Not in testEngines() (it costs a
 * worker per open); add it where the difference matters.
 */
export const pgliteOnDisk: TestEngine = {
  name: 'pglite-disk',
  async open(options = {}) {
    const [loadDataDir, dataDir] = await Promise.all([
      emptyCluster(),
      mkdtemp(join(tmpdir(), 'toolrow-pglite-disk-')),
    ]);
    const cleanup = () => rm(dataDir, { recursive: true, force: true });
    let ds: SqlDataSource;
    try {
      ds = await openDataSource({ dataDir, loadDataDir, env: {}, onClose: cleanup });
    } catch (error) {
      await cleanup();
      throw error;
    }
    return finish(ds, options);
  },
};

/**
 * A new database on the PostgreSQL server `adminUrl` names (a role that may CREATE DATABASE),
 * named `<prefix><random>`; drop() removes it, forcing out any session still on it.
 */
export async function createTestDatabase(adminUrl: string, prefix = 'toolrow_t_'): Promise<TestDatabase> {
  const url = parsePostgresUrl(adminUrl, 'TOOLROW_TEST_DATABASE_URL');
  const name = `${prefix}${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  try {
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
  } catch (error) {
    throw new Error(
      `The PostgreSQL test server at ${describeUrl(url)} (TOOLROW_TEST_DATABASE_URL) could not create a test database: ${(error as Error).message}. Check that the server runs and the role may CREATE DATABASE.`,
      { cause: error },
    );
  } finally {
    await admin.end().catch(() => {});
  }
  const testUrl = new URL(adminUrl);
  testUrl.pathname = `/${name}`;
  return {
    name,
    url: testUrl.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}

function postgres(adminUrl: string): TestEngine {
  return {
    name: 'postgres',
    async open(options = {}) {
      const database = await createTestDatabase(adminUrl);
      let ds: SqlDataSource;
      try {
        ds = await openDataSource({ url: database.url, env: {}, poolSize: 4, onClose: database.drop });
      } catch (error) {
        await database.drop().catch(() => {});
        throw error;
      }
      return finish(ds, options);
    },
  };
}

const missingPostgres: TestEngine = {
  name: 'postgres',
  async open() {
    throw missingPostgresError();
  },
};

/** What a suite that must run on PostgreSQL in CI says when the server is not configured. */
export function missingPostgresError(): Error {
  return new Error(
    'CI=true but TOOLROW_TEST_DATABASE_URL is not set: the PostgreSQL half of the suite must run in CI. Export TOOLROW_TEST_DATABASE_URL=postgres://user:password@127.0.0.1:5432/db (a role that may CREATE DATABASE).',
  );
}

/**
 * The engines to run a suite on: PGlite always; PostgreSQL when TOOLROW_TEST_DATABASE_URL is set
 * (and, with CI=true, an entry that fails loudly when it is not).
 */
export function testEngines(env: Readonly<Record<string, string | undefined>> = process.env): TestEngine[] {
  const url = env.TOOLROW_TEST_DATABASE_URL?.trim();
  if (url) return [pglite, postgres(url)];
  if (env.CI === 'true' || env.CI === '1') return [pglite, missingPostgres];
  return [pglite];
}
