// What a bounded read takes and returns, the same on every engine.
import type { Row } from './types.ts';

/** A column of a result: its name and, where the engine has one, its type's numeric id. */
export interface FieldInfo {
  name: string;
  typeId?: number;
}

export interface ReadOnlyOptions {
  /**
   * statement_timeout for every statement in the transaction, in ms (default 10 000; 0 = none).
   * PostgreSQL enforces it; PGlite on disk stops an overrunning statement by restarting its worker
   * (DataSourceError code 'timeout'); in-memory PGlite ignores it (README "Known limits").
   */
  timeoutMs?: number;
  /**
   * Aborting stops the read and fails the call with DataSourceError code 'aborted'; an already
   * aborted signal runs nothing. PostgreSQL cancels the running statement server-side; on-disk
   * PGlite stops it by restarting its worker (as at a timeout); in-memory PGlite checks the signal
   * between statements only (README "Known limits"). A read that has finished is unaffected.
   */
  signal?: AbortSignal;
  /**
   * Whose read it is: the user's own ('interactive', the default: the app, the CLI, the chat) or a
   * client's in the background (an MCP client). On embedded PGlite, one connection shared by all,
   * the user's reads go first, and a client's read gives way to one: it is stopped and run again
   * from the start after, so a background readOnly's fn must be safe to run twice (one read, no
   * rows handed out before it returns). Other engines ignore it.
   */
  priority?: ReadPriority;
}

/** Whose read it is: see ReadOnlyOptions.priority. */
export type ReadPriority = 'interactive' | 'background';

export interface ReadQueryOptions extends ReadOnlyOptions {
  /** Row cap: at most this many rows come back; `truncated` says there were more (default 1000). */
  maxRows?: number;
  /**
   * Byte cap on the whole result, as text (default 4 MiB): rows stop once it is reached, and
   * `truncated` says so. Counted in Node, so one batch may overshoot by at most a batch of rows.
   */
  maxBytes?: number;
  /**
   * Items an engine that reads by pages may read to find the rows (DynamoDB: items evaluated by a
   * Scan; default 100,000). Past it the read stops, and `truncatedBy` is 'reads'.
   */
  maxItemsRead?: number;
  /**
   * Byte cap on one value, as text (default 64 KiB), checked by the server: a bigger value never
   * leaves it. It comes back as null, and `oversized` names where.
   */
  maxValueBytes?: number;
}

export interface ReadQueryResult<R = Row> {
  rows: R[];
  fields: FieldInfo[];
  /** True when the statement had more rows than maxRows, or the result more bytes than maxBytes. */
  truncated: boolean;
  /** Why it was truncated, when it was ('reads': the engine stopped reading, see `readStop`). */
  truncatedBy?: 'rows' | 'bytes' | 'reads';
  /** What the engine read before it stopped, in words, when truncatedBy is 'reads'. */
  readStop?: string;
  /** Values over maxValueBytes, replaced by null: row index (0-based) and column name. */
  oversized?: { row: number; column: string; bytes: number }[];
  /** What the engine read to answer, per table, where it says (DynamoDB: the operation and items). */
  reads?: TableRead[];
}

/** How one table was read for a statement, and what it cost. */
export interface TableRead {
  table: string;
  /** The engine's own name of the read (DynamoDB: GetItem, BatchGetItem, Query, Scan). */
  operation: string;
  /** The index a Query read (absent: the table's own key). */
  index?: string;
  /** Items the engine read (a Scan's and a Query's scanned count). */
  items: number;
  /** Read capacity units, where the service reports them. */
  capacity?: number;
  /**
   * What to know of this read: why it differs from the plan (a lookup of too many values read by
   * Scan instead), that it sampled the table's schema, that no item had an attribute asked for.
   */
  note?: string;
}
