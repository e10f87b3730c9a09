// Remembered grants over MCP, with the real tools and state and real SDK clients over HTTP: in Auto
// mode a "yes" to one client's read of a table is that client's alone, and a grant on one table
// never covers a statement that reads another through a CTE of the same name.
import type { Client } from '@modelcontextprotocol/client';
import { DEFAULT_PROFILE } from '@toolrow/datasource';
import type { Toolrow } from '@toolrow/state';
import { testStores } from '@toolrow/state/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { serveToolrowMcp } from '../test/fixture.ts';
import { connectHttp } from '../test/helpers.ts';
import { type ApprovalInbox, createApprovalInbox, type McpApprovalRequest } from './approvals.ts';
import type { RunningMcpHttp } from './http.ts';
import { createToken } from './tokens.ts';

/** Answers every ask of the inbox with `approved`, and records them. */
function answerAll(inbox: ApprovalInbox, approved: boolean, seen: McpApprovalRequest[]): () => void {
  return inbox.subscribe((event) => {
    if (event.type !== 'asked') return;
    seen.push(event.request);
    inbox.answer(event.request.id, { approved });
  });
}

describe.each(testStores())('$name: grants over MCP belong to one client', ({ open }) => {
  let toolrow: Toolrow;
  let server: RunningMcpHttp;
  const inbox = createApprovalInbox({ timeoutMs: 60_000 });
  const clients: Client[] = [];
  let tokenA: string;
  let tokenB: string;

  const connect = async (token: string) => {
    const client = await connectHttp(server.url, token);
    clients.push(client);
    return client;
  };
  beforeAll(async () => {
    toolrow = await open({ seed: { orders: 20 } });
    await toolrow.state.profiles.setMode(DEFAULT_PROFILE, 'auto');
    server = await serveToolrowMcp(toolrow, { approvals: inbox });
    tokenA = (await createToken(toolrow.state.tokens, { scope: 'tables:readonly', name: 'client-a' })).token;
    tokenB = (await createToken(toolrow.state.tokens, { scope: 'tables:readonly', name: 'client-b' })).token;
  }, 120_000);
  afterEach(async () => {
    for (const client of clients.splice(0)) await client.close();
  });
  afterAll(async () => {
    inbox.close();
    await server?.close();
    await toolrow?.close();
  });

  it('a read approved for client A runs for A without asking, and is asked again for B', async () => {
    const asked: McpApprovalRequest[] = [];
    const stop = answerAll(inbox, true, asked);
    try {
      const a = await connect(tokenA);
      const first = await a.callTool({ name: 'countRows', arguments: { table: 'orders' } });
      expect(first.isError).toBeFalsy();
      expect(asked.map((ask) => ask.actor)).toEqual(['mcp:client-a']);
      expect(await toolrow.state.profiles.grants(DEFAULT_PROFILE, 'mcp:client-a')).toHaveLength(1);

      const again = await a.callTool({ name: 'countRows', arguments: { table: 'orders' } });
      expect(again.isError).toBeFalsy();
      expect(asked).toHaveLength(1);

      const b = await connect(tokenB);
      const fromB = await b.callTool({ name: 'countRows', arguments: { table: 'orders' } });
      expect(fromB.isError).toBeFalsy();
      expect(asked.map((ask) => ask.actor)).toEqual(['mcp:client-a', 'mcp:client-b']);
      // The chat agent holds none of them either.
      expect(await toolrow.state.profiles.grants(DEFAULT_PROFILE, 'agent')).toEqual([]);
    } finally {
      stop();
    }
  });

  it.each([
    'with customers as (select * from customers) select email from customers, orders',
    'select * from orders where exists (with customers as (select * from customers) select 1 from customers where email is not null)',
    'select * from orders, (with customers as (select * from customers) select email from customers) c',
  ])('with a grant on orders only, %s is asked (and refused), naming customers', async (sql) => {
    const asked: McpApprovalRequest[] = [];
    const stop = answerAll(inbox, false, asked);
    try {
      const a = await connect(tokenA);
      expect(
        await toolrow.state.profiles.hasGrant(DEFAULT_PROFILE, 'mcp:client-a', 'countRows', 'public.orders'),
      ).toBe(true);
      const result = await a.callTool({ name: 'runQuery', arguments: { sql } });
      expect(result.isError).toBe(true);
      expect(JSON.stringify(result.content)).not.toContain('@');
      expect(asked).toHaveLength(1);
      expect(asked[0]!.tables).toEqual(expect.arrayContaining(['public.customers', 'public.orders']));
    } finally {
      stop();
    }
  });

  it("revoking a client's token takes its remembered grants with it", async () => {
    expect(await toolrow.state.profiles.grants(DEFAULT_PROFILE, 'mcp:client-a')).not.toEqual([]);
    expect(await toolrow.state.tokens.revoke('client-a')).toBe(true);
    expect(await toolrow.state.profiles.grants(DEFAULT_PROFILE, 'mcp:client-a')).toEqual([]);
    // A new token of the same name starts with nothing remembered.
    const reborn = (await createToken(toolrow.state.tokens, { scope: 'tables:readonly', name: 'client-a' }))
      .token;
    const asked: McpApprovalRequest[] = [];
    const stop = answerAll(inbox, false, asked);
    try {
      const client = await connect(reborn);
      const result = await client.callTool({ name: 'countRows', arguments: { table: 'orders' } });
      expect(result.isError).toBe(true);
      expect(asked).toHaveLength(1);
    } finally {
      stop();
    }
  });
});
