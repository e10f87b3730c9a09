// `toolrow db`: usage errors in-process, the real command as a child process on a PGlite data dir
// (what a user runs first), and the rest in-process on PostgreSQL when it is available.
import { lstat, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MIGRATIONS } from '@toolrow/state';
import { createTestEnvironment, type TestEnvironment } from '@toolrow/state/testing';
import { describeWithService, serviceUrl } from '@toolrow/test-services';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, spawnCli } from '../testing.ts';

describe('toolrow db usage', () => {
  it('exits 2 with the usage on bad arguments, before touching any database', async () => {
    const cases: [string[], RegExp][] = [
      [['db'], /Name a db subcommand: seed, info or setup-roles/],
      [['db', 'setup-roles', '--bogus'], /Unknown option '--bogus'/],
      [['db', 'frob'], /Unknown db subcommand 'frob'/],
      [['db', 'seed', '--orders', 'many'], /--orders must be a whole number from 1 to 10000000, got 'many'/],
      [['db', 'seed', '--orders', '0'], /--orders must be a whole number/],
      [['db', 'seed', '--seed', '1.5'], /--seed must be a whole number/],
      [['db', 'seed', '--bogus'], /Unknown option '--bogus'/],
    ];
    for (const [argv, message] of cases) {
      const result = await runCli(argv, { DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' });
      expect(result.code, argv.join(' ')).toBe(2);
      expect(result.stderr, argv.join(' ')).toMatch(message);
      expect(result.stderr).toMatch(/Usage: toolrow db/);
    }
  });

  it('names DATABASE_URL when the server cannot be reached (exit 1)', async () => {
    const result = await runCli(['db', 'info'], { DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /toolrow db: Cannot reach PostgreSQL at nobody@127\.0\.0\.1:1\/none \(from DATABASE_URL\)/,
    );
  });
});

describe('toolrow db seed as a real process on PGlite', () => {
  let environment: TestEnvironment;
  beforeAll(async () => {
    environment = await createTestEnvironment('pglite');
  });
  afterAll(() => environment.cleanup());

  it('seeds with a few progress lines on a non-terminal stderr, then is a no-op', async () => {
    const options = { env: { ...environment.env, CI: '' }, cwd: environment.cwd };
    const first = await spawnCli(['db', 'seed', '--orders', '400'], options);
    expect(first.stderr).toBe(first.stderr.replace(/\r/g, ''));
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(
      new RegExp(
        `^Seeded the sample shop into PGlite at ${environment.env.TOOLROW_DATA_DIR}/pgdata: 80 customers, 20 products, 400 orders, [\\d,]+ order items in [\\d.]+ s\\.\\n$`,
      ),
    );
    const progress = first.stderr.trim().split('\n');
    expect(progress.length).toBeGreaterThanOrEqual(2);
    expect(progress.length).toBeLessThanOrEqual(8);
    expect(progress.at(-1)).toMatch(/^seeding: 100% /);

    const again = await spawnCli(['db', 'seed', '--orders', '400'], options);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/already in PGlite .*nothing written\. Use --reset to re-create it/);

    const info = await spawnCli(['db', 'info'], options);
    expect(info.stdout).toContain(
      '[on]  reader role: reads run as toolrow_reader (SELECT only, hardened), set up by Toolrow',
    );
    const roles = await spawnCli(['db', 'setup-roles'], options);
    expect(roles.stdout).toMatch(/embedded PGlite: Toolrow sets up the reader role .* itself/);
  }, 180_000);
});

describe('what a first command leaves on disk', () => {
  let cwd: string;
  beforeAll(async () => {
    cwd = await mkdtemp(join(tmpdir(), 'toolrow-modes-'));
  });
  afterAll(() => rm(cwd, { recursive: true, force: true }));

  it("every file and folder under a new data dir is its user's alone, whatever the shell umask", async () => {
    const previous = process.umask(0o022);
    let seeded: Awaited<ReturnType<typeof spawnCli>>;
    try {
      seeded = await spawnCli(['db', 'seed', '--orders', '50'], {
        env: { DATABASE_URL: '', TOOLROW_STATE_URL: '', TOOLROW_DATA_DIR: '', CI: '' },
        cwd,
      });
    } finally {
      process.umask(previous);
    }
    expect(seeded.code, seeded.stderr).toBe(0);
    const dataDir = join(cwd, '.toolrow');
    expect((await stat(dataDir)).mode & 0o777).toBe(0o700);
    const entries = await readdir(dataDir, { recursive: true });
    expect(entries.length).toBeGreaterThan(100);
    const open: string[] = [];
    for (const entry of entries) {
      const mode = (await lstat(join(dataDir, entry))).mode;
      if ((mode & 0o077) !== 0) open.push(`${entry} ${(mode & 0o777).toString(8)}`);
    }
    expect(open).toEqual([]);
  }, 180_000);
});

const serverUrl = serviceUrl('postgres');
describeWithService('postgres', 'toolrow db on PostgreSQL', () => {
  let environment: TestEnvironment;
  beforeAll(async () => {
    environment = await createTestEnvironment('postgres');
  });
  afterAll(() => environment.cleanup());

  it('seeds with --reset and shows the tables', async () => {
    const empty = await runCli(['db', 'info'], environment.env, environment.cwd);
    expect(empty.code).toBe(0);
    expect(empty.stdout).toMatch(/your data: +PostgreSQL .*toolrow_t_/);
    // Toolrow's own state lives in a database of its own, never in the user's.
    expect(empty.stdout).toMatch(/toolrow state: +PostgreSQL .*toolrow_s_/);
    expect(empty.stdout).toMatch(/No tables yet\. Run `toolrow db seed`/);
    const seeded = await runCli(
      ['db', 'seed', '--orders', '250', '--json'],
      environment.env,
      environment.cwd,
    );
    expect(seeded.code, seeded.stderr).toBe(0);
    expect(JSON.parse(seeded.stdout)).toMatchObject({
      alreadySeeded: false,
      counts: { orders: 250, customers: 50 },
    });
    const other = await runCli(['db', 'seed', '--orders', '260'], environment.env, environment.cwd);
    expect(other.code).toBe(1);
    expect(other.stderr).toMatch(
      /toolrow db: There are sample-shop tables already: .*orders \(250 rows\).*--reset/,
    );
    const reset = await runCli(
      ['db', 'seed', '--orders', '260', '--reset', '--json'],
      environment.env,
      environment.cwd,
    );
    expect(JSON.parse(reset.stdout).counts.orders).toBe(260);
    const info = await runCli(['db', 'info'], environment.env, environment.cwd);
    expect(info.stdout).toMatch(/public\.orders +table +260 /);
    const json = JSON.parse(
      (await runCli(['db', 'info', '--json'], environment.env, environment.cwd)).stdout,
    );
    expect(json).toMatchObject({
      engine: 'postgres',
      appStateVersion: MIGRATIONS.at(-1)!.version,
      stagedChanges: 0,
    });
    expect(json.tables.map((table: { table: string }) => table.table)).toEqual([
      'public.customers',
      'public.order_items',
      'public.orders',
      'public.products',
    ]);
    expect(info.stdout).not.toMatch(/data dir:/);
    expect(info.stdout).toMatch(
      /\[off\] reader role: no role toolrow_reader on this server: `toolrow db setup-roles`/,
    );
    expect(info.stdout).toMatch(/\[off\] login user: a superuser/);
  }, 60_000);

  it('setup-roles prints the reader role SQL, applies it, and db info then shows the role in use', async () => {
    // Roles are cluster-wide: one of this test's own, named through TOOLROW_READER_ROLE.
    const role = `toolrow_reader_cli_${process.pid}`;
    const env = { ...environment.env, TOOLROW_READER_ROLE: role };
    try {
      const printed = await runCli(['db', 'setup-roles'], env, environment.cwd);
      expect(printed.code, printed.stderr).toBe(0);
      expect(printed.stdout).toContain(`CREATE ROLE "${role}" NOLOGIN`);
      expect(printed.stdout).toContain(`GRANT SELECT ON ALL TABLES IN SCHEMA "public" TO "${role}";`);
      expect(printed.stdout).toContain(`GRANT "${role}" TO "toolrow";`);
      expect(printed.stdout).toContain('REVOKE TEMPORARY ON DATABASE');
      expect(printed.stderr).toMatch(/Run this as the owner of your tables/);
      const unhardened = await runCli(['db', 'setup-roles', '--no-harden'], env, environment.cwd);
      expect(unhardened.stdout).not.toContain('REVOKE');

      // Named but missing: a clear refusal rather than reads without it.
      const missing = await runCli(['db', 'info'], env, environment.cwd);
      expect(missing.code).toBe(1);
      expect(missing.stderr).toMatch(
        new RegExp(`TOOLROW_READER_ROLE=${role}: no role ${role} on this server`),
      );

      const applied = await runCli(['db', 'setup-roles', '--apply'], env, environment.cwd);
      expect(applied.code, applied.stderr).toBe(0);
      expect(applied.stdout).toMatch(
        new RegExp(`Set up ${role} on PostgreSQL .*SELECT on public, granted to toolrow, hardened`),
      );
      const info = await runCli(['db', 'info'], env, environment.cwd);
      expect(info.code, info.stderr).toBe(0);
      expect(info.stdout).toContain(`[on]  reader role: reads run as ${role} (SELECT only, hardened)`);
      const json = JSON.parse((await runCli(['db', 'info', '--json'], env, environment.cwd)).stdout);
      expect(
        json.readLayers.map((layer: { layer: string; active: boolean }) => [layer.layer, layer.active]),
      ).toEqual([
        ['one statement', true],
        ['read-only transaction', true],
        ['reader role', true],
        ['login user', false],
      ]);
    } finally {
      await environment.cleanup();
      environment = await createTestEnvironment('postgres');
      const pg = (await import('pg')).default;
      const admin = new pg.Client({ connectionString: serverUrl });
      await admin.connect();
      await admin.query(`DROP ROLE IF EXISTS "${role}"`).finally(() => admin.end());
    }
  }, 60_000);
});
