// While `npm start` runs, it holds the embedded database. The user's own commands then go through
// the app (found in <data dir>/app.json) and print what they print without it; the others say that
// the app is running and what to do. The app is the real server on a real socket.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type StartedApp, startApp } from '@toolrow/server';
import { openToolrow } from '@toolrow/state';
import { createTestEnvironment, TEST_SEED_NOW, type TestEnvironment } from '@toolrow/state/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliResult, runCli, spawnCli } from '../testing.ts';

describe('toolrow commands while the app runs on their data dir', () => {
  let environment: TestEnvironment;
  let app: StartedApp | undefined;
  const cli = (...argv: string[]) => runCli(argv, environment.env, environment.cwd);

  // What each command prints, with the database opened by the command itself.
  const COMMANDS = [
    ['staging', 'list'],
    ['staging', 'list', '--json'],
    ['staging', 'list', '--table', 'customers'],
    ['staging', 'diff'],
    ['staging', 'diff', '--json', '1'],
    ['staging', 'commit', '99'],
    ['call', 'countRows', '{"table":"orders"}'],
    ['call', 'getRow', '{"table":"orders","key":{"id":3}}'],
    ['call', 'countRows', '{"table":"ordrs"}'],
    ['call', 'listStagedChanges'],
  ];
  const direct = new Map<string, CliResult>();

  beforeAll(async () => {
    environment = await createTestEnvironment('pglite');
    const toolrow = await openToolrow({ env: environment.env, cwd: environment.cwd });
    try {
      await toolrow.source.seed({ orders: 60, now: TEST_SEED_NOW });
      await toolrow.state.staging.stageUpdate('orders', [{ key: 1, values: { note: 'call back' } }], {
        actor: 'agent',
      });
      await toolrow.state.staging.stageInsert(
        'customers',
        [{ name: 'Ada Lovelace', email: 'ada@example.com', city: 'London', country: 'GB' }],
        { actor: 'mcp:claude', profile: 'research' },
      );
    } finally {
      await toolrow.close();
    }
    for (const argv of COMMANDS) direct.set(argv.join(' '), await cli(...argv));
    app = await startApp({
      env: environment.env,
      cwd: environment.cwd,
      port: 0,
      build: false,
      out: () => {},
      err: () => {},
    });
  }, 180_000);

  afterAll(async () => {
    await app?.close();
    await environment?.cleanup();
  });

  it('the app wrote app.json with its URL and token', () => {
    const file = join(environment.env.TOOLROW_DATA_DIR!, 'app.json');
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ url: app!.url, token: app!.token });
  });

  it('staging and call print the same through the app as over the database', async () => {
    for (const argv of COMMANDS) {
      const through = await cli(...argv);
      expect(through, argv.join(' ')).toEqual(direct.get(argv.join(' ')));
    }
    expect(direct.get('staging list')?.stdout).toContain('2 staged changes');
    expect(direct.get('call countRows {"table":"ordrs"}')?.code).toBe(1);
  });

  it('a real process goes through the app too (the lock names the app’s process)', async () => {
    const listed = await spawnCli(['staging', 'list'], { env: environment.env, cwd: environment.cwd });
    expect(listed).toEqual(direct.get('staging list'));
  }, 60_000);

  it('commits through the app: the row changes and the staging area empties', async () => {
    const committed = await cli('staging', 'commit', '1');
    expect(committed.code).toBe(0);
    expect(committed.stdout).toMatch(/^Committed 1 change to .*: 0 inserted, 1 updated, 0 deleted\.\n$/);
    const row = await fetch(`${app!.url}/api/tables/orders/row`, {
      method: 'POST',
      headers: { authorization: `Bearer ${app!.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ key: { id: 1 } }),
    });
    expect(((await row.json()) as { row: { note: string } }).row.note).toBe('call back');
    expect((await cli('staging', 'discard', '--all')).stdout).toBe('Discarded 1 staged change.\n');
    expect((await cli('staging', 'list')).stdout).toBe('Nothing staged.\n');
  });

  it('an export through the app is complete when the command returns', async () => {
    const result = await cli('call', 'startExport', '{"table":"products","format":"csv"}');
    expect(result.code).toBe(0);
    const exportsDir = join(environment.env.TOOLROW_DATA_DIR!, 'exports');
    const jobs = await fetch(`${app!.url}/api/exports`, {
      headers: { authorization: `Bearer ${app!.token}` },
    });
    const [job] = ((await jobs.json()) as { jobs: { state: string; fileName: string }[] }).jobs;
    expect(job?.state).toBe('done');
    expect(readFileSync(join(exportsDir, job!.fileName), 'utf8').split('\n')[0]).toContain('name');
  });

  it('token commands work while the app runs: they open only the state store, which both can share', async () => {
    const created = await spawnCli(
      ['mcp', 'token', 'create', '--scope', 'tables:readonly', '--name', 'beside-app', '--json'],
      {
        env: environment.env,
        cwd: environment.cwd,
      },
    );
    expect(created.code, created.stderr).toBe(0);
    const listed = await spawnCli(['mcp', 'token', 'list', '--json'], {
      env: environment.env,
      cwd: environment.cwd,
    });
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout)).toContainEqual(
      expect.objectContaining({ name: 'beside-app', status: 'active' }),
    );
  }, 60_000);

  it('a command with no way through the app says the app is running, where, and what to do', async () => {
    const result = await spawnCli(['db', 'info'], { env: environment.env, cwd: environment.cwd });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`The Toolrow app is running on this data dir at ${app!.url}/`);
    expect(result.stderr).toContain('Use the app, or stop it (Ctrl+C where `npm start` runs)');
    expect(result.stderr).toContain('`toolrow staging` and `toolrow call` work while it runs');
  }, 60_000);

  it('once the app stops, app.json is gone and the commands open the database again', async () => {
    await app!.close();
    app = undefined;
    expect(existsSync(join(environment.env.TOOLROW_DATA_DIR!, 'app.json'))).toBe(false);
    expect(await cli('call', 'countRows', '{"table":"orders"}')).toEqual(
      direct.get('call countRows {"table":"orders"}'),
    );
  });
});
