import type { Row, RowKey, StagingConflict } from '@toolrow/datasource';
import type {
  ChangeDiff,
  CommitOptions,
  CommitResult,
  ResolvedOutcome,
  StagedChange,
  StageMeta,
  StagingFilter,
} from './staging-types.ts';

/**
 * The staging area. The stage* methods are what the agent and MCP clients reach (through the stage
 * tools). commit and discard are for the USER only (CLI, server's staging review): nothing in the
 * agent path may call them.
 */
export interface Staging {
  /** Stages new rows. Columns are checked against the schema cache. */
  stageInsert(table: string, rows: Row[], meta: StageMeta): Promise<StagedChange[]>;
  /** Stages updates by primary key; records each row as it is now. A missing row is an error naming its key. */
  stageUpdate(
    table: string,
    updates: { key: RowKey | unknown; values: Row }[],
    meta: StageMeta,
  ): Promise<StagedChange[]>;
  /** Stages deletes by primary key; records each row as it is now. */
  stageDelete(table: string, keys: (RowKey | unknown)[], meta: StageMeta): Promise<StagedChange[]>;
  list(filter?: StagingFilter): Promise<StagedChange[]>;
  diff(filter?: StagingFilter): Promise<ChangeDiff[]>;
  /**
   * USER ONLY. Applies the selected changes (default: all) in one transaction, after re-reading each
   * row and checking it is unchanged since staging; on any conflict nothing is applied and the
   * conflicting rows are reported. Committed changes leave the staging area; the schema cache refreshes.
   */
  commit(filter?: StagingFilter, options?: CommitOptions): Promise<CommitResult>;
  /**
   * The selected changes (default: all) that commit would refuse now, read-only: rows changed or
   * deleted since staging, and inserts whose key is taken. Shown before Commit; commit checks again.
   */
  check(filter?: StagingFilter): Promise<StagingConflict[]>;
  /** USER ONLY. Drops the selected changes (default: all). Returns how many. */
  discard(filter?: StagingFilter): Promise<number>;
  /**
   * USER ONLY. Records the outcome of a commit that could not be told (StagedChange.uncertainCommit):
   * 'applied' drops its changes from the staging area, 'staged' keeps them staged. Returns how many
   * changes it covered; 0 when no such uncertain commit remains.
   */
  resolve(commitId: number, outcome: ResolvedOutcome): Promise<number>;
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
