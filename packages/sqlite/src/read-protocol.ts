// What the main thread and a reading process (read-child.ts) say to each other.

/** The reading connection's case fold of any letter (SQLite's own folds ASCII alone). */
export const FOLD_FUNCTION = 'toolrow_fold';

/** The read-only layers of a reading connection, each switchable off for the tests that show the others hold alone. */
export interface ReadLayers {
  /** The file is opened read-only (SQLITE_OPEN_READONLY). */
  readOnlyOpen: boolean;
  /** PRAGMA query_only: the connection refuses any change to the database file. */
  queryOnly: boolean;
  /** An authorizer that allows reading tables and calling functions, and denies everything else. */
  authorizer: boolean;
}

/** A value as the worker hands it over: JSON's, with big integers and blobs as text. */
export type WorkerValue = string | number | null;

export type WorkerRequest =
  | { kind: 'tables'; sql: string }
  | { kind: 'plan'; sql: string }
  | {
      kind: 'query';
      sql: string;
      params: readonly unknown[];
      maxRows: number;
      maxBytes: number;
      maxValueBytes: number;
    };

export type WorkerAnswer =
  | { kind: 'tables'; tables: string[]; columns: string[] }
  | { kind: 'plan'; lines: string[] }
  | {
      kind: 'rows';
      columns: string[];
      rows: WorkerValue[][];
      truncatedBy?: 'rows' | 'bytes';
      oversized: { row: number; column: string; bytes: number }[];
    };

export type WorkerReply =
  | { ok: true; answer: WorkerAnswer }
  | { ok: false; error: { message: string; code?: string; errcode?: number } };
