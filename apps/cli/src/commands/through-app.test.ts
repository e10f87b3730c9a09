// While `npm start` runs, it holds the embedded database. The user's own commands then go through
// the app (found in <data dir>/app.json) and print what they print without it; the others say that
// the app is running and what to do. The app is the real server on a real socket.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { type StartedApp, startApp } from '@toolrow/server';
import { openToolrow } from '@toolrow/state';
import { createTestEnvironment, TEST_SEED_NOW, type TestEnvironment } from '@toolrow/state/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsListedAt } from '../../../../packages/mcp-server/test/expected.ts';
import { type CliResult, runCli, spawnCli, TOOLROW_BIN } from '../testing.ts';

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
      await toolrow.source.seed!({ orders: 60, now: TEST_SEED_NOW });
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

  it('mcp --stdio beside the app: a real SDK client is served through it, gated calls wait in its inbox', async () => {
    const created = await spawnCli(
      ['mcp', 'token', 'create', '--scope', 'tables:staged', '--name', 'stdio-beside', '--json'],
      { env: environment.env, cwd: environment.cwd },
    );
    expect(created.code, created.stderr).toBe(0);
    const { token } = JSON.parse(created.stdout) as { token: string };
    const connect = async (extra: Record<string, string>) => {
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [TOOLROW_BIN, 'mcp', '--stdio'],
        env: { PATH: process.env.PATH ?? '', ...environment.env, ...extra } as Record<string, string>,
        cwd: environment.cwd,
        stderr: 'pipe',
      });
      let stderr = '';
      transport.stderr?.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      const client = new Client({ name: 'beside-app', version: '0' });
      await client.connect(transport);
      return { client, stderr: () => stderr };
    };

    // Without a token: the user at tables:readonly, as mcp:stdio.
    const reader = await connect({});
    try {
      expect((await reader.client.listTools()).tools.map((tool) => tool.name)).toEqual(
        rowsListedAt('tables:readonly'),
      );
      // Manual mode: the read waits in the app's inbox until the user answers there.
      const counted = reader.client.callTool({ name: 'countRows', arguments: { table: 'orders' } });
      const inbox = `${app!.url}/api/mcp/approvals`;
      const headers = { authorization: `Bearer ${app!.token}`, 'content-type': 'application/json' };
      let pending: { id: string; client: string; tool: string }[] = [];
      await expect
        .poll(
          async () => {
            pending = ((await (await fetch(inbox, { headers })).json()) as { pending: typeof pending })
              .pending;
            return pending.map((request) => [request.client, request.tool]);
          },
          { timeout: 30_000 },
        )
        // Under the name the client declared (the stdio process passes it on), beside mcp:stdio.
        .toEqual([['beside-app (stdio)', 'countRows']]);
      const answered = await fetch(`${inbox}/${pending[0]!.id}`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ approved: true }),
      });
      expect(answered.status).toBe(200);
      const result = await counted;
      expect(result.isError, JSON.stringify(result)).toBeFalsy();
      expect(result.structuredContent).toMatchObject({ table: 'public.orders', count: 60 });
      // Out of scope: refused as the direct stdio server refuses it, as a result; nothing runs.
      const refused = await reader.client.callTool({
        name: 'stageUpdateRows',
        arguments: { table: 'orders', updates: [{ key: { id: 2 }, values: { note: 'x' } }] },
      });
      expect(refused.isError).toBe(true);
      expect(JSON.stringify(refused.content)).toMatch(/needs scope tables:staged/);
      expect(reader.stderr()).toContain(`through the Toolrow app at ${app!.url}/`);
    } finally {
      await reader.client.close();
    }

    // With a token: its scope and name; a staged write lands in the app's staging area.
    const writer = await connect({ TOOLROW_MCP_TOKEN: token });
    try {
      expect((await writer.client.listTools()).tools.map((tool) => tool.name)).toEqual(
        rowsListedAt('tables:staged'),
      );
      const before = (await cli('staging', 'list', '--json')).stdout;
      await fetch(`${app!.url}/api/profile`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${app!.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ mode: 'full-auto' }),
      });
      const staged = await writer.client.callTool({
        name: 'stageUpdateRows',
        arguments: { table: 'orders', updates: [{ key: { id: 2 }, values: { note: 'from stdio' } }] },
      });
      expect(staged.isError, JSON.stringify(staged)).toBeFalsy();
      const after = JSON.parse((await cli('staging', 'list', '--json')).stdout) as { stagedBy: string }[];
      expect(after.length).toBe((JSON.parse(before) as unknown[]).length + 1);
      expect(after.map((change) => change.stagedBy)).toContain('mcp:stdio-beside');
    } finally {
      await writer.client.close();
    }
  }, 120_000);

  it('a command with no way through the app says the app is running, where, and what to do', async () => {
    const result = await spawnCli(['db', 'info'], { env: environment.env, cwd: environment.cwd });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`The Toolrow app is running on this data dir at ${app!.url}/`);
    expect(result.stderr).toContain('Use the app, or stop it (Ctrl+C where `npm start` runs)');
    expect(result.stderr).toContain(
      '`toolrow staging`, `toolrow call` and `toolrow mcp --stdio` work while it runs',
    );
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
