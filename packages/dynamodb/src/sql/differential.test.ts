// SQL over DynamoDB against PostgreSQL itself: the same sample shop seeded into PGlite and into
// DynamoDB Local, the same analytical statements on both, the same answers. Numbers compare by value
// (PostgreSQL's numeric and DuckDB's decimal or double), instants as UTC, rows as multisets (ORDER
// BY on text follows each engine's collation, so order is not what is compared).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DataSourceWith, Row } from '@toolrow/datasource';
import { openDataSource } from '@toolrow/postgres';
import { describeWithService } from '@toolrow/test-services';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { freshDynamoUrl } from '../../test/dynamodb-local.ts';
import { openDynamoDataSource } from '../source.ts';

const NOW = new Date('2026-11-15T00:00:00Z');
const ORDERS = 400;

/** Analytical statements both engines read the same way; every output column is named. */
const STATEMENTS: readonly string[] = [
  // Aggregates over one table (a Scan on DynamoDB)
  'select count(*) as n from orders',
  'select status, count(*) as n from orders group by status',
  'select status, sum(total) as revenue, min(total) as smallest, max(total) as largest from orders group by status',
  'select status, avg(total) as mean from orders group by status',
  'select count(distinct customer_id) as buyers from orders',
  'select customer_id, count(*) as n from orders group by customer_id having count(*) >= 6',
  'select status, count(*) filter (where total > 100) as big, count(*) filter (where total <= 100) as small from orders group by status',
  'select count(*) as noted from orders where note is not null',
  'select count(*) as unshipped from orders where shipped_at is null',
  "select coalesce(note, 'none') as note, count(*) as n from orders group by coalesce(note, 'none')",
  "select case when total >= 200 then 'large' when total >= 50 then 'medium' else 'small' end as size, count(*) as n from orders group by 1",
  'select floor(total / 100) as bucket, count(*) as n from orders group by 1',
  "select round(sum(total), 2) as revenue from orders where status in ('delivered', 'shipped')",
  // Instants
  "select date_trunc('month', ordered_at) as month, count(*) as n, sum(total) as revenue from orders group by 1",
  'select extract(year from ordered_at) as year, count(*) as n from orders group by 1',
  'select extract(dow from ordered_at) as weekday, count(*) as n from orders group by 1',
  "select count(*) as recent from orders where ordered_at >= timestamptz '2026-09-01 00:00:00+00'",
  'select min(ordered_at) as first, max(ordered_at) as last from orders',
  'select status, max(shipped_at) as last_shipped from orders where shipped_at is not null group by status',
  // Text
  'select country, count(*) as n from customers group by country',
  "select count(*) as n from customers where email like '%.smith%'",
  "select count(*) as n from customers where lower(city) like 'l%'",
  'select loyalty_tier, count(*) as n, min(length(name)) as shortest from customers group by loyalty_tier',
  'select upper(substr(sku, 1, 3)) as prefix, count(*) as n from products group by 1',
  "select category, string_agg(distinct sku, ',' order by sku) as skus from products group by category",
  // Booleans, numbers
  'select active, count(*) as n, sum(stock) as stock from products group by active',
  'select category, avg(price) as mean_price, max(price) as top_price from products where active group by category',
  'select count(*) as n from products where price between 10 and 60',
  // Joins
  'select o.status, sum(i.quantity) as units from orders o join order_items i on i.order_id = o.id group by o.status',
  'select p.category, sum(i.quantity * i.unit_price) as revenue from order_items i join products p on p.id = i.product_id group by p.category',
  'select c.country, count(distinct o.id) as orders from customers c join orders o on o.customer_id = c.id group by c.country',
  'select c.loyalty_tier, avg(o.total) as mean from customers c join orders o on o.customer_id = c.id group by c.loyalty_tier',
  'select count(*) as never_ordered from customers c left join orders o on o.customer_id = c.id where o.id is null',
  'select p.id, count(i.id) as lines from products p left join order_items i on i.product_id = p.id group by p.id',
  "select c.country, p.category, sum(i.quantity) as units from customers c join orders o on o.customer_id = c.id join order_items i on i.order_id = o.id join products p on p.id = i.product_id where o.status <> 'cancelled' group by c.country, p.category",
  // Subqueries, CTEs, set operations
  "select count(*) as n from orders where customer_id in (select id from customers where loyalty_tier = 'gold')",
  'select count(*) as n from customers c where exists (select 1 from orders o where o.customer_id = c.id and o.total > 300)',
  'select count(*) as n from orders where total > (select avg(total) from orders)',
  'with spend as (select customer_id, sum(total) as spent from orders group by customer_id) select count(*) as n, max(spent) as top from spend',
  'with lines as (select order_id, count(*) as n from order_items group by order_id) select n, count(*) as orders from lines group by n',
  'select status as label from orders where total > 250 union select category from products where price > 100',
  "select customer_id as id from orders except select id from customers where loyalty_tier = 'bronze'",
  // Windows, ordering with limits on numbers
  'select id, total from orders order by total desc, id limit 10',
  'select id, customer_id, row_number() over (partition by customer_id order by ordered_at, id) as nth from orders where customer_id <= 5',
  'select status, id, rank() over (partition by status order by total desc, id) as place from orders where total > 200',
  'select id, sum(total) over (order by id rows between 2 preceding and current row) as rolling from orders where id <= 30',
  'select distinct on (customer_id) customer_id, id, total from orders order by customer_id, total desc, id',
  'select id, total from orders order by id limit 5 offset 20',
  // Pinned: a key, keys, an index, a join from a pinned side
  'select id, status, total from orders where id = 7',
  'select id, total from orders where id in (3, 5, 8, 13)',
  'select count(*) as n, sum(total) as spent from orders where customer_id = 12',
  "select count(*) as n from orders where status = 'pending'",
  "select count(*) as n from orders where customer_id = 3 and ordered_at >= '2026-06-01'",
  'select i.id, i.product_id, i.quantity from orders o join order_items i on i.order_id = o.id where o.customer_id = 12',
  'select o.id, count(*) as lines, sum(i.quantity * i.unit_price) as value from orders o join order_items i on i.order_id = o.id where o.id = 42 group by o.id',
  'select p.name, i.quantity from order_items i join products p on p.id = i.product_id where i.order_id = 9',
  "select c.name, o.total from orders o join customers c on c.id = o.customer_id where o.status = 'refunded'",
];

