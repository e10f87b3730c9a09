import type { ReadOnlyOptions, ReadQueryOptions, ReadQueryResult } from './reads.ts';

/** The language a connection's reads take (runQuery, validateQuery, explainQuery), as people and models are told it. */
export interface QueryLanguage {
  /** The language ('SQL', 'PartiQL'). */
  readonly name: string;
  /** Whose grammar and functions it follows ('PostgreSQL', 'DuckDB', 'SQLite'). */
  readonly dialect: string;
  /** A first statement to try on the sample shop (the workbench's). */
  readonly example: string;
}

/**
 * What to do instead of a refused statement, in the words of whoever reads the refusal (a model is
 * told the tools to use; a person at the workbench what to do in the app). Each is a clause.
 */
export interface StatementAdvice {
  /** The statement would change data: how changes are made instead (a sentence). */
  readonly write: string;
  /** EXPLAIN was sent: how to see a plan instead (a clause after "send the SELECT alone"). */
  readonly explain: string;
  /** The statement would write a file or a table: how to keep rows instead (a clause). */
  readonly export: string;
  /** A statistics view was asked for: where common values are shown instead (a clause). */
  readonly sample: string;
  /** Toolrow's own tables were named: where their contents are shown (a sentence). */
  readonly appState: string;
}

/** The advice a check gives when its caller brings none: in words of no one app, naming no tool. */
export const PLAIN_STATEMENT_ADVICE: StatementAdvice = {
  write: 'Queries are read-only: changes are staged and committed after review.',
  explain: 'send the SELECT alone; its plan can be shown without running it',
  export: 'export the SELECT instead',
  sample: "a column's common values can be listed",
  appState: "Toolrow's own state (staged changes, history, audit log) is read through Toolrow itself.",
};

export interface StatementCheckOptions {
  /** The refusal's advice; absent, it says what to do in words of no one app. */
  readonly advice?: StatementAdvice;
  /** Also compare the names it uses with the schema (validateQuery), as `problems`. */
  readonly names?: boolean;
}

/** A statement the check let through: what to send, the tables it reads, what its names miss. */
export interface CheckedStatement {
  /** The statement alone, as it will be sent. */
  statement: string;
  /** The tables it reads, as the statement spells them (resolved by the schema cache). */
  tables: string[];
  /** With `names`: tables and columns it names that the schema lacks, each a sentence. */
  problems?: string[];
}

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
  readonly language: QueryLanguage;
  /**
   * The language's statement check (the first read layer): one read, nothing that writes, read
   * with the language's own grammar. Returns what to send and the tables it reads; throws a
   * DataSourceError saying what to write instead.
   */
  check(text: string, options?: StatementCheckOptions): CheckedStatement | Promise<CheckedStatement>;
  /** The other languages the connection reads, each a runner of its own (DynamoDB: its own PartiQL). */
  readonly modes?: readonly QueryRunner[];
  /** Runs one read, bounded by rows, bytes and time. */
  run(statement: string, options?: ReadQueryOptions): Promise<ReadQueryResult>;
  /** Plans one read without running it; throws the engine's error when it cannot be planned. */
  plan(statement: string, options?: ReadOnlyOptions): Promise<QueryPlan>;
}
