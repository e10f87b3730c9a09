// One client cannot bury the user's approval inbox: past MAX_PENDING_ASKS_PER_CLIENT waiting asks
// its next call is refused at once (with words its model can act on), while other clients' asks
// still reach the user. Real SDK clients over HTTP, the scripted backend in Manual mode.
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectHttp } from '../test/helpers.ts';
import { memoryTokens, scriptedBackend } from '../test/scripted.ts';
import { createApprovalInbox, MAX_PENDING_ASKS_PER_CLIENT } from './approvals.ts';
import { createMcpHttpHandler, type RunningMcpHttp, serveMcpHttp } from './http.ts';
import { createToken } from './tokens.ts';

const textOf = (result: { content?: unknown }) =>
  ((result.content as { type: string; text?: string }[] | undefined) ?? []).map((part) => part.text).join('');

describe('the approval inbox is bounded per client', () => {
  const scripted = scriptedBackend({ mode: 'manual' });
  const tokens = memoryTokens();
  const inbox = createApprovalInbox({ timeoutMs: 120_000 });
  let server: RunningMcpHttp;
  const clients: Client[] = [];

  beforeAll(async () => {
    server = await serveMcpHttp(
      createMcpHttpHandler({ backend: scripted.backend, tokens, approvals: inbox }),
      0,
    );
  });
  afterAll(async () => {
    inbox.close();
    for (const client of clients) await client.close();
    await server?.close();
  });

  it(`a client's ask past ${MAX_PENDING_ASKS_PER_CLIENT} waiting is refused at once; another client is still asked`, async () => {
    const noisy = await connectHttp(
      server.url,
      (await createToken(tokens, { scope: 'tables:full', name: 'noisy' })).token,
    );
    const quiet = await connectHttp(
      server.url,
      (await createToken(tokens, { scope: 'tables:full', name: 'quiet' })).token,
    );
    clients.push(noisy, quiet);
    const asked = new Promise<void>((resolve) => {
      const stop = inbox.subscribe(() => {
        if (inbox.pending().length === MAX_PENDING_ASKS_PER_CLIENT) {
          stop();
          resolve();
        }
      });
    });
    const waiting = Array.from({ length: MAX_PENDING_ASKS_PER_CLIENT }, () =>
      noisy.callTool({ name: 'countRows', arguments: { table: 'orders' } }),
    );
    await asked;
    const refused = await noisy.callTool({ name: 'countRows', arguments: { table: 'orders' } });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toContain(`already has ${MAX_PENDING_ASKS_PER_CLIENT} calls waiting`);
    expect(inbox.pending()).toHaveLength(MAX_PENDING_ASKS_PER_CLIENT);

    const quietAsked = new Promise<string>((resolve) => {
      const stop = inbox.subscribe((event) => {
        if (event.type === 'asked' && event.request.actor === 'mcp:quiet') {
          stop();
          resolve(event.request.id);
        }
      });
    });
    const fromQuiet = quiet.callTool({ name: 'countRows', arguments: { table: 'orders' } });
    inbox.answer(await quietAsked, { approved: true });
    expect((await fromQuiet).isError).toBeFalsy();

    for (const request of inbox.pending()) inbox.answer(request.id, { approved: false, reason: 'test over' });
    for (const result of await Promise.all(waiting)) expect(result.isError).toBe(true);
    expect(scripted.runs.map((run) => run.actor)).toEqual(['mcp:quiet']);
  });
});
