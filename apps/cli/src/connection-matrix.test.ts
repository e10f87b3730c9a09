// One rule, tested as a matrix: a request names its connection, and only that connection is
// touched. Two connections on different engines (the embedded PGlite shop, a PostgreSQL server or a
// SQLite file the sqlite3 shell made, beside DynamoDB Local), every entry point (the CLI alone, the CLI through the running app while
// the app shows the other connection, the app's API, the app's /mcp with a CLI token and with an
// OAuth grant, `toolrow mcp --stdio`) × every kind of action (read, stage, list staged, export,
// audit, discard, commit). After each step both databases, both staging areas, both connections'
// export jobs and audit entries are fingerprinted, read past Toolrow (the AWS SDK, SQL, the state
// store's own tables): only the named connection may have changed, and in the way asked.
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes, randomInt } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { DynamoDBClient, ListTablesCommand, paginateScan } from '@aws-sdk/client-dynamodb';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { type Database, openDatabase, sqlDatabaseOf } from '@toolrow/postgres';
import { createTestDatabase, type TestDatabase } from '@toolrow/postgres/testing';
import { CONNECTION_HEADER, type StartedApp, startApp } from '@toolrow/server';
import { type AppStateHandle, openAppState } from '@toolrow/state';
import { serviceUrl } from '@toolrow/test-services';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, TOOLROW_BIN } from './testing.ts';

// Both services: in CI a missing one fails the run; elsewhere the tests show as skipped.
const dynamoUrl = serviceUrl('dynamodb');
const serverUrl = serviceUrl('postgres');

// The AWS credentials of this "machine": Toolrow signs with them (the SDK's chain), and so do the
// fingerprints. DynamoDB Local keeps one database per key, so both must see the same one.
const AWS_KEY = { AWS_ACCESS_KEY_ID: 'matrixuser', AWS_SECRET_ACCESS_KEY: 'matrixsecret' };

/** What one connection holds now, read past Toolrow, and what Toolrow's state keeps for it. */
interface Fingerprint {
  data: string;
  staged: string;
  exports: number;
  audit: number;
}

interface Side {
  /** The connection's name, as the user types it. */
  name: string;
  /** Orders seeded: a count only this side answers. */
  orders: number;
  data(): Promise<string>;
}

type Action = 'read' | 'stage' | 'list-staged' | 'export' | 'audit' | 'discard' | 'commit';

/** An entry point: how a user (or a client) reaches one connection; null where it has no such action. */
interface Entry {
  name: string;
  actions: readonly Action[];
  /** What its lists show: every change and entry of the connection, or only its own (an MCP client). */
  sees: 'all' | 'own';
  /** Runs the action on `target`, returning what the entry answered (the count, the staged ids). */
  run(action: Action, target: Side, value: string): Promise<unknown>;
  close?(): Promise<void>;
}

const hash = (value: unknown) =>
  createHash('sha256').update(JSON.stringify(value)).digest('hex').slice(0, 16);

function stringEnv(env: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
}

async function sqlData(db: Database): Promise<string> {
  const tables = (
    await db.query<{ name: string }>(
      "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY 1",
    )
  ).rows;
  const out: unknown[] = [];
  for (const { name } of tables) {
    const rows = await db.query(`SELECT * FROM public."${name}" ORDER BY 1`);
    out.push([name, rows.rows]);
  }
  return hash(out);
}

/** A shop made by another tool: the sqlite3 shell writes the tables and rows the matrix reads and stages. */
function sqliteShop(path: string, orders: number): void {
  execFileSync('sqlite3', [path], {
    input: `
CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL UNIQUE);
CREATE TABLE products (id INTEGER PRIMARY KEY, name TEXT NOT NULL, price NUMERIC NOT NULL);
CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL REFERENCES customers (id), total NUMERIC NOT NULL);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 12)
  INSERT INTO customers SELECT i, 'Customer ' || i, 'c' || i || '@example.com' FROM n;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 8)
  INSERT INTO products SELECT i, 'Product ' || i, i * 2.5 FROM n;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${orders})
  INSERT INTO orders SELECT i, 1 + i % 12, i * 10 FROM n;
`,
  });
}

/** Every row of every table of a SQLite file, read past Toolrow. */
function sqliteData(path: string): string {
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    const tables = db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name").all() as {
      name: string;
    }[];
    return hash(tables.map(({ name }) => [name, db.prepare(`SELECT * FROM "${name}" ORDER BY rowid`).all()]));
  } finally {
    db.close();
  }
}

