// A DynamoDB connection through the CLI, on AWS's DynamoDB Local: added (tested first), seeded,
// and read through `toolrow call` (list, describe, read by key, PartiQL, count, filter); a write
// through runQuery is refused and changes nothing; a tool DynamoDB does not serve is refused.
import { spawn } from 'node:child_process';
import { randomBytes, randomInt } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateTableCommand, DynamoDBClient, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { fakeOpenAIServer } from '@toolrow/agent/testing';
import { createEscapeHarness, SQL_ESCAPES } from '@toolrow/dynamodb/testing';
import { installedEngines } from '@toolrow/engines';
import type { EvalReport } from '@toolrow/eval';
import { scriptedInput, searchingModel, startChatServer } from '@toolrow/eval/testing';
import { toolsForScope } from '@toolrow/mcp-server';
import { describeWithService, serviceUrl } from '@toolrow/test-services';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCli, spawnCli, TOOLROW_BIN } from '../testing.ts';

const dynamoUrl = serviceUrl('dynamodb');

describeWithService('dynamodb', 'toolrow on a DynamoDB connection', () => {
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

  it('reads through the tools: list, describe, by key, SQL with GROUP BY and JOIN, count, plan', async () => {
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
    const pinned = await call('explainQuery', {
      sql: 'SELECT o.id, i.quantity FROM orders o JOIN order_items i ON i.order_id = o.id WHERE o.id = 7',
    });
    expect(JSON.stringify(pinned.output)).toMatch(
      /GetItem on orders \(id = 7\).*Query on order_items \(order_id/,
    );
    // SQL over DynamoDB: grouping and a join run in the CLI's process over what the read client fetched.
    const grouped = await call('runQuery', {
      sql: 'SELECT status, count(*) AS n FROM orders GROUP BY status ORDER BY status',
    });
    expect(grouped.code, grouped.stderr).toBe(0);
    const groups = (grouped.output as { rows: { status: string; n: number | string }[] }).rows;
    expect(groups.reduce((sum, group) => sum + Number(group.n), 0)).toBe(60);
    const joined = await call('runQuery', {
      sql: 'SELECT count(*) AS lines FROM orders o JOIN order_items i ON i.order_id = o.id WHERE o.id = 7',
    });
    expect(joined.code, joined.stderr).toBe(0);
    expect(JSON.stringify((joined.output as { reads: unknown }).reads)).toMatch(
      /"operation":"GetItem".*"operation":"Query"/,
    );
  });

  it("the read bound is the user's: connections set --max-items-read rewrites the URL the engine reads, and a read past it is refused with its cost", async () => {
    const url = async (name: string) =>
      (
        JSON.parse((await run('connections', 'list', '--json')).stdout) as {
          connections: { name: string; url: string }[];
        }
      ).connections.find((each) => each.name === name)!.url;
    const before = await url('ddb');
    const bad = await run('connections', 'set', 'ddb', '--max-items-read', '12x');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/maxItemsRead='12x' is not a count of items/);
    expect(await url('ddb')).toBe(before);

    const set = await run('connections', 'set', 'ddb', '--max-items-read', '20');
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout).toMatch(/reads up to 20 items \(maxItemsRead in its URL\)/);
    expect(await url('ddb')).toMatch(/maxItemsRead=20/);
    const refused = await call('runQuery', {
      sql: 'SELECT status, count(*) AS n FROM orders GROUP BY status',
    });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/more than the 20 items this connection lets one statement read/);
    expect(refused.stderr).toMatch(/--max-items-read \d+/);

    expect((await run('connections', 'set', 'ddb', '--max-items-read', '100000')).code).toBe(0);
    const grouped = await call('runQuery', {
      sql: 'SELECT status, count(*) AS n FROM orders GROUP BY status',
    });
    expect(grouped.code, grouped.stderr).toBe(0);

    expect((await run('connections', 'add', 'pgbound', `pglite:${join(dir, 'pgbound')}`)).code).toBe(0);
    const notHere = await run('connections', 'set', 'pgbound', '--max-items-read', '10');
    expect(notHere.code).toBe(1);
    expect(notHere.stderr).toMatch(/PostgreSQL reads have no item bound to set/);
    expect((await run('connections', 'remove', 'pgbound')).code).toBe(0);
  });

  it('refuses a write through runQuery and a tool DynamoDB does not serve, changing nothing', async () => {
    const before = await call('runQuery', { sql: 'SELECT * FROM "orders" WHERE "id" = 1' });
    const write = await call('runQuery', { sql: `UPDATE "orders" SET "status" = 'forged' WHERE "id" = 1` });
    expect(write.code).not.toBe(0);
    expect(write.stderr).toMatch(/Only a SELECT runs here, and this statement is UPDATE/);
    const after = await call('runQuery', { sql: 'SELECT * FROM "orders" WHERE "id" = 1' });
    expect(after.stdout).toBe(before.stdout);
    const relations = await call('describeRelations', { table: 'orders' });
    expect(relations.code).not.toBe(0);
    expect(relations.stderr).toMatch(
      /not served on this connection: it needs foreignKeys, which the dynamodb engine does not have/,
    );
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
      ['SQL statement check', true],
      ['SQL sandbox', true],
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
      expect(names).toEqual([
        ...toolsForScope('tables:readonly', {
          engine: 'dynamodb',
          features: installedEngines.byId('dynamodb').features,
        }),
      ]);
      expect(names).not.toContain('describeRelations');
      const read = await client.callTool({ name: 'describeTable', arguments: { table: 'order_items' } });
      expect(read.isError).toBeFalsy();
      expect(JSON.stringify(read.structuredContent)).toContain('order_id');
      const refused = await client.callTool({
        name: 'validateQuery',
        arguments: { sql: `DELETE FROM "orders" WHERE "id" = 1` },
      });
      expect(JSON.stringify(refused.structuredContent)).toMatch(/Only a SELECT runs here/);
      // The SQL escape corpus through every SQL tool a read-only client has: no answer, no effect.
      const harness = await createEscapeHarness();
      try {
        const escaped: string[] = [];
        for (const entry of SQL_ESCAPES) {
          const sql = harness.fill(entry.sql);
          const outputs: string[] = [];
          for (const name of ['runQuery', 'validateQuery', 'explainQuery']) {
            const answer = await client.callTool({ name, arguments: { sql } });
            outputs.push(JSON.stringify(answer));
            const ok =
              name === 'validateQuery' ? (answer.structuredContent as { ok?: boolean }).ok : !answer.isError;
            if (ok) escaped.push(`${name} answered ${entry.sql}`);
          }
          const found = await harness.effects(outputs.join('\n'));
          if (found.length > 0) escaped.push(`${entry.sql}: ${found.join('; ')}`);
          await harness.reset();
        }
        expect(escaped).toEqual([]);
      } finally {
        await harness.close();
      }
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
      const reports = ['query-join-country', 'query-join-top-named', 'query-join-category-units'];
      const only = ['tables-what', 'count-pending', 'audit-log', 'rel-references', ...reports];
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
        ['audit-log', 'count-pending', 'tables-what', ...reports].sort(),
      );
      expect(report.summary.passRate).toBe(1);

      // The SQL the scripted model sent for the reports (joins, grouping) answers on DynamoDB what it
      // answers on PostgreSQL (PGlite) seeded with the same shop.
      expect((await run('connections', 'add', 'pg', `pglite:${join(dir, 'pg')}`)).code).toBe(0);
      expect((await run('--connection', 'pg', 'db', 'seed', '--orders', '60')).code).toBe(0);
      for (const id of reports) {
        const input = scriptedInput(id, 'runQuery');
        const answers = await Promise.all(
          ['ddb', 'pg'].map(async (connection) => {
            const result = await run('--connection', connection, 'call', 'runQuery', JSON.stringify(input));
            expect(result.code, `${connection} ${id}: ${result.stderr}`).toBe(0);
            const { rows } = JSON.parse(result.stdout) as { rows: Record<string, unknown>[] };
            // Numbers by value: PostgreSQL's numeric and bigint come as text, DuckDB's as it types them.
            return rows.map((row) =>
              Object.fromEntries(
                Object.entries(row).map(([name, value]) => [
                  name,
                  typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value) ? Number(value) : value,
                ]),
              ),
            );
          }),
        );
        expect(answers[0]!.length, id).toBeGreaterThan(0);
        expect(answers[0], id).toEqual(answers[1]);
      }

      // The shop there has 60 orders, not the eval's default 1,000: it is used as it is.
      const again = await run(
        'eval',
        '--database-url',
        url,
        '--only',
        'count-pending',
        '--model',
        `openai-compatible:${model.baseURL}#searching`,
      );
      expect(again.code, again.stderr).toBe(0);
      expect(again.stderr).not.toMatch(/--reset/);
    } finally {
      await model.close();
    }
  }, 300_000);
});

