// MCP clients and the app's connections: a client granted one connection works on it alone (a real
// SDK client over HTTP), capped at that connection's MCP exposure, and only while it is exposed.
// The consent page offers the exposed ones only, and a forged choice is refused. A known password
// reaches no MCP response, audit row, log line or file but its own.
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';
import type { EngineView } from '@toolrow/catalog';
import { installedEngines } from '@toolrow/engines';
import { toolsForScope } from '@toolrow/mcp-server';
import { openDatabase, sqlDatabaseOf } from '@toolrow/postgres';
import { createTestDatabase, type TestDatabase } from '@toolrow/postgres/testing';
import {
  addConnection,
  type ConnectionHub,
  createConnectionHub,
  openToolrow,
  secretsPath,
  type Toolrow,
} from '@toolrow/state';
import { describeWithService, serviceUrl } from '@toolrow/test-services';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MountedMcp, mountMcp } from './mcp.ts';
import { MemoryProvider } from './oauth-test-client.ts';
import { SEED_NOW, startTestServer, type TestServer } from './test-support.ts';

/** An installed engine as the catalog sees it. */
const viewOf = (id: string): EngineView => {
  const engine = installedEngines.byId(id);
  return { engine: engine.id, features: engine.features };
};

const serverUrl = serviceUrl('postgres');
const dynamoUrl = serviceUrl('dynamodb');
// A login of its own whose password is a string that can appear nowhere by chance.
const role = `toolrow_m_${randomBytes(4).toString('hex')}`;
const password = `pw-${randomBytes(12).toString('hex')}`;
const admin = async (sql: string) => {
  const db = await openDatabase({ url: serverUrl!, env: {}, poolSize: 1 });
  try {
    await db.exec(sql);
  } finally {
    await db.close();
  }
};

let dir: string;
let toolrow: Toolrow;
let hub: ConnectionHub;
let mounted: MountedMcp;
let app: TestServer;
let mcpUrl: string;
let database: TestDatabase | undefined;
const logged: string[] = [];
/** Every MCP response body the clients of this file received. */
const responses: string[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'toolrow-mcp-conn-'));
  toolrow = await openToolrow({ env: {}, dataDir: dir, data: { memory: true }, state: { memory: true } });
  await toolrow.source.seed!({ orders: 100, now: SEED_NOW });
  await addConnection(toolrow.state, {
    name: 'warehouse',
    url: `pglite:${join(dir, 'warehouse')}`,
    mode: 'full-auto',
    mcpScope: 'tables:staged',
  });
  await addConnection(toolrow.state, { name: 'hidden', url: `pglite:${join(dir, 'hidden')}` });
  hub = createConnectionHub(toolrow);
  const warehouse = await hub.open('warehouse');
  await sqlDatabaseOf(warehouse.source).exec(
    "CREATE TABLE bins (id int PRIMARY KEY, label text NOT NULL); INSERT INTO bins VALUES (1, 'A1'), (2, 'B7');",
  );
  await warehouse.source.schema.refresh();
  if (serverUrl) {
    database = await createTestDatabase(serverUrl);
    await admin(
      `CREATE ROLE ${role} LOGIN PASSWORD '${password}'; ALTER DATABASE ${database.name} OWNER TO ${role}`,
    );
    const url = new URL(database.url);
    url.username = role;
    url.password = password;
    await addConnection(toolrow.state, {
      name: 'team',
      url: url.href,
      mode: 'full-auto',
      mcpScope: 'tables:readonly',
    });
    const team = await hub.open('team');
    await sqlDatabaseOf(team.source).exec(
      'CREATE TABLE ledger (id int PRIMARY KEY, amount numeric NOT NULL)',
    );
    await team.source.schema.refresh();
  }
  if (dynamoUrl) {
    const url = new URL(dynamoUrl);
    url.searchParams.set('region', `zz-consent-${randomBytes(4).readUInt32BE()}`);
    await addConnection(toolrow.state, { name: 'ddb', url: url.href, mcpScope: 'tables:staged' });
  }
  mounted = await mountMcp({
    source: toolrow.source,
    state: toolrow.state,
    profile: 'default',
    hub,
    scope: 'tables:full',
    onerror: (error) => logged.push(error.stack ?? error.message),
  });
  app = await startTestServer(toolrow, {
    mcp: mounted.mount,
    connections: hub,
    log: (line) => logged.push(line),
  });
  mcpUrl = `${app.url}/mcp`;
}, 180_000);

afterAll(async () => {
  await app?.close();
  await hub?.close();
  await toolrow?.close();
  await database?.drop();
  if (serverUrl) await admin(`DROP ROLE IF EXISTS ${role}`).catch(() => {});
  await rm(dir, { recursive: true, force: true });
});

