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
  /**
   * The commit this change was part of when its outcome could not be told (the committer died
   * and the items do not say): the change is staged again, and `staging resolve` records what the
   * user finds. A new commit of it is safe either way (its condition refuses an applied change).
   */
  uncertainCommit?: number;
}

/** USER ONLY: what a commit whose outcome could not be told turned out to be. */
export type ResolvedOutcome = 'applied' | 'staged';

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
  | {
      ok: true;
      applied: AppliedCounts;
      changeIds: number[];
      /** Committed in this many transactions (CommitOptions.inParts); absent: one. */
      parts?: number;
    }
  | {
      ok: false;
      conflicts: StagingConflict[];
      /** In parts: the parts applied before this one was refused (each all or nothing). */
      appliedBefore?: { parts: number; applied: AppliedCounts; changeIds: number[] };
    };

export interface CommitOptions {
  /**
   * More changes than one transaction of the engine takes (DynamoDB: 100) are committed in parts,
   * in staging order, each part all or nothing, stopping at the first part refused. Without it
   * such a commit is refused, applying nothing, and the error offers this.
   */
  inParts?: boolean;
}

export interface StagingFilter {
  /** Only these change ids. */
  ids?: number[];
  table?: string;
  profile?: string;
  /** Only changes staged by this actor (what an MCP client may see of the staging area). */
  stagedBy?: Actor;
}
