// The sample shop's rows, the same on every engine: a deterministic generator that hands each
// batch, column by column with a logical type per column, to the engine that writes it.

import type { ORDER_STATUSES, SampleTable, SeedProgress, SeedResult } from '@toolrow/datasource';
import { DataSourceError } from '@toolrow/datasource';

/** A batch of one table, column by column: the logical type says how an engine stores the values. */
export type SampleColumns = Record<
  string,
  { type: 'int4' | 'text' | 'numeric' | 'bool' | 'timestamptz'; values: unknown[] }
>;

export interface GenerateOptions {
  orders: number;
  seed: number;
  now: Date;
  report: (progress: SeedProgress) => void;
}

const FIRST_NAMES = [
  'Olivia',
  'Liam',
  'Emma',
  'Noah',
  'Amelia',
  'Oliver',
  'Sophia',
  'Elijah',
  'Mia',
  'Lucas',
  'Isabella',
  'Mateo',
  'Ava',
  'Levi',
  'Charlotte',
  'Ethan',
  'Harper',
  'James',
  'Luna',
  'Leo',
  'Chloe',
  'Hugo',
  'Ines',
  'Yusuf',
  'Aiko',
  'Kenji',
  'Priya',
  'Arjun',
  'Fatima',
  'Omar',
  'Zoe',
  'Felix',
  'Nora',
  'Elias',
  'Sofia',
  'Jonas',
  'Lea',
  'Marco',
  'Giulia',
  'Pablo',
  'Lucia',
  'Diego',
  'Wei',
  'Mei',
  'Hana',
  'Minh',
  'Anya',
  'Ivan',
  'Astrid',
  'Lars',
  'Chidi',
  'Amara',
  'Kofi',
  'Zara',
  'Rafael',
  'Beatriz',
  'Tomasz',
  'Zofia',
  'Sean',
  'Aoife',
];
const LAST_NAMES = [
  'Smith',
  'Johnson',
  'Williams',
  'Brown',
  'Garcia',
  'Miller',
  'Davis',
  'Martinez',
  'Lopez',
  'Wilson',
  'Anderson',
  'Taylor',
  'Thomas',
  'Moore',
  'Martin',
  'Lee',
  'Perez',
  'Thompson',
  'White',
  'Harris',
  'Clark',
  'Lewis',
  'Walker',
  'Young',
  'Allen',
  'King',
  'Wright',
  'Scott',
  'Nguyen',
  'Hill',
  'Müller',
  'Schmidt',
  'Dubois',
  'Rossi',
  'Silva',
  'Santos',
  'Kowalski',
  'Novak',
  'Tanaka',
  'Sato',
  'Kim',
  'Park',
  'Chen',
  'Wang',
  'Singh',
  'Patel',
  'Okafor',
  'Mensah',
  'Haddad',
  'Larsen',
  'Jensen',
  "O'Brien",
  'Murphy',
  'Fischer',
  'Weber',
  'Costa',
  'Ivanova',
  'Horvat',
  'Yilmaz',
  'Cohen',
];
const CITIES: readonly (readonly [string, string])[] = [
  ['New York', 'US'],
  ['Chicago', 'US'],
  ['Austin', 'US'],
  ['Seattle', 'US'],
  ['Denver', 'US'],
  ['Boston', 'US'],
  ['Toronto', 'CA'],
  ['Vancouver', 'CA'],
  ['Mexico City', 'MX'],
  ['São Paulo', 'BR'],
  ['Buenos Aires', 'AR'],
  ['London', 'GB'],
  ['Manchester', 'GB'],
  ['Dublin', 'IE'],
  ['Paris', 'FR'],
  ['Lyon', 'FR'],
  ['Berlin', 'DE'],
  ['Munich', 'DE'],
  ['Amsterdam', 'NL'],
  ['Madrid', 'ES'],
  ['Barcelona', 'ES'],
  ['Rome', 'IT'],
  ['Milan', 'IT'],
  ['Warsaw', 'PL'],
  ['Stockholm', 'SE'],
  ['Copenhagen', 'DK'],
  ['Tokyo', 'JP'],
  ['Osaka', 'JP'],
  ['Seoul', 'KR'],
  ['Singapore', 'SG'],
  ['Sydney', 'AU'],
  ['Melbourne', 'AU'],
  ['Auckland', 'NZ'],
  ['Lagos', 'NG'],
  ['Nairobi', 'KE'],
  ['Cape Town', 'ZA'],
  ['Mumbai', 'IN'],
  ['Bangalore', 'IN'],
  ['Istanbul', 'TR'],
  ['Tel Aviv', 'IL'],
];
const CATEGORIES: readonly (readonly [string, readonly string[], number, number])[] = [
  [
    'Electronics',
    ['Headphones', 'Speaker', 'Keyboard', 'Mouse', 'Monitor', 'Webcam', 'Charger', 'Power Bank'],
    15,
    400,
  ],
  [
    'Home & Kitchen',
    ['Kettle', 'Mug', 'Pan', 'Knife Set', 'Blender', 'Toaster', 'Cutting Board', 'Teapot'],
    8,
    180,
  ],
  ['Furniture', ['Chair', 'Desk', 'Lamp', 'Shelf', 'Stool', 'Side Table', 'Bench'], 30, 650],
  ['Clothing', ['T-Shirt', 'Hoodie', 'Jacket', 'Socks', 'Cap', 'Scarf', 'Jeans', 'Sweater'], 6, 160],
  ['Sports', ['Yoga Mat', 'Water Bottle', 'Dumbbell', 'Backpack', 'Running Shoes', 'Jump Rope'], 7, 220],
  ['Books', ['Notebook', 'Cookbook', 'Novel', 'Atlas', 'Sketchbook', 'Planner'], 5, 60],
  ['Garden', ['Planter', 'Watering Can', 'Hose', 'Pruner', 'Seed Kit', 'Bird Feeder'], 6, 120],
  ['Toys', ['Puzzle', 'Board Game', 'Building Set', 'Plush Bear', 'Kite', 'Yo-Yo'], 5, 90],
];
const ADJECTIVES = [
  'Classic',
  'Compact',
  'Deluxe',
  'Ergonomic',
  'Essential',
  'Everyday',
  'Premium',
  'Rustic',
  'Sleek',
  'Smart',
  'Sturdy',
  'Travel',
  'Ultra',
  'Vintage',
  'Wireless',
  'Eco',
  'Pro',
  'Mini',
  'Nordic',
  'Urban',
];
const MATERIALS = [
  'Oak',
  'Steel',
  'Cotton',
  'Bamboo',
  'Ceramic',
  'Glass',
  'Leather',
  'Wool',
  'Copper',
  'Linen',
  'Walnut',
  'Aluminium',
];
const TIERS = ['bronze', 'bronze', 'bronze', 'silver', 'silver', 'gold'];
export const DAY_MS = 86_400_000;
const HISTORY_DAYS = 548; // ~18 months
const BATCH = 5000;