/** A grant as the consent page records it, and its access token. */
async function grantFor(profile: string, scope: string): Promise<string> {
  const clientId = `trwclient_test_${randomBytes(4).toString('hex')}`;
  await toolrow.state.oauth.saveClient({
    id: clientId,
    kind: 'registered',
    name: `Client of ${profile}`,
    redirectUris: ['http://127.0.0.1:1/callback'],
    metadata: {},
  });
  const grant = await toolrow.state.oauth.createGrant({
    clientId,
    scope,
    profile,
    resource: mcpUrl,
    actorName: `client-of-${profile}`,
    expiresAt: null,
  });
  const tokens = await toolrow.state.oauth.issueTokens(grant.id, {
    accessExpiresAt: new Date(Date.now() + 3_600_000),
  });
  return tokens.accessToken;
}

async function connect(token: string): Promise<Client> {
  const recording: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    responses.push(await response.clone().text());
    return response;
  };
  const client = new Client({ name: 'connection-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(mcpUrl), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
      fetch: recording,
    }),
  );
  return client;
}

const text = (result: unknown) => JSON.stringify(result);

describe('an MCP client granted one connection', () => {
  it('lists, reads and stages in that connection alone, at the scope the connection is exposed at', async () => {
    // Granted tables:full, exposed at tables:staged: served as staged.
    const client = await connect(await grantFor('warehouse', 'tables:full'));
    try {
      expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(
        [...toolsForScope('tables:staged')].sort(),
      );
      const tables = await client.callTool({ name: 'listTables', arguments: {} });
      expect(text(tables.structuredContent)).toContain('bins');
      expect(text(tables.structuredContent)).not.toContain('orders');
      const connections = await client.callTool({ name: 'listConnections', arguments: {} });
      expect(connections.structuredContent).toEqual({
        connections: [{ name: 'warehouse', engine: 'pglite', description: expect.any(String), active: true }],
        queryLanguage: 'SQL (PostgreSQL dialect)',
      });
      // The other connection's table is not there to read, by any read path.
      for (const [name, args] of [
        ['describeTable', { table: 'orders' }],
        ['runQuery', { sql: 'SELECT count(*) FROM orders' }],
        ['countRows', { table: 'orders' }],
        ['getRow', { table: 'orders', key: { id: 1 } }],
      ] as const) {
        const result = await client.callTool({ name, arguments: args });
        expect(result.isError, name).toBe(true);
        expect(text(result.content), name).toMatch(/orders/);
      }
      // Staging lands in this connection's area, under its profile.
      const staged = await client.callTool({
        name: 'stageInsertRows',
        arguments: { table: 'bins', rows: [{ id: 3, label: 'C3' }] },
      });
      expect(staged.isError, text(staged.content)).toBeFalsy();
      const warehouse = await hub.open('warehouse');
      expect((await warehouse.state.staging.list()).map((change) => change.table)).toEqual(['public.bins']);
      expect(await toolrow.state.staging.list()).toEqual([]);
      await warehouse.state.staging.discard({ profile: 'warehouse' });
      // The audit log records the connection (the profile) of each of its calls.
      const audit = await toolrow.state.audit.list({ limit: 50 });
      const mine = audit.filter((entry) => entry.decidedBy.startsWith('mcp:client-of-warehouse'));
      expect(mine.length).toBeGreaterThan(0);
      expect(new Set(mine.map((entry) => entry.profile))).toEqual(new Set(['warehouse']));
    } finally {
      await client.close();
    }
  });

  it('granted the app’s own connection, never sees the other ones', async () => {
    const client = await connect(await grantFor('default', 'tables:readonly'));
    try {
      const tables = await client.callTool({ name: 'listTables', arguments: {} });
      expect(text(tables.structuredContent)).toContain('orders');
      expect(text(tables.structuredContent)).not.toContain('bins');
      const connections = await client.callTool({ name: 'listConnections', arguments: {} });
      expect((connections.structuredContent as { connections: { name: string }[] }).connections).toEqual([
        expect.objectContaining({ name: 'default' }),
      ]);
    } finally {
      await client.close();
    }
  });

  it.each([
    ['hidden', /'hidden' is not exposed over MCP/],
    ['nope', /does not serve now/],
  ])(
    'granted %s (not exposed, or no connection at all), is refused with a 401 that says why',
    async (profile, message) => {
      const token = await grantFor(profile, 'tables:readonly');
      const response = await fetch(mcpUrl, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
      });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toMatch(message);
      await expect(connect(token)).rejects.toThrow();
    },
  );

  it('loses the connection the moment its exposure is turned off', async () => {
    const token = await grantFor('warehouse', 'tables:readonly');
    const client = await connect(token);
    await client.close();
    await toolrow.state.connections.setMcpScope('warehouse', null);
    try {
      await expect(connect(token)).rejects.toThrow(/not exposed over MCP/);
    } finally {
      await toolrow.state.connections.setMcpScope('warehouse', 'tables:staged');
    }
  });
});

