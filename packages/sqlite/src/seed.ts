// The sample shop in a SQLite file: the shared generator's rows, in the tables PostgreSQL's seed makes,
// written in one transaction on a connection of its own.
import { DatabaseSync } from 'node:sqlite';
import {
  DataSourceError,
  SAMPLE_TABLES,
  type SampleTable,
  type SeedOptions,
  type SeedResult,
} from '@toolrow/datasource';
import { checkSeedOrders, DAY_MS, generateSampleShop, sampleShopAsFound } from '@toolrow/datasource-utils';
import { quoteIdent } from './sql.ts';

const TABLES_SQL = [
  `CREATE TABLE customers (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    email TEXT NOT NULL UNIQUE,
    city TEXT NOT NULL,
    country TEXT NOT NULL,
    loyalty_tier TEXT NOT NULL DEFAULT 'bronze' CHECK (loyalty_tier IN ('bronze', 'silver', 'gold')),
    signed_up_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
  )`,
  `CREATE TABLE products (
    id INTEGER PRIMARY KEY,
    sku TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL,
    category TEXT NOT NULL,
    price NUMERIC NOT NULL CHECK (price >= 0),
    stock INTEGER NOT NULL DEFAULT 0,
    active INTEGER NOT NULL DEFAULT 1,
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
  )`,
  `CREATE TABLE orders (
    id INTEGER PRIMARY KEY,
    customer_id INTEGER NOT NULL REFERENCES customers (id),
    status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'paid', 'shipped', 'delivered', 'cancelled', 'refunded')),
    ordered_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    shipped_at TEXT,
    total NUMERIC NOT NULL DEFAULT 0,
    currency TEXT NOT NULL DEFAULT 'USD',
    note TEXT
  )`,
  `CREATE TABLE order_items (
    id INTEGER PRIMARY KEY,
    order_id INTEGER NOT NULL REFERENCES orders (id) ON DELETE CASCADE,
    product_id INTEGER NOT NULL REFERENCES products (id),
    quantity INTEGER NOT NULL CHECK (quantity > 0),
    unit_price NUMERIC NOT NULL
  )`,
  'CREATE INDEX orders_customer_id_idx ON orders (customer_id)',
  'CREATE INDEX orders_status_idx ON orders (status)',
  'CREATE INDEX order_items_order_id_idx ON order_items (order_id)',
];

/** A generated value as SQLite keeps it: timestamps as ISO text, booleans as 0/1. */
function stored(value: unknown): string | number | bigint | null {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'boolean') return value ? 1 : 0;
  return value as string | number;
}

function countsOf(db: DatabaseSync): Partial<Record<SampleTable, number>> | undefined {
  const present = new Set(
    (db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table'").all() as { name: string }[]).map(
      (row) => row.name,
    ),
  );
  if (!SAMPLE_TABLES.some((table) => present.has(table))) return undefined;
  return Object.fromEntries(
    SAMPLE_TABLES.filter((table) => present.has(table)).map((table) => [
      table,
      Number((db.prepare(`SELECT count(*) AS n FROM ${quoteIdent(table)}`).get() as { n: number }).n),
    ]),
  );
}

export async function seedSqliteShop(path: string, options: SeedOptions = {}): Promise<SeedResult> {
  const started = performance.now();
  if (options.shop === 'large')
    throw new DataSourceError(
      'seed',
      'The large shop is made on PostgreSQL only (SQLite does not list largeShop).',
    );
  const orders = checkSeedOrders(options.orders);
  const now = options.now ?? new Date(Math.floor(Date.now() / DAY_MS) * DAY_MS);
  const db = new DatabaseSync(path, { timeout: 5000 });
  try {
    const existing = countsOf(db);
    if (existing && !options.reset) {
      return {
        counts: sampleShopAsFound(existing, orders, 'rows'),
        alreadySeeded: true,
        durationMs: Math.round(performance.now() - started),
      };
    }
    db.exec('BEGIN IMMEDIATE');
    try {
      for (const table of [...SAMPLE_TABLES].reverse()) db.exec(`DROP TABLE IF EXISTS ${quoteIdent(table)}`);
      for (const statement of TABLES_SQL) db.exec(statement);
      const counts = await generateSampleShop(
        { orders, seed: options.seed ?? 42, now, report: (progress) => options.onProgress?.(progress) },
        async (table, columns) => {
          const names = Object.keys(columns);
          const insert = db.prepare(
            `INSERT INTO ${quoteIdent(table)} (${names.map(quoteIdent).join(', ')}) VALUES (${names.map(() => '?').join(', ')})`,
          );
          const length = columns[names[0]!]!.values.length;
          for (let row = 0; row < length; row++)
            insert.run(...names.map((name) => stored(columns[name]!.values[row])));
        },
      );
      db.exec('ANALYZE');
      db.exec('COMMIT');
      return { counts, alreadySeeded: false, durationMs: Math.round(performance.now() - started) };
    } catch (error) {
      if (db.isTransaction) db.exec('ROLLBACK');
      throw error;
    }
  } finally {
    db.close();
  }
}
