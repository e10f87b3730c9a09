// 2025-era sessions over a real socket: a session is its token's alone, ends on DELETE, when idle
// and when its token opens more than its share, never while it serves a call, and a cancellation
// in one session never reaches another's call with the same id. Real SDK clients where a client
// would behave; raw requests where a hostile one would not.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { memoryTokens, scriptedBackend } from '../test/scripted.ts';
import { createApprovalInbox } from './approvals.ts';
import { createMcpHttpHandler, type RunningMcpHttp, serveMcpHttp } from './http.ts';
import type { McpSessionLimits } from './sessions.ts';
import { createToken } from './tokens.ts';

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
};

function post(url: URL, token: string, body: unknown, sessionId?: string): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
      ...(sessionId ? { 'mcp-session-id': sessionId } : {}),
    },
    body: JSON.stringify(body),
  });
}

/** A raw initialize: the session id it was given (the body read to its end). */
async function initialize(url: URL, token: string): Promise<string> {
  const response = await post(url, token, INITIALIZE);
  const text = await response.text();
  expect(response.status, text).toBe(200);
  const id = response.headers.get('mcp-session-id');
  expect(id).toMatch(/^[0-9a-f-]{36}$/);
  await (await post(url, token, { jsonrpc: '2.0', method: 'notifications/initialized' }, id!)).text();
  return id!;
}

/** What a request on the session gets: its status and body. */
async function listOn(url: URL, token: string, sessionId: string) {
  const response = await post(url, token, { jsonrpc: '2.0', id: 7, method: 'tools/list' }, sessionId);
  return { status: response.status, text: await response.text() };
}

interface SseEvent {
  id?: string;
  retry?: number;
  data: string;
}

/** Reads SSE events from `body` until `until` says stop; the reader is then let go (the stream drops). */
async function readEvents(body: ReadableStream<Uint8Array>, until: (event: SseEvent) => boolean) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  const events: SseEvent[] = [];
  let buffer = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return events;
      buffer += value;
      let end = buffer.indexOf('\n\n');
      while (end >= 0) {
        const event: SseEvent = { data: '' };
        for (const line of buffer.slice(0, end).split('\n')) {
          const [field, ...rest] = line.split(':');
          const text = rest.join(':').replace(/^ /, '');
          if (field === 'id') event.id = text;
          if (field === 'retry') event.retry = Number(text);
          if (field === 'data') event.data += text;
        }
        buffer = buffer.slice(end + 2);
        events.push(event);
        if (until(event)) return events;
        end = buffer.indexOf('\n\n');
      }
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}

