// The app's end of `toolrow mcp --stdio` beside it (POST /api/mcp/stdio): a real SDK client over a
// real socket, sending what the stdio process sends. Only the app's token opens it; the principal
// header is checked; the client is capped at the active connection's MCP exposure and refused on a
// connection that is not exposed; out-of-scope calls are refused and audited before anything runs.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { MCP_BRIDGE_HEADERS, MCP_BRIDGE_PATH, type McpScope, toolsForScope } from '@toolrow/mcp-server';
import {
  addConnection,
  type ConnectionHub,
  createConnectionHub,
  openToolrow,
  type Toolrow,
} from '@toolrow/state';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, SEED_NOW, startTestServer, type TestServer } from './test-support.ts';

let dir: string;
let toolrow: Toolrow;
let hub: ConnectionHub;
let app: TestServer;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'toolrow-mcp-bridge-'));
  toolrow = await openToolrow({ env: {}, dataDir: dir, data: { memory: true }, state: { memory: true } });
  await toolrow.source.seed!({ orders: 40, now: SEED_NOW });
  await toolrow.state.profiles.setMode('default', 'full-auto');
  await addConnection(toolrow.state, {
    name: 'warehouse',
    url: `pglite:${join(dir, 'warehouse')}`,
    mode: 'full-auto',
    mcpScope: 'tables:readonly',
  });
  await addConnection(toolrow.state, { name: 'hidden', url: `pglite:${join(dir, 'hidden')}` });
  hub = createConnectionHub(toolrow);
  app = await startTestServer(toolrow, { connections: hub });
}, 120_000);

afterAll(async () => {
  await app?.close();
  await hub?.close();
  await toolrow?.close();
  await rm(dir, { recursive: true, force: true });
});

const endpoint = () => `${app.url}${MCP_BRIDGE_PATH}`;
const principalHeader = (scope: McpScope, name = 'stdio') => JSON.stringify({ name, scope });

async function bridgeClient(scope: McpScope, name = 'stdio'): Promise<Client> {
  const client = new Client({ name: 'bridge-test', version: '0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(endpoint()), {
      requestInit: {
        headers: bearer(app.token, {
          [MCP_BRIDGE_HEADERS.principal]: principalHeader(scope, name),
          [MCP_BRIDGE_HEADERS.bridge]: `test-${name}`,
        }),
      },
    }),
  );
  return client;
}

async function activate(name: string): Promise<void> {
  const response = await fetch(`${app.url}/api/connections/active`, {
    method: 'PUT',
    headers: bearer(app.token, { 'content-type': 'application/json' }),
    body: JSON.stringify({ name }),
  });
  expect(response.status, await response.clone().text()).toBe(200);
}

const listCall = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
const post = (headers: Record<string, string>, body = listCall) =>
  fetch(endpoint(), {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body,
  });

describe('who may use the bridge', () => {
  it.each([
    ['no token', {}],
    ['a wrong token', { authorization: 'Bearer not-the-app-token' }],
    ['an MCP token instead of the app token', { authorization: 'Bearer trm_x' }],
  ])('%s: 401, nothing listed', async (_label, headers) => {
    const response = await post({
      ...headers,
      [MCP_BRIDGE_HEADERS.principal]: principalHeader('tables:full'),
    });
    expect(response.status).toBe(401);
    expect(await response.text()).not.toContain('runQuery');
  });

  it.each([
    ['no principal', {}, /Missing x-toolrow-mcp-principal/],
    ['a principal that is not JSON', { [MCP_BRIDGE_HEADERS.principal]: 'stdio' }, /not JSON/],
    [
      'a name that is not an audit actor',
      { [MCP_BRIDGE_HEADERS.principal]: JSON.stringify({ name: 'a b', scope: 'tables:readonly' }) },
      /names no valid client/,
    ],
    [
      'a scope Toolrow does not have',
      { [MCP_BRIDGE_HEADERS.principal]: JSON.stringify({ name: 'stdio', scope: 'tables:admin' }) },
      /holds no Toolrow scope/,
    ],
    [
      'a bad profile name',
      {
        [MCP_BRIDGE_HEADERS.principal]: principalHeader('tables:readonly'),
        [MCP_BRIDGE_HEADERS.profile]: '../x',
      },
      /Bad profile name/,
    ],
  ])('%s: 400 saying what is wrong', async (_label, headers, message) => {
    const response = await post(bearer(app.token, headers as Record<string, string>));
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { message: string } };
    expect(body.error.message).toMatch(message);
  });
});

describe('what a forwarded client sees', () => {
  it.each(['tables:readonly', 'tables:staged', 'tables:full'] as const)(
    'on the unnamed connection, %s lists exactly its rows',
    async (scope) => {
      const client = await bridgeClient(scope);
      try {
        expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(toolsForScope(scope));
      } finally {
        await client.close();
      }
    },
  );

  it('an out-of-scope call is refused as a result the model reads, naming the scope, and audited as denied', async () => {
    const client = await bridgeClient('tables:readonly', 'refused-one');
    try {
      const refused = await client.callTool({
        name: 'stageDeleteRows',
        arguments: { table: 'orders', keys: [{ id: 1 }] },
      });
      expect(refused.isError).toBe(true);
      expect(JSON.stringify(refused.content)).toMatch(/needs scope tables:staged/);
    } finally {
      await client.close();
    }
    expect(await toolrow.state.staging.list()).toEqual([]);
    const audit = await toolrow.state.audit.list({ tool: 'stageDeleteRows' });
    expect(audit.map((entry) => [entry.decision, entry.decidedBy])).toContainEqual([
      'denied',
      'mcp:refused-one',
    ]);
  });

  it('a read runs as the client, in the app (full-auto here), on the active connection', async () => {
    const client = await bridgeClient('tables:readonly', 'reader');
    try {
      const result = await client.callTool({ name: 'countRows', arguments: { table: 'orders' } });
      expect(result.isError, JSON.stringify(result)).toBeFalsy();
      expect(result.structuredContent).toMatchObject({ count: 40 });
    } finally {
      await client.close();
    }
  });

  it("on a named connection, the client is capped at that connection's exposure", async () => {
    await activate('warehouse');
    try {
      const client = await bridgeClient('tables:full', 'capped');
      try {
        expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(
          toolsForScope('tables:readonly'),
        );
        const refused = await client.callTool({
          name: 'stageDeleteRows',
          arguments: { table: 'bins', keys: [{ id: 1 }] },
        });
        expect(refused.isError).toBe(true);
        expect(JSON.stringify(refused.content)).toMatch(/needs scope tables:staged/);
      } finally {
        await client.close();
      }
    } finally {
      await activate('default');
    }
  });

  it('on a connection not exposed over MCP, every request is refused saying how to expose it', async () => {
    await activate('hidden');
    try {
      const client = new Client({ name: 'bridge-test', version: '0' });
      const transport = new StreamableHTTPClientTransport(new URL(endpoint()), {
        requestInit: {
          headers: bearer(app.token, { [MCP_BRIDGE_HEADERS.principal]: principalHeader('tables:full') }),
        },
      });
      await expect(client.connect(transport).then(() => client.listTools())).rejects.toThrow(
        /The connection 'hidden' is not exposed over MCP.*toolrow connections set hidden --mcp readonly/,
      );
      await client.close();
    } finally {
      await activate('default');
    }
  });
});
