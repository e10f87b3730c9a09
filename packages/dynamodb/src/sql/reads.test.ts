// What SQL over DynamoDB reads, counted on the wire: a proxy between Toolrow and DynamoDB Local
// writes down every request and the items DynamoDB evaluated for it. A key pinned in the WHERE must
// be a GetItem or BatchGetItem, an index's partition key a Query on that index, a join from a pinned
// side Queries by the values read; only what pins nothing Scans. The `reads` a result reports must
// be what the proxy saw.
import { tmpdir } from 'node:os';
import { type DataSourceWith, isDataSourceError, type TableRead } from '@toolrow/datasource';
import { describeWithService } from '@toolrow/test-services';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type CountingProxy, countingProxy, type RecordedRequest } from '../../test/counting-proxy.ts';
import { freshDynamoUrl } from '../../test/dynamodb-local.ts';
import { openDynamoDataSource } from '../source.ts';

const NOW = new Date('2026-11-15T00:00:00Z');
const ORDERS = 400;
const READS = new Set(['GetItem', 'BatchGetItem', 'Query', 'Scan']);

interface Expectation {
  sql: string;
  /** Per table, the operations DynamoDB received (index in brackets), in any order. */
  operations: Record<string, string[]>;
}

const PINNED: Expectation[] = [
  { sql: 'select id, status from orders where id = 7', operations: { orders: ['GetItem'] } },
  { sql: 'select * from orders where 7 = id and total > 0', operations: { orders: ['GetItem'] } },
  { sql: 'select id, total from orders where id in (3, 5, 8, 13)', operations: { orders: ['BatchGetItem'] } },
  {
    sql: 'select count(*) as n from orders where customer_id = 12',
    operations: { orders: ['Query[by_customer]'] },
  },
  {
    sql: "select count(*) as n from orders where status = 'pending'",
    operations: { orders: ['Query[by_status]'] },
  },
  {
    sql: "select count(*) as n from orders where customer_id = 3 and ordered_at >= '2026-06-01'",
    operations: { orders: ['Query[by_customer]'] },
  },
  {
    sql: 'select count(*) as n from order_items where order_id = 42 and id between 1 and 100000',
    operations: { order_items: ['Query'] },
  },
  {
    sql: 'select p.name, i.quantity from order_items i join products p on p.id = i.product_id where i.order_id = 9',
    operations: { order_items: ['Query'], products: ['BatchGetItem'] },
  },
  {
    sql: 'select o.id, sum(i.quantity) as units from orders o join order_items i on i.order_id = o.id where o.customer_id = 12 group by o.id',
    operations: { orders: ['Query[by_customer]'], order_items: ['Query*'] },
  },
  {
    sql: "select c.name, o.total from orders o join customers c on c.id = o.customer_id where o.status = 'refunded'",
    operations: { orders: ['Query[by_status]'], customers: ['BatchGetItem'] },
  },
];

const UNPINNED: Expectation[] = [
  { sql: 'select status, count(*) as n from orders group by status', operations: { orders: ['Scan*'] } },
  { sql: 'select count(*) as n from orders where id = 7 or total > 100', operations: { orders: ['Scan*'] } },
  { sql: 'select count(*) as n from orders where not (id = 7)', operations: { orders: ['Scan*'] } },
  { sql: 'select count(*) as n from orders where id + 0 = 7', operations: { orders: ['Scan*'] } },
];

/** "Query[by_customer]" for a request; the same form the expectations use. */
function label(request: RecordedRequest): string {
  return request.index ? `${request.operation}[${request.index}]` : request.operation;
}

/** The requests per table, repeats folded into "Name*" (a Scan's segments, a lookup's many Queries). */
function operationsOf(requests: RecordedRequest[]): Record<string, string[]> {
  const byTable: Record<string, string[]> = {};
  for (const request of requests) {
    const table = request.table ?? '?';
    byTable[table] = [...(byTable[table] ?? []), label(request)];
  }
  const folded: Record<string, string[]> = {};
  for (const [table, labels] of Object.entries(byTable)) {
    const counts = new Map<string, number>();
    for (const each of labels) counts.set(each, (counts.get(each) ?? 0) + 1);
    folded[table] = [...counts].map(([each, count]) => (count > 1 ? `${each}*` : each)).sort();
  }
  return folded;
}

/** A lookup may be one Query or many: "Query*" in an expectation accepts either. */
function matches(actual: Record<string, string[]>, expected: Record<string, string[]>): boolean {
  const tables = new Set([...Object.keys(actual), ...Object.keys(expected)]);
  for (const table of tables) {
    const want = (expected[table] ?? []).map((each) => each.replace(/\*$/, ''));
    const got = (actual[table] ?? []).map((each) => each.replace(/\*$/, ''));
    if (JSON.stringify([...want].sort()) !== JSON.stringify([...got].sort())) return false;
    for (const each of expected[table] ?? [])
      if (!each.endsWith('*') && (actual[table] ?? []).includes(`${each}*`)) return false;
  }
  return true;
}

