import { date, lockRows } from '../store/state-db.ts';
import { changesWhere, type StagingContext } from './context.ts';
import { holderAlive } from './shared.ts';
import type { AppliedCounts, ResolvedOutcome } from './types.ts';

/**
 * See Staging.recover. `finish`: the user is committing, so a dead committer's transaction may
 * be resent (DynamoDB: same token, applied at most once) to learn its outcome, and one whose
 * outcome still cannot be told is released flagged. A reader (list, discard, opening) only
 * settles what the data shows for certain and leaves the rest, which blocks nobody.
 */
export async function recover(
  ctx: StagingContext,
  { finish = false }: { finish?: boolean } = {},
): Promise<number[]> {
  const open = await ctx.q
    .selectFrom('commits')
    .select(['id', 'xid', 'holder', 'lease_until', 'replay', 'created_at'])
    .where('state', '=', 'applying')
    // Only commits of this ctx.connection's changes: another ctx.connection's transaction id means
    // nothing in this database.
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom('staged_changes')
          .select('staged_changes.id')
          .whereRef('staged_changes.commit_id', '=', 'commits.id')
          .where('staged_changes.connection', '=', ctx.connection),
      ),
    )
    .orderBy('id')
    .execute();
  const busy: number[] = [];
  for (const row of open) {
    const id = Number(row.id);
    // A live committer decides its own commit: a reader asking now would see items not yet
    // written and free changes about to be applied.
    if (holderAlive(row.holder, row.lease_until === null ? null : date(row.lease_until))) {
      busy.push(id);
      continue;
    }
    // A claim records its transaction's id together with it (commit below); only a commit
    // claimed by an older release can lack one, and that process is gone.
    const status =
      row.xid === null
        ? 'aborted'
        : await ctx
            .writer()
            .transactionStatus(row.xid, await changesWhere(ctx, (qb) => qb.where('commit_id', '=', id)), {
              ...(row.replay && finish ? { replay: row.replay } : {}),
              claimedAt: date(row.created_at),
            })
            .catch(() => 'in progress' as const);
    if (status === 'committed')
      await settle(ctx, id, 'applied', null, 'recognised as applied after an interrupted commit');
    else if (status === 'aborted')
      await settle(ctx, id, 'failed', null, 'interrupted before it was applied; nothing was written');
    else if (status === 'unknown' && finish) await settleUncertain(ctx, id);
    else busy.push(id);
  }
  return busy;
}

/**
 * A commit whose outcome cannot be told: its changes are staged again, flagged with it, so no
 * other commit waits for it and the user decides (resolve). Committing them again is safe: each
 * condition refuses an item that no longer holds what was staged.
 */
export async function settleUncertain(ctx: StagingContext, id: number): Promise<void> {
  await ctx.q.transaction().execute(async (tx) => {
    const current = await tx
      .selectFrom('commits')
      .select('state')
      .where('id', '=', id)
      .$call(lockRows(ctx.dialect))
      .executeTakeFirst();
    if (current?.state !== 'applying') return;
    await tx
      .updateTable('staged_changes')
      .set({ commit_id: null, uncertain_commit: id })
      .where('commit_id', '=', id)
      .execute();
    await tx
      .updateTable('commits')
      .set({
        state: 'failed',
        uncertain: true,
        error:
          'its committer stopped and the database cannot tell whether it was applied; its changes are staged again until you resolve it',
        finished_at: new Date(),
      })
      .where('id', '=', id)
      .execute();
  });
}

/**
 * Moves a commit out of 'applying', once: whoever settles it first (the committer, or any
 * process's recover) decides, and a later settle of the same commit changes nothing.
 */
export async function settle(
  ctx: StagingContext,
  id: number,
  outcome: 'applied' | 'failed',
  applied: AppliedCounts | null,
  error: string | null,
): Promise<boolean> {
  return ctx.q.transaction().execute(async (tx) => {
    const current = await tx
      .selectFrom('commits')
      .select('state')
      .where('id', '=', id)
      .$call(lockRows(ctx.dialect))
      .executeTakeFirst();
    if (current?.state !== 'applying') return false;
    if (outcome === 'applied') {
      await tx.deleteFrom('staged_changes').where('commit_id', '=', id).execute();
    } else {
      await tx.updateTable('staged_changes').set({ commit_id: null }).where('commit_id', '=', id).execute();
    }
    await tx
      .updateTable('commits')
      .set({
        state: outcome,
        applied: applied === null ? null : JSON.stringify(applied),
        error,
        finished_at: new Date(),
      })
      .where('id', '=', id)
      .execute();
    return true;
  });
}

/** See Staging.resolve. */
export async function resolveUncertain(
  ctx: StagingContext,
  commitId: number,
  outcome: ResolvedOutcome,
): Promise<number> {
  return ctx.q.transaction().execute(async (tx) => {
    const uncertain = await tx
      .selectFrom('commits')
      .select('id')
      .where('id', '=', commitId)
      .where('uncertain', '=', true)
      .$call(lockRows(ctx.dialect))
      .executeTakeFirst();
    if (!uncertain) return 0;
    const mine = (qb: ReturnType<typeof tx.updateTable<'staged_changes'>>) =>
      qb.where('uncertain_commit', '=', commitId).where('connection', '=', ctx.connection);
    let count: number;
    if (outcome === 'applied') {
      const result = await tx
        .deleteFrom('staged_changes')
        .where('uncertain_commit', '=', commitId)
        .where('connection', '=', ctx.connection)
        .where('commit_id', 'is', null)
        .executeTakeFirst();
      count = Number(result.numDeletedRows);
    } else {
      const result = await mine(tx.updateTable('staged_changes').set({ uncertain_commit: null }))
        .where('commit_id', 'is', null)
        .executeTakeFirst();
      count = Number(result.numUpdatedRows);
    }
    await tx
      .updateTable('commits')
      .set({
        uncertain: false,
        state: outcome === 'applied' ? 'applied' : 'failed',
        error: `resolved by the user: ${outcome === 'applied' ? 'it was applied' : 'it was not applied; the changes stay staged'}`,
      })
      .where('id', '=', commitId)
      .execute();
    return count;
  });
}