describe.each([
  { a: 'pglite', b: 'dynamodb' },
  { a: 'postgres', b: 'dynamodb' },
  { a: 'sqlite', b: 'dynamodb' },
] as const)('the connection the user named, and only it: $a + $b', ({ a }) => {
  const ready = Boolean(dynamoUrl) && (a === 'pglite' || Boolean(serverUrl));
  let dir: string;
  let env: Record<string, string | undefined>;
  let state: AppStateHandle;
  let app: StartedApp | undefined;
  let pgDatabase: TestDatabase | undefined;
  let pgHandle: Database | undefined;
  let dynamo: DynamoDBClient;
  const saved: Record<string, string | undefined> = {};
  const A: Side = {
    name: a === 'pglite' ? 'default' : a === 'sqlite' ? 'lite' : 'pg',
    orders: 30,
    data: async () => '',
  };
  const B: Side = { name: 'ddb', orders: 45, data: async () => '' };
  const cli = (...argv: string[]) => runCli(argv, env, dir);
  const ok = async (...argv: string[]) => {
    const result = await cli(...argv);
    expect(result.code, `toolrow ${argv.join(' ')}: ${result.stderr}`).toBe(0);
    return result.stdout;
  };

  async function fingerprint(side: Side): Promise<Fingerprint> {
    const staged = await state.db.q
      .selectFrom('staged_changes')
      .select(['id', 'kind', 'table_name', 'values', 'commit_id'])
      .where('connection', '=', side.name)
      .orderBy('id')
      .execute();
    const count = async (table: 'export_jobs' | 'audit_log') =>
      Number(
        (
          await state.db.q
            .selectFrom(table)
            .select((e) => e.fn.countAll().as('n'))
            .where('profile', '=', side.name)
            .executeTakeFirstOrThrow()
        ).n,
      );
    return {
      data: await side.data(),
      staged: hash(staged),
      exports: await count('export_jobs'),
      audit: await count('audit_log'),
    };
  }

  /** The staged changes of a side not yet committed, as the state store has them. */
  async function pending(side: Side): Promise<{ id: number; values: string | null }[]> {
    const rows = await state.db.q
      .selectFrom('staged_changes')
      .select(['id', 'values'])
      .where('connection', '=', side.name)
      .where('commit_id', 'is', null)
      .orderBy('id')
      .execute();
    return rows.map((row) => ({
      id: Number(row.id),
      values:
        row.values === null ? null : typeof row.values === 'string' ? row.values : JSON.stringify(row.values),
    }));
  }

  /**
   * Runs one action through one entry on `target` and checks the rule: the other side is exactly
   * as it was, and the target changed as the action says and no more.
   */
  async function step(entry: Entry, action: Action, target: Side): Promise<void> {
    const other = target === A ? B : A;
    const value = `${entry.name}-${action}-${target.name}-${randomBytes(3).toString('hex')}`;
    const [beforeTarget, beforeOther] = [await fingerprint(target), await fingerprint(other)];
    const pendingBefore = await pending(target);
    const answer = await entry.run(action, target, value);
    const [afterTarget, afterOther] = [await fingerprint(target), await fingerprint(other)];
    const where = `${entry.name}: ${action} on ${target.name}`;
    expect(afterOther, `${where} touched ${other.name}`).toEqual(beforeOther);
    const pendingAfter = await pending(target);
    switch (action) {
      case 'read':
        expect(answer, `${where}: the count is ${target.name}'s`).toBe(target.orders);
        expect(afterTarget.data, where).toBe(beforeTarget.data);
        expect(pendingAfter, where).toEqual(pendingBefore);
        break;
      case 'stage':
        expect(afterTarget.data, `${where}: staging changed the data`).toBe(beforeTarget.data);
        expect(pendingAfter.length, where).toBe(pendingBefore.length + 1);
        expect(pendingAfter.at(-1)?.values, where).toContain(value);
        break;
      case 'list-staged': {
        const listed = [...(answer as number[])].sort((x, y) => x - y);
        const ids = pendingBefore.map((change) => change.id);
        if (entry.sees === 'all') expect(listed, `${where}: the list is ${target.name}'s`).toEqual(ids);
        else {
          // A client sees the changes it staged itself, and those are the target's.
          expect(listed.length, `${where}: its own change is listed`).toBeGreaterThan(0);
          for (const id of listed) expect(ids, `${where}: #${id} is not ${target.name}'s`).toContain(id);
        }
        expect(afterTarget.staged, where).toBe(beforeTarget.staged);
        break;
      }
      case 'export':
        expect(afterTarget.exports, where).toBe(beforeTarget.exports + 1);
        expect(afterTarget.data, where).toBe(beforeTarget.data);
        break;
      case 'audit': {
        // The entries listed are the target's own: the other connection's log is not read.
        const profiles = answer as string[];
        for (const profile of profiles) expect(profile, where).toBe(target.name);
        if (entry.sees === 'all') expect(profiles.length, where).toBe(Math.min(500, beforeTarget.audit));
        else expect(profiles.length, `${where}: its own calls are listed`).toBeGreaterThan(0);
        expect(afterTarget.data, where).toBe(beforeTarget.data);
        break;
      }
      case 'discard':
        expect(pendingAfter.length, where).toBe(pendingBefore.length - 1);
        expect(afterTarget.data, where).toBe(beforeTarget.data);
        break;
      case 'commit':
        expect(pendingAfter, where).toEqual([]);
        expect(afterTarget.data, `${where}: the commit changed nothing`).not.toBe(beforeTarget.data);
        break;
    }
  }

  // ── Entry points ────────────────────────────────────────────────────────────────────────────
  const stageInput = (value: string) =>
    JSON.stringify({ table: 'customers', updates: [{ key: { id: 3 }, values: { name: value } }] });

  const cliEntry = (name: string): Entry => ({
    name,
    sees: 'all',
    actions: ['read', 'stage', 'list-staged', 'export', 'audit', 'discard', 'stage', 'commit'],
    async run(action, target, value) {
      const on = ['--connection', target.name];
      switch (action) {
        case 'read':
          return JSON.parse(await ok(...on, 'call', 'countRows', '{"table":"orders"}')).count;
        case 'stage':
          return ok(...on, 'call', 'stageUpdateRows', stageInput(value));
        case 'list-staged':
          return (JSON.parse(await ok(...on, 'staging', 'list', '--json')) as { id: number }[]).map(
            (change) => change.id,
          );
        case 'export':
          return ok(...on, 'call', 'startExport', '{"table":"products","format":"csv"}');
        case 'audit':
          return (
            JSON.parse(await ok(...on, 'call', 'listAuditLog', '{"limit":500}')) as {
              entries: { profile: string }[];
            }
          ).entries.map((entry) => entry.profile);
        case 'discard': {
          const last = (await pending(target)).at(-1);
          return ok(...on, 'staging', 'discard', String(last?.id));
        }
        case 'commit':
          return ok(...on, 'staging', 'commit');
        default:
          throw new Error(`no ${action} here`);
      }
    },
  });

  async function api<T>(path: string, body?: unknown, connection?: string): Promise<T> {
    const response = await fetch(`${app!.url}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: {
        authorization: `Bearer ${app!.token}`,
        'content-type': 'application/json',
        ...(connection ? { [CONNECTION_HEADER]: connection } : {}),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const data = (await response.json()) as T & { error?: { message: string } };
    expect(response.status, `${path}: ${data.error?.message}`).toBeLessThan(300);
    return data;
  }

  async function activate(name: string): Promise<void> {
    const response = await fetch(`${app!.url}/api/connections/active`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${app!.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name }),
    });
    expect(response.status, await response.clone().text()).toBe(200);
  }

  /** The app's own API: with the header naming the target, or through the switcher (no header). */
  const apiEntry = (name: string, byHeader: boolean): Entry => ({
    name,
    sees: 'all',
    actions: ['read', 'stage', 'list-staged', 'export', 'audit', 'discard', 'stage', 'commit'],
    async run(action, target, value) {
      const other = target === A ? B : A;
      await activate(byHeader ? other.name : target.name);
      const on = byHeader ? target.name : undefined;
      switch (action) {
        case 'read':
          return (await api<{ count: number }>('/api/tables/orders/count', {}, on)).count;
        case 'stage':
          return api(
            '/api/staging/update',
            { table: 'customers', key: { id: 3 }, values: { name: value } },
            on,
          );
        case 'list-staged':
          return (await api<{ changes: { id: string }[] }>('/api/staging', undefined, on)).changes.map(
            (change) => Number(change.id),
          );
        case 'export':
          return api('/api/exports', { table: 'products', format: 'csv' }, on);
        case 'audit':
          return (
            await api<{ output: { entries: { profile: string }[] } }>(
              '/api/tools/listAuditLog',
              { input: { limit: 500 } },
              on,
            )
          ).output.entries.map((entry) => entry.profile);
        case 'discard': {
          const last = (await pending(target)).at(-1);
          return api('/api/staging/discard', { ids: [String(last?.id)] }, on);
        }
        case 'commit':
          return api('/api/staging/commit', {}, on);
      }
    },
  });

  /** An MCP client (HTTP with a token, or stdio): reads, stages, lists, exports; the user discards and commits. */
  const mcpEntry = (name: string, connect: (target: Side) => Promise<Client>): Entry => {
    const clients = new Map<string, Client>();
    const client = async (target: Side) => {
      let found = clients.get(target.name);
      if (!found) {
        found = await connect(target);
        clients.set(target.name, found);
      }
      return found;
    };
    const call = async (target: Side, tool: string, args: Record<string, unknown>) => {
      const result = await (await client(target)).callTool({ name: tool, arguments: args });
      expect(
        result.isError,
        `${name} ${tool} on ${target.name}: ${JSON.stringify(result.content)}`,
      ).toBeFalsy();
      return result.structuredContent as Record<string, unknown>;
    };
    return {
      name,
      sees: 'own',
      actions: ['read', 'stage', 'list-staged', 'export', 'audit'],
      async run(action, target, value) {
        switch (action) {
          case 'read':
            return (await call(target, 'countRows', { table: 'orders' })).count;
          case 'stage':
            return call(target, 'stageUpdateRows', JSON.parse(stageInput(value)));
          case 'list-staged':
            return ((await call(target, 'listStagedChanges', {})).changes as { id: number }[]).map((change) =>
              Number(change.id),
            );
          case 'export':
            return call(target, 'startExport', { table: 'products', format: 'csv' });
          case 'audit':
            return (
              (await call(target, 'listAuditLog', { limit: 500 })).entries as { profile: string }[]
            ).map((entry) => entry.profile);
          default:
            throw new Error(`no ${action} over MCP`);
        }
      },
      async close() {
        for (const each of clients.values()) await each.close().catch(() => {});
      },
    };
  };

  const httpClient = async (token: string) => {
    const client = new Client({ name: 'matrix', version: '0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${app!.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    return client;
  };

  // ── Set-up ──────────────────────────────────────────────────────────────────────────────────
  beforeAll(async () => {
    if (!ready) return;
    for (const [key, value] of Object.entries(AWS_KEY)) {
      saved[key] = process.env[key];
      process.env[key] = value;
    }
    dir = await mkdtemp(join(tmpdir(), 'toolrow-matrix-'));
    env = {
      TOOLROW_DATA_DIR: join(dir, 'data'),
      DATABASE_URL: undefined,
      TOOLROW_CONNECTION: undefined,
      TOOLROW_STATE_URL: undefined,
      TOOLROW_MCP_TOKEN: undefined,
      TOOLROW_MCP_SCOPE: undefined,
      ...AWS_KEY,
    };
    const ddbUrl = new URL(dynamoUrl!);
    const region = `zz-matrix-${randomInt(1_000_000_000)}`;
    ddbUrl.searchParams.set('region', region);
    dynamo = new DynamoDBClient({
      region,
      endpoint: `http://${ddbUrl.host}`,
      credentials: { accessKeyId: AWS_KEY.AWS_ACCESS_KEY_ID, secretAccessKey: AWS_KEY.AWS_SECRET_ACCESS_KEY },
    });
    B.data = async () => {
      const out: unknown[] = [];
      for (const name of (await dynamo.send(new ListTablesCommand({}))).TableNames ?? []) {
        const items: unknown[] = [];
        for await (const page of paginateScan({ client: dynamo }, { TableName: name, ConsistentRead: true }))
          items.push(...(page.Items ?? []));
        items.sort((x, y) => JSON.stringify(x).localeCompare(JSON.stringify(y)));
        out.push([name, items]);
      }
      return hash(out);
    };
    await ok('connections', 'add', 'ddb', ddbUrl.href, '--mode', 'full-auto', '--mcp', 'full');
    await ok('--connection', 'ddb', 'db', 'seed', '--orders', String(B.orders));

    if (a === 'pglite') {
      await ok('db', 'seed', '--orders', String(A.orders));
      // The embedded database: read through the app's own handle while it runs, else opened here.
      A.data = async () => {
        if (app) return sqlData(sqlDatabaseOf(app.toolrow.source));
        const db = await openDatabase({ env: {}, dataDir: env.TOOLROW_DATA_DIR! });
        try {
          return await sqlData(db);
        } finally {
          await db.close();
        }
      };
    } else if (a === 'sqlite') {
      const path = join(dir, 'shop.db');
      sqliteShop(path, A.orders);
      await ok('connections', 'add', 'lite', `sqlite://${path}`, '--mode', 'full-auto', '--mcp', 'full');
      A.data = async () => sqliteData(path);
    } else {
      pgDatabase = await createTestDatabase(serverUrl!);
      await ok('connections', 'add', 'pg', pgDatabase.url, '--mode', 'full-auto', '--mcp', 'full');
      await ok('--connection', 'pg', 'db', 'seed', '--orders', String(A.orders));
      pgHandle = await openDatabase({ url: pgDatabase.url, env: {}, poolSize: 1 });
      A.data = () => sqlData(pgHandle!);
    }
    state = await openAppState({ env, cwd: dir });
    // Full Auto on both: every action runs without asking (the ladder is tested elsewhere).
    for (const side of [A, B]) await state.profiles.setMode(side.name, 'full-auto');
  }, 240_000);

  afterAll(async () => {
    if (!ready) return;
    await app?.close();
    await state?.close();
    await pgHandle?.close();
    await pgDatabase?.drop();
    dynamo?.destroy();
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
    await rm(dir, { recursive: true, force: true });
  });

  async function walk(entry: Entry): Promise<void> {
    try {
      for (const target of [A, B, A]) for (const action of entry.actions) await step(entry, action, target);
    } finally {
      await entry.close?.();
    }
  }

  it.runIf(ready)(
    'the CLI alone: each command acts on the connection it names',
    async () => {
      await walk(cliEntry('cli'));
    },
    300_000,
  );

  it.runIf(ready)(
    'the CLI through the running app, while the app shows the other connection',
    async () => {
      app = await startApp({ env, cwd: dir, port: 0, build: false, mcp: true, out: () => {}, err: () => {} });
      const entry = cliEntry('cli-through-app');
      await walk({
        ...entry,
        async run(action, target, value) {
          await activate((target === A ? B : A).name);
          return entry.run(action, target, value);
        },
      });
    },
    300_000,
  );

  it.runIf(ready)(
    'the app API: the header names the connection, or the switcher does',
    async () => {
      await walk(apiEntry('api-header', true));
      await walk(apiEntry('api-switcher', false));
    },
    300_000,
  );

  it.runIf(ready)(
    '/mcp with a CLI token made for each connection',
    async () => {
      const tokens = new Map<string, string>();
      for (const side of [A, B]) {
        const created = JSON.parse(
          await ok('--connection', side.name, 'mcp', 'token', 'create', '--scope', 'full', '--json'),
        ) as { token: string; connection: string };
        expect(created.connection).toBe(side.name);
        tokens.set(side.name, created.token);
      }
      await activate(B.name);
      await walk(mcpEntry('mcp-cli-token', (target) => httpClient(tokens.get(target.name)!)));
    },
    300_000,
  );

  it.runIf(ready)(
    '/mcp with an OAuth grant of each connection',
    async () => {
      const tokens = new Map<string, string>();
      for (const side of [A, B]) {
        const clientId = `trwclient_matrix_${randomBytes(4).toString('hex')}`;
        await state.oauth.saveClient({
          id: clientId,
          kind: 'registered',
          name: `Matrix ${side.name}`,
          redirectUris: ['http://127.0.0.1:1/callback'],
          metadata: {},
        });
        const grant = await state.oauth.createGrant({
          clientId,
          scope: 'tables:full',
          profile: side.name,
          resource: `${app!.url}/mcp`,
          actorName: `matrix-${side.name}`,
          expiresAt: null,
        });
        const issued = await state.oauth.issueTokens(grant.id, {
          accessExpiresAt: new Date(Date.now() + 3_600_000),
        });
        tokens.set(side.name, issued.accessToken);
      }
      await activate(A.name);
      await walk(mcpEntry('mcp-oauth', (target) => httpClient(tokens.get(target.name)!)));
    },
    300_000,
  );

  it.runIf(ready)(
    'toolrow --connection <name> mcp --stdio beside the running app',
    async () => {
      await activate(B.name);
      await walk(
        mcpEntry('mcp-stdio', async (target) => {
          const client = new Client({ name: 'matrix-stdio', version: '0' });
          await client.connect(
            new StdioClientTransport({
              command: process.execPath,
              args: [TOOLROW_BIN, '--connection', target.name, 'mcp', '--stdio', '--scope', 'tables:full'],
              env: stringEnv({ ...process.env, ...env }),
              cwd: dir,
              stderr: 'ignore',
            }),
          );
          return client;
        }),
      );
    },
    300_000,
  );
});