async function connect(url: URL, token: string): Promise<Client> {
  const client = new Client({ name: 'sessions-test', version: '0.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(url, {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}

describe('2025-era sessions over Streamable HTTP', () => {
  const scripted = scriptedBackend({ mode: 'manual' });
  const tokens = memoryTokens();
  const inbox = createApprovalInbox({ timeoutMs: 60_000 });
  let clock = 0;
  const servers: RunningMcpHttp[] = [];
  const clients: Client[] = [];
  let alice: string;
  let bob: string;

  const serve = async (sessions: McpSessionLimits = {}) => {
    const server = await serveMcpHttp(
      createMcpHttpHandler({
        backend: scripted.backend,
        tokens,
        approvals: inbox,
        sessions: { now: () => clock, ...sessions },
      }),
      0,
    );
    servers.push(server);
    return server;
  };
  const open = async (url: URL, token: string) => {
    const client = await connect(url, token);
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    alice = (await createToken(tokens, { scope: 'tables:full', name: 'alice' })).token;
    bob = (await createToken(tokens, { scope: 'tables:full', name: 'bob' })).token;
  });
  afterEach(async () => {
    for (const client of clients.splice(0)) await client.close().catch(() => {});
    for (const pending of inbox.pending()) inbox.answer(pending.id, { approved: false });
    scripted.runs.length = 0;
  });
  afterAll(async () => {
    for (const server of servers) await server.close();
  });

  it("is its token's alone: another token is told it does not exist, and cannot end it", async () => {
    const server = await serve();
    const session = await initialize(server.url, alice);
    expect((await listOn(server.url, alice, session)).status).toBe(200);

    const foreign = await listOn(server.url, bob, session);
    expect(foreign.status).toBe(404);
    expect(foreign.text).toContain('Session not found');
    for (const method of ['GET', 'DELETE']) {
      const response = await fetch(server.url, {
        method,
        headers: { authorization: `Bearer ${bob}`, 'mcp-session-id': session, accept: 'text/event-stream' },
      });
      expect(response.status, method).toBe(404);
      await response.body?.cancel();
    }
    // Still Alice's, and still open.
    const own = await listOn(server.url, alice, session);
    expect(own.status).toBe(200);
    expect(own.text).toContain('"tools"');
    // A made-up id is the same 404.
    expect((await listOn(server.url, alice, crypto.randomUUID())).status).toBe(404);
  });

  it('a revoked token loses its session at once (401), whatever the session id', async () => {
    const server = await serve();
    const { token } = await createToken(tokens, { scope: 'tables:full', name: 'soon-revoked' });
    const session = await initialize(server.url, token);
    expect((await listOn(server.url, token, session)).status).toBe(200);
    await tokens.revoke('soon-revoked');
    expect((await listOn(server.url, token, session)).status).toBe(401);
  });

  it('DELETE ends it: its next request is 404, and the SDK client can start anew', async () => {
    const server = await serve();
    const client = await open(server.url, alice);
    const transport = client.transport as StreamableHTTPClientTransport;
    const session = transport.sessionId!;
    expect(session).toBeDefined();
    await transport.terminateSession();
    expect((await listOn(server.url, alice, session)).status).toBe(404);
    const again = await open(server.url, alice);
    expect((await again.listTools()).tools.length).toBeGreaterThan(0);
  });

  it('an idle session ends; one used since does not', async () => {
    const server = await serve({ idleMs: 1000 });
    const idle = await initialize(server.url, alice);
    const used = await initialize(server.url, alice);
    clock += 600;
    expect((await listOn(server.url, alice, used)).status).toBe(200);
    clock += 600;
    // `idle` was last used 1200 ms ago, `used` 600 ms ago.
    expect((await listOn(server.url, alice, idle)).status).toBe(404);
    expect((await listOn(server.url, alice, used)).status).toBe(200);
  });

  it("a token's sessions are bounded: a new one ends its least recently used, never a busy one; all busy is 429", async () => {
    const server = await serve({ perToken: 2 });
    // Two clients, each with a call waiting for the user's answer: both sessions are busy.
    const first = await open(server.url, alice);
    const second = await open(server.url, alice);
    const calls = [first, second].map((client) =>
      client.callTool({ name: 'countRows', arguments: { table: 'orders' } }),
    );
    await expect.poll(() => inbox.pending().length).toBe(2);

    const refused = await post(server.url, alice, INITIALIZE);
    expect(refused.status).toBe(429);
    expect(await refused.text()).toContain('at most 2 per token');
    // Another token is not held back by Alice's.
    await initialize(server.url, bob);

    // The calls finish; a third session now ends the least recently used (the first).
    for (const pending of inbox.pending()) inbox.answer(pending.id, { approved: true });
    for (const result of await Promise.all(calls)) expect(result.isError).toBeFalsy();
    clock += 1;
    const secondId = (second.transport as StreamableHTTPClientTransport).sessionId!;
    expect((await listOn(server.url, alice, secondId)).status).toBe(200);
    await initialize(server.url, alice);
    const firstId = (first.transport as StreamableHTTPClientTransport).sessionId!;
    expect((await listOn(server.url, alice, firstId)).status).toBe(404);
    expect((await listOn(server.url, alice, secondId)).status).toBe(200);
  });

  it("a cancellation in one session stops that session's call only, though both calls share an id", async () => {
    const server = await serve();
    const cancelling = await open(server.url, alice);
    const bystander = await open(server.url, alice);
    const controller = new AbortController();
    const cancelled = cancelling.callTool(
      { name: 'countRows', arguments: { table: 'orders' } },
      { signal: controller.signal },
    );
    const running = bystander.callTool({ name: 'countRows', arguments: { table: 'customers' } });
    await expect.poll(() => inbox.pending().length).toBe(2);
    const ofCustomers = inbox.pending().find((pending) => pending.tables?.includes('customers'))!;
    controller.abort('changed my mind');
    await expect(cancelled).rejects.toThrow();
    // The cancelled call's ask is withdrawn; the other session's still waits.
    await expect.poll(() => inbox.pending().map((pending) => pending.id)).toEqual([ofCustomers.id]);
    inbox.answer(ofCustomers.id, { approved: true });
    expect((await running).isError).toBeFalsy();
    expect(scripted.runs.map((run) => run.input)).toEqual([{ table: 'customers' }]);
  });

  it('a call whose stream dropped is finished on reconnect: GET with Last-Event-ID replays its result', async () => {
    const server = await serve();
    const session = await initialize(server.url, alice);
    const call = {
      jsonrpc: '2.0',
      id: 41,
      method: 'tools/call',
      params: { name: 'countRows', arguments: { table: 'orders' } },
    };
    const response = await post(server.url, alice, call, session);
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    // The stream opens with a priming event (an id, no data) and says how soon to come back.
    const first = await readEvents(response.body!, (event) => event.id !== undefined);
    const priming = first.at(-1)!;
    expect(priming.data).toBe('');
    expect(priming.retry).toBe(1000);
    // The stream has dropped; the call still waits for the user, who now approves it.
    await expect.poll(() => inbox.pending().length).toBe(1);
    inbox.answer(inbox.pending()[0]!.id, { approved: true });
    const resumed = await fetch(server.url, {
      headers: {
        authorization: `Bearer ${alice}`,
        accept: 'text/event-stream',
        'mcp-session-id': session,
        'mcp-protocol-version': '2025-11-25',
        'last-event-id': priming.id!,
      },
    });
    expect(resumed.status).toBe(200);
    const replayed = await readEvents(resumed.body!, (event) => event.data.includes('"id":41'));
    const answer = JSON.parse(replayed.at(-1)!.data);
    expect(answer.result.isError).toBeFalsy();
    expect(answer.result.structuredContent).toEqual({ ran: 'countRows' });
    expect(scripted.runs.map((run) => run.input)).toEqual([{ table: 'orders' }]);
    // Another token cannot replay Alice's stream.
    const foreign = await fetch(server.url, {
      headers: {
        authorization: `Bearer ${bob}`,
        accept: 'text/event-stream',
        'mcp-session-id': session,
        'last-event-id': priming.id!,
      },
    });
    expect(foreign.status).toBe(404);
    await foreign.body?.cancel();
  });
});
