// An account of many tables against an account of one, in the same run: the same one-table SQL
// statement as a user runs it (`toolrow call runQuery`, a new user's settings, a fresh data dir),
// in a region of DynamoDB Local holding that table alone and in one holding it among 500. Every
// request is counted by a proxy in front of DynamoDB Local; a second process on the same data
// dir (the same state store) runs the statement again.
//
// Reported (BENCH_TABLES, default 500): requests and time of each, the ratio, and the second
// process's schema requests.
//   node --conditions=@toolrow/source bench/many-tables.ts
import { randomInt } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CreateTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { countingProxy } from '../test/counting-proxy.ts';
import { benchTarget, timed } from './support.ts';

const TABLES = Number(process.env.BENCH_TABLES ?? 500);
const ITEMS = 2000;
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));
const CLI = fileURLToPath(new URL('../../../apps/cli/bin/toolrow.js', import.meta.url));
const SCHEMA = new Set(['ListTables', 'DescribeTable', 'DescribeTimeToLive']);
const sql = 'select category, count(*) as items from orders_main group by category order by category';

const single = benchTarget();
const many = benchTarget();
const dir = await mkdtemp(join(tmpdir(), 'toolrow-ddb-many-'));
try {
  await single.fill('orders_main', ITEMS);
  await many.fill('orders_main', ITEMS);
  const client = new DynamoDBClient({
    region: many.region,
    endpoint: many.endpoint,
    credentials: { accessKeyId: 'toolrowlocal', secretAccessKey: 'toolrowlocal' },
  });
  const creating = performance.now();
  let next = 1;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < TABLES) {
        const index = next++;
        await client.send(
          new CreateTableCommand({
            TableName: `other_${String(index).padStart(4, '0')}`,
            BillingMode: 'PAY_PER_REQUEST',
            AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
            KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
          }),
        );
      }
    }),
  );
  client.destroy();
  console.error(
    `created ${TABLES - 1} more tables in ${((performance.now() - creating) / 1000).toFixed(1)} s`,
  );

  // One proxy per region for the whole run: a connection is its endpoint, which stays the same.
  const proxies = new Map([
    [single, await countingProxy(single.url.href)],
    [many, await countingProxy(many.url.href)],
  ]);
  /** One run of the command against a region: its time and its requests. */
  const run = async (target: ReturnType<typeof benchTarget>, dataDir: string) => {
    const proxy = proxies.get(target)!;
    proxy.take();
    {
      const result = await timed(
        [CLI, 'call', 'runQuery', JSON.stringify({ sql })],
        {
          DATABASE_URL: proxy.url,
          TOOLROW_DATA_DIR: dataDir,
          TOOLROW_CONNECTION: undefined,
        },
        dir,
      );
      const rows = (JSON.parse(result.stdout) as { rows: { items: unknown }[] }).rows;
      if (rows.reduce((sum, row) => sum + Number(row.items), 0) !== ITEMS)
        throw new Error(`wrong answer: ${result.stdout.slice(0, 200)}`);
      const requests = proxy.take();
      return {
        ms: result.ms,
        requests: requests.length,
        schema: requests.filter((request) => SCHEMA.has(request.operation)).length,
      };
    }
  };

  let one = { ms: Number.POSITIVE_INFINITY, requests: 0 };
  let first = { ms: Number.POSITIVE_INFINITY, requests: 0 };
  let second = { ms: Number.POSITIVE_INFINITY, requests: 0, schema: 0 };
  for (let round = 0; round < ROUNDS; round++) {
    const fresh = () => join(dir, `data-${randomInt(1e9)}`);
    const a = await run(single, fresh());
    const shared = fresh();
    const b = await run(many, shared);
    const c = await run(many, shared);
    one = a.ms < one.ms ? a : one;
    first = b.ms < first.ms ? b : first;
    second = c.ms < second.ms ? c : second;
  }
  for (const proxy of proxies.values()) await proxy.close();
  console.log(
    `\nA one-table SQL statement, DynamoDB Local: a region of 1 table against one of ${TABLES} (toolrow call runQuery, fresh data dir, best of ${ROUNDS})\n`,
  );
  console.log('| | 1 table | 500 tables, first process | 500 tables, second process (same state store) |');
  console.log('|---|---|---|---|');
  console.log(
    `| requests | ${one.requests} | ${first.requests} | ${second.requests} (schema: ${second.schema}) |`,
  );
  console.log(
    `| time | ${(one.ms / 1000).toFixed(2)} s | ${(first.ms / 1000).toFixed(2)} s (${(first.ms / one.ms).toFixed(2)}×) | ${(second.ms / 1000).toFixed(2)} s (${(second.ms / one.ms).toFixed(2)}×) |`,
  );
} finally {
  single.client.destroy();
  many.client.destroy();
  await rm(dir, { recursive: true, force: true });
}
