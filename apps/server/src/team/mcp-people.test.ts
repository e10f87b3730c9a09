// MCP on a team: tokens and OAuth grants belong to a person and never hold more than their role.
// A real SDK client on the app's /mcp with a person's token stages a change that is that person's;
// a viewer's token reads only; removing the person ends the client's access at once; the run has
// no token of its own (it would belong to nobody).
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { Toolrow } from '@toolrow/state';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MountedMcp, mountMcp } from '../mcp.ts';
import { createToolrowServer, type ToolrowServer } from '../server.ts';
import { clearStaging, freePort, openSeededSource } from '../test-support.ts';
import { signIn, startTestProvider, type TestProvider, teamClient } from './test-provider.ts';

describe('MCP clients of a team act as their person, within their role', () => {
  let toolrow: Toolrow;
  let provider: TestProvider;
  let mcp: MountedMcp;
  let app: ToolrowServer;
  let appUrl: string;
  const clients: Client[] = [];

  beforeAll(async () => {
    toolrow = await openSeededSource(50);
    await toolrow.state.profiles.setMode('default', 'full-auto');
    const port = await freePort();
    appUrl = `http://127.0.0.1:${port}`;
    provider = await startTestProvider([appUrl]);
    mcp = await mountMcp({ source: toolrow.source, state: toolrow.state, scope: 'tables:full', team: true });
    app = await createToolrowServer({
      source: toolrow.source,
      state: toolrow.state,
      env: provider.env(appUrl),
      model: null,
      mcp: mcp.mount,
      log: () => {},
    });
    await app.listen({ port });
  }, 120_000);

  afterAll(async () => {
    for (const client of clients) await client.close().catch(() => {});
    await app?.close();
    await provider?.close();
    await toolrow?.close();
  });

  async function connect(token: string): Promise<Client> {
    const client = new Client({ name: 'team-mcp-test', version: '0.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${appUrl}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${token}` } },
      }),
    );
    clients.push(client);
    return client;
  }

  const member = async (account: string) => {
    const { b } = await signIn(appUrl, provider.issuer, account);
    return teamClient(b, appUrl);
  };

  it('the run makes no token of its own', async () => {
    expect(mcp.token).toBeUndefined();
    expect(await toolrow.state.tokens.list()).toEqual([]);
  });

  it("an analyst's token stages changes that are hers, and the audit names her", async () => {
    const ana = await member('ana');
    const made = (await (await ana.send('POST', '/api/team/mcp-tokens', { name: 'ana-claude' })).json()) as {
      token: string;
      scope: string;
    };
    expect(made.scope).toBe('tables:full');
    const client = await connect(made.token);
    const result = await client.callTool({
      name: 'stageUpdateRows',
      arguments: { table: 'orders', updates: [{ key: { id: 4 }, values: { note: 'via MCP' } }] },
    });
    expect(result.isError).toBeFalsy();
    const [change] = await toolrow.state.staging.list();
    expect(change).toMatchObject({ stagedBy: 'mcp:ana-claude', person: 'ana@example.com' });
    const audit = await toolrow.state.audit.list({ person: 'ana@example.com' });
    expect(audit.map((entry) => entry.tool)).toContain('stageUpdateRows');
    // Her own MCP change is hers under four eyes too: she cannot commit it, nor could she as approver.
    await expect(
      toolrow.state.staging.commit(undefined, {
        approver: { person: 'ana@example.com', reviewed: 'any' },
      }),
    ).rejects.toThrow(/Four eyes: ana@example\.com/);
    await clearStaging(toolrow);
  });

  it("a viewer's token reads and stages nothing; more than a viewer's scope is refused", async () => {
    const vic = await member('vic');
    const refused = await vic.send('POST', '/api/team/mcp-tokens', {
      name: 'too-much',
      scope: 'tables:full',
    });
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(
      /As viewer your MCP tokens hold at most tables:readonly/,
    );
    const made = (await (await vic.send('POST', '/api/team/mcp-tokens', { name: 'vic-reader' })).json()) as {
      token: string;
      scope: string;
    };
    expect(made.scope).toBe('tables:readonly');
    const client = await connect(made.token);
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    expect(names).toContain('listTables');
    expect(names).not.toContain('stageUpdateRows');
    const staged = await client.callTool({
      name: 'stageUpdateRows',
      arguments: { table: 'orders', updates: [{ key: { id: 5 }, values: { note: 'no' } }] },
    });
    expect(staged.isError).toBe(true);
    expect(await toolrow.state.staging.list()).toEqual([]);
    // His own tokens are listed to him, and another's are not his to revoke.
    const mine = (await (await vic.get('/api/team/mcp-tokens')).json()) as { tokens: { name: string }[] };
    expect(mine.tokens.map((token) => token.name)).toEqual(['vic-reader']);
    expect((await vic.send('DELETE', '/api/team/mcp-tokens/ana-claude')).status).toBe(404);
  });

  it("removing a person ends their MCP client's access at once", async () => {
    const amy = await member('amy');
    const made = (await (await amy.send('POST', '/api/team/mcp-tokens', { name: 'amy-agent' })).json()) as {
      token: string;
    };
    const client = await connect(made.token);
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    const removal = await toolrow.state.team.remove('amy@example.com', 'left the team');
    expect(removal.mcpTokens).toBe(1);
    const after = await fetch(`${appUrl}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${made.token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(after.status).toBe(401);
  });
});
