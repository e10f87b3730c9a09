import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { type AddressInfo, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as StdioClientTransportV1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CATALOG_ROWS, isGated, type ToolName } from '@toolrow/catalog';
import { MCP_SCOPES, type McpScope } from '@toolrow/mcp-server';
import { sqlDatabaseOf } from '@toolrow/postgres';
import { openToolrow, type Toolrow } from '@toolrow/state';
import { createTestEnvironment } from '@toolrow/state/testing';
import { serviceUrl } from '@toolrow/test-services';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsListedAt } from '../../../../packages/mcp-server/test/expected.ts';
import { createWidgets, validInputs, WIDGETS } from '../../../../packages/mcp-server/test/fixture.ts';
import { runCli, spawnCli, TOOLROW_BIN } from '../testing.ts';

// One database for the whole file, opened in turn by every command and server process, as a
// user's successive commands would: fresh PostgreSQL databases for the data and for Toolrow's state
// when TOOLROW_TEST_DATABASE_URL is set (opening PGlite from disk costs seconds per command on a
// loaded machine, and this file runs dozens), else a PGlite data directory. The
// staging walk-through below always uses a PGlite data directory, the desktop set-up.
const serverUrl = serviceUrl('postgres');
const dataDir = mkdtempSync(join(tmpdir(), 'toolrow-cli-mcp-'));
const env: Record<string, string> = { TOOLROW_DATA_DIR: dataDir, DATABASE_URL: '' };
let dropDatabase: (() => Promise<void>) | undefined;

async function withSource<T>(fn: (ds: Toolrow) => Promise<T>, useEnv = env): Promise<T> {
  const ds = await openToolrow({ env: useEnv, cwd: dataDir });
  try {
    return await fn(ds);
  } finally {
    await ds.close();
  }
}

beforeAll(async () => {
  if (!serverUrl) return;
  const database = await createTestEnvironment('postgres');
  env.DATABASE_URL = database.env.DATABASE_URL!;
  env.TOOLROW_STATE_URL = database.env.TOOLROW_STATE_URL!;
  dropDatabase = database.cleanup;
});

