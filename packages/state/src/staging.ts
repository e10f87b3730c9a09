// The staging area: changes the agent and MCP clients stage, and the user's commit of them —
// claimed, applied through the connection's engine, recorded, and settled after a crash. Each part
// is a module of staging/: stage (check an edit, record it), commit (claim, apply, settle), recover.
import type { DataSource } from '@toolrow/datasource';
import { commitChanges } from './staging/commit.ts';
import { changesWhere, stagingContext, tableFilterOf } from './staging/context.ts';
import { recover, resolveUncertain } from './staging/recover.ts';
import { selection, toChange } from './staging/shared.ts';
import { stageDelete, stageInsert, stageUpdate } from './staging/stage.ts';
import type {
  ChangeDiff,
  ColumnDiff,
  StagedChange,
  Staging,
  StagingFilter,
  StagingOptions,
} from './staging/types.ts';
import type { StateDb } from './store/state-db.ts';

export { reviewDigest } from './staging/review.ts';
export { COMMIT_LEASE_MS } from './staging/shared.ts';
export type * from './staging/types.ts';

/**
 * The staging area: changes are recorded in Toolrow's own store (`db`), checked against and
 * applied to the user's data (`source`) only when the user commits.
 */
export function createStaging(db: StateDb, source: DataSource, options: StagingOptions = {}): Staging {
  const ctx = stagingContext(db, source, options);

  async function list(filter?: StagingFilter): Promise<StagedChange[]> {
    await recover(ctx);
    const rows = await ctx.q
      .selectFrom('staged_changes')
      .selectAll()
      .where(selection(filter, await tableFilterOf(ctx, filter), ctx.connection))
      .orderBy('id')
      .execute();
    return rows.map(toChange);
  }

  return {
    recover: () => recover(ctx),
    stageInsert: (table, rows, meta) => stageInsert(ctx, table, rows, meta),
    stageUpdate: (table, updates, meta) => stageUpdate(ctx, table, updates, meta),
    stageDelete: (table, keys, meta, seen) => stageDelete(ctx, table, keys, meta, seen),
    list,
    async diff(filter) {
      const changes = await list(filter);
      return changes.map((change): ChangeDiff => {
        const columns: ColumnDiff[] = [];
        if (change.kind === 'insert') {
          for (const [column, after] of Object.entries(change.values ?? {}))
            columns.push({ column, before: undefined, after });
        } else if (change.kind === 'delete') {
          for (const [column, before] of Object.entries(change.before ?? {}))
            columns.push({ column, before, after: undefined });
        } else {
          for (const [column, after] of Object.entries(change.values ?? {})) {
            const before = change.before?.[column];
            if (JSON.stringify(before) !== JSON.stringify(after)) columns.push({ column, before, after });
          }
        }
        return { change, columns };
      });
    },

    commit: (filter, commitOptions) => commitChanges(ctx, filter, commitOptions),
    async check(filter) {
      const where = selection(filter, await tableFilterOf(ctx, filter), ctx.connection);
      const changes = await changesWhere(ctx, (qb) => qb.where(where).where('commit_id', 'is', null));
      return changes.length === 0 ? [] : ctx.writer().check(changes);
    },

    resolve: (commitId, outcome) => resolveUncertain(ctx, commitId, outcome),
    async discard(filter) {
      await recover(ctx);
      const result = await ctx.q
        .deleteFrom('staged_changes')
        .where(selection(filter, await tableFilterOf(ctx, filter), ctx.connection))
        .where('commit_id', 'is', null)
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