describeWithService(
  'dynamodb',
  'SQL over DynamoDB reads by key where the WHERE pins one, counted at a proxy',
  () => {
    let proxy: CountingProxy;
    let ds: DataSourceWith;

    beforeAll(async () => {
      const url = freshDynamoUrl();
      const seeder = await openDynamoDataSource({ url, dataDir: tmpdir() });
      await seeder.seed({ orders: ORDERS, now: NOW });
      await seeder.close();
      proxy = await countingProxy(url);
      ds = await openDynamoDataSource({ url: proxy.url, dataDir: tmpdir() });
      await ds.schema.refresh();
    }, 180_000);

    afterAll(async () => {
      await ds?.close();
      await proxy?.close();
    });

    /** Runs one statement and returns what it answered and what DynamoDB was asked for it. */
    async function measured(sql: string, options: { maxItemsRead?: number } = {}) {
      proxy.take();
      const result = await ds.queries.run(sql, { maxRows: 5000, ...options });
      const requests = proxy.take().filter((request) => READS.has(request.operation));
      return { result, requests };
    }

    it.each(PINNED.map((each) => [each.sql, each]))('pinned: %s', async (_sql, expectation) => {
      const { result, requests } = await measured(expectation.sql);
      expect(operationsOf(requests), JSON.stringify(requests)).toSatisfy((actual: Record<string, string[]>) =>
        matches(actual, expectation.operations),
      );
      expect(requests.some((request) => request.operation === 'Scan')).toBe(false);
      // Far fewer items than the tables hold: the pin really narrowed the read.
      const evaluated = requests.reduce((sum, request) => sum + request.items, 0);
      expect(evaluated).toBeLessThan(ORDERS / 4);
      expectReadsToBe(result.reads ?? [], requests);
    });

    it.each(UNPINNED.map((each) => [each.sql, each]))('unpinned, a Scan: %s', async (_sql, expectation) => {
      const { result, requests } = await measured(expectation.sql);
      expect(operationsOf(requests)).toSatisfy((actual: Record<string, string[]>) =>
        matches(actual, expectation.operations),
      );
      expect(requests.reduce((sum, request) => sum + request.items, 0)).toBe(ORDERS);
      expectReadsToBe(result.reads ?? [], requests);
    });

    it('predicates on other attributes go along as a FilterExpression: the same items read, fewer sent back, the same answer', async () => {
      const sql = 'select count(*) as n from orders where customer_id = 12 and total > 100';
      const { result, requests } = await measured(sql);
      expect(requests.map((request) => [label(request), request.filter])).toEqual([
        ['Query[by_customer]', '#f0 > :f0_0'],
      ]);
      const [query] = requests;
      expect(query!.returned).toBe(Number(result.rows[0]!.n));
      const all = await measured('select count(*) as n from orders where customer_id = 12');
      expect(query!.items).toBe(all.requests[0]!.items);
      expect(query!.returned).toBeLessThan(all.requests[0]!.returned);
      const scan = await measured(
        "select count(*) as n from customers where loyalty_tier = 'gold' and id > 10",
      );
      expect(new Set(scan.requests.map((request) => `${label(request)} ${request.filter}`))).toEqual(
        new Set(['Scan #f0 = :f0_0 AND #f1 > :f1_0']),
      );
      expect(scan.requests.reduce((sum, request) => sum + request.returned, 0)).toBe(
        Number(scan.result.rows[0]!.n),
      );
      const plan = await ds.queries.plan(sql);
      expect(plan.lines[0]).toMatch(/filtered by total > 100/);
    });

    it('a Scan past the items one statement may read is refused before it starts, naming what would pin it', async () => {
      proxy.take();
      const error = await ds.queries
        .run('select status, count(*) from orders group by status', { maxItemsRead: 100 })
        .catch((caught: unknown) => caught);
      expect(isDataSourceError(error, 'too-large')).toBe(true);
      expect((error as Error).message).toMatch(
        /orders holds about [\d,]+ items, [\d,]+ read capacity units and \d+ s to Scan, more than the 100 items this connection lets one statement read/,
      );
      expect((error as Error).message).toMatch(
        /maxItemsRead=\d+ in its URL \(toolrow connections set <name> --max-items-read \d+\)/,
      );
      expect((error as Error).message).toMatch(/id|customer_id|status/);
      expect(proxy.take().filter((request) => request.operation === 'Scan')).toEqual([]);
    });

    it('keys count against the bound before any request: an IN × IN product past it is refused, naming the number', async () => {
      const values = (from: number, count: number) =>
        Array.from({ length: count }, (_, at) => from + at).join(', ');
      proxy.take();
      const error = await ds.queries
        .run(`select * from order_items where order_id in (${values(1, 50)}) and id in (${values(1, 50)})`, {
          maxItemsRead: 1000,
        })
        .catch((caught: unknown) => caught);
      expect(isDataSourceError(error, 'too-large')).toBe(true);
      expect((error as Error).message).toMatch(/asks for 2,500 keys .*more than the 1,000/);
      expect(proxy.take().filter((request) => READS.has(request.operation))).toEqual([]);
    });

    it('absent keys are reads too: the bound counts keys asked for, not items returned', async () => {
      const absent = Array.from({ length: 60 }, (_, at) => 900_000 + at).join(', ');
      proxy.take();
      const refused = await ds.queries
        .run(`select id from orders where id in (${absent})`, { maxItemsRead: 50 })
        .catch((caught: unknown) => caught);
      expect(isDataSourceError(refused, 'too-large')).toBe(true);
      expect(proxy.take().filter((request) => READS.has(request.operation))).toEqual([]);
      const { result, requests } = await measured(`select id from orders where id in (${absent})`, {
        maxItemsRead: 60,
      });
      expect(result.rows).toEqual([]);
      expect(requests.reduce((sum, request) => sum + (request.keys ?? 0), 0)).toBe(60);
      expect(result.reads?.[0]?.items).toBe(60);
      expectReadsToBe(result.reads ?? [], requests);
    });

    it('the bound is the connection’s: maxItemsRead in its URL, refused with the cost, raised by the user', async () => {
      const tight = await openDynamoDataSource({ url: `${proxy.url}&maxItemsRead=100`, dataDir: tmpdir() });
      const loose = await openDynamoDataSource({ url: `${proxy.url}&maxItemsRead=1000`, dataDir: tmpdir() });
      try {
        await Promise.all([tight.schema.refresh(), loose.schema.refresh()]);
        const sql = 'select status, count(*) as n from orders group by status';
        proxy.take();
        const error = await tight.queries.run(sql).catch((caught: unknown) => caught);
        expect(isDataSourceError(error, 'too-large')).toBe(true);
        expect((error as Error).message).toMatch(
          /more than the 100 items this connection lets one statement read/,
        );
        expect(proxy.take().filter((request) => request.operation === 'Scan')).toEqual([]);
        expect((await tight.queries.plan(sql)).lines.at(-1)).toMatch(
          /past the 100 items .* it would be refused/,
        );
        const result = await loose.queries.run(sql);
        expect(result.rows.reduce((sum, row) => sum + Number(row.n), 0)).toBe(ORDERS);
        // PartiQL and the grid read under the same bound.
        const partiql = tight.queries.modes!.find((mode) => mode.language.name === 'PartiQL')!;
        expect(await partiql.run(`SELECT * FROM "orders" WHERE "status" = 'no such'`)).toMatchObject({
          truncatedBy: 'reads',
        });
      } finally {
        await Promise.all([tight.close(), loose.close()]);
      }
    });

    it('explains each table’s read before anything is read', async () => {
      proxy.take();
      const plan = await ds.queries.plan(
        'select o.id, sum(i.quantity) from orders o join order_items i on i.order_id = o.id where o.customer_id = 12 group by o.id',
      );
      expect(plan.lines[0]).toMatch(/^Query on orders index by_customer \(customer_id = 12\)/);
      expect(plan.lines[1]).toMatch(/^Query on order_items \(order_id = each o\.id kept, about \d+\)/);
      expect(proxy.take().filter((request) => READS.has(request.operation))).toEqual([]);
    });
  },
);

/**
 * The reads a result reports, per table and operation, are what the proxy saw billed: the keys a
 * get asked for (present or not), the items a Scan or Query evaluated (a Query at least one).
 */
function expectReadsToBe(reads: TableRead[], requests: RecordedRequest[]) {
  const reported = new Map<string, number>();
  for (const read of reads) {
    const key = `${read.table} ${read.operation}${read.index ? `[${read.index}]` : ''}`;
    reported.set(key, (reported.get(key) ?? 0) + read.items);
  }
  const seen = new Map<string, number>();
  for (const request of requests) {
    const key = `${request.table} ${label(request)}`;
    const billed =
      request.keys ?? (request.operation === 'Query' ? Math.max(1, request.items) : request.items);
    seen.set(key, (seen.get(key) ?? 0) + billed);
  }
  expect(Object.fromEntries(reported)).toEqual(Object.fromEntries(seen));
}