afterAll(async () => {
  await dropDatabase?.();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('toolrow mcp: usage', () => {
  it.each([
    [['mcp'], /Pick one transport: --stdio or --http/],
    [['mcp', '--stdio', '--http'], /Pick one transport/],
    [['mcp', '--stdio', '--port', '1'], /--port goes with --http/],
    [['mcp', '--http', '--scope', 'tables:full'], /--scope goes with --stdio/],
    [['mcp', '--http', '--port', 'x'], /Bad --port 'x'/],
    [
      ['mcp', '--stdio', '--scope', 'admin'],
      /Unknown MCP scope 'admin'. Use one of: tables:readonly, tables:staged, tables:full/,
    ],
    [['mcp', 'token'], /token needs an action: create, list or revoke/],
    [['mcp', 'token', 'create'], /token create needs --scope/],
    [['mcp', 'token', 'create', '--scope', 'tables:write'], /Unknown MCP scope 'tables:write'/],
    [['mcp', 'token', 'create', '--scope', 'staged', '--ttl', '3 days'], /Bad token lifetime '3 days'/],
    [
      ['mcp', 'token', 'create', '--scope', 'staged', '--ttl', '99999999d'],
      /Token lifetime '99999999d' is longer than 10 years.*'never'/,
    ],
    [['mcp', 'token', 'revoke'], /token revoke needs exactly one token name/],
    [['mcp', 'token', 'rotate'], /Unknown token action 'rotate'/],
  ])('%j exits 2 naming the problem', async (argv, message) => {
    const result = await runCli(argv, env);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).toContain('Usage: toolrow mcp');
  });
});

describe('toolrow mcp token', () => {
  it('create prints the token once, stores only its hash; list and revoke manage it', async () => {
    const created = await runCli(
      ['mcp', 'token', 'create', '--scope', 'staged', '--name', 'ide', '--ttl', '7d', '--json'],
      env,
    );
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    const body = JSON.parse(created.stdout) as { token: string; scope: string; expiresAt: string };
    expect(Object.keys(body).sort()).toEqual(['askViaClient', 'connection', 'expiresAt', 'scope', 'token']);
    expect(body.scope).toBe('tables:staged');
    // Bound to the connection the command acts on: the unnamed one here.
    expect((body as { connection?: string }).connection).toBe('default');
    const days = (Date.parse(body.expiresAt) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(6.9);
    expect(days).toBeLessThanOrEqual(7);

    const stored = await withSource((ds) => ds.state.tokens.list());
    const record = stored.find((token) => token.name === 'ide');
    expect(record?.scope).toBe('tables:staged');
    expect(JSON.stringify(stored)).not.toContain(body.token);
    expect(await withSource(async (ds) => (await ds.state.tokens.verify(body.token)).ok)).toBe(true);

    const again = await runCli(['mcp', 'token', 'create', '--scope', 'readonly', '--name', 'ide'], env);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("A token named 'ide' already exists");

    const listed = await runCli(['mcp', 'token', 'list', '--json'], env);
    expect(JSON.parse(listed.stdout)).toContainEqual(
      expect.objectContaining({ name: 'ide', scope: 'tables:staged', status: 'active' }),
    );
    const table = await runCli(['mcp', 'token', 'list'], env);
    expect(table.stdout).toMatch(
      /^name\s+scope\s+connection\s+status\s+created\s+expires\s+last used\s+asks/,
    );
    expect(table.stdout).toMatch(/ide\s+tables:staged\s+default\s+active.*in app/);

    const trusted = await runCli(
      ['mcp', 'token', 'create', '--scope', 'full', '--name', 'desk', '--ask-via-client', '--json'],
      env,
    );
    expect(trusted.code, trusted.stderr).toBe(0);
    expect(JSON.parse(trusted.stdout)).toMatchObject({ scope: 'tables:full', askViaClient: true });
    expect((await runCli(['mcp', 'token', 'list'], env)).stdout).toMatch(
      /desk\s+tables:full\s+default\s+active.*via client/,
    );
    expect(
      await withSource(
        async (ds) => (await ds.state.tokens.list()).find((t) => t.name === 'desk')?.askViaClient,
      ),
    ).toBe(true);
    expect((await runCli(['mcp', 'token', 'revoke', 'desk'], env)).code).toBe(0);

    const revoked = await runCli(['mcp', 'token', 'revoke', 'ide'], env);
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).toContain("Revoked 'ide'");
    expect(await withSource(async (ds) => (await ds.state.tokens.verify(body.token)).ok)).toBe(false);
    expect((await runCli(['mcp', 'token', 'revoke', 'ide'], env)).code).toBe(1);
    expect(JSON.parse((await runCli(['mcp', 'token', 'list', '--json'], env)).stdout)).toContainEqual(
      expect.objectContaining({ name: 'ide', status: 'revoked' }),
    );
  }, 60_000);

  it('create without --json prints just the token on stdout, the details on stderr (real process)', async () => {
    const result = await spawnCli(
      ['mcp', 'token', 'create', '--scope', 'tables:readonly', '--ttl', 'never'],
      { env },
    );
    expect(result.code).toBe(0);
    expect(result.stdout.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(
      /Token 'mcp-\d+' for the connection 'default' \(tables:readonly, never expires\)/,
    );
    const check = await withSource((ds) => ds.state.tokens.verify(result.stdout.trim()));
    expect(check.ok && check.token.expiresAt).toBe(null);
  }, 60_000);
});

async function token(scope: McpScope, name: string, useEnv = env): Promise<string> {
  const result = await runCli(['mcp', 'token', 'create', '--scope', scope, '--name', name, '--json'], useEnv);
  expect(result.code, result.stderr).toBe(0);
  return (JSON.parse(result.stdout) as { token: string }).token;
}

/** An export job as getExportStatus shows it to an MCP client (SDK v1 or v2). */
async function exportStatus(
  client: { callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown> },
  id: string,
): Promise<{ state: string; rowsDone: number; path: string }> {
  const result = (await client.callTool({ name: 'getExportStatus', arguments: { id } })) as {
    structuredContent?: unknown;
  };
  return result.structuredContent as { state: string; rowsDone: number; path: string };
}

/** The export settles as cancelled, short of its million rows, and its partial file is gone. */
async function expectCancelledExport(client: Parameters<typeof exportStatus>[0], id: string) {
  await expect
    .poll(async () => (await exportStatus(client, id)).state, { timeout: 60_000 })
    .toBe('cancelled');
  const job = await exportStatus(client, id);
  expect(job.rowsDone).toBeLessThan(1_000_000);
  expect(existsSync(job.path)).toBe(false);
}

async function stdioClient(extraEnv: Record<string, string>, args: string[] = [], useEnv = env) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [TOOLROW_BIN, 'mcp', '--stdio', ...args],
    env: { PATH: process.env.PATH ?? '', ...useEnv, ...extraEnv },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const client = new Client({ name: 'cli-test', version: '0' });
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

describe('toolrow mcp --stdio: the matrix with the real tools', () => {
  // A client sees only its own export jobs: each case's actor gets one of its own.
  const inputs: Record<string, Partial<Record<ToolName, unknown>>> = {};
  // The four cases: no token (the local user at the default scope) and one token per scope.
  const cases: {
    label: string;
    scope: McpScope;
    actor: string;
    env: () => Promise<Record<string, string>>;
  }[] = [
    { label: 'no token', scope: 'tables:readonly', actor: 'mcp:stdio', env: async () => ({}) },
    ...MCP_SCOPES.map((scope) => ({
      label: scope,
      scope,
      actor: `mcp:stdio-${scope.split(':')[1]}`,
      env: async () => ({ TOOLROW_MCP_TOKEN: await token(scope, `stdio-${scope.split(':')[1]}`) }),
    })),
  ];
  const outcomes: Record<string, Record<string, 'ran' | 'refused'>> = {};

  beforeAll(async () => {
    await withSource(async (ds) => {
      await createWidgets(ds);
      // The scope matrix: every in-scope call runs. The modes are tested in mcp-ladder.test.ts.
      await ds.state.profiles.setMode('default', 'full-auto');
      for (const { actor } of cases) {
        const job = await ds.state.exports.run({
          source: { table: WIDGETS },
          format: 'csv',
          actor: actor as `mcp:${string}`,
        });
        inputs[actor] = validInputs(job.id);
      }
    });
  }, 60_000);

  for (const testCase of cases) {
    it(`${testCase.label}: lists exactly the scope's rows; out-of-scope calls are refused`, async () => {
      const { client, stderr } = await stdioClient(await testCase.env());
      const outcome: Record<string, 'ran' | 'refused'> = {};
      try {
        expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(
          rowsListedAt(testCase.scope),
        );
        for (const row of CATALOG_ROWS) {
          const name = row.name as ToolName;
          const result = await client
            .callTool({ name, arguments: (inputs[testCase.actor]![name] ?? {}) as Record<string, unknown> })
            .then(
              (value) => ({ value }),
              (error: Error) => ({ error }),
            );
          if (rowsListedAt(testCase.scope).includes(name)) {
            expect('value' in result && !result.value.isError, `${name}: ${JSON.stringify(result)}`).toBe(
              true,
            );
            outcome[name] = 'ran';
          } else if (row.mcp === 'excluded') {
            expect('error' in result && result.error.message, `${name} is no tool here`).toMatch(
              `Tool ${name} not found`,
            );
            outcome[name] = 'refused';
          } else {
            // A result the model can read: the scope it needs and how to get it.
            const refused = 'value' in result ? result.value : undefined;
            expect(refused?.isError, `${name} must be refused`).toBe(true);
            expect(JSON.stringify(refused?.content)).toContain(`needs scope tables:${row.mcp}`);
            outcome[name] = 'refused';
          }
        }
      } finally {
        await client.close();
      }
      expect(stderr()).toContain(`serving ${testCase.scope} over stdio as ${testCase.actor}`);
      outcomes[testCase.actor] = outcome;

      // After the server has exited: the app state shows exactly what ran, nothing that was refused.
      await withSource(async (ds) => {
        const audit = (await ds.state.audit.list({ limit: 10_000 })).filter(
          (entry) => entry.decidedBy === testCase.actor,
        );
        const expected = CATALOG_ROWS.filter(
          (row) => outcome[row.name] === 'refused' || isGated(row.name),
        ).map((row) => ({
          tool: row.name,
          decision: outcome[row.name] === 'ran' ? 'auto' : 'denied',
        }));
        expect(audit.map((entry) => ({ tool: entry.tool, decision: entry.decision })).sort(byTool)).toEqual(
          expected.sort(byTool),
        );
        const staged = (await ds.state.staging.list()).filter((change) => change.stagedBy === testCase.actor);
        expect(staged.map((change) => change.kind).sort()).toEqual(
          testCase.scope === 'tables:readonly' ? [] : ['delete', 'insert', 'update'],
        );
        const exports = (await ds.state.exportJobs.list()).filter((job) => job.actor === testCase.actor);
        // One was made for the client in set-up, to read its status; a full client starts one more.
        expect(exports).toHaveLength(testCase.scope === 'tables:full' ? 2 : 1);
        const table = await sqlDatabaseOf(ds.source).query(
          `SELECT id, name, qty FROM public.${WIDGETS} ORDER BY id`,
        );
        expect(table.rows).toEqual([
          { id: 1, name: 'bolt', qty: 10 },
          { id: 2, name: 'nut', qty: 20 },
          { id: 3, name: 'gear', qty: 3 },
        ]);
      });
    }, 120_000);
  }

  it('--scope narrows a token but never widens it', async () => {
    const narrowed = await stdioClient({ TOOLROW_MCP_TOKEN: await token('tables:full', 'wide') }, [
      '--scope',
      'readonly',
    ]);
    try {
      expect((await narrowed.client.listTools()).tools).toHaveLength(rowsListedAt('tables:readonly').length);
    } finally {
      await narrowed.client.close();
    }
    const result = await spawnCli(['mcp', '--stdio', '--scope', 'tables:full'], {
      env: { ...env, TOOLROW_MCP_TOKEN: await token('tables:readonly', 'narrow') },
      input: '',
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'Scope tables:full is wider than the token narrow allows (tables:readonly)',
    );
    expect(result.stdout).toBe('');
  }, 60_000);

  it('refuses a revoked or unknown token before serving anything', async () => {
    const revoked = await token('tables:staged', 'to-revoke');
    expect((await runCli(['mcp', 'token', 'revoke', 'to-revoke'], env)).code).toBe(0);
    for (const [value, message] of [
      [revoked, 'Token to-revoke was revoked'],
      ['trw_nothing', 'Unknown token'],
    ] as const) {
      const result = await spawnCli(['mcp', '--stdio'], {
        env: { ...env, TOOLROW_MCP_TOKEN: value },
        input: '',
      });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`TOOLROW_MCP_TOKEN is not usable: ${message}`);
      expect(result.stdout).toBe('');
    }
  }, 60_000);
});

// The desktop set-up: PGlite in a data directory, opened in turn by the MCP server and the CLI.
describe('a stage write through MCP, then `toolrow staging` (PGlite data directory)', () => {
  const localDir = mkdtempSync(join(tmpdir(), 'toolrow-cli-mcp-staging-'));
  const localEnv = { TOOLROW_DATA_DIR: localDir, DATABASE_URL: '' };
  // Auto runs stage tools without asking, as in chat.
  beforeAll(
    () =>
      withSource(async (ds) => {
        await createWidgets(ds);
        await ds.state.profiles.setMode('default', 'auto');
      }, localEnv),
    60_000,
  );
  afterAll(() => rmSync(localDir, { recursive: true, force: true }));

  it('a stage write through MCP shows in `toolrow staging list`; the table changes only on commit', async () => {
    const { client } = await stdioClient(
      { TOOLROW_MCP_TOKEN: await token('tables:staged', 'stager', localEnv) },
      [],
      localEnv,
    );
    try {
      const result = await client.callTool({
        name: 'stageUpdateRows',
        arguments: { table: WIDGETS, updates: [{ key: { id: 2 }, values: { name: 'hex nut' } }] },
      });
      expect(result.isError).toBeFalsy();
    } finally {
      await client.close();
    }
    const listed = await spawnCli(['staging', 'list', '--json'], { env: localEnv });
    expect(listed.code, listed.stderr).toBe(0);
    const mine = (
      JSON.parse(listed.stdout) as { id: number; stagedBy: string; kind: string; values: unknown }[]
    ).filter((change) => change.stagedBy === 'mcp:stager');
    expect(mine).toEqual([expect.objectContaining({ kind: 'update', values: { name: 'hex nut' } })]);
    const nameOf2 = () =>
      withSource(
        async (ds) =>
          (
            await sqlDatabaseOf(ds.source).query<{ name: string }>(
              `SELECT name FROM public.${WIDGETS} WHERE id = 2`,
            )
          ).rows[0]?.name,
        localEnv,
      );
    expect(await nameOf2()).toBe('nut');
    const committed = await runCli(['staging', 'commit', String(mine[0]?.id)], localEnv);
    expect(committed.code, committed.stderr).toBe(0);
    expect(await nameOf2()).toBe('hex nut');
  }, 60_000);
});

describe('toolrow mcp --stdio answers initialize before the data is open', () => {
  it('a database that never answers: the client is initialized, and its first list waits for the data', async () => {
    // A PostgreSQL address that accepts connections and never says a word.
    const sockets = new Set<Socket>();
    const silent = createServer((socket) => sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as AddressInfo;
    const dir = mkdtempSync(join(tmpdir(), 'toolrow-cli-mcp-early-'));
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [TOOLROW_BIN, 'mcp', '--stdio'],
      env: {
        PATH: process.env.PATH ?? '',
        TOOLROW_DATA_DIR: join(dir, 'data'),
        DATABASE_URL: `postgres://nobody:x@127.0.0.1:${port}/nothing`,
      },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'early', version: '0' });
    try {
      await client.connect(transport);
      expect(client.getServerVersion()?.name).toBe('toolrow');
      // The list waits for the data, which never comes: it is still pending when the first
      // initialize-only request (ping) has been answered.
      let listed = false;
      const list = client.listTools().then(
        () => {
          listed = true;
        },
        () => {
          listed = true;
        },
      );
      await client.ping();
      expect(listed).toBe(false);
      void list;
    } finally {
      // Hanging up ends the server even while its data is still opening.
      await client.close();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('toolrow mcp --stdio: a cancelled export stops', () => {
  const localDir = mkdtempSync(join(tmpdir(), 'toolrow-cli-mcp-cancel-'));
  const localEnv = { TOOLROW_DATA_DIR: localDir, DATABASE_URL: '' };
  beforeAll(() => withSource((ds) => ds.state.profiles.setMode('default', 'full-auto'), localEnv), 60_000);
  afterAll(() => rmSync(localDir, { recursive: true, force: true }));

  it('the client cancels a million-row export: the job says cancelled and its file is gone', async () => {
    const { client } = await stdioClient(
      { TOOLROW_MCP_TOKEN: await token('tables:full', 'canceller', localEnv) },
      [],
      localEnv,
    );
    try {
      const controller = new AbortController();
      let jobId: string | undefined;
      const call = client.callTool(
        {
          name: 'startExport',
          arguments: { sql: 'SELECT g, md5(g::text) FROM generate_series(1, 1000000) AS g', format: 'csv' },
        },
        {
          signal: controller.signal,
          onprogress: (update) => {
            jobId ??= /Export (\S+):/.exec(update.message ?? '')?.[1];
            if (jobId && update.progress > 0) controller.abort('stop');
          },
        },
      );
      await expect(call).rejects.toThrow();
      await expectCancelledExport(client, jobId!);
    } finally {
      await client.close();
    }
  }, 120_000);

  it('as an MCP task (SDK v1 client): tasks/cancel stops the million-row export the same way', async () => {
    const client = new ClientV1({ name: 'cli-task-test', version: '0' });
    await client.connect(
      new StdioClientTransportV1({
        command: process.execPath,
        args: [TOOLROW_BIN, 'mcp', '--stdio'],
        env: {
          PATH: process.env.PATH ?? '',
          ...localEnv,
          TOOLROW_MCP_TOKEN: await token('tables:full', 'tasker', localEnv),
        },
        stderr: 'pipe',
      }),
    );
    try {
      await client.listTools();
      let taskId: string | undefined;
      let jobId: string | undefined;
      let ended: string | undefined;
      for await (const message of client.experimental.tasks.callToolStream({
        name: 'startExport',
        arguments: { sql: 'SELECT g, md5(g::text) FROM generate_series(1, 1000000) AS g', format: 'csv' },
      })) {
        if (message.type === 'taskCreated') taskId = message.task.taskId;
        if (message.type === 'taskStatus') {
          ended = message.task.status;
          const written = /Export (\S+): (\d+) rows written/.exec(message.task.statusMessage ?? '');
          jobId ??= written?.[1];
          if (written && Number(written[2]) > 0 && message.task.status === 'working')
            await client.experimental.tasks.cancelTask(taskId!);
        }
        expect(message.type).not.toBe('result');
      }
      expect(ended).toBe('cancelled');
      await expectCancelledExport(client, jobId!);
    } finally {
      await client.close();
    }
  }, 120_000);
});

describe('toolrow mcp --http (real process)', () => {
  it('serves on 127.0.0.1, prints a client config, needs a token, stops on SIGTERM', async () => {
    const secret = await token('tables:readonly', 'http-client');
    const child = spawn(process.execPath, [TOOLROW_BIN, 'mcp', '--http', '--port', '0'], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    const url = await new Promise<URL>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString('utf8');
        const match = /on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(stdout);
        if (match && stdout.includes('}\n')) resolve(new URL(match[1] as string));
      });
      child.once('exit', (code) => reject(new Error(`exited ${code}: ${stderr}`)));
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    try {
      const config = JSON.parse(stdout.slice(stdout.indexOf('{')));
      expect(config.mcpServers.toolrow).toMatchObject({ type: 'http', url: url.href });

      const anonymous = await fetch(url, {
        method: 'POST',
        body: '{}',
        headers: { 'Content-Type': 'application/json' },
      });
      expect(anonymous.status).toBe(401);

      const client = new Client({ name: 'cli-test', version: '0' });
      await client.connect(
        new StreamableHTTPClientTransport(url, {
          requestInit: { headers: { Authorization: `Bearer ${secret}` } },
        }),
      );
      try {
        expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(
          rowsListedAt('tables:readonly'),
        );
        const result = await client.callTool({ name: 'countRows', arguments: { table: WIDGETS } });
        expect(result.structuredContent).toMatchObject({ count: 3 });
      } finally {
        await client.close();
      }
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
    expect(stderr).toContain('SIGTERM, shutting down');
  }, 60_000);
});

function byTool(a: { tool: string }, b: { tool: string }): number {
  return a.tool < b.tool ? -1 : a.tool > b.tool ? 1 : 0;
}
