// A connection's MCP exposure is the widest scope any of its clients gets, whatever its token says:
// real tools, real state, a real SDK client over HTTP, every scope against every ceiling.
import type { Client } from '@modelcontextprotocol/client';
import type { Toolrow } from '@toolrow/state';
import { testStores } from '@toolrow/state/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWidgets, serveToolrowMcp, stateOf } from '../test/fixture.ts';
import { connectHttp, listedNames, rawToolCall } from '../test/helpers.ts';
import { MCP_REQUIRED_SCOPE, MCP_SCOPES, type McpScope } from './generated/mcp-scopes.ts';
import type { RunningMcpHttp } from './http.ts';
import { capScope, scopeCovers, toolsForScope } from './scopes.ts';
import { createToken } from './tokens.ts';

const [store] = testStores();

describe.each(MCP_SCOPES)('a connection exposed at %s', (ceiling) => {
  let toolrow: Toolrow;
  let server: RunningMcpHttp;
  const clients: Client[] = [];
  const tokens = new Map<McpScope, string>();

  beforeAll(async () => {
    toolrow = await store!.open();
    await createWidgets(toolrow);
    server = await serveToolrowMcp(toolrow, { scopeCeiling: ceiling });
    for (const scope of MCP_SCOPES)
      tokens.set(
        scope,
        (await createToken(toolrow.state.tokens, { scope, name: `holds-${scope.replace(':', '-')}` })).token,
      );
  }, 120_000);
  afterAll(async () => {
    for (const client of clients) await client.close();
    await server?.close();
    await toolrow?.close();
  });

  it.each(MCP_SCOPES)('a token for %s lists exactly what the narrower scope lists', async (held) => {
    const client = await connectHttp(server.url, tokens.get(held));
    clients.push(client);
    expect(await listedNames(client)).toEqual([...toolsForScope(capScope(held, ceiling), toolrow.source)]);
  });

  it('a call above the ceiling is refused before anything runs, even with a full token', async () => {
    const before = await stateOf(toolrow);
    const above = Object.entries(MCP_REQUIRED_SCOPE).filter(([, needed]) => !scopeCovers(ceiling, needed));
    for (const [name] of above) {
      const response = await rawToolCall(server.url, name, tokens.get('tables:full'));
      // A CLI token has nowhere to step up: the refusal is the call's result, naming the scope.
      const text = await response.text();
      expect(text, name).toContain('"isError":true');
      const needed = MCP_REQUIRED_SCOPE[name as keyof typeof MCP_REQUIRED_SCOPE];
      expect(text, name).toContain(`"toolrow/requiredScope":"${needed}"`);
      // The token is not what holds it back, so the advice is the exposure, not a new token.
      expect(text, name).toContain('a new token would not help');
      expect(text, name).toContain(`--mcp ${needed.split(':')[1]}`);
      expect(text, name).not.toContain('toolrow mcp token create');
    }
    expect(await stateOf(toolrow)).toEqual(before);
    if (ceiling !== 'tables:full') expect(above.length).toBeGreaterThan(0);
  });

  it('a token narrower than the ceiling is told to get a wider token, as the token is what holds it back', async () => {
    if (ceiling === 'tables:readonly') return;
    const response = await rawToolCall(server.url, 'stageUpdateRows', tokens.get('tables:readonly'));
    const text = await response.text();
    expect(text).toContain('toolrow mcp token create --scope tables:staged');
    expect(text).not.toContain('a new token would not help');
  });

  it('listConnections shows the client only the connection it is served', async () => {
    await toolrow.state.connections
      .add({
        name: 'other',
        engine: 'postgres',
        url: 'postgres://someone@elsewhere/secret_db',
        description: 'PostgreSQL someone@elsewhere:5432/secret_db',
      })
      .catch(() => {});
    const client = await connectHttp(server.url, tokens.get('tables:readonly'));
    clients.push(client);
    const result = await client.callTool({ name: 'listConnections', arguments: {} });
    const text = JSON.stringify(result);
    expect(text).not.toContain('other');
    expect(text).not.toContain('secret_db');
    expect(
      (result.structuredContent as { connections: { active: boolean }[] }).connections.every((c) => c.active),
    ).toBe(true);
  });
});