describeWithService(
  'dynamodb',
  'a DynamoDB Local table made by another tool, with the environment’s key',
  () => {
    let dir: string;
    let url: string;
    const key = `user${randomInt(1_000_000_000)}`;
    /** The environment of a shell with the user's AWS key, and no credentials file to fall back on. */
    let withKey: Record<string, string | undefined>;
    let withoutKey: Record<string, string | undefined>;

    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), 'toolrow-ddb-key-'));
      const region = `zz-key-${randomInt(1_000_000_000)}`;
      const fresh = new URL(dynamoUrl!);
      fresh.searchParams.set('region', region);
      url = fresh.href;
      const nowhere = join(dir, 'no-aws-files');
      withoutKey = {
        TOOLROW_DATA_DIR: join(dir, 'data'),
        DATABASE_URL: undefined,
        TOOLROW_CONNECTION: undefined,
        AWS_ACCESS_KEY_ID: undefined,
        AWS_SECRET_ACCESS_KEY: undefined,
        AWS_SESSION_TOKEN: undefined,
        AWS_PROFILE: undefined,
        AWS_CONFIG_FILE: nowhere,
        AWS_SHARED_CREDENTIALS_FILE: nowhere,
      };
      withKey = { ...withoutKey, AWS_ACCESS_KEY_ID: key, AWS_SECRET_ACCESS_KEY: 'anything' };
      // Made as the AWS CLI or NoSQL Workbench would: with the user's own key, not Toolrow's.
      const other = new DynamoDBClient({
        region,
        endpoint: `http://${fresh.host}`,
        credentials: { accessKeyId: key, secretAccessKey: 'anything' },
      });
      try {
        await other.send(
          new CreateTableCommand({
            TableName: 'made_elsewhere',
            AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
            KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
            BillingMode: 'PAY_PER_REQUEST',
          }),
        );
        await other.send(
          new PutItemCommand({ TableName: 'made_elsewhere', Item: { pk: { S: 'a' }, note: { S: 'hello' } } }),
        );
      } finally {
        other.destroy();
      }
    });
    afterAll(() => rm(dir, { recursive: true, force: true }));

    it('shows in the connection test, listTables, an MCP client and the app, with no setting', async () => {
      const added = await spawnCli(['connections', 'add', 'mine', url], { env: withKey, cwd: dir });
      expect(added.code, added.stderr).toBe(0);
      expect(added.stdout).toMatch(/: 1 table\./);
      expect(added.stdout).toContain(`Signs as the access key ${key.slice(0, 4)}…${key.slice(-4)}`);

      const listed = await spawnCli(['--connection', 'mine', 'call', 'listTables'], {
        env: withKey,
        cwd: dir,
      });
      expect(listed.code, listed.stderr).toBe(0);
      expect(listed.stdout).toContain('made_elsewhere');

      await spawnCli(['connections', 'set', 'mine', '--mcp', 'readonly'], { env: withKey, cwd: dir });
      const client = new Client({ name: 'key-test', version: '0' });
      await client.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: [TOOLROW_BIN, '--connection', 'mine', 'mcp', '--stdio'],
          env: Object.fromEntries(
            Object.entries({ ...process.env, ...withKey }).filter(
              (entry): entry is [string, string] => entry[1] !== undefined,
            ),
          ),
          cwd: dir,
          stderr: 'ignore',
        }),
      );
      try {
        const tables = await client.callTool({ name: 'listTables', arguments: {} });
        expect(JSON.stringify(tables.structuredContent)).toContain('made_elsewhere');
      } finally {
        await client.close();
      }

      // The app, as a real process of the user's shell.
      const token = randomBytes(24).toString('hex');
      const app = spawn(
        process.execPath,
        [TOOLROW_BIN, '--connection', 'mine', 'serve', '--port', '0', '--no-build'],
        {
          env: { ...process.env, ...withKey, TOOLROW_APP_TOKEN: token },
          cwd: dir,
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      try {
        const base = await new Promise<string>((resolve, reject) => {
          let out = '';
          app.stdout.on('data', (chunk) => {
            out += String(chunk);
            const found = /running at (http:\/\/127\.0\.0\.1:\d+)\//.exec(out);
            if (found) resolve(found[1]!);
          });
          app.stderr.on('data', (chunk) => {
            out += String(chunk);
          });
          app.once('exit', (code) =>
            reject(new Error(`toolrow serve exited (${code}) before it listened: ${out}`)),
          );
        });
        const response = await fetch(`${base}/api/tables`, { headers: { authorization: `Bearer ${token}` } });
        expect(JSON.stringify(await response.json())).toContain('made_elsewhere');
      } finally {
        app.kill('SIGTERM');
      }
    }, 180_000);

    it('without any key the stand-in key is used, and an empty DynamoDB Local says why', async () => {
      const tested = await spawnCli(['connections', 'add', 'standin', url], { env: withoutKey, cwd: dir });
      expect(tested.code, tested.stderr).toBe(0);
      expect(tested.stdout).toMatch(/: 0 tables\./);
      expect(tested.stdout).toContain("Signs as DynamoDB Local's stand-in key toolrowlocal");
      expect(tested.stdout).toMatch(/keeps one database per access key unless it is started with -sharedDb/);
    }, 60_000);
  },
);