describe('the consent page', () => {
  it('offers the app’s connection and the exposed ones only, and refuses a forged choice', async () => {
    const provider = new MemoryProvider('http://127.0.0.1:1/callback', 'Consent Client');
    const client = new Client({ name: 'consent-test', version: '1.0.0' });
    await expect(
      client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider })),
    ).rejects.toBeInstanceOf(UnauthorizedError);
    const authorize = await fetch(provider.authorizationUrl!, { redirect: 'manual' });
    const consentUrl = new URL(authorize.headers.get('location')!, app.url);
    const page = await (
      await fetch(consentUrl, { headers: { authorization: `Bearer ${app.token}` } })
    ).text();
    const select = /<select name="profile"[^>]*>(.*?)<\/select>/s.exec(page)?.[1] ?? '';
    const offered = [...select.matchAll(/<option value="([^"]+)"/g)].map((match) => match[1]);
    expect(offered).toEqual([
      'default',
      ...(dynamoUrl ? ['ddb'] : []),
      ...(serverUrl ? ['team'] : []),
      'warehouse',
    ]);
    expect(select).not.toContain('hidden');
    const form = new URLSearchParams({
      request: /name="request" value="([^"]+)"/.exec(page)![1]!,
      csrf: /name="csrf" value="([^"]+)"/.exec(page)![1]!,
      decision: 'approve',
      scope: 'tables:readonly',
      profile: 'hidden',
      lifetime: '1h',
    });
    const forged = await fetch(`${app.url}/oauth/consent`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        authorization: `Bearer ${app.token}`,
        'content-type': 'application/x-www-form-urlencoded',
        origin: app.url,
      },
      body: form,
    });
    expect(forged.status).toBe(400);
    expect(await forged.text()).toMatch(
      /&#39;hidden&#39; is not a connection this client may be given|'hidden' is not a connection this client may be given/,
    );
    expect(
      (await toolrow.state.oauth.listGrants()).some((grant) => grant.clientName === 'Consent Client'),
    ).toBe(false);
  });
});

