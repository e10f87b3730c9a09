// The permission ladder over MCP, with a real SDK client over a real socket: the profile's mode
// decides as in chat; Manual waits for the user's answer in the approval inbox; a trusted client
// that declares elicitation asks its own user. The app's HTTP routes over the same inbox are
// tested in apps/server (mcp-approvals.test.ts); stdio in stdio-ladder.test.ts.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Era } from '../test/helpers.ts';
import { memoryTokens, scriptedBackend } from '../test/scripted.ts';
import { type ApprovalInbox, createApprovalInbox, type McpApprovalRequest } from './approvals.ts';
import { createMcpHttpHandler, type RunningMcpHttp, serveMcpHttp } from './http.ts';
import { createToken } from './tokens.ts';

/** The next ask the inbox opens. */
function nextAsk(inbox: ApprovalInbox): Promise<McpApprovalRequest> {
  return new Promise((resolve) => {
    const stop = inbox.subscribe((event) => {
      if (event.type === 'asked') {
        stop();
        resolve(event.request);
      }
    });
  });
}

const textOf = (result: { content?: unknown }) =>
  ((result.content as { type: string; text?: string }[] | undefined) ?? []).map((part) => part.text).join('');

async function connect(
  url: URL,
  token: string,
  era: Era,
  elicit?: (params: unknown) => {
    action: 'accept' | 'decline' | 'cancel';
    content?: Record<string, boolean>;
  },
): Promise<Client> {
  const client = new Client(
    { name: 'ladder-test', version: '0.0.0' },
    { versionNegotiation: { mode: era }, capabilities: elicit ? { elicitation: { form: {} } } : {} },
  );
  if (elicit) client.setRequestHandler('elicitation/create', async (request) => elicit(request.params));
  await client.connect(
    new StreamableHTTPClientTransport(url, {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}

describe.each(['legacy', 'auto'] as const)('the ladder over Streamable HTTP, %s era', (era) => {
  const scripted = scriptedBackend({ mode: 'manual' });
  const tokens = memoryTokens();
  const inbox = createApprovalInbox({ timeoutMs: 60_000 });
  const quickInbox = createApprovalInbox({ timeoutMs: 300 });
  let server: RunningMcpHttp;
  let quick: RunningMcpHttp;
  let full: string;
  let trusted: string;
  const clients: Client[] = [];

  beforeAll(async () => {
    server = await serveMcpHttp(
      createMcpHttpHandler({
        backend: scripted.backend,
        tokens,
        approvals: inbox,
        progressIntervalMs: 50,
        // Stands in for the 50 s a client without a progressToken is given.
        unprogressedWaitMs: 400,
      }),
      0,
    );
    quick = await serveMcpHttp(
      createMcpHttpHandler({ backend: scripted.backend, tokens, approvals: quickInbox }),
      0,
    );
    full = (await createToken(tokens, { scope: 'tables:full', name: 'claude' })).token;
    trusted = (await createToken(tokens, { scope: 'tables:full', name: 'trusted', askViaClient: true }))
      .token;
  });
  afterEach(async () => {
    scripted.runs.length = 0;
    scripted.audits.length = 0;
    scripted.grants.length = 0;
    scripted.mode = 'manual';
    for (const client of clients.splice(0)) await client.close();
  });
  afterAll(async () => {
    await server?.close();
    await quick?.close();
  });
  const open = async (...args: Parameters<typeof connect>) => {
    const client = await connect(...args);
    clients.push(client);
    return client;
  };
  const decisions = () => scripted.audits.map((audit) => [audit.decision, audit.decidedBy]);

  it('Manual: a gated call waits in the inbox, tells the client it waits, and runs only once approved', async () => {
    const client = await open(server.url, full, era);
    const asked = nextAsk(inbox);
    let progressed!: () => void;
    const progress = new Promise<void>((resolve) => {
      progressed = resolve;
    });
    const messages: string[] = [];
    const call = client.callTool(
      { name: 'countRows', arguments: { table: 'orders' } },
      {
        onprogress: (update) => {
          messages.push(update.message ?? '');
          progressed();
        },
      },
    );
    const request = await asked;
    expect(request).toMatchObject({
      client: 'ladder-test (claude)',
      actor: 'mcp:claude',
      tool: 'countRows',
      input: { table: 'orders' },
      tables: ['orders'],
      mode: 'manual',
    });
    expect(inbox.pending().map((pending) => pending.id)).toEqual([request.id]);
    await progress;
    expect(messages[0]).toContain('Waiting for the user to approve countRows in the Toolrow app');
    // Asked and waiting: nothing ran yet.
    expect(scripted.runs).toEqual([]);
    expect(decisions()).toEqual([['asked', 'mcp:claude']]);

    expect(inbox.answer(request.id, { approved: true })).toBe(true);
    const result = await call;
    expect(result.isError).toBeFalsy();
    expect(scripted.runs).toEqual([{ name: 'countRows', input: { table: 'orders' }, actor: 'mcp:claude' }]);
    expect(decisions()).toEqual([
      ['asked', 'mcp:claude'],
      ['approved', 'mcp:claude'],
    ]);
    expect(scripted.audits[1]?.detail).toBe('approved by the user in the Toolrow app');
    // Manual remembers nothing: the next read asks again.
    expect(scripted.grants).toEqual([]);
    expect(inbox.pending()).toEqual([]);
  });

  it('Manual: a call without a progressToken waits no longer than its client would, and says so', async () => {
    const client = await open(server.url, full, era);
    const asked = nextAsk(inbox);
    const call = client.callTool({ name: 'countRows', arguments: { table: 'orders' } });
    const request = await asked;
    // The inbox's wait is the shorter one, not the 60 s the inbox allows a client with progress.
    expect(Date.parse(request.expiresAt) - Date.parse(request.askedAt)).toBe(400);
    const result = await call;
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(
      /sent no progressToken, so it would give up on the call at its own request timeout \(60 s in the MCP SDK\)/,
    );
    expect(textOf(result)).toContain('resetTimeoutOnProgress');
    expect(scripted.runs).toEqual([]);
    expect(inbox.pending()).toEqual([]);
  });

  it('Manual: a denial refuses, with the reason and a way out', async () => {
    const client = await open(server.url, full, era);
    const asked = nextAsk(inbox);
    const call = client.callTool({ name: 'openTable', arguments: { table: 'orders' } });
    inbox.answer((await asked).id, { approved: false, reason: 'not now' });
    const result = await call;
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('The user said no: not now');
    expect(textOf(result)).toContain('proposeOpenTable');
    expect(scripted.runs).toEqual([]);
    expect(decisions()).toEqual([
      ['asked', 'mcp:claude'],
      ['denied', 'mcp:claude'],
    ]);
    expect(scripted.audits[1]?.detail).toBe('denied by the user in the Toolrow app: not now');
  });

  it('Manual: an unanswered ask times out into a refusal that says what to do', async () => {
    const client = await open(quick.url, full, era);
    const settled = new Promise<string>((resolve) => {
      const stop = quickInbox.subscribe((event) => {
        if (event.type === 'settled') {
          stop();
          resolve(event.outcome.kind);
        }
      });
    });
    const result = await client.callTool({ name: 'startExport', arguments: { table: 'orders' } });
    expect(await settled).toBe('timeout');
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('Nobody answered within 300 ms');
    expect(textOf(result)).toContain('Approvals inbox');
    expect(scripted.runs).toEqual([]);
    expect(decisions()).toEqual([
      ['asked', 'mcp:claude'],
      ['denied', 'mcp:claude'],
    ]);
    expect(scripted.audits[1]?.detail).toContain('timed out');
  });

  it('Manual: propose tools and silent tools run without asking, as in chat', async () => {
    const client = await open(server.url, full, era);
    expect(
      (await client.callTool({ name: 'proposeOpenTable', arguments: { table: 'orders' } })).isError,
    ).toBeFalsy();
    expect((await client.callTool({ name: 'listTables', arguments: {} })).isError).toBeFalsy();
    expect(scripted.runs.map((run) => run.name)).toEqual(['proposeOpenTable', 'listTables']);
    expect(decisions()).toEqual([['auto', 'mcp:claude']]);
  });

  it('Auto: stage runs; a read asks once per table, then the grant covers it; open asks', async () => {
    scripted.mode = 'auto';
    const client = await open(server.url, full, era);
    await client.callTool({ name: 'stageDeleteRows', arguments: { table: 'orders', keys: [{ id: 1 }] } });
    expect(decisions()).toEqual([['auto', 'mcp:claude']]);

    const asked = nextAsk(inbox);
    const read = client.callTool({ name: 'countRows', arguments: { table: 'orders' } });
    inbox.answer((await asked).id, { approved: true });
    expect((await read).isError).toBeFalsy();
    expect(scripted.grants).toEqual([{ tool: 'countRows', table: 'orders' }]);
    // Another read tool on the same table: covered by the grant, runs unasked.
    await client.callTool({ name: 'getRow', arguments: { table: 'orders', key: { id: 1 } } });
    expect(decisions()).toEqual([
      ['auto', 'mcp:claude'],
      ['asked', 'mcp:claude'],
      ['approved', 'mcp:claude'],
      ['auto', 'mcp:claude'],
    ]);
    expect(scripted.audits[3]?.detail).toContain('remembered grant for orders');

    const askedOpen = nextAsk(inbox);
    const openCall = client.callTool({ name: 'openTable', arguments: { table: 'orders' } });
    expect((await askedOpen).reason).toBe('Auto mode asks before changing what the user sees.');
    inbox.answer((await askedOpen).id, { approved: true });
    await openCall;
    expect(scripted.runs.map((run) => run.name)).toEqual([
      'stageDeleteRows',
      'countRows',
      'getRow',
      'openTable',
    ]);
  });

  it('Full Auto: every gated call runs, audited auto under the client', async () => {
    scripted.mode = 'full-auto';
    const client = await open(server.url, full, era);
    for (const name of ['countRows', 'openTable', 'startExport', 'stageInsertRows'])
      expect((await client.callTool({ name, arguments: { table: 'orders' } })).isError).toBeFalsy();
    expect(inbox.pending()).toEqual([]);
    expect(decisions()).toEqual(Array.from({ length: 4 }, () => ['auto', 'mcp:claude']));
    expect(scripted.audits[0]?.detail).toContain('Full Auto mode runs every gated action');
  });

  // 2026-07-28 carries the client's capabilities per request and the answer comes back with the
  // call's retry; a 2025-era client holds a session (Mcp-Session-Id), whose POST stream carries
  // the server's elicitation/create and whose next POST carries the answer.
  it('a trusted client that declares elicitation asks its own user: accept runs, decline refuses', async () => {
    const questions: string[] = [];
    let answer: 'accept' | 'decline' = 'accept';
    const client = await open(server.url, trusted, era, (params) => {
      questions.push((params as { message: string }).message);
      return answer === 'accept' ? { action: 'accept', content: { approve: true } } : { action: 'decline' };
    });
    // The 2025 era asks over its session; 2026-07-28 needs none.
    const session = (client.transport as StreamableHTTPClientTransport).sessionId;
    if (era === 'legacy') expect(session).toMatch(/^[0-9a-f-]{36}$/);
    else expect(session).toBeUndefined();
    const accepted = await client.callTool({ name: 'openTable', arguments: { table: 'orders' } });
    expect(accepted.isError).toBeFalsy();
    expect(questions[0]).toContain('allow trusted to run openTable');
    expect(scripted.runs.map((run) => run.name)).toEqual(['openTable']);
    answer = 'decline';
    const declined = await client.callTool({ name: 'startExport', arguments: { table: 'orders' } });
    expect(declined.isError).toBe(true);
    expect(textOf(declined)).toContain('The user said no.');
    expect(scripted.runs.map((run) => run.name)).toEqual(['openTable']);
    expect(inbox.pending()).toEqual([]);
    expect(decisions()).toEqual([
      ['asked', 'mcp:trusted'],
      ['approved', 'mcp:trusted'],
      ['asked', 'mcp:trusted'],
      ['denied', 'mcp:trusted'],
    ]);
    expect(scripted.audits[1]?.detail).toContain('MCP elicitation');
  });

  it('a trusted client without the elicitation capability is asked in the inbox instead', async () => {
    const client = await open(server.url, trusted, era);
    const asked = nextAsk(inbox);
    const call = client.callTool({ name: 'openTable', arguments: { table: 'orders' } });
    expect((await asked).client).toBe('ladder-test (trusted)');
    inbox.answer((await asked).id, { approved: true });
    expect((await call).isError).toBeFalsy();
  });
});

describe('the ladder without an inbox', () => {
  it('Manual with nobody to ask refuses at once, saying why and what to do', async () => {
    const scripted = scriptedBackend({ mode: 'manual' });
    const tokens = memoryTokens();
    const server = await serveMcpHttp(createMcpHttpHandler({ backend: scripted.backend, tokens }), 0);
    try {
      const token = (await createToken(tokens, { scope: 'tables:readonly', name: 'alone' })).token;
      const client = await connect(server.url, token, 'legacy');
      const result = await client.callTool({ name: 'countRows', arguments: { table: 'orders' } });
      await client.close();
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain('There is no Toolrow app running to ask the user in');
      expect(scripted.runs).toEqual([]);
      expect(scripted.audits.map((audit) => audit.decision)).toEqual(['denied']);
    } finally {
      await server.close();
    }
  });
});
