import type { Actor, ChangeKind, Row, RowKey, StagingConflict } from '@toolrow/datasource';

/** One staged change: recorded by the stage tools, applied only when the user commits. */
export interface StagedChange {
  id: number;
  kind: ChangeKind;
  /** Qualified table name ("public.orders"). */
  table: string;
  /** Primary key of the row; for an insert, the key given in its values (null if the database assigns it). */
  key: RowKey | null;
  /** The whole row as it was when staged (update/delete); null for an insert. */
  before: Row | null;
  /** insert: the new row's values; update: only the columns that change; delete: null. */
  values: Row | null;
  stagedBy: Actor;
  profile: string;
  createdAt: Date;
}

export interface ColumnDiff {
  column: string;
  before: unknown;
  after: unknown;
}

export interface ChangeDiff {
  change: StagedChange;
  /** The columns whose value differs (insert: every given column, before undefined; delete: every column, after undefined). */
  columns: ColumnDiff[];
}

export interface StageMeta {
  actor: Actor;
  profile?: string;
}

export interface AppliedCounts {
  insert: number;
  update: number;
  delete: number;
}

export type CommitResult =
  | { ok: true; applied: AppliedCounts; changeIds: number[] }
  | { ok: false; conflicts: StagingConflict[] };

export interface StagingFilter {
  /** Only these change ids. */
  ids?: number[];
  table?: string;
  profile?: string;
  /** Only changes staged by this actor (what an MCP client may see of the staging area). */
  stagedBy?: Actor;
}