/** One value in a form both engines agree on: numbers by value, instants in UTC, dates as midnight UTC. */
function normalize(value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'bigint') return Number(value);
  if (typeof value === 'number') return Number(value.toPrecision(10));
  if (typeof value === 'string') {
    if (/^-?\d+(\.\d+)?(e[+-]?\d+)?$/i.test(value)) return Number(Number(value).toPrecision(10));
    if (/^\d{4}-\d{2}-\d{2}$/.test(value)) return `${value}T00:00:00.000Z`;
    if (/^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}/.test(value)) {
      const ms = Date.parse(value.replace(' ', 'T').replace(/([+-]\d{2})$/, '$1:00'));
      if (!Number.isNaN(ms)) return new Date(ms).toISOString();
    }
    return value;
  }
  return value;
}

function canonical(rows: Row[]): string[] {
  return rows
    .map((row) => JSON.stringify(Object.entries(row).map(([name, value]) => [name, normalize(value)])))
    .sort();
}

describeWithService('dynamodb', 'SQL over DynamoDB answers as PostgreSQL does', () => {
  let dir: string;
  let postgres: DataSourceWith;
  let dynamo: DataSourceWith;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'toolrow-sql-diff-'));
    [postgres, dynamo] = await Promise.all([
      openDataSource({ env: {}, dataDir: dir }),
      openDynamoDataSource({ url: freshDynamoUrl(), dataDir: dir }),
    ]);
    await Promise.all([
      postgres.seed({ orders: ORDERS, now: NOW }),
      dynamo.seed({ orders: ORDERS, now: NOW }),
    ]);
    await Promise.all([postgres.schema.refresh(), dynamo.schema.refresh()]);
  }, 300_000);

  afterAll(async () => {
    await Promise.all([postgres?.close(), dynamo?.close()]);
    await rm(dir, { recursive: true, force: true });
  });

  it(`holds at least 40 statements (${STATEMENTS.length})`, () => {
    expect(STATEMENTS.length).toBeGreaterThanOrEqual(40);
    expect(new Set(STATEMENTS).size).toBe(STATEMENTS.length);
  });

  it.each(STATEMENTS.map((sql) => [sql]))('%s', async (sql) => {
    const [expected, actual] = await Promise.all([
      postgres.queries.run(sql, { maxRows: 5000 }),
      dynamo.queries.run(sql, { maxRows: 5000 }),
    ]);
    expect(actual.truncated).toBe(false);
    expect(expected.truncated).toBe(false);
    // Not a vacuous match: every statement finds something on PostgreSQL.
    expect(expected.rows.length).toBeGreaterThan(0);
    expect(actual.fields.map((field) => field.name)).toEqual(expected.fields.map((field) => field.name));
    expect(canonical(actual.rows)).toEqual(canonical(expected.rows));
  });
});
