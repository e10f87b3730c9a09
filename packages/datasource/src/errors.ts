import type { Row, RowKey } from './types.ts';
/**
 * Every error this package throws on purpose is a DataSourceError: `code` is stable for programs,
 * `message` says what is wrong and how to fix it (tools pass it to the model as is).
 */
export type DataSourceErrorCode =
  | 'config'
  | 'connection'
  | 'unknown-table'
  | 'unknown-column'
  | 'invalid-filter'
  /** A sort the engine cannot serve for this filter (DynamoDB reads in key order only). */
  | 'invalid-sort'
  | 'invalid-key'
  | 'row-not-found'
  | 'invalid-change'
  | 'staging-conflict'
  | 'export-path'
  | 'export'
  | 'not-found'
  | 'already-exists'
  | 'seed'
  | 'timeout'
  /** A read needed more than the engine can hold (the embedded database's memory). */
  | 'too-large'
  /** The connection lacks a privilege the operation needs (e.g. a commit through a SELECT-only user). */
  | 'permission'
  /** The caller's AbortSignal fired: the read was stopped (or never started). */
  | 'aborted'
  /** The connection's engine lacks the feature the operation needs (a read-only engine's commit). */
  | 'unsupported'
  /** Team mode: the staged changes differ from the ones the approver reviewed (nothing was applied). */
  | 'stale-review'
  | 'misuse';

export class DataSourceError extends Error {
  override name = 'DataSourceError';
  readonly code: DataSourceErrorCode;
  constructor(code: DataSourceErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

/** An unknown table or column: `suggestions` holds the nearest known names (best first). */
export class UnknownNameError extends DataSourceError {
  override name = 'UnknownNameError';
  readonly unknown: string;
  readonly suggestions: readonly string[];
  constructor(
    code: 'unknown-table' | 'unknown-column',
    unknown: string,
    suggestions: readonly string[],
    message: string,
  ) {
    super(code, message);
    this.unknown = unknown;
    this.suggestions = suggestions;
  }
}

/** One column a person (or model) read that holds something else now. */
export interface StaleColumn {
  column: string;
  /** The value as it was read. */
  seen: unknown;
  /** The value as the row holds it now (undefined: the column is gone from the item). */
  now: unknown;
}

/**
 * An edit based on values that changed after they were read (another writer came in between):
 * nothing is staged, so the edit never silently overwrites the other writer's value. `current`
 * is the row as it is now, for the person to look at and decide.
 */
export class StaleEditError extends DataSourceError {
  override name = 'StaleEditError';
  readonly table: string;
  readonly key: RowKey | null;
  readonly columns: readonly StaleColumn[];
  readonly current: Row | null;
  constructor(
    details: { table: string; key: RowKey | null; columns: readonly StaleColumn[]; current: Row | null },
    message: string,
  ) {
    super('staging-conflict', message);
    this.table = details.table;
    this.key = details.key;
    this.columns = details.columns;
    this.current = details.current;
  }
}

/**
 * A read refused before it started because it would evaluate more items than the connection lets
 * one read (a DynamoDB Scan past `maxItemsRead`): `items` is what it would read, `bound` the
 * connection's. A person may confirm a larger read; the agent cannot.
 */
export class ReadBoundError extends DataSourceError {
  override name = 'ReadBoundError';
  readonly items: number;
  readonly bound: number;
  constructor(details: { items: number; bound: number }, message: string) {
    super('too-large', message);
    this.items = details.items;
    this.bound = details.bound;
  }
}

/** Who holds an embedded database's data directory. */
export interface DataDirOwner {
  pid: number;
  hostname: string;
  startedAt: string;
  command: string;
}

/** The embedded database is open in another process (PGlite allows one per data directory). */
export class DataDirHeldError extends DataSourceError {
  override name = 'DataDirHeldError';
  readonly owner: DataDirOwner;
  constructor(owner: DataDirOwner, message: string) {
    super('connection', message);
    this.owner = owner;
  }
}

/**
 * What a read stopped by its caller's AbortSignal fails with. Not the signal's reason: a tool
 * passes this message to the model, and callers tell it apart by its code.
 */
export function abortedError(cause?: unknown): DataSourceError {
  return new DataSourceError(
    'aborted',
    'The query was cancelled because the request was aborted (the user stopped the turn, closed the page, or the client cancelled the call). Nothing was changed; run it again if it is still needed.',
    cause === undefined ? undefined : { cause },
  );
}

export function isDataSourceError(error: unknown, code?: DataSourceErrorCode): error is DataSourceError {
  return error instanceof DataSourceError && (code === undefined || error.code === code);
}
