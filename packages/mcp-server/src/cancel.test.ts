// A client that cancels a long export stops it: over stateless HTTP the cancellation is a POST of
// its own, which must still find the call it names, and the export the call follows. A real SDK
// client on a real database; a million rows are far more than finish before the cancel.
import { existsSync } from 'node:fs';
import type { Toolrow } from '@toolrow/state';
import { testStores } from '@toolrow/state/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MILLION_ROWS, serveExporters } from '../test/fixture.ts';
import { connectHttp } from '../test/helpers.ts';
import type { RunningMcpHttp } from './http.ts';

describe.each(testStores())('$name: cancelling an export over MCP', ({ open }) => {
  let toolrow: Toolrow;
  let server: RunningMcpHttp;
  let token: string;
  let other: string;
  let close: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    const served = await serveExporters(open, ['exporter', 'bystander'] as const);
    ({ toolrow, server, close } = served);
    token = served.tokens.exporter;
    other = served.tokens.bystander;
  }, 120_000);
  afterAll(() => close?.());

  it('a cancelled call stops its export: the job says cancelled, no file is left, and nothing grows after', async () => {
    const client = await connectHttp(server.url, token);
    const bystander = await connectHttp(server.url, other);
    try {
      const controller = new AbortController();
      const values: number[] = [];
      let jobId: string | undefined;
      const call = client.callTool(
        { name: 'startExport', arguments: { sql: MILLION_ROWS, format: 'csv' } },
        {
          signal: controller.signal,
          onprogress: (update) => {
            values.push(update.progress);
            jobId ??= /Export (\S+):/.exec(update.message ?? '')?.[1];
            // Rows are being written: cancel now, as a user pressing Stop in a client does.
            if (jobId && update.progress > 0) controller.abort('the user pressed Stop');
          },
        },
      );
      await expect(call).rejects.toThrow();
      expect(jobId).toBeDefined();
      // The export settles as cancelled (the engine stops between batches).
      await expect
        .poll(async () => (await toolrow.state.exports.status(jobId!)).state, { timeout: 60_000 })
        .toBe('cancelled');
      const job = await toolrow.state.exports.status(jobId!);
      expect(job.rowsDone).toBeLessThan(1_000_000);
      // The partial file is removed, and nothing writes it again.
      expect(existsSync(job.path)).toBe(false);
      await toolrow.state.exports.idle();
      expect(existsSync(job.path)).toBe(false);
      // Progress only rose.
      expect(values.every((value, index) => index === 0 || value > values[index - 1]!)).toBe(true);
      // The other client's calls were never touched, and it cannot see the job.
      const seen = await bystander.callTool({ name: 'getExportStatus', arguments: { id: jobId } });
      expect(seen.isError).toBe(true);
    } finally {
      await client.close();
      await bystander.close();
    }
  }, 120_000);

  it("a cancellation names only the sender's own calls: another client's call with that id runs on", async () => {
    const client = await connectHttp(server.url, token);
    const bystander = await connectHttp(server.url, other);
    try {
      const controller = new AbortController();
      let jobId: string | undefined;
      let foreignSent: Promise<unknown> | undefined;
      let rowsWhenSent = 0;
      let rowsAfter = 0;
      const call = bystander.callTool(
        { name: 'startExport', arguments: { sql: MILLION_ROWS, format: 'csv' } },
        {
          signal: controller.signal,
          onprogress: (update) => {
            jobId ??= /Export (\S+):/.exec(update.message ?? '')?.[1];
            if (!jobId || update.progress === 0) return;
            if (!foreignSent) {
              rowsWhenSent = update.progress;
              // Another token cancels every request id this client could have used so far.
              foreignSent = Promise.all(
                Array.from({ length: 20 }, (_, id) =>
                  client.notification({
                    method: 'notifications/cancelled',
                    params: { requestId: id, reason: 'not yours' },
                  }),
                ),
              ).then(() => {
                foreignSent = Promise.resolve('delivered');
              });
              return;
            }
            // Rows still rise after the foreign cancellations were delivered: then stop it ourselves.
            void foreignSent.then((delivered) => {
              if (delivered !== 'delivered' || controller.signal.aborted) return;
              rowsAfter = update.progress;
              controller.abort('done watching');
            });
          },
        },
      );
      await expect(call).rejects.toThrow();
      expect(rowsAfter).toBeGreaterThan(rowsWhenSent);
      await expect
        .poll(async () => (await toolrow.state.exports.status(jobId!)).state, { timeout: 60_000 })
        .toBe('cancelled');
    } finally {
      await client.close();
      await bystander.close();
    }
  }, 120_000);
});
