import { APP_SCHEMA, ORDER_STATUSES, SAMPLE_TABLES, UnknownNameError } from '@toolrow/datasource';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { quoteIdent } from './sql.ts';
import type { SqlDataSource } from './sql-source.ts';
import { TEST_SEED_NOW, testEngines } from './testing.ts';

const HOSTILE_TABLE = 'we"ird; DROP TABLE orders; --';
const HOSTILE_COLUMN = `va"l') OR 1=1 --`;

describe.each(testEngines())('schema cache, rows and seed on $name', ({ open }) => {
  let ds: SqlDataSource;
  beforeAll(async () => {
    ds = await open({ seed: { orders: 300 } });
    await ds.db.exec(`CREATE SCHEMA other;
      CREATE TABLE other.orders (id int PRIMARY KEY);
      CREATE TABLE ${quoteIdent(HOSTILE_TABLE)} (id int PRIMARY KEY, ${quoteIdent(HOSTILE_COLUMN)} text, "Mixed Case" text);
      CREATE VIEW public.paid_orders AS SELECT * FROM public.orders WHERE status = 'paid';`);
    await ds.schema.refresh({ analyze: true });
  }, 90_000);
  afterAll(() => ds.close());

  it('seeds a deterministic shop: same seed, same rows; re-seeding is a no-op or needs reset', async () => {
    const digest = async () =>
      (
        await ds.db.query<{ d: string }>(
          `SELECT md5(string_agg(t::text, '|' ORDER BY t.id)) AS d FROM (
             SELECT o.id, o.customer_id, o.status, o.ordered_at, o.total, c.email, count(i.*) AS items
             FROM orders o JOIN customers c ON c.id = o.customer_id JOIN order_items i ON i.order_id = o.id
             GROUP BY o.id, c.email) t`,
        )
      ).rows[0]!.d;
    const before = await digest();
    const again = await ds.seed({ orders: 300, now: TEST_SEED_NOW });
    expect(again.alreadySeeded).toBe(true);
    await expect(ds.seed({ orders: 301, now: TEST_SEED_NOW })).rejects.toThrow(
      /There are sample-shop tables already.*--reset/,
    );
    await expect(ds.seed({ orders: 300, now: TEST_SEED_NOW, reset: true })).rejects.toThrow(
      /Cannot reset the sample shop: cannot drop table orders because other objects depend on it \(view paid_orders depends on table orders\)\. Drop or change those objects first/,
    );
    expect(await digest()).toBe(before);
    await ds.db.exec('DROP VIEW public.paid_orders');
    const reset = await ds.seed({ orders: 300, now: TEST_SEED_NOW, reset: true });
    await ds.db.exec(`CREATE VIEW public.paid_orders AS SELECT * FROM public.orders WHERE status = 'paid'`);
    await ds.schema.refresh({ analyze: true });
    expect(reset.alreadySeeded).toBe(false);
    expect(await digest()).toBe(before);
    expect(reset.counts).toMatchObject({ orders: 300, customers: 60, products: 20 });
  });

  it('seeded data is plausible: statuses, dates within 18 months before now, totals match items, keys valid', async () => {
    const { rows } = await ds.db.query<{ status: string }>('SELECT DISTINCT status FROM orders ORDER BY 1');
    expect(
      rows.map((row) => row.status).every((status) => (ORDER_STATUSES as readonly string[]).includes(status)),
    ).toBe(true);
    expect(rows.length).toBeGreaterThanOrEqual(3);
    const span = (
      await ds.db.query<{ first: Date; last: Date; last_month: number }>(
        `SELECT min(ordered_at) AS first, max(ordered_at) AS last,
                count(*) FILTER (WHERE ordered_at >= $1::timestamptz - interval '1 month')::int AS last_month FROM orders`,
        [TEST_SEED_NOW],
      )
    ).rows[0]!;
    expect(span.last.getTime()).toBeLessThan(TEST_SEED_NOW.getTime());
    expect(span.first.getTime()).toBeGreaterThan(TEST_SEED_NOW.getTime() - 549 * 86_400_000);
    expect(span.last_month).toBeGreaterThan(0);
    const mismatched = await ds.db.query(
      `SELECT o.id FROM orders o JOIN order_items i ON i.order_id = o.id GROUP BY o.id, o.total HAVING o.total <> sum(i.quantity * i.unit_price)`,
    );
    expect(mismatched.rows).toEqual([]);
    await expect(
      ds.db.query(
        'INSERT INTO order_items (order_id, product_id, quantity, unit_price) VALUES (999999, 1, 1, 1)',
      ),
    ).rejects.toThrow(/foreign key/);
  });

  it('caches user tables only, with columns, keys, indexes, foreign keys both ways, estimates and common values', async () => {
    const snapshot = await ds.schema.get();
    const names = snapshot.tables.map((table) => table.qualifiedName);
    for (const table of SAMPLE_TABLES) expect(names).toContain(`public.${table}`);
    expect(names).toContain('public.paid_orders');
    expect(names.some((name) => name.startsWith(`${APP_SCHEMA}.`) || name.startsWith('pg_catalog.'))).toBe(
      false,
    );

    const orders = await ds.schema.resolveTable('orders');
    expect(orders.qualifiedName).toBe('public.orders');
    expect(orders.primaryKey).toEqual(['id']);
    expect(orders.columns.map((column) => column.name)).toEqual([
      'id',
      'customer_id',
      'status',
      'ordered_at',
      'shipped_at',
      'total',
      'currency',
      'note',
    ]);
    expect(orders.columns.find((column) => column.name === 'total')).toMatchObject({
      type: 'numeric(12,2)',
      nullable: false,
      default: '0',
      comment: 'Sum of the order items (quantity × unit price)',
    });
    expect(orders.columns.find((column) => column.name === 'id')).toMatchObject({
      generated: true,
      primaryKey: true,
    });
    expect(orders.rowEstimate).toBe(300);
    expect(orders.totalBytes).toBeGreaterThan(orders.tableBytes);
    const status = orders.columns.find((column) => column.name === 'status')!;
    expect(status.commonValues.map((value) => value.value)).toContain('delivered');
    expect(status.distinctEstimate).toBeGreaterThanOrEqual(3);
    const ordered = orders.columns.find((column) => column.name === 'ordered_at')!;
    expect(ordered.min).not.toBeNull();
    expect(orders.indexes.map((index) => index.name).sort()).toEqual([
      'orders_customer_id_idx',
      'orders_ordered_at_idx',
      'orders_pkey',
      'orders_status_idx',
    ]);
    expect(orders.indexes.find((index) => index.name === 'orders_pkey')).toMatchObject({
      columns: ['id'],
      unique: true,
      primary: true,
    });
    expect(orders.foreignKeys).toEqual([
      expect.objectContaining({
        fromTable: 'public.orders',
        fromColumns: ['customer_id'],
        toTable: 'public.customers',
        toColumns: ['id'],
      }),
    ]);
    expect(orders.referencedBy).toEqual([
      expect.objectContaining({
        fromTable: 'public.order_items',
        fromColumns: ['order_id'],
        onDelete: 'cascade',
      }),
    ]);
    expect((await ds.schema.resolveTable('paid_orders')).kind).toBe('view');
  });

  it('index scans come from pg_stat_user_indexes', async () => {
    await ds.rows.get('orders', 7);
    await ds.rows.get('orders', 8);
    const before = (await ds.schema.resolveTable('orders')).indexes.find((index) => index.primary)!.scans;
    await ds.rows.get('orders', 9);
    // Statistics reach the views asynchronously on PostgreSQL; ask for a fresh snapshot of them.
    await ds.db.query('SELECT pg_stat_clear_snapshot()');
    const after = (await ds.schema.refresh()).tables.find(
      (table) => table.name === 'orders' && table.schema === 'public',
    )!;
    expect(after.indexes.find((index) => index.primary)!.scans).toBeGreaterThanOrEqual(before);
  });

  it('resolves the names people type and suggests the nearest ones otherwise', async () => {
    expect((await ds.schema.resolveTable('public.orders')).schema).toBe('public');
    expect((await ds.schema.resolveTable('ORDERS')).qualifiedName).toBe('public.orders');
    expect((await ds.schema.resolveTable('other.orders')).qualifiedName).toBe('other.orders');
    expect((await ds.schema.resolveTable(HOSTILE_TABLE)).name).toBe(HOSTILE_TABLE);
    expect((await ds.schema.resolveTable(quoteIdent(HOSTILE_TABLE))).name).toBe(HOSTILE_TABLE);
    const error = await ds.schema.resolveTable('order').catch((e) => e);
    expect(error).toBeInstanceOf(UnknownNameError);
    expect(error.message).toMatch(/Unknown table 'order'\. Did you mean .*'public\.orders'/);
    await expect(ds.schema.resolveTable('"ORDERS"')).rejects.toThrow(/Unknown table/);
    const orders = await ds.schema.resolveTable('orders');
    expect(() => ds.schema.resolveColumn(orders, 'ordered')).toThrow(/Did you mean 'ordered_at'/);
    expect(
      (await ds.schema.findColumns('EMAIL')).map((match) => `${match.table}.${match.column.name}`),
    ).toEqual(['public.customers.email']);
  });

  it('selects pages by filter and sort, stable by primary key, and counts exactly', async () => {
    const filter = {
      and: [
        { column: 'status', op: 'in' as const, value: ['paid', 'shipped'] },
        { column: 'total', op: 'gt' as const, value: 50 },
      ],
    };
    const expected = (
      await ds.db.query<{ id: number }>(
        `SELECT id FROM orders WHERE status IN ('paid', 'shipped') AND total > 50 ORDER BY ordered_at DESC, id`,
      )
    ).rows.map((row) => row.id);
    expect(expected.length).toBeGreaterThan(3);
    const ids: number[] = [];
    for (let offset = 0; ; offset += 3) {
      const page = await ds.rows.select('orders', {
        filter,
        sort: [{ column: 'ordered_at', direction: 'desc' }],
        limit: 3,
        offset,
        columns: ['id', 'status'],
      });
      expect(page.columns.map((column) => column.name)).toEqual(['id', 'status']);
      ids.push(...page.rows.map((row) => row.id as number));
      if (!page.hasMore) break;
    }
    expect(ids).toEqual(expected);
    expect(await ds.rows.count('orders', filter)).toBe(expected.length);
    expect(await ds.rows.count('orders')).toBe(300);
    await expect(ds.rows.select('orders', { limit: 0 })).rejects.toThrow(
      /limit must be a whole number from 1 to 10000/,
    );
  });

  it('gets a row by primary key: bare value or object; explains bad keys', async () => {
    const row = await ds.rows.get('orders', 12);
    expect(row).toMatchObject({ id: 12 });
    expect(await ds.rows.get('orders', { id: 12 })).toEqual(row);
    expect(await ds.rows.get('orders', { ID: '12' })).toEqual(row);
    expect(await ds.rows.get('orders', 999_999)).toBeUndefined();
    await expect(ds.rows.get('orders', { customer_id: 1 })).rejects.toThrow(
      /'customer_id' is not part of the primary key of 'public\.orders'; a key is \{ id: … \}/,
    );
    await expect(ds.rows.get('orders', { id: null })).rejects.toThrow(/needs a string or number/);
    await expect(ds.rows.get('paid_orders', 1)).rejects.toThrow(/has no primary key/);
    // A key out of the column's range, or rounded by JSON on its way, is named, not a PostgreSQL error or another row.
    await expect(ds.rows.get('orders', '99999999999999999999')).rejects.toThrow(
      /The key of 'public\.orders': column 'id' is integer, which holds -2,147,483,648 to 2,147,483,647; 99999999999999999999 is outside that/,
    );
    await expect(ds.rows.get('orders', { id: JSON.parse('99999999999999999999') })).rejects.toThrow(
      /arrived as 100000000000000000000.*Pass it as a string/,
    );
    await expect(ds.rows.get('orders', { id: 2147483647 })).resolves.toBeUndefined();
  });

  it('property: hostile filter values and identifiers never inject, and counts match the data', async () => {
    await ds.db.query(`DELETE FROM ${quoteIdent(HOSTILE_TABLE)}`);
    const stored = [
      'plain',
      "it's",
      'semi;colon',
      "'; DROP TABLE orders; --",
      '50%_off',
      'back\\slash',
      '"quoted"',
      '',
      'Ünïcödé',
    ];
    for (const [index, value] of stored.entries()) {
      await ds.db.query(`INSERT INTO ${quoteIdent(HOSTILE_TABLE)} VALUES ($1, $2, $3)`, [
        index,
        value,
        value.toUpperCase(),
      ]);
    }
    const value = fc.oneof(
      fc.constantFrom(...stored),
      fc.string({ maxLength: 12 }).map((text) => text.replaceAll('\u0000', '')),
    );
    await fc.assert(
      fc.asyncProperty(
        value,
        fc.constantFrom('eq', 'neq', 'contains', 'starts_with', 'like'),
        async (text, op) => {
          if (op === 'like' && /(^|[^\\])(\\\\)*\\$/.test(text)) {
            await expect(
              ds.rows.count(HOSTILE_TABLE, { column: HOSTILE_COLUMN, op: 'like', value: text }),
            ).rejects.toThrow(/ends with the escape character/);
            return;
          }
          const count = await ds.rows.count(HOSTILE_TABLE, {
            column: HOSTILE_COLUMN,
            op: op as 'eq',
            value: text,
          });
          const lower = text.toLowerCase();
          const expected = stored.filter((item) => {
            if (op === 'eq') return item === text;
            if (op === 'neq') return item !== text;
            if (op === 'contains') return item.toLowerCase().includes(lower);
            if (op === 'starts_with') return item.toLowerCase().startsWith(lower);
            // like: compare in the database itself, the pattern is the user's
            return undefined;
          });
          if (op === 'like') {
            const direct = await ds.db.query<{ n: number }>(
              `SELECT count(*)::int AS n FROM ${quoteIdent(HOSTILE_TABLE)} WHERE ${quoteIdent(HOSTILE_COLUMN)} LIKE $1`,
              [text],
            );
            expect(count).toBe(direct.rows[0]!.n);
          } else {
            expect(count).toBe(expected.length);
          }
        },
      ),
      { numRuns: 60 },
    );
    expect(await ds.rows.count('orders')).toBe(300);
    expect(await ds.rows.count(HOSTILE_TABLE)).toBe(stored.length);
  });
});
