// The staging area: changes the agent and MCP clients stage, and the user's commit of them —
// claimed, applied through the connection's engine, recorded, and settled after a crash. Each part
// is a module of staging/: stage (check an edit, record it), commit (claim, apply, settle), recover.
import type { DataSource } from '@toolrow/datasource';
import { commitChanges } from './staging/commit.ts';
import { changesWhere, stagingContext, tableFilterOf } from './staging/context.ts';
import { checkDiscarder, checkResolver, idList, recordStagingAudit } from './staging/people.ts';
import { recover, resolveUncertain } from './staging/recover.ts';
import { reviewFor } from './staging/review.ts';
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

export { TEAM_STORE_KEY } from './repositories/team-people.ts';
export { STAGING_ACTIONS, type StagingAction } from './staging/people.ts';
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

  async function diff(filter?: StagingFilter): Promise<ChangeDiff[]> {
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
  }

  return {
    recover: () => recover(ctx),
    stageInsert: (table, rows, meta) => stageInsert(ctx, table, rows, meta),
    stageUpdate: (table, updates, meta) => stageUpdate(ctx, table, updates, meta),
    stageDelete: (table, keys, meta, seen) => stageDelete(ctx, table, keys, meta, seen),
    list,
    async version(filter) {
      const row = await ctx.q
        .selectFrom('staged_changes')
        .select((eb) => [eb.fn.countAll().as('n'), eb.fn.max('id').as('last')])
        .where(selection(filter, await tableFilterOf(ctx, filter), ctx.connection))
        .where('commit_id', 'is', null)
        .executeTakeFirst();
      // New ids only grow, and a commit or discard lowers the count: together they name the listing.
      return `${Number(row?.n ?? 0)}:${Number(row?.last ?? 0)}`;
    },
    diff,

    commit: (filter, commitOptions) => commitChanges(ctx, filter, commitOptions),
    review: async (filter, reviewer) => reviewFor(await diff(filter), reviewer),
    async check(filter) {
      const where = selection(filter, await tableFilterOf(ctx, filter), ctx.connection);
      const changes = await changesWhere(ctx, (qb) => qb.where(where).where('commit_id', 'is', null));
      return changes.length === 0 ? [] : ctx.writer().check(changes);
    },

    async resolve(commitId, outcome, by) {
      await checkResolver(ctx.q, by);
      const count = await resolveUncertain(ctx, commitId, outcome);
      if (count > 0)
        await recordStagingAudit(ctx.q, {
          tool: 'resolveCommit',
          input: { commit: commitId, outcome },
          profile: ctx.connection,
          by,
          detail: `recorded commit ${commitId} as ${outcome === 'applied' ? 'applied: its' : 'not applied: its'} ${count} change${count === 1 ? '' : 's'} ${outcome === 'applied' ? 'left the staging area' : 'stay staged'}.`,
        });
      return count;
    },
    async discard(filter, by) {
      await recover(ctx);
      const where = selection(filter, await tableFilterOf(ctx, filter), ctx.connection);
      // One transaction: what is checked (whose changes) is what is dropped and audited.
      return ctx.q.transaction().execute(async (tx) => {
        const doomed = (
          await tx
            .selectFrom('staged_changes')
            .selectAll()
            .where(where)
            .where('commit_id', 'is', null)
            .execute()
        ).map(toChange);
        await checkDiscarder(tx, by, doomed);
        if (doomed.length === 0) return 0;
        const ids = doomed.map((change) => change.id);
        const result = await tx
          .deleteFrom('staged_changes')
          .where('id', 'in', ids)
          .where('commit_id', 'is', null)
          .executeTakeFirst();
        const count = Number(result.numDeletedRows);
        const tables = [...new Set(doomed.map((change) => change.table))];
        await recordStagingAudit(tx, {
          tool: 'discardStaged',
          input: { ids },
          profile: filter?.profile ?? ctx.connection,
          by,
          table: tables.length === 1 ? tables[0]! : null,
          detail: `discarded ${count} staged change${count === 1 ? '' : 's'} (${idList(ids)}) of ${tables.join(', ')}.`,
        });
        return count;
      });
    },
  };
}
