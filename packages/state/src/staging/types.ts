import type { Actor, ChangeKind, Row, RowKey, StagingConflict } from '@toolrow/datasource';

/**
 * The staging area. The stage* methods are what the agent and MCP clients reach (through the stage
 * tools). commit and discard are for the USER only (CLI, server's staging review): nothing in the
 * agent path may call them.
 */
export interface Staging {
  /** Stages new rows. Columns are checked against the schema cache. */
  stageInsert(table: string, rows: Row[], meta: StageMeta): Promise<StagedChange[]>;
  /**
   * Stages updates by primary key; records each row as it is now. A missing row is an error naming
   * its key. `seen`: the values the edit was based on (what the person or model read); when the row
   * holds something else now, nothing is staged and a StaleEditError names each column, so an edit
   * never silently overwrites a value written after it was read.
   */
  stageUpdate(
    table: string,
    updates: { key: RowKey | unknown; values: Row; seen?: Row }[],
    meta: StageMeta,
  ): Promise<StagedChange[]>;
  /** Stages deletes by primary key; records each row as it is now. `seen[i]`: what keys[i]'s row held when read. */
  stageDelete(
    table: string,
    keys: (RowKey | unknown)[],
    meta: StageMeta,
    seen?: readonly (Row | undefined)[],
  ): Promise<StagedChange[]>;
  list(filter?: StagingFilter): Promise<StagedChange[]>;
  /**
   * A short text that changes whenever the selected changes do (a stage, commit or discard by
   * anyone on this store): what a live review polls before it reads the listing again.
   */
  version(filter?: StagingFilter): Promise<string>;
  diff(filter?: StagingFilter): Promise<ChangeDiff[]>;
  /**
   * USER ONLY. Applies the selected changes (default: all) in one transaction, after re-reading each
   * row and checking it is unchanged since staging; on any conflict nothing is applied and the
   * conflicting rows are reported. Committed changes leave the staging area; the schema cache refreshes.
   */
  commit(filter?: StagingFilter, options?: CommitOptions): Promise<CommitResult>;
  /**
   * What a review of `filter`'s changes shows `reviewer` (team mode): its digest, which a commit
   * names to approve exactly these, and whether this person may commit them, with why not.
   */
  review(filter: StagingFilter | undefined, reviewer?: Reviewer): Promise<Review>;
  /**
   * The selected changes (default: all) that commit would refuse now, read-only: rows changed or
   * deleted since staging, and inserts whose key is taken. Shown before Commit; commit checks again.
   */
  check(filter?: StagingFilter): Promise<StagingConflict[]>;
  /** USER ONLY. Drops the selected changes (default: all), by `by` (audited). Returns how many. */
  discard(filter?: StagingFilter, by?: StagingBy): Promise<number>;
  /**
   * USER ONLY. Records the outcome of a commit that could not be told (StagedChange.uncertainCommit):
   * 'applied' drops its changes from the staging area, 'staged' keeps them staged. Returns how many
   * changes it covered; 0 when no such uncertain commit remains.
   */
  resolve(commitId: number, outcome: ResolvedOutcome, by?: StagingBy): Promise<number>;
  /**
   * Settles commits a process left behind (it died or lost its connection mid-commit): one whose
   * write transaction committed is recorded as applied, one that did not frees its changes, and
   * one whose outcome cannot be told frees them flagged (uncertainCommit) for the user to resolve.
   * A commit whose committer is alive (its lease is renewed) is never decided here. Opening the
   * state does this first; list, commit and discard again. Returns the ids of commits still being
   * applied (by a live committer, or still in progress in the database).
   */
  recover(): Promise<number[]>;
}

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
  /** Team mode: the person whose change it is (the agent's or an MCP client's is its person's); null otherwise. */
  person: string | null;
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
  /** Team mode: the signed-in person the actor acts for (their email). */
  person?: string | null;
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
  /**
   * Team mode's four eyes: the approver committing, and the review they saw: reviewDigest of the
   * listing the filter names without its ids (what `review` returned); the ids pick within it. A
   * change of theirs is refused ('permission'), and so is a listing that differs from what they
   * reviewed ('stale-review'): nothing is applied either way. On a team's store it is required.
   */
  approver?: { person: string; reviewed?: string | undefined };
  /** Who commits when no approver is named (default the user, nobody named): the audit line's. */
  by?: StagingBy;
}

/** Who a commit, discard or resolve is by (default: the user, nobody named). */
export interface StagingBy {
  actor?: Actor;
  /** Team mode: the signed-in person (their email). */
  person?: string | null;
}

/** A team member as a review sees them. */
export interface Reviewer {
  email: string;
  role: 'viewer' | 'analyst' | 'approver' | 'admin';
}

export interface Review {
  /** The changes listed, each with what it changes. */
  diffs: ChangeDiff[];
  /** reviewDigest of the changes: what CommitOptions.approver.reviewed names. */
  digest: string;
  /** With a reviewer: */
  you?: string;
  approver?: boolean;
  mayCommit?: boolean;
  /** Why this reviewer may not commit them. */
  why?: string;
}

export interface StagingFilter {
  /** Only these change ids. */
  ids?: number[];
  table?: string;
  profile?: string;
  /** Only changes staged by this actor (what an MCP client may see of the staging area). */
  stagedBy?: Actor;
}

/**
 * Points in a commit where a test can stop the process (see StagingOptions.faults): 'claimed' is
 * inside the data's write transaction, after the claim and its transaction id are recorded and
 * before any row is written; 'data-committed' is after the data's COMMIT, before the staging area
 * records the outcome.
 */
export type CommitPoint = 'claimed' | 'data-committed';

export interface StagingOptions {
  /** Test hook: called at each CommitPoint; a test kills the process there to prove recovery. */
  faults?: (point: CommitPoint) => void | Promise<void>;
  /** How long a claim holds unrenewed (default COMMIT_LEASE_MS; tests shorten it). */
  leaseMs?: number;
  /** Test hook: the holder this area's claims name (default this process: host:pid:id). */
  holder?: string;
  /**
   * The connection whose data this staging area commits to (default 'default', the unnamed one).
   * It sees, commits and recovers only that connection's changes: another connection's staged rows
   * are never applied here.
   */
  connection?: string;
}
