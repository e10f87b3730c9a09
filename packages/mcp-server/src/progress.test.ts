// Progress only rises, whoever reports it in a call: the approval wait's beats, the running tool's
// heartbeat and the tool's own counts (rows that go 0, 5000, 1, 20000 as several parts report).
// A real SDK client over HTTP collects what arrives.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectHttp } from '../test/helpers.ts';
import { memoryTokens, scriptedBackend } from '../test/scripted.ts';
import { createApprovalInbox } from './approvals.ts';
import { createMcpHttpHandler, type RunningMcpHttp, serveMcpHttp } from './http.ts';
import { createToken } from './tokens.ts';

describe('progress over one call', () => {
  const scripted = scriptedBackend({ mode: 'manual' });
  const tokens = memoryTokens();
  const inbox = createApprovalInbox({ timeoutMs: 60_000 });
  let server: RunningMcpHttp;
  const received: { progress: number; total?: number; message?: string }[] = [];
  let onUpdate = () => {};
  const updated = (count: number) =>
    new Promise<void>((resolve) => {
      onUpdate = () => {
        if (received.length >= count) resolve();
      };
      onUpdate();
    });

  beforeAll(async () => {
    const run = scripted.backend.run;
    scripted.backend.run = async (name, input, call) => {
      // The tool's own counts, interleaved with heartbeats: some go backwards, as they did.
      for (const [progress, total] of [
        [0, 30_000],
        [5000, 30_000],
        [1, undefined],
        [20_000, 30_000],
        [20_000, 30_000],
      ] as const) {
        call.progress?.({ progress, ...(total ? { total } : {}), message: `rows ${progress}` });
        await updated(received.length + 1).catch(() => {});
      }
      await updated(received.length + 2);
      return run(name, input, call);
    };
    server = await serveMcpHttp(
      createMcpHttpHandler({
        backend: scripted.backend,
        tokens,
        approvals: inbox,
        progressIntervalMs: 20,
        heartbeatMs: 20,
      }),
      0,
    );
  });
  afterAll(async () => {
    inbox.close();
    await server?.close();
  });

  it('every value is above the one before, and the counts that rose get through', async () => {
    const client = await connectHttp(
      server.url,
      (await createToken(tokens, { scope: 'tables:full', name: 'watcher' })).token,
    );
    try {
      const approveAfterBeats = new Promise<void>((resolve) => {
        const stop = inbox.subscribe((event) => {
          if (event.type !== 'asked') return;
          stop();
          void updated(3).then(() => {
            inbox.answer(event.request.id, { approved: true });
            resolve();
          });
        });
      });
      const result = await client.callTool(
        { name: 'countRows', arguments: { table: 'orders' } },
        {
          onprogress: (update) => {
            received.push(update);
            onUpdate();
          },
        },
      );
      await approveAfterBeats;
      expect(result.isError).toBeFalsy();
      const values = received.map((update) => update.progress);
      for (let index = 1; index < values.length; index++)
        expect({ index, rose: values[index]! > values[index - 1]! }).toEqual({ index, rose: true });
      expect(values).toEqual(expect.arrayContaining([5000, 20_000]));
      expect(received.some((update) => update.message?.startsWith('Waiting for the user'))).toBe(true);
      // Nothing claims more than the total it names.
      for (const update of received)
        if (update.total !== undefined) expect(update.progress).toBeLessThanOrEqual(update.total);
    } finally {
      await client.close();
    }
  });
});
