import type { Filter, Sort } from './filter-types.ts';
import type { ColumnInfo, TableInfo } from './schema-types.ts';
import type { Row, RowKey } from './types.ts';

export interface SelectRowsOptions {
  filter?: Filter;
  sort?: Sort[];
  /** Default 100, at most 10 000. */
  limit?: number;
  offset?: number;
  /** Only these columns (default: all, in table order). */
  columns?: string[];
}

export interface RowPage {
  table: TableInfo;
  columns: ColumnInfo[];
  rows: Row[];
  /** There are more rows after this page. */
  hasMore: boolean;
}

/** Reads rows of user tables by structured filter and key; identifiers come from the schema cache. */
export interface RowReader {
  /** A page of rows (the server's table grid). Sorts by primary key when no sort is given, so pages are stable. */
  select(table: string, options?: SelectRowsOptions): Promise<RowPage>;
  /** Exact count of the rows matching the filter. */
  count(table: string, filter?: Filter): Promise<number>;
  /** One row by primary key (`{ id: 5 }`, or a bare 5 for a one-column key); undefined when absent. */
  get(table: string, key: RowKey | unknown): Promise<Row | undefined>;
}

export { createRowReader, normalizeKey } from './rows-impl.ts';
