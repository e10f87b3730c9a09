// An account of many tables costs what a statement touches: the one table it names is described
// and sampled, its sample is kept in the engine cache (Toolrow's state store in the apps; a map
// here) and a second connection on the same cache asks DynamoDB nothing for it. Counted on the
// wire by a proxy in front of DynamoDB Local.
import { tmpdir } from 'node:os';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DataSourceWith, EngineCache } from '@toolrow/datasource';
import { describeWithService } from '@toolrow/test-services';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { bareClient, writeTables } from '../test/bare-sdk.ts';
import { type CountingProxy, countingProxy } from '../test/counting-proxy.ts';
import { freshDynamoUrl } from '../test/dynamodb-local.ts';
import { openDynamoDataSource } from './source.ts';
import { FRESH_MS } from './table-schemas.ts';

const TABLES = 120;
const name = (index: number) => `t_${String(index).padStart(3, '0')}`;

/** An engine cache in memory, whose entries' ages a test can move. */
function memoryCache(): EngineCache & { age(ms: number): void } {
  const entries = new Map<string, { value: string; savedAt: Date }>();
  return {
    async get(key) {
      return entries.get(key);
    },
    async set(key, value) {
      entries.set(key, { value, savedAt: new Date() });
    },
    age(ms) {
      for (const entry of entries.values()) entry.savedAt = new Date(entry.savedAt.getTime() - ms);
    },
  };
}

describeWithService('dynamodb', 'an account of many tables: what one statement costs', () => {
  let url: string;
  let proxy: CountingProxy;
  let client: DynamoDBClient;
  const opened: DataSourceWith[] = [];
  const open = async (cache?: EngineCache) => {
    const ds = await openDynamoDataSource({ url: proxy.url, dataDir: tmpdir(), ...(cache ? { cache } : {}) });
    opened.push(ds);
    return ds;
  };
  beforeAll(async () => {
    url = freshDynamoUrl();
    client = bareClient(url);
    await writeTables(
      client,
      Array.from({ length: TABLES }, (_, index) => ({
        name: name(index),
        key: [['id', 'N']] as [string, 'N'][],
        ...(index === 7
          ? {
              items: Array.from({ length: 20 }, (_, id) => ({
                id: { N: String(id) },
                kind: { S: id % 2 ? 'odd' : 'even' },
              })),
            }
          : {}),
      })),
    );
    proxy = await countingProxy(url);
  }, 300_000);

  afterAll(async () => {
    await Promise.all(opened.map((ds) => ds.close()));
    await proxy?.close();
    client?.destroy();
  });

  it('a one-table statement describes and samples that table alone, and says so in its reads', async () => {
    const cache = memoryCache();
    const first = await open(cache);
    proxy.take();
    const result = await first.queries.run(
      `select kind, count(*) as n from ${name(7)} group by kind order by kind`,
    );
    expect(result.rows).toEqual([
      { kind: 'even', n: '10' },
      { kind: 'odd', n: '10' },
    ]);
    const requests = proxy.take();
    expect(requests.length, JSON.stringify(requests)).toBeLessThanOrEqual(12);
    expect(
      requests.filter((request) => request.operation === 'DescribeTable').map((request) => request.table),
    ).toEqual([name(7)]);
    expect(requests.some((request) => request.operation === 'ListTables')).toBe(false);
    expect(result.reads?.[0]).toMatchObject({
      table: name(7),
      operation: 'Scan',
      note: expect.stringMatching(/a sample of its items/),
    });

    // Another connection on the same cache (another process on the same state store): nothing for the schema.
    const second = await open(cache);
    proxy.take();
    const again = await second.queries.run(
      `select kind, count(*) as n from ${name(7)} group by kind order by kind`,
    );
    expect(again.rows).toEqual(result.rows);
    const secondRequests = proxy.take();
    expect(secondRequests.filter((request) => request.operation !== 'Scan')).toEqual([]);
    expect(secondRequests.reduce((sum, request) => sum + request.items, 0)).toBe(20);

    // Past its freshness a kept sample is checked (DescribeTable) and kept while the table is the same.
    cache.age(FRESH_MS + 1000);
    const third = await open(cache);
    proxy.take();
    await third.queries.run(`select count(*) as n from ${name(7)}`);
    expect(
      proxy
        .take()
        .map((request) => request.operation)
        .sort(),
    ).toEqual(['DescribeTable', 'Scan', 'Scan', 'Scan', 'Scan']);
  });

  it('an unknown table names the nearest, and listing describes every table and samples none', async () => {
    const ds = await open();
    const error = await ds.queries.run('select * from t_0077').catch((caught: unknown) => caught);
    expect((error as Error).message).toMatch(/t_007/);
    proxy.take();
    const snapshot = await ds.schema.get();
    expect(snapshot.tables).toHaveLength(TABLES);
    const requests = proxy.take();
    expect(requests.filter((request) => request.operation === 'DescribeTable')).toHaveLength(TABLES);
    expect(requests.filter((request) => request.operation === 'Scan')).toEqual([]);
  });
});
