// Reads driven by what filters leave, on a star schema made here: a fact table of sales with
// indexes as a user would make them (by product, by store) and small dimensions. A filtered
// dimension pins the fact table through its index — by a join, IN (SELECT …), EXISTS or a
// correlated subquery — and the items each table read are counted on the wire by a proxy, while
// the answer is held to plain DuckDB over the same rows. Before the planner passed values
// sideways, every statement here Scanned the whole fact table.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import type { DataSourceWith } from '@toolrow/datasource';
import { describeWithService } from '@toolrow/test-services';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { bareClient, itemOf, writeTables } from '../../test/bare-sdk.ts';
import { type CountingProxy, countingProxy } from '../../test/counting-proxy.ts';
import { freshDynamoUrl } from '../../test/dynamodb-local.ts';
import { openDynamoDataSource } from '../source.ts';

const SALES = 6000;
const PRODUCTS = 300;
const STORES = 30;
const CATEGORIES = [
  'toys',
  'books',
  'garden',
  'kitchen',
  'sports',
  'music',
  'tools',
  'games',
  'paint',
  'shoes',
];
const REGIONS = ['north', 'south', 'east', 'west', 'centre'];

const products = Array.from({ length: PRODUCTS }, (_, index) => ({
  id: index + 1,
  category: CATEGORIES[(index * 7) % CATEGORIES.length]!,
  price: ((index * 37) % 500) + 0.5,
}));
const stores = Array.from({ length: STORES }, (_, index) => ({
  id: index + 1,
  region: REGIONS[index % REGIONS.length]!,
}));
const sales = Array.from({ length: SALES }, (_, index) => ({
  id: index + 1,
  product_id: ((index * 7919) % PRODUCTS) + 1,
  store_id: ((index * 104729) % STORES) + 1,
  amount: ((index * 131) % 1000) + 0.25,
}));

interface Case {
  sql: string;
  /** Per table, the most items its reads may take (a Scan of sales would be 6,000). */
  atMost: Record<string, number>;
}

const CASES: Case[] = [
  {
    // A join from a filtered dimension: products (300, a Scan) pins sales by its product index.
    sql: "select sum(s.amount) as total, count(*) as n from sales s join products p on p.id = s.product_id where p.category = 'toys'",
    atMost: { products: PRODUCTS, sales: 1000 },
  },
  {
    sql: "select count(*) as n, sum(amount) as total from sales where store_id in (select id from stores where region = 'north')",
    atMost: { stores: STORES, sales: 1600 },
  },
  {
    sql: "select count(*) as n from stores st where st.region = 'east' and exists (select 1 from sales s where s.store_id = st.id and s.amount > 990)",
    atMost: { stores: STORES, sales: 1600 },
  },
  {
    sql: "select p.id, (select max(s.amount) from sales s where s.product_id = p.id) as top from products p where p.category = 'music' order by p.id",
    atMost: { products: PRODUCTS, sales: 1000 },
  },
  {
    // Two dimensions: each pins sales through its own index; the cheaper one is taken.
    sql: "select count(*) as n from sales s join products p on p.id = s.product_id join stores st on st.id = s.store_id where p.category = 'books' and st.region = 'west'",
    atMost: { products: PRODUCTS, stores: STORES, sales: 1600 },
  },
  {
    // The fact table named twice, both places pinned by the same values: read once.
    sql: "select s.id, s.amount from sales s join products p on p.id = s.product_id where p.category = 'paint' and s.amount > (select avg(s2.amount) from sales s2 where s2.product_id = p.id) order by s.id",
    atMost: { products: PRODUCTS, sales: 1000 },
  },
  {
    // NOT IN is not a semi-join: the fact table is read whole, and the answer still holds.
    sql: "select count(*) as n from sales where product_id not in (select id from products where category = 'toys')",
    atMost: { products: PRODUCTS, sales: SALES },
  },
  {
    // A LEFT JOIN's preserved side is not narrowed by the other side's filter.
    sql: 'select count(*) as n from products p left join sales s on s.product_id = p.id and s.amount > 999 where s.id is null',
    atMost: { products: PRODUCTS, sales: SALES },
  },
];

describeWithService('dynamodb', 'reads driven by what filters leave (a star schema)', () => {
  let dir: string;
  let ds: DataSourceWith;
  let proxy: CountingProxy;
  let instance: DuckDBInstance;
  let reference: DuckDBConnection;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'toolrow-sideways-'));
    const url = freshDynamoUrl();
    const client = bareClient(url);
    const tables: [string, Record<string, string | number>[], string[]][] = [
      ['products', products, []],
      ['stores', stores, []],
      ['sales', sales, ['product_id', 'store_id']],
    ];
    await writeTables(
      client,
      tables.map(([name, rows, indexes]) => ({
        name,
        key: [['id', 'N']],
        indexes: Object.fromEntries(indexes.map((key) => [`by_${key}`, [key, 'N'] as [string, 'N']])),
        items: rows.map(itemOf),
      })),
    );
    client.destroy();
    instance = await DuckDBInstance.create(':memory:');
    reference = await instance.connect();
    await reference.run('CREATE TABLE products (id INTEGER, category VARCHAR, price DECIMAL(10, 2))');
    await reference.run('CREATE TABLE stores (id INTEGER, region VARCHAR)');
    await reference.run(
      'CREATE TABLE sales (id INTEGER, product_id INTEGER, store_id INTEGER, amount DECIMAL(10, 2))',
    );
    for (const [name, rows] of tables) {
      const appender = await reference.createAppender(name);
      for (const row of rows) {
        for (const value of Object.values(row)) appender.appendVarchar(String(value));
        appender.endRow();
      }
      appender.closeSync();
    }
    proxy = await countingProxy(url);
    ds = await openDynamoDataSource({ url: proxy.url, dataDir: dir });
    await ds.schema.refresh();
  }, 300_000);

  afterAll(async () => {
    await ds?.close();
    await proxy?.close();
    reference?.closeSync();
    instance?.closeSync();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it.each(CASES.map((each) => [each.sql, each] as const))('%s', async (sql, { atMost }) => {
    proxy.take();
    const result = await ds.queries.run(sql, { maxRows: 5000 });
    const requests = proxy
      .take()
      .filter((request) => ['GetItem', 'BatchGetItem', 'Query', 'Scan'].includes(request.operation));
    const items: Record<string, number> = {};
    for (const request of requests)
      items[request.table ?? '?'] = (items[request.table ?? '?'] ?? 0) + (request.keys ?? request.items);
    for (const [table, bound] of Object.entries(atMost))
      expect(items[table] ?? 0, `${table} read ${items[table]} items`).toBeLessThanOrEqual(bound);

    const expected = await reference.runAndReadAll(sql);
    const names = expected.columnNames();
    const normalize = (value: unknown) =>
      value === null || value === undefined
        ? null
        : String(value)
            .replace(/(\.\d*?)0+$/, '$1')
            .replace(/\.$/, '');
    expect(result.rows.map((row) => names.map((name) => normalize(row[name])))).toEqual(
      (expected.getRowsJson() as unknown[][]).map((row) => row.map(normalize)),
    );
  });

  it('explainQuery shows the lookup and what it expects, before anything is read', async () => {
    proxy.take();
    const plan = await ds.queries.plan(CASES[0]!.sql);
    expect(plan.lines[0]).toMatch(/^Scan of the whole table products/);
    expect(plan.lines[1]).toMatch(
      /^Query on sales index by_product_id \(product_id = each p\.id kept, about \d+\)/,
    );
    expect(proxy.take().filter((request) => request.operation !== 'DescribeTable')).toEqual([]);
  });
});
