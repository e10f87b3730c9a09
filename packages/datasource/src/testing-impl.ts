import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import pg from 'pg';
import type { DataSource } from './datasource.ts';
import { openDataSource } from './datasource-impl.ts';
import { CoreDatabase } from './engines/core.ts';
import { openPglite } from './engines/pglite.ts';
import { describeUrl, parsePostgresUrl } from './engines/postgres.ts';
import { MIGRATIONS, migrate } from './migrations.ts';
import type { SeedOptions } from './seed-types.ts';
import type { OpenTestOptions, TestEngine, TestEnvironment } from './testing.ts';

/** The "now" test seeds pin, so dates in seeded data are the same on every run. */
export const TEST_SEED_NOW = new Date('2026-06-01T00:00:00Z');

const DEFAULT_TEST_ORDERS = 200;

let template: Promise<Blob> | undefined;

/**
 * A migrated, empty PGlite data dir, dumped once and cached in the temp dir: loading it takes
 * ~1 s where initdb takes 3–8 s, and every vitest worker opens its own.
 */
export function pgliteTemplate(): Promise<Blob> {
  template ??= (async () => {
    const require = (await import('node:module')).createRequire(import.meta.url);
    const manifest = join(dirname(require.resolve('@electric-sql/pglite')), '..', 'package.json');
    const version = (JSON.parse(await readFile(manifest, 'utf8')) as { version: string }).version;
    const hash = createHash('sha256')
      .update(version)
      .update(JSON.stringify(MIGRATIONS))
      .digest('hex')
      .slice(0, 16);
    const file = join(tmpdir(), `toolrow-pglite-template-${hash}.tar`);
    try {
      return new Blob([await readFile(file)]);
    } catch {
      // Not cached yet: build it below.
    }
    const adapter = await openPglite({ dataDirSource: 'memory' });
    const db = new CoreDatabase(adapter);
    await migrate(db);
    const dump = await adapter.instance.dumpDataDir('none');
    await db.close();
    const bytes = new Uint8Array(await dump.arrayBuffer());
    // Write then rename: parallel workers never read a half-written template.
    const partial = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
    await writeFile(partial, bytes);
    await rename(partial, file);
    return new Blob([bytes]);
  })();
  return template;
}

function seedOptions(seed: OpenTestOptions['seed']): SeedOptions | undefined {
  if (!seed) return undefined;
  const given = seed === true ? {} : seed;
  return { orders: DEFAULT_TEST_ORDERS, now: TEST_SEED_NOW, ...given };
}

async function finish(ds: DataSource, options: OpenTestOptions): Promise<DataSource> {
  const seed = seedOptions(options.seed);
  try {
    if (seed) await ds.seed(seed);
    return ds;
  } catch (error) {
    await ds.close();
    throw error;
  }
}

async function exportsDirFor(
  options: OpenTestOptions,
): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  if (options.exportsDir) return { dir: options.exportsDir, cleanup: async () => {} };
  const dir = await mkdtemp(join(tmpdir(), 'toolrow-exports-'));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

const pglite: TestEngine = {
  name: 'pglite',
  async open(options = {}) {
    const [loadDataDir, exportsDir] = await Promise.all([pgliteTemplate(), exportsDirFor(options)]);
    const ds = await openDataSource({
      memory: true,
      loadDataDir,
      env: {},
      exportsDir: exportsDir.dir,
      onClose: exportsDir.cleanup,
    });
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
    const [loadDataDir, exportsDir, dataDir] = await Promise.all([
      pgliteTemplate(),
      exportsDirFor(options),
      mkdtemp(join(tmpdir(), 'toolrow-pglite-disk-')),
    ]);
    const cleanup = async () => {
      await exportsDir.cleanup();
      await rm(dataDir, { recursive: true, force: true });
    };
    let ds: DataSource;
    try {
      ds = await openDataSource({
        dataDir,
        loadDataDir,
        env: {},
        exportsDir: exportsDir.dir,
        onClose: cleanup,
      });
    } catch (error) {
      await cleanup();
      throw error;
    }
    return finish(ds, options);
  },
};

function postgres(adminUrl: string): TestEngine {
  return {
    name: 'postgres',
    async open(options = {}) {
      const url = parsePostgresUrl(adminUrl, 'TOOLROW_TEST_DATABASE_URL');
      const name = `toolrow_t_${randomBytes(6).toString('hex')}`;
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
      const dropDatabase = async () => {
        const client = new pg.Client({ connectionString: adminUrl });
        await client.connect();
        try {
          await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        } finally {
          await client.end();
        }
      };
      const testUrl = new URL(adminUrl);
      testUrl.pathname = `/${name}`;
      const exportsDir = await exportsDirFor(options);
      let ds: DataSource;
      try {
        ds = await openDataSource({
          url: testUrl.toString(),
          env: {},
          poolSize: 4,
          exportsDir: exportsDir.dir,
          onClose: async () => {
            await exportsDir.cleanup();
            await dropDatabase();
          },
        });
      } catch (error) {
        await exportsDir.cleanup();
        await dropDatabase().catch(() => {});
        throw error;
      }
      return finish(ds, options);
    },
  };
}

const missingPostgres: TestEngine = {
  name: 'postgres',
  async open() {
    throw new Error(
      'CI=true but TOOLROW_TEST_DATABASE_URL is not set: the PostgreSQL half of the suite must run in CI. Export TOOLROW_TEST_DATABASE_URL=postgres://user:password@127.0.0.1:5432/db (a role that may CREATE DATABASE).',
    );
  },
};

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

/**
 * A fresh database reachable through environment variables, for code that opens its own
 * connection from the environment (CLI commands, servers): PostgreSQL → DATABASE_URL of a new
 * database; PGlite → TOOLROW_DATA_DIR of a new temp folder. cleanup() drops / deletes it.
 */
export async function createTestEnvironment(
  name: 'pglite' | 'postgres',
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<TestEnvironment> {
  const cwd = await mkdtemp(join(tmpdir(), 'toolrow-env-'));
  const removeDir = () => rm(cwd, { recursive: true, force: true });
  if (name === 'pglite') {
    return {
      name,
      cwd,
      env: { DATABASE_URL: '', TOOLROW_DATA_DIR: join(cwd, '.toolrow') },
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
  const database = `toolrow_t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${database}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${database}`;
  return {
    name,
    cwd,
    env: { DATABASE_URL: url.toString(), TOOLROW_DATA_DIR: join(cwd, '.toolrow') },
    async cleanup() {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
      } finally {
        await client.end();
      }
      await removeDir();
    },
  };
}
