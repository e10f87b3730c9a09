// A DynamoDB connection through the CLI, on AWS's DynamoDB Local: added (tested first), seeded,
// and read through `toolrow call` (list, describe, read by key, PartiQL, count, filter); a write
// through runQuery is refused and changes nothing; a tool DynamoDB does not serve is refused.
import { randomInt } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { fakeOpenAIServer } from '@toolrow/agent/testing';
import type { EvalReport } from '@toolrow/eval';
import { searchingModel, startChatServer } from '@toolrow/eval/testing';
import { toolsForScope } from '@toolrow/mcp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, spawnCli, TOOLROW_BIN } from '../testing.ts';

const dynamoUrl = process.env.TOOLROW_TEST_DYNAMODB_URL;
if (!dynamoUrl && process.env.CI === 'true')
  throw new Error('CI must set TOOLROW_TEST_DYNAMODB_URL (scripts/ci-dynamodb.sh starts DynamoDB Local).');

describe.runIf(dynamoUrl)('toolrow on a DynamoDB connection', () => {
  let dir: string;
  let env: Record<string, string | undefined>;
  let url: string;
  const run = (...argv: string[]) => runCli(argv, env, dir);
  const call = async (tool: string, input: unknown = {}) => {
    const result = await run('--connection', 'ddb', 'call', tool, JSON.stringify(input));
    return { ...result, output: result.code === 0 ? JSON.parse(result.stdout) : undefined };
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'toolrow-ddb-cli-'));
    env = { TOOLROW_DATA_DIR: join(dir, 'data'), DATABASE_URL: undefined, TOOLROW_CONNECTION: undefined };
    // A region of its own: DynamoDB Local keeps it as a database apart from other suites'.
    const fresh = new URL(dynamoUrl!);
    fresh.searchParams.set('region', `zz-cli-${randomInt(1_000_000_000)}`);
    url = fresh.href;
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('adds the connection after testing it, and seeds the sample shop into it', async () => {
    const added = await run('connections', 'add', 'ddb', url, '--mode', 'full-auto');
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toMatch(/Connected to ddb \(DynamoDB at 127\.0\.0\.1:\d+/);
    expect(added.stdout).toMatch(/\[on\] +read client allow-list/);
    const seeded = await run('--connection', 'ddb', 'db', 'seed', '--orders', '60');
    expect(seeded.code, seeded.stderr).toBe(0);
    expect(seeded.stdout).toMatch(/Seeded the sample shop into DynamoDB/);
  });

  it('reads through the tools: list, describe, by key, PartiQL, count, filter', async () => {
    const tables = await call('listTables');
    expect(tables.code, tables.stderr).toBe(0);
    expect(JSON.stringify(tables.output)).toContain('order_items');
    const described = await call('describeTable', { table: 'orders' });
    expect(described.code, described.stderr).toBe(0);
    expect(JSON.stringify(described.output)).toContain('by_customer');
    const row = await call('getRow', { table: 'orders', key: { id: 7 } });
    expect(row.code, row.stderr).toBe(0);
    expect(JSON.stringify(row.output)).toContain('"id":"7"');
    const query = await call('runQuery', { sql: 'SELECT * FROM "orders" WHERE "id" = 7' });
    expect(query.code, query.stderr).toBe(0);
    expect(JSON.stringify(query.output)).toContain('"id":"7"');
    const count = await call('countRows', { table: 'orders' });
    expect(count.code, count.stderr).toBe(0);
    expect(JSON.stringify(count.output)).toContain('60');
    const plan = await call('explainQuery', { sql: 'SELECT * FROM "orders" WHERE "total" > 1' });
    expect(plan.code, plan.stderr).toBe(0);
    expect(JSON.stringify(plan.output)).toContain('Scan of the whole table orders');
  });

  it('refuses a write through runQuery and a tool DynamoDB does not serve, changing nothing', async () => {
    const before = await call('runQuery', { sql: 'SELECT * FROM "orders" WHERE "id" = 1' });
    const write = await call('runQuery', { sql: `UPDATE "orders" SET "status" = 'forged' WHERE "id" = 1` });
    expect(write.code).not.toBe(0);
    expect(write.stderr).toMatch(/only reads run here|Only SELECT/i);
    const after = await call('runQuery', { sql: 'SELECT * FROM "orders" WHERE "id" = 1' });
    expect(after.stdout).toBe(before.stdout);
    const relations = await call('describeRelations', { table: 'orders' });
    expect(relations.code).not.toBe(0);
    expect(relations.stderr).toMatch(/not served on DynamoDB connections/);
  });

  it('the agent loop (a real chat process, a scripted model) reads, stages an update, and the commit lands as a transaction', async () => {
    const model = await fakeOpenAIServer([
      [{ tool: 'listTables', input: {} }],
      [{ tool: 'runQuery', input: { sql: 'SELECT * FROM "orders" WHERE "id" = 3' } }],
      [
        {
          tool: 'stageUpdateRows',
          input: { table: 'orders', updates: [{ key: { id: '3' }, values: { status: 'refunded' } }] },
        },
      ],
      [{ text: 'Staged: order 3 refunded. Commit it when you are ready.' }],
    ]);
    try {
      const chat = await spawnCli(['--connection', 'ddb', 'chat'], {
        env: { ...env, TOOLROW_MODEL: `openai-compatible:${model.url}#tiny` },
        input: 'refund order 3\n',
        cwd: dir,
      });
      expect(chat.code, chat.stderr).toBe(0);
      expect(chat.stdout).toMatch(
        /Toolrow chat · .* · DynamoDB at 127\.0\.0\.1:\d+ .*· profile ddb \(Full Auto mode\)/,
      );
      expect(chat.stdout).toContain(
        '· runQuery {"sql":"SELECT * FROM \\"orders\\" WHERE \\"id\\" = 3"} → {"columns"',
      );
      expect(chat.stdout).toMatch(/· stageUpdateRows .* → \{"table":"orders","staged":1/);
      expect(chat.stdout).toContain('Staged: order 3 refunded.');
      // Staged only: DynamoDB is unchanged until the user commits.
      expect(
        JSON.stringify((await call('getRow', { table: 'orders', key: { id: 3 } })).output),
      ).not.toContain('refunded');
      const commit = await run('--connection', 'ddb', 'staging', 'commit');
      expect(commit.code, commit.stderr).toBe(0);
      expect(JSON.stringify((await call('getRow', { table: 'orders', key: { id: 3 } })).output)).toContain(
        '"status":"refunded"',
      );
    } finally {
      await model.close();
    }
  });

  it('db info describes the connection and its read layers', async () => {
    const info = await run('--connection', 'ddb', 'db', 'info', '--json');
    expect(info.code, info.stderr).toBe(0);
    const report = JSON.parse(info.stdout) as {
      engine: string;
      database: string;
      readLayers: { layer: string; active: boolean }[];
      tables: { table: string }[];
    };
    expect(report.engine).toBe('dynamodb');
    expect(report.tables.map((table) => table.table).sort()).toEqual([
      'customers',
      'order_items',
      'orders',
      'products',
    ]);
    expect(report.readLayers.map((layer) => [layer.layer, layer.active])).toEqual([
      ['PartiQL statement check', true],
      ['read client allow-list', true],
      ['read-only AWS credentials', false],
    ]);
  });

  it('over MCP (a real SDK client over stdio): the DynamoDB set of tools, reads, and a write statement found not valid', async () => {
    expect((await run('connections', 'set', 'ddb', '--mcp', 'readonly')).code).toBe(0);
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [TOOLROW_BIN, '--connection', 'ddb', 'mcp', '--stdio'],
      env: { PATH: process.env.PATH ?? '', ...(env as Record<string, string>) },
      cwd: dir,
      stderr: 'pipe',
    });
    const client = new Client({ name: 'ddb-test', version: '0' });
    await client.connect(transport);
    try {
      const names = (await client.listTools()).tools.map((tool) => tool.name);
      expect(names).toEqual([...toolsForScope('tables:readonly', 'dynamodb')]);
      expect(names).not.toContain('describeRelations');
      const read = await client.callTool({ name: 'describeTable', arguments: { table: 'order_items' } });
      expect(read.isError).toBeFalsy();
      expect(JSON.stringify(read.structuredContent)).toContain('order_id');
      const refused = await client.callTool({
        name: 'validateQuery',
        arguments: { sql: `DELETE FROM "orders" WHERE "id" = 1` },
      });
      expect(JSON.stringify(refused.structuredContent)).toMatch(/Only SELECT/);
    } finally {
      await client.close();
    }
  });

  it('db setup-roles prints the IAM policies of a read profile and a commit profile', async () => {
    const printed = await run('--connection', 'ddb', 'db', 'setup-roles');
    expect(printed.code, printed.stderr).toBe(0);
    const [read, commit] = printed.stdout
      .split(/^# .*$/m)
      .map((part) => part.trim())
      .filter(Boolean)
      .map((part) => JSON.parse(part) as { Statement: { Action: string[] }[] });
    const readActions = read!.Statement.flatMap((statement) => statement.Action);
    expect(readActions).toContain('dynamodb:PartiQLSelect');
    expect(
      readActions.some((action) => /Put|Update|Delete|Write|PartiQL(Insert|Update|Delete)/.test(action)),
    ).toBe(false);
    expect(commit!.Statement.flatMap((statement) => statement.Action)).toContain('dynamodb:PutItem');
  });

  it('toolrow eval runs the stories on DynamoDB, leaving out the requests whose tools it does not serve', async () => {
    const model = await startChatServer(searchingModel());
    try {
      const only = ['tables-what', 'count-pending', 'audit-log', 'rel-references'];
      const result = await run(
        'eval',
        '--database-url',
        url,
        '--orders',
        '60',
        '--only',
        only.join(','),
        '--model',
        `openai-compatible:${model.baseURL}#searching`,
        '--json',
        'ddb-eval.json',
      );
      expect(result.code, result.stderr).toBe(0);
      const report = JSON.parse(await readFile(join(dir, 'ddb-eval.json'), 'utf8')) as EvalReport;
      // describeRelations is PostgreSQL's only (its row says so): that request is not run here.
      expect(report.requests.map((request) => request.id).sort()).toEqual(
        ['audit-log', 'count-pending', 'tables-what'].sort(),
      );
      expect(report.summary.passRate).toBe(1);
    } finally {
      await model.close();
    }
  }, 300_000);
});
