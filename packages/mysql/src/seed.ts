// The sample shop in MySQL or MariaDB: the shared generator's rows in the tables PostgreSQL's seed
// makes (InnoDB, utf8mb4, foreign keys), written in one transaction on the writer's session.
import {
  DataSourceError,
  SAMPLE_TABLES,
  type SampleTable,
  type SeedOptions,
  type SeedResult,
} from '@toolrow/datasource';
import { checkSeedOrders, DAY_MS, generateSampleShop, sampleShopAsFound } from '@toolrow/datasource-utils';
import type { PoolConnection } from 'mysql2/promise';
import type { MysqlServer } from './server.ts';
import { quoteIdent } from './sql.ts';

const TABLE_OPTIONS = 'ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci';

const TABLES_SQL = [
  `CREATE TABLE customers (
    id INT NOT NULL AUTO_INCREMENT PRIMARY KEY,
    name VARCHAR(200) NOT NULL,
    email VARCHAR(320) NOT NULL UNIQUE,
    city VARCHAR(100) NOT NULL,
    country VARCHAR(100) NOT NULL,
    loyalty_tier ENUM('bronze', 'silver', 'gold') NOT NULL DEFAULT 'bronze',
    signed_up_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3)
  ) ${TABLE_OPTIONS} COMMENT='People who have signed up to the shop'`,
  `CREATE TABLE products (
    id INT NOT NULL AUTO_INCREMENT PRIMARY KEY,
    sku VARCHAR(40) NOT NULL UNIQUE,
    name VARCHAR(200) NOT NULL,
    category VARCHAR(100) NOT NULL,
    price DECIMAL(12,2) NOT NULL CHECK (price >= 0),
    stock INT NOT NULL DEFAULT 0,
    active BOOLEAN NOT NULL DEFAULT TRUE,
    created_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3)
  ) ${TABLE_OPTIONS}`,
  `CREATE TABLE orders (
    id INT NOT NULL AUTO_INCREMENT PRIMARY KEY,
    customer_id INT NOT NULL,
    status ENUM('pending', 'paid', 'shipped', 'delivered', 'cancelled', 'refunded') NOT NULL DEFAULT 'pending',
    ordered_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
    shipped_at DATETIME(3) NULL,
    total DECIMAL(12,2) NOT NULL DEFAULT 0,
    currency CHAR(3) NOT NULL DEFAULT 'USD',
    note TEXT NULL,
    KEY orders_customer_id_idx (customer_id),
    KEY orders_status_idx (status),
    CONSTRAINT orders_customer_id_fkey FOREIGN KEY (customer_id) REFERENCES customers (id)
  ) ${TABLE_OPTIONS}`,
  `CREATE TABLE order_items (
    id INT NOT NULL AUTO_INCREMENT PRIMARY KEY,
    order_id INT NOT NULL,
    product_id INT NOT NULL,
    quantity INT NOT NULL CHECK (quantity > 0),
    unit_price DECIMAL(12,2) NOT NULL,
    KEY order_items_order_id_idx (order_id),
    CONSTRAINT order_items_order_id_fkey FOREIGN KEY (order_id) REFERENCES orders (id) ON DELETE CASCADE,
    CONSTRAINT order_items_product_id_fkey FOREIGN KEY (product_id) REFERENCES products (id)
  ) ${TABLE_OPTIONS}`,
];

/** A generated value as MySQL takes it: timestamps as UTC DATETIME text, booleans as 1/0. */
function stored(type: string, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (value instanceof Date || (type === 'timestamptz' && typeof value === 'string'))
    return new Date(value as string).toISOString().replace('T', ' ').replace('Z', '');
  if (typeof value === 'boolean') return value ? 1 : 0;
  return value;
}

async function countsOf(
  connection: PoolConnection,
  database: string,
): Promise<Partial<Record<SampleTable, number>> | undefined> {
  const [found] = await connection.query({
    sql: 'SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = ?',
    values: [database],
    rowsAsArray: true,
  });
  const present = new Set((found as string[][]).map((row) => String(row[0])));
  if (!SAMPLE_TABLES.some((table) => present.has(table))) return undefined;
  const counts: Partial<Record<SampleTable, number>> = {};
  for (const table of SAMPLE_TABLES.filter((each) => present.has(each))) {
    const [rows] = await connection.query({
      sql: `SELECT COUNT(*) FROM ${quoteIdent(table)}`,
      rowsAsArray: true,
    });
    counts[table] = Number((rows as unknown[][])[0]![0]);
  }
  return counts;
}

const INSERT_ROWS = 1000;

export async function seedMysqlShop(
  writer: MysqlServer,
  database: string,
  options: SeedOptions = {},
): Promise<SeedResult> {
  const started = performance.now();
  if (options.shop === 'large')
    throw new DataSourceError(
      'seed',
      'The large shop is made on PostgreSQL only (MySQL does not list largeShop).',
    );
  const orders = checkSeedOrders(options.orders);
  const now = options.now ?? new Date(Math.floor(Date.now() / DAY_MS) * DAY_MS);
  return writer.withSession(async (connection) => {
    const existing = await countsOf(connection, database);
    if (existing && !options.reset)
      return {
        counts: sampleShopAsFound(existing, orders, 'rows'),
        alreadySeeded: true,
        durationMs: Math.round(performance.now() - started),
      };
    // DDL commits on its own in MySQL: the tables first, then every row in one transaction.
    for (const table of [...SAMPLE_TABLES].reverse())
      await connection.query(`DROP TABLE IF EXISTS ${quoteIdent(table)}`);
    for (const statement of TABLES_SQL) await connection.query(statement);
    await connection.query('START TRANSACTION');
    try {
      const counts = await generateSampleShop(
        { orders, seed: options.seed ?? 42, now, report: (progress) => options.onProgress?.(progress) },
        async (table, columns) => {
          const names = Object.keys(columns);
          const length = columns[names[0]!]!.values.length;
          for (let start = 0; start < length; start += INSERT_ROWS) {
            const end = Math.min(length, start + INSERT_ROWS);
            const values: unknown[][] = [];
            for (let row = start; row < end; row++)
              values.push(names.map((name) => stored(columns[name]!.type, columns[name]!.values[row])));
            await connection.query(
              `INSERT INTO ${quoteIdent(table)} (${names.map(quoteIdent).join(', ')}) VALUES ?`,
              [values],
            );
          }
        },
      );
      await connection.query('COMMIT');
      for (const table of SAMPLE_TABLES) await connection.query(`ANALYZE TABLE ${quoteIdent(table)}`);
      return { counts, alreadySeeded: false, durationMs: Math.round(performance.now() - started) };
    } catch (error) {
      await connection.query('ROLLBACK').catch(() => {});
      throw error;
    }
  });
}
