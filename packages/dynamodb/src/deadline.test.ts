// Reads with a time limit, against a DynamoDB that stops answering (a real socket that accepts and
// never replies): every read returns within its limit with a message, never waits for ever.
import { tmpdir } from 'node:os';
import type { DataSourceWith } from '@toolrow/datasource';
import { describeWithService } from '@toolrow/test-services';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { freshDynamoUrl } from '../test/dynamodb-local.ts';
import { type StallingProxy, stallingProxy } from '../test/stalling-proxy.ts';
import { openDynamoDataSource } from './source.ts';

describeWithService('dynamodb', 'reads of a DynamoDB that stops answering', () => {
  let proxy: StallingProxy;
  let ds: DataSourceWith;

  beforeAll(async () => {
    const url = freshDynamoUrl();
    const seeded = await openDynamoDataSource({ url, dataDir: tmpdir() });
    await seeded.seed({ orders: 30 });
    await seeded.close();
    proxy = await stallingProxy(url);
    ds = await openDynamoDataSource({ url: proxy.url, dataDir: tmpdir() });
    await ds.schema.get();
    proxy.stall();
  }, 120_000);
  afterAll(async () => {
    proxy?.resume();
    await ds?.close();
    await proxy?.close();
  });

  // Bounds far above the limit (a loaded machine) and far below what a hang costs (the SDK's own
  // backstop is a minute a try, three tries): the limit, not the backstop, stopped it.
  const within = async (read: () => Promise<unknown>) => {
    const started = performance.now();
    const error = await read().then(
      () => undefined,
      (caught: unknown) => caught,
    );
    return {
      error: error as { code?: string; message?: string } | undefined,
      ms: performance.now() - started,
    };
  };

  it.each([
    [
      'a PartiQL query',
      (ds: DataSourceWith) => ds.queries.run('SELECT * FROM "orders"', { timeoutMs: 1000 }),
    ],
    ['a page of rows', (ds: DataSourceWith) => ds.rows.select('orders', { timeoutMs: 1000 })],
    ['a count', (ds: DataSourceWith) => ds.rows.count('orders', undefined, { timeoutMs: 1000 })],
    ['an item by key', (ds: DataSourceWith) => ds.rows.get('orders', { id: 1 }, { timeoutMs: 1000 })],
  ])('%s stops at its time limit, saying so', async (_name, read) => {
    const { error, ms } = await within(() => read(ds));
    expect(error?.code).toBe('timeout');
    expect(error?.message).toMatch(/did not finish within its time limit of 1 s/);
    expect(ms).toBeLessThan(30_000);
  });

  it('a cancel stops it too, as cancelled rather than timed out', async () => {
    const controller = new AbortController();
    const reading = within(() => ds.queries.run('SELECT * FROM "orders"', { signal: controller.signal }));
    setImmediate(() => controller.abort());
    const { error } = await reading;
    expect(error?.code).toBe('aborted');
  });

  it('opening a connection to it fails within its limit, naming why', async () => {
    const { error, ms } = await within(() => openDynamoDataSource({ url: proxy.url, dataDir: tmpdir() }));
    expect(error?.message).toMatch(/did not answer within 20 s/);
    expect(ms).toBeLessThan(60_000);
  }, 90_000);
});
