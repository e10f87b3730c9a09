export interface SeedOptions {
  /** Orders to create (default 50 000). Customers, products and items scale with it. */
  orders?: number;
  /** Drop the sample tables first and seed again (default false: refuse when they hold other data). */
  reset?: boolean;
  /** Seed for the generator (default 42): the same seed and counts give the same rows. */
  seed?: number;
  /** The "now" the order dates lead up to (default: today at 00:00 UTC). Pin it for reproducible data. */
  now?: Date;
  /** Called as rows are written. */
  onProgress?: (progress: SeedProgress) => void;
  /**
   * 'large': the large shop's tables (LARGE_SHOP) beside whatever is there, made where missing,
   * the sample shop left as it is (its counts come back as zeros). Engines with 'largeShop' only.
   */
  shop?: 'sample' | 'large';
}

/** The large shop: where a model meets a schema that does not fit its window (the evaluation's). */
export const LARGE_SHOP = {
  schemas: ['sales', 'marketing', 'support', 'finance', 'ops'],
  tablesPerSchema: 200,
  /** A table of 1,000 columns, m_0001…m_1000; m_0500 carries the comment 'customer loyalty tier'. */
  wide: 'marketing.campaign_metrics',
  wideColumns: 1000,
} as const;

export interface SeedProgress {
  table: string;
  done: number;
  total: number;
}

export interface SeedResult {
  /** Rows per table. */
  counts: { customers: number; products: number; orders: number; order_items: number };
  /** True when the sample shop already had exactly these counts and nothing was written. */
  alreadySeeded: boolean;
  durationMs: number;
}

/** The sample shop's tables, in creation order. */
export const SAMPLE_TABLES = ['customers', 'products', 'orders', 'order_items'] as const;
export type SampleTable = (typeof SAMPLE_TABLES)[number];
export const ORDER_STATUSES = ['pending', 'paid', 'shipped', 'delivered', 'cancelled', 'refunded'] as const;