describe('a client connected already, stepping up', () => {
  /** The consent page of an authorization URL, and its form's fields. */
  async function consentOf(authorizationUrl: URL) {
    const authorize = await fetch(authorizationUrl, { redirect: 'manual' });
    const consentUrl = new URL(authorize.headers.get('location')!, app.url);
    const page = await (
      await fetch(consentUrl, { headers: { authorization: `Bearer ${app.token}` } })
    ).text();
    return {
      page,
      selected: /<option value="([^"]+)" selected>/.exec(page)?.[1],
      request: /name="request" value="([^"]+)"/.exec(page)![1]!,
      csrf: /name="csrf" value="([^"]+)"/.exec(page)![1]!,
      replaces: [...page.matchAll(/name="replaces" value="([^"]+)"/g)].map((match) => match[1]!),
    };
  }

  async function approve(form: Record<string, string | string[]>): Promise<URLSearchParams> {
    const body = new URLSearchParams();
    for (const [key, value] of Object.entries(form))
      for (const each of [value].flat()) body.append(key, each);
    const response = await fetch(`${app.url}/oauth/consent`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        authorization: `Bearer ${app.token}`,
        'content-type': 'application/x-www-form-urlencoded',
        origin: app.url,
      },
      body,
    });
    expect(response.status, await response.clone().text()).toBe(303);
    return new URL(response.headers.get('location')!).searchParams;
  }

  it('keeps the connection it was granted, and the new grant replaces the old one once redeemed', async () => {
    const provider = new MemoryProvider('http://127.0.0.1:1/callback', 'Step-up Client');
    const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider });
    await expect(new Client({ name: 'step-up', version: '1' }).connect(transport)).rejects.toBeInstanceOf(
      UnauthorizedError,
    );
    const first = await consentOf(provider.authorizationUrl!);
    // A new client: the app's own connection is offered first, and nothing is replaced.
    expect(first.selected).toBe('default');
    expect(first.replaces).toEqual([]);
    await transport.finishAuth(
      await approve({
        request: first.request,
        csrf: first.csrf,
        decision: 'approve',
        scope: 'tables:readonly',
        profile: 'warehouse',
        lifetime: '1h',
      }),
    );
    const mine = async () =>
      (await toolrow.state.oauth.listGrants()).filter((grant) => grant.clientName === 'Step-up Client');
    const [readonly] = await mine();
    expect(readonly).toMatchObject({ profile: 'warehouse', scope: 'tables:readonly' });

    // It asks for more: the page keeps warehouse (not the app's connection) and offers to replace.
    const asked = new URL(provider.authorizationUrl!);
    asked.searchParams.set('scope', 'tables:staged');
    const second = await consentOf(asked);
    expect(second.selected).toBe('warehouse');
    expect(second.replaces).toEqual([readonly!.id]);
    expect(second.page).toContain('data-testid="consent-current"');
    // Counted for warehouse (PostgreSQL's tools, capped at its exposure, tables:staged).
    expect(/data-testid="consent-tools-tables:staged">(\d+)</.exec(second.page)?.[1]).toBe(
      String(toolsForScope('tables:staged', viewOf('postgres')).length),
    );
    const params = await approve({
      request: second.request,
      csrf: second.csrf,
      decision: 'approve',
      scope: 'tables:staged',
      profile: second.selected!,
      lifetime: '1h',
      replace: '1',
      replaces: second.replaces,
    });
    // Until the client takes the new grant, the old one still works: never none.
    expect((await mine()).map((grant) => grant.scope).sort()).toEqual(['tables:readonly', 'tables:staged']);
    await transport.finishAuth(params);
    const after = await mine();
    expect(after.map((grant) => [grant.scope, grant.profile])).toEqual([['tables:staged', 'warehouse']]);
    const client = new Client({ name: 'step-up', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider }));
    try {
      const tables = await client.callTool({ name: 'listTables', arguments: {} });
      expect(text(tables.structuredContent)).toContain('bins');
      expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(
        [...toolsForScope('tables:staged')].sort(),
      );
    } finally {
      await client.close();
    }
  });

  it.runIf(dynamoUrl)('counts the tools of each connection’s engine, at most its exposure', async () => {
    const provider = new MemoryProvider('http://127.0.0.1:1/callback', 'Counting Client');
    const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider });
    await expect(new Client({ name: 'counting', version: '1' }).connect(transport)).rejects.toBeInstanceOf(
      UnauthorizedError,
    );
    const asked = new URL(provider.authorizationUrl!);
    asked.searchParams.set('scope', 'tables:full');
    const { page } = await consentOf(asked);
    const option = (name: string) =>
      new RegExp(`<option value="${name}"[^>]*>([^<]*)</option>`).exec(page)?.[1];
    const counts = (engine: EngineView, ceiling?: 'tables:staged') =>
      (['tables:readonly', 'tables:staged', 'tables:full'] as const)
        .map((scope) => toolsForScope(ceiling && scope === 'tables:full' ? ceiling : scope, engine).length)
        .join('/');
    expect(option('ddb')).toContain(
      `(DynamoDB, at most tables:staged; ${counts(viewOf('dynamodb'), 'tables:staged')} tools)`,
    );
    expect(option('default')).toContain(`(PostgreSQL; ${counts(viewOf('postgres'))} tools)`);
    // DynamoDB serves fewer tools than PostgreSQL (no foreign-key relations).
    expect(counts(viewOf('dynamodb'))).not.toBe(counts(viewOf('postgres')));
  });
});

describeWithService('postgres', 'a connection with a stored password', () => {
  it('serves its client, and the password is in no response, audit row, log line or file but its own', async () => {
    const client = await connect(await grantFor('team', 'tables:full'));
    try {
      expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(
        [...toolsForScope('tables:readonly')].sort(),
      );
      const tables = await client.callTool({ name: 'listTables', arguments: {} });
      expect(text(tables.structuredContent)).toContain('ledger');
      for (const [name, args] of [
        ['listConnections', {}],
        ['getTableStats', { table: 'ledger' }],
        ['listAuditLog', {}],
      ] as const) {
        const result = await client.callTool({ name, arguments: args });
        expect(result.isError, name).toBeFalsy();
      }
      // A failing query: errors are where connection strings tend to leak.
      const failed = await client.callTool({
        name: 'runQuery',
        arguments: { sql: 'SELECT nope FROM ledger' },
      });
      expect(failed.isError).toBe(true);
    } finally {
      await client.close();
    }
    expect(responses.length).toBeGreaterThan(5);
    for (const body of responses) expect(body).not.toContain(password);
    expect(text(await toolrow.state.audit.list({ limit: 1000 }))).not.toContain(password);
    expect(text(await toolrow.state.connections.list())).not.toContain(password);
    for (const line of logged) expect(line).not.toContain(password);
    const secrets = secretsPath(dir);
    for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
      const path = join(entry.parentPath, entry.name);
      if (!entry.isFile() || path === secrets) continue;
      expect((await readFile(path)).includes(password), path).toBe(false);
    }
    expect(await readFile(secrets, 'utf8')).toContain(password);
  });
});
