import type { TableInfo } from './schema-types.ts';
import type { Row, RowKey } from './types.ts';

export type ChangeKind = 'insert' | 'update' | 'delete';

/**
 * One change to apply to a table, as the staging area recorded it. Keys and row images travel as
 * JSON text from the database that produced them to the one that checks them, never through JS
 * numbers: a bigint or numeric(30,10) survives exactly, so "unchanged since staging" is exact.
 */
export interface ChangeToApply {
  /** The staging area's id for the change (named in errors and conflicts). */
  id: number;
  kind: ChangeKind;
  schema: string;
  table: string;
  /** JSON text of the primary key; null for an insert whose key the database assigns. */
  keyJson: string | null;
  /** JSON text of the whole row when it was staged (update/delete); null for an insert. */
  beforeJson: string | null;
  /** JSON text of the new values (insert: the row; update: the changed columns); null for a delete. */
  valuesJson: string | null;
}

export interface StagingConflict {
  changeId: number;
  table: string;
  key: RowKey | null;
  /**
   * changed: the row differs from when it was staged; missing: it was deleted; exists: an
   * insert's key is taken; referenced: a delete that other rows still reference under a foreign
   * key that neither cascades nor sets null (a check's finding: the commit's database refuses it).
   */
  reason: 'changed' | 'missing' | 'exists' | 'referenced';
  /** The row now (changed / exists). */
  current: Row | null;
  /** Columns that differ from the staged snapshot (changed). */
  changedColumns: string[];
  /** referenced: which rows still point at it (`rows` of at most 50; `more` when there are more). */
  referencedBy?: { table: string; columns: string[]; rows: number; more: boolean };
}

export type ApplyResult =
  | { ok: true; applied: { insert: number; update: number; delete: number } }
  | { ok: false; conflicts: StagingConflict[] };

export interface ApplyOptions {
  /**
   * Called inside the write transaction, before anything is changed, with its transaction id
   * (PostgreSQL's pg_current_xact_id; an engine without one makes an id of its own). The staging area records it first: if the process dies after COMMIT but
   * before the staging area hears of it, transactionStatus tells what happened, so a commit is
   * never applied twice nor reported as a conflict with itself. Throwing rolls everything back.
   */
  onTransaction?: (xid: string, replay?: string) => Promise<void>;
}

/**
 * What a recoverer knows of a claimed commit besides its transaction id: the request the engine
 * handed to onTransaction (an engine that can resend it to learn the outcome, DynamoDB with its
 * ClientRequestToken, does), and when it was claimed.
 */
export interface CommitRecord {
  replay?: string;
  claimedAt?: Date;
}

export type ChangeProtection =
  | { kind: 'version'; attribute: string; detail: string }
  | { kind: 'check'; detail: string };

/** What a transaction id's outcome is, as the database remembers it. */
export type TransactionStatus = 'committed' | 'aborted' | 'in progress' | 'unknown';

/** Where commits are written: the same connection, or TOOLROW_COMMIT_URL's. */
export interface WriterInfo {
  /** Where it points, without secrets. */
  description: string;
  source: 'embedded' | 'DATABASE_URL' | 'TOOLROW_COMMIT_URL' | 'option';
}

/**
 * The data side of staging: reading a row as it is now, converting values to the column types,
 * and applying changes in one write transaction after checking each row is as it was staged.
 * Nothing here knows where staged changes are kept.
 */
export interface ChangeWriter {
  readonly writer: WriterInfo;
  /**
   * The most changes one transaction can apply, where the engine has a limit (DynamoDB's
   * TransactWriteItems: 100 items). Absent: no limit.
   */
  readonly maxChangesPerTransaction?: number;
  /** JSON text of the row with this key as it is now, or null when there is none. Read-only. */
  currentRowJson(table: TableInfo, key: RowKey): Promise<string | null>;
  /**
   * The values as the engine stores them in the table's column types, as JSON text (read-only):
   * type errors surface at staging time, and what is stored is canonical.
   */
  canonicalJson(table: TableInfo, values: Row): Promise<string>;
  /**
   * Applies the changes, in order, in one transaction on the writer connection. Each row is locked
   * and compared with its staged image first; on any conflict nothing is applied and every
   * conflicting change is reported. A connection without the rights to write fails with
   * DataSourceError 'permission' naming the table and TOOLROW_COMMIT_URL.
   */
  apply(changes: readonly ChangeToApply[], options?: ApplyOptions): Promise<ApplyResult>;
  /**
   * What apply would find in conflict now, read-only and taking no locks: a staged change that has
   * gone stale is shown to the user before Commit, not only after it fails. apply checks again.
   */
  check(changes: readonly ChangeToApply[]): Promise<StagingConflict[]>;
  /**
   * The outcome of a write transaction this writer started (see ApplyOptions.onTransaction). Ask
   * before the database runs other writes after a crash: an id that never reached the log before
   * the crash is 'aborted' now, but is handed out again later. `changes` are the commit's: an
   * engine that keeps no record of its transactions (DynamoDB) decides from the items themselves.
   */
  transactionStatus(
    xid: string,
    changes?: readonly ChangeToApply[],
    record?: CommitRecord,
  ): Promise<TransactionStatus>;
  /**
   * What protects the table's items between the last check and the write, for the review to say:
   * a lock the engine takes (PostgreSQL's row locks: absent), a version attribute the write holds
   * and increments, or only the check just before the transaction.
   */
  protectionOf?(table: TableInfo): ChangeProtection;
  close(): Promise<void>;
}

/** Why a change would be refused, in words a person can act on (the CLI's and the app's text). */
export function conflictReason(conflict: StagingConflict): string {
  switch (conflict.reason) {
    case 'changed':
      return `changed since it was staged (${conflict.changedColumns.join(', ') || 'values differ'})`;
    case 'missing':
      return 'the row no longer exists';
    case 'exists':
      return 'a row with this key already exists';
    case 'referenced': {
      const by = conflict.referencedBy;
      if (!by) return 'other rows still reference it';
      const count = by.more ? `more than ${by.rows} rows` : `${by.rows} row${by.rows === 1 ? '' : 's'}`;
      return `${count} of ${by.table} still reference it (${by.columns.join(', ')}): delete or change those first, or stage their deletes too`;
    }
  }
}
