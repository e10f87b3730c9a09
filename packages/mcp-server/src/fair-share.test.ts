// One MCP client cannot take the user's database: its calls run a few at a time, the others wait
// (first come, first served, a cancelled wait runs nothing), and the user's own reads go through
// while a flood is still queued. The flood comes from a real SDK client over HTTP, on both engines.
import type { Client } from '@modelcontextprotocol/client';
import { DEFAULT_PROFILE } from '@toolrow/datasource';
import type { Toolrow } from '@toolrow/state';
import { pgliteOnDiskStores, testStores } from '@toolrow/state/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveToolrowMcp } from '../test/fixture.ts';
import { connectHttp } from '../test/helpers.ts';
import { createFairShare } from './fair-share.ts';
import type { RunningMcpHttp } from './http.ts';
import { createToken } from './tokens.ts';

/** A promise and the function that settles it. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { open, opened };
}

describe('the fair share', () => {
  it('runs at most perClient calls of one client and inAll in all; the oldest waiter that fits goes next', async () => {
    const share = createFairShare({ perClient: 2, inAll: 3 });
    const started: string[] = [];
    const gates = new Map<string, ReturnType<typeof gate>>();
    const call = (client: string, id: string) =>
      share.run(client, undefined, async () => {
        started.push(id);
        const g = gate();
        gates.set(id, g);
        await g.opened;
        return id;
      });
    const a1 = call('a', 'a1');
    const a2 = call('a', 'a2');
    const a3 = call('a', 'a3');
    const b1 = call('b', 'b1');
    const b2 = call('b', 'b2');
    await Promise.resolve();
    expect(started).toEqual(['a1', 'a2', 'b1']);
    expect(share.load()).toEqual({ running: 3, waiting: 2 });
    // a1 ends: a3 is older than b2 and fits (a has one running).
    gates.get('a1')!.open();
    await a1;
    await Promise.resolve();
    expect(started).toEqual(['a1', 'a2', 'b1', 'a3']);
    gates.get('b1')!.open();
    await b1;
    await Promise.resolve();
    expect(started).toEqual(['a1', 'a2', 'b1', 'a3', 'b2']);
    for (const id of ['a2', 'a3', 'b2']) gates.get(id)!.open();
    expect(await Promise.all([a2, a3, b2])).toEqual(['a2', 'a3', 'b2']);
    expect(share.load()).toEqual({ running: 0, waiting: 0 });
  });

  it('a call cancelled while it waits never runs and frees its place', async () => {
    const share = createFairShare({ perClient: 1, inAll: 1 });
    const first = gate();
    const running = share.run('a', undefined, () => first.opened);
    const controller = new AbortController();
    let ran = false;
    const waiting = share.run('a', controller.signal, async () => {
      ran = true;
    });
    controller.abort(new Error('the client cancelled'));
    await expect(waiting).rejects.toThrow('the client cancelled');
    expect(share.load()).toEqual({ running: 1, waiting: 0 });
    first.open();
    await running;
    expect(ran).toBe(false);
  });
});

// PGlite as the app runs it (its engine in a worker thread): in memory it would run on this
// thread, and every call, the user's included, would simply take turns on the event loop.
const STORES = [pgliteOnDiskStores, ...testStores().filter((store) => store.name === 'postgres')];

describe.each(STORES)('$name: a flood of one client leaves the user served', ({ open }) => {
  let toolrow: Toolrow;
  let server: RunningMcpHttp;
  let client: Client;
  const share = createFairShare();

  beforeAll(async () => {
    toolrow = await open({ seed: { orders: 200 } });
    await toolrow.state.profiles.setMode(DEFAULT_PROFILE, 'full-auto');
    server = await serveToolrowMcp(toolrow, { fairShare: share });
    const { token } = await createToken(toolrow.state.tokens, { scope: 'tables:readonly', name: 'flood' });
    client = await connectHttp(server.url, token);
  }, 120_000);
  afterAll(async () => {
    await client?.close();
    await server?.close();
    await toolrow?.close();
  });

  it("the user's count answers while most of twelve expensive calls still wait", async () => {
    const sql = 'select count(*) from generate_series(1, 2000000) as g, (select 1) as one';
    const flood = Array.from({ length: 12 }, () => client.callTool({ name: 'runQuery', arguments: { sql } }));
    // The flood has reached the database: two of its calls run, the rest wait their turn.
    await expect.poll(() => share.load().running === 2 && share.load().waiting >= 4).toBe(true);
    const startedBefore = 12 - share.load().waiting;
    // The user's own read, as the app's grid makes it: straight to the data source.
    const count = await toolrow.source.rows.count('orders');
    const startedAfter = 12 - share.load().waiting;
    expect(count).toBe(200);
    // The user waited behind the calls that were running, not behind the client's queue.
    expect(startedAfter - startedBefore).toBeLessThanOrEqual(3);
    expect(share.load().waiting).toBeGreaterThan(0);
    const results = await Promise.all(flood);
    expect(results.every((result) => !result.isError)).toBe(true);
  }, 180_000);
});
