import type { ReadOnlyOptions, ReadQueryOptions, ReadQueryResult } from './reads.ts';

/** The query language a connection speaks ('postgresql', 'sql', 'partiql'): what runQuery, validateQuery and explainQuery take. */
export type QueryDialect = string;

/** An estimated plan: nothing ran. */
export interface QueryPlan {
  /** The engine's own plan, one line per step (PostgreSQL's EXPLAIN text; a Query or Scan for DynamoDB). */
  lines: string[];
  /** The planner's total cost, when the engine has one. */
  totalCost?: number;
  /** What the plan means on this engine, in a sentence (for explainQuery's note). */
  note?: string;
  /** The rows the planner expects, when it says. */
  estimatedRows?: number;
  /** The items the engine expects to read (DynamoDB: gets, Query and Scan items), when it says. */
  estimatedItemsRead?: number;
  /** What may not go as meant, in sentences (an attribute no sampled item has). */
  warnings?: string[];
}

/**
 * Read-only statements in the engine's own dialect. The caller checks a statement is one read
 * first (the tools' statement check, one layer); every method here reads through the engine's own
 * read-only layers (a read-only transaction, the reader role), which hold without that check.
 */
export interface QueryRunner {
  readonly dialect: QueryDialect;
  /** How a person names the language, and a first statement to try on the sample shop (the workbench's). */
  readonly language: { readonly name: string; readonly example: string };
  /**
   * The dialect's statement check (the first read layer), where the engine brings its own: one
   * read, nothing that writes. Returns the statement to send and the tables it reads; throws a
   * DataSourceError saying what to write instead. Absent: the statement is PostgreSQL's dialect,
   * checked by the tools' guard (PostgreSQL's own grammar, libpg_query).
   */
  check?(
    text: string,
  ): { statement: string; tables: string[] } | Promise<{ statement: string; tables: string[] }>;
  /** The other languages the connection reads, each a runner of its own (DynamoDB: its own PartiQL). */
  readonly modes?: readonly QueryRunner[];
  /** Runs one read, bounded by rows, bytes and time. */
  run(statement: string, options?: ReadQueryOptions): Promise<ReadQueryResult>;
  /** Plans one read without running it; throws the engine's error when it cannot be planned. */
  plan(statement: string, options?: ReadOnlyOptions): Promise<QueryPlan>;
}