/** mulberry32: small, fast, and the same sequence everywhere for a given seed. */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Bare tables first; keys, foreign keys and indexes after the rows are in: a bulk build and one
// validation pass are far cheaper than checking every row as it arrives.
function money(value: number): string {
  return (Math.round(value * 100) / 100).toFixed(2);
}

function pickFrom<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)]!;
}

function statusFor(random: () => number, ageDays: number): (typeof ORDER_STATUSES)[number] {
  const roll = random();
  if (roll < 0.05) return 'cancelled';
  if (ageDays > 10 && roll < 0.07) return 'refunded';
  if (ageDays < 1) return roll < 0.6 ? 'pending' : 'paid';
  if (ageDays < 3) return roll < 0.25 ? 'pending' : roll < 0.7 ? 'paid' : 'shipped';
  if (ageDays < 8) return roll < 0.15 ? 'paid' : roll < 0.7 ? 'shipped' : 'delivered';
  return roll < 0.12 ? 'shipped' : 'delivered';
}

/** The orders a seed asks for (default 50 000), or an error saying what is allowed. */
export function checkSeedOrders(orders: number | undefined): number {
  const count = orders ?? 50_000;
  if (!Number.isInteger(count) || count < 1 || count > 10_000_000) {
    throw new DataSourceError('seed', `orders must be a whole number from 1 to 10 000 000, got ${count}.`);
  }
  return count;
}

