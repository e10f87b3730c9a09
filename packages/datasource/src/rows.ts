import type { Filter, FilterOp, Sort, ValueCheck } from './filter-types.ts';
import type { ReadPriority } from './reads.ts';
import type { ColumnInfo, TableInfo } from './schema-types.ts';
import type { Row, RowKey } from './types.ts';

/**
 * For reads a caller may stop (the tools pass their call's signal): with either field the read
 * runs in a READ ONLY transaction, like Database.readOnly, and an abort fails it with
 * DataSourceError code 'aborted'. Without them it is a plain statement, as before.
 */
export interface RowReadOptions {
  signal?: AbortSignal;
  /** statement_timeout in ms (default 0: none). */
  timeoutMs?: number;
  /** Whose read: see ReadOnlyOptions.priority (a client's gives way to the user's on PGlite). */
  priority?: ReadPriority;
}

export interface SelectRowsOptions extends RowReadOptions {
  /** Byte cap on the page as text (default 16 MiB): rows stop there, and `truncated` says so. */
  maxBytes?: number;
  /** Byte cap on one value as text (default 64 KiB): a bigger one comes back null, named in `oversized`. */
  maxValueBytes?: number;
  filter?: Filter;
  sort?: Sort[];
  /** Default 100, at most 10 000. */
  limit?: number;
  offset?: number;
  /** Only these columns (default: all, in table order). */
  columns?: string[];
}

/** How an engine read the rows, where it says (DynamoDB: a Query on a key, or a Scan of the table). */
export interface RowAccess {
  /** The engine's own name of the read (DynamoDB: Query, Scan, GetItem). */
  operation: string;
  /** The index a Query used (absent: the table's own key). */
  index?: string;
  /** The key condition of a Query, as DynamoDB evaluates it. */
  keyCondition?: string;
  /** Items the engine read to make the page (a Scan reads past what the filter drops). */
  itemsRead: number;
}

export interface RowPage {
  /** How the rows were read, on engines that say (DynamoDB). */
  access?: RowAccess;
  table: TableInfo;
  columns: ColumnInfo[];
  rows: Row[];
  /** There are more rows after this page. */
  hasMore: boolean;
  /** The page stopped at maxBytes before `limit` rows. */
  truncated: boolean;
  /** Values over maxValueBytes, returned as null: row index on this page and column. */
  oversized?: { row: number; column: string; bytes: number }[];
  /**
   * The columns this filter's rows can be sorted by, on engines that cannot sort by any (DynamoDB:
   * the sort key of the key or index a Query reads; none for a Scan). Absent: any column.
   */
  sortable?: string[];
}

/** Reads rows of user tables by structured filter and key; identifiers come from the schema cache. */
export interface RowReader {
  /** The filter operators this engine serves (absent: every one of FILTER_OPS). */
  readonly filterOps?: readonly FilterOp[];
  /**
   * The engine's own check of a value for a column, beyond the filter language's (PostgreSQL: a
   * value's type against the column's); validateFilter and normalizeKey take it.
   */
  readonly checkValue?: ValueCheck;
  /** A page of rows (the server's table grid). Sorts by primary key when no sort is given, so pages are stable. */
  select(table: string, options?: SelectRowsOptions): Promise<RowPage>;
  /** Exact count of the rows matching the filter. */
  count(table: string, filter?: Filter, options?: RowReadOptions): Promise<number>;
  /** One row by primary key (`{ id: 5 }`, or a bare 5 for a one-column key); undefined when absent. */
  get(table: string, key: RowKey | unknown, options?: RowReadOptions): Promise<Row | undefined>;
}