export function sampleCounts(orders: number): { customers: number; products: number; orders: number } {
  return {
    customers: Math.max(20, Math.round(orders / 5)),
    products: Math.min(500, Math.max(20, Math.round(orders / 100))),
    orders,
  };
}

/**
 * A sample shop found where one is to be seeded (`found`: the sample tables there and their counts):
 * its counts when it is the one `orders` asks for (nothing to write), else a DataSourceError
 * ('seed') naming what is there and --reset. Each engine counts in its own `unit`.
 */
export function sampleShopAsFound(
  found: Partial<Record<SampleTable, number>>,
  orders: number,
  unit: 'rows' | 'items',
): SeedResult['counts'] {
  const target = sampleCounts(orders);
  if (
    found.customers === target.customers &&
    found.products === target.products &&
    found.orders === target.orders &&
    found.order_items !== undefined
  ) {
    return {
      customers: found.customers,
      products: found.products,
      orders: found.orders,
      order_items: found.order_items,
    };
  }
  const listed = Object.entries(found)
    .map(([name, count]) => `${name} (${count} ${unit})`)
    .join(', ');
  throw new DataSourceError(
    'seed',
    `There are sample-shop tables already: ${listed}. Re-run with --reset (reset: true) to drop and re-create them with ${orders} orders; that deletes their ${unit}.`,
  );
}

/** Creates and fills the sample shop (customers, products, orders, order_items) deterministically. */
/**
 * Generates the shop (customers, products, then orders with their items, ids rising with time) and
 * hands each batch to `write`, in that order. Returns the rows per table.
 */
export async function generateSampleShop(
  options: GenerateOptions,
  write: (table: SampleTable, columns: SampleColumns) => Promise<void>,
): Promise<SeedResult['counts']> {
  const { orders, report } = options;
  const target = sampleCounts(orders);
  const random = prng(options.seed);
  const nowMs = options.now.getTime();
  // Customers
  const customerSince: number[] = [];
  for (let start = 1; start <= target.customers; start += BATCH) {
    const end = Math.min(target.customers, start + BATCH - 1);
    const columns: SampleColumns = {
      id: { type: 'int4', values: [] },
      name: { type: 'text', values: [] },
      email: { type: 'text', values: [] },
      city: { type: 'text', values: [] },
      country: { type: 'text', values: [] },
      loyalty_tier: { type: 'text', values: [] },
      signed_up_at: { type: 'timestamptz', values: [] },
    };
    for (let id = start; id <= end; id++) {
      const first = pickFrom(random, FIRST_NAMES);
      const last = pickFrom(random, LAST_NAMES);
      const [city, country] = pickFrom(random, CITIES);
      const since = nowMs - Math.floor((HISTORY_DAYS + 365) * DAY_MS * random());
      customerSince[id] = since;
      const local = `${first}.${last}`
        .normalize('NFD')
        .replace(/[^A-Za-z.]/g, '')
        .toLowerCase();
      columns.id!.values.push(id);
      columns.name!.values.push(`${first} ${last}`);
      columns.email!.values.push(`${local}${id}@example.com`);
      columns.city!.values.push(city);
      columns.country!.values.push(country);
      columns.loyalty_tier!.values.push(pickFrom(random, TIERS));
      columns.signed_up_at!.values.push(new Date(since).toISOString());
    }
    await write('customers', columns);
    report({ table: 'customers', done: end, total: target.customers });
  }

  // Products
  const prices: number[] = [];
  const productColumns: SampleColumns = {
    id: { type: 'int4', values: [] },
    sku: { type: 'text', values: [] },
    name: { type: 'text', values: [] },
    category: { type: 'text', values: [] },
    price: { type: 'numeric', values: [] },
    stock: { type: 'int4', values: [] },
    active: { type: 'bool', values: [] },
    created_at: { type: 'timestamptz', values: [] },
  };
  for (let id = 1; id <= target.products; id++) {
    const [category, nouns, low, high] = pickFrom(random, CATEGORIES);
    const rounded = Math.max(1, Math.floor(low + (high - low) * random() ** 2)) + 0.99;
    prices[id] = rounded;
    productColumns.id!.values.push(id);
    productColumns.sku!.values.push(`${category.slice(0, 3).toUpperCase()}-${String(id).padStart(5, '0')}`);
    productColumns.name!.values.push(
      `${pickFrom(random, ADJECTIVES)} ${pickFrom(random, MATERIALS)} ${pickFrom(random, nouns)}`,
    );
    productColumns.category!.values.push(category);
    productColumns.price!.values.push(money(rounded));
    productColumns.stock!.values.push(Math.floor(random() * 500));
    productColumns.active!.values.push(random() > 0.06);
    productColumns.created_at!.values.push(
      new Date(nowMs - (HISTORY_DAYS + 200) * DAY_MS + Math.floor(random() * 200 * DAY_MS)).toISOString(),
    );
  }
  await write('products', productColumns);
  report({ table: 'products', done: target.products, total: target.products });

  // Order times first, sorted, so ids rise with time; sqrt skews toward recent months (a growing shop).
  const times = new Float64Array(orders);
  for (let index = 0; index < orders; index++)
    times[index] = nowMs - HISTORY_DAYS * DAY_MS * (1 - Math.sqrt(random())) - 1;
  times.sort();

  let itemId = 0;
  for (let start = 1; start <= orders; start += BATCH) {
    const end = Math.min(orders, start + BATCH - 1);
    const orderColumns: SampleColumns = {
      id: { type: 'int4', values: [] },
      customer_id: { type: 'int4', values: [] },
      status: { type: 'text', values: [] },
      ordered_at: { type: 'timestamptz', values: [] },
      shipped_at: { type: 'timestamptz', values: [] },
      total: { type: 'numeric', values: [] },
      currency: { type: 'text', values: [] },
      note: { type: 'text', values: [] },
    };
    const itemColumns: SampleColumns = {
      id: { type: 'int4', values: [] },
      order_id: { type: 'int4', values: [] },
      product_id: { type: 'int4', values: [] },
      quantity: { type: 'int4', values: [] },
      unit_price: { type: 'numeric', values: [] },
    };
    for (let id = start; id <= end; id++) {
      const at = Math.floor(times[id - 1]!);
      // A customer orders only after signing up: retry a few picks, then fall back to the earliest customers.
      let customer = 1 + Math.floor(random() * target.customers);
      for (let attempt = 0; attempt < 4 && customerSince[customer]! > at; attempt++) {
        customer = 1 + Math.floor(random() * target.customers);
      }
      const ageDays = (nowMs - at) / DAY_MS;
      const status = statusFor(random, ageDays);
      const shipped = status === 'shipped' || status === 'delivered' || status === 'refunded';
      const lines = 1 + Math.floor(random() ** 1.6 * 5);
      let total = 0;
      for (let line = 0; line < lines; line++) {
        const product = 1 + Math.floor(random() ** 1.3 * target.products);
        const quantity = random() < 0.75 ? 1 : 2 + Math.floor(random() * 4);
        total += prices[product]! * quantity;
        itemColumns.id!.values.push(++itemId);
        itemColumns.order_id!.values.push(id);
        itemColumns.product_id!.values.push(product);
        itemColumns.quantity!.values.push(quantity);
        itemColumns.unit_price!.values.push(money(prices[product]!));
      }
      orderColumns.id!.values.push(id);
      orderColumns.customer_id!.values.push(customer);
      orderColumns.status!.values.push(status);
      orderColumns.ordered_at!.values.push(new Date(at).toISOString());
      orderColumns.shipped_at!.values.push(
        shipped ? new Date(Math.min(nowMs - 1, at + DAY_MS * (0.5 + random() * 3))).toISOString() : null,
      );
      orderColumns.total!.values.push(money(total));
      orderColumns.currency!.values.push('USD');
      orderColumns.note!.values.push(
        random() < 0.04
          ? pickFrom(random, ['gift wrap', 'leave at the door', 'call before delivery', 'fragile'])
          : null,
      );
    }
    await write('orders', orderColumns);
    await write('order_items', itemColumns);
    report({ table: 'orders', done: end, total: orders });
  }

  return { customers: target.customers, products: target.products, orders, order_items: itemId };
}
