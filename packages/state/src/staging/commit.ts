import { type ChangeToApply, type ChangeWriter, DataSourceError } from '@toolrow/datasource';
import { lockRows } from '../store/state-db.ts';
import { changesWhere, type StagingContext, tableFilterOf } from './context.ts';
import { checkCommitter, idList, recordStagingAudit } from './people.ts';
import { recover, settle, settleUncertain } from './recover.ts';
import { reviewDigest } from './review.ts';
import { ClaimLost, selection, toChange, type Where } from './shared.ts';
import type { CommitOptions, CommitResult, StagingFilter } from './types.ts';

/** Who commits in team mode, checked again inside the claim's transaction. */
type Approver = CommitOptions['approver'];

/** Four eyes: none of the changes is the approver's own. */
function refuseOwn(person: string, own: readonly { id: number; table: string }[]): never {
  const list = own
    .slice(0, 5)
    .map((change) => `#${change.id} (${change.table})`)
    .join(', ');
  throw new DataSourceError(
    'permission',
    `Four eyes: ${person} staged ${own.length === 1 ? 'change' : 'changes'} ${list}${own.length > 5 ? ` and ${own.length - 5} more` : ''}, and nobody commits their own change. Nothing was applied. Another approver must review and commit ${own.length === 1 ? 'it' : 'them'}.`,
  );
}

/**
 * The approver's review still holds: the listing the filter names (without its ids) is exactly
 * what they reviewed, and none of what they commit is theirs. Returns the ids to commit (the
 * filter's within that listing), which the commit then keeps to: a change staged after the review
 * is not swept in.
 */
async function checkReview(
  ctx: StagingContext,
  filter: StagingFilter | undefined,
  table: Awaited<ReturnType<typeof tableFilterOf>>,
  approver: NonNullable<Approver>,
): Promise<number[]> {
  const { ids, ...listed } = filter ?? {};
  const listing = (
    await ctx.q
      .selectFrom('staged_changes')
      .selectAll()
      .where(selection(listed, table, ctx.connection))
      .where('commit_id', 'is', null)
      .orderBy('id')
      .execute()
  ).map(toChange);
  if (reviewDigest(listing) !== approver.reviewed) {
    throw new DataSourceError(
      'stale-review',
      `The staged changes are not the ones you reviewed: ${listing.length} ${listing.length === 1 ? 'is' : 'are'} listed now, and a change was added, edited, committed or discarded since. Nothing was applied. Review them again, then commit.`,
    );
  }
  const wanted = ids ? new Set(ids.map(Number)) : undefined;
  const selected = wanted ? listing.filter((change) => wanted.has(change.id)) : listing;
  const own = selected.filter((change) => change.person === approver.person);
  if (own.length > 0) refuseOwn(approver.person, own);
  return selected.map((change) => change.id);
}

/** Renews this process's claim while its transaction is out, so no reader takes it for abandoned. */
export function renewLease(ctx: StagingContext, id: number): () => void {
  const timer = setInterval(() => {
    void ctx.q
      .updateTable('commits')
      .set({ lease_until: new Date(Date.now() + ctx.leaseMs) })
      .where('id', '=', id)
      .where('state', '=', 'applying')
      .execute()
      .catch(() => {});
  }, ctx.leaseMs / 3);
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * Claims the changes for a commit whose write transaction is `xid`, in one transaction of the
 * state store: all of them, or none (ClaimLost: another commit took some, or they were discarded).
 */
export async function claim(
  ctx: StagingContext,
  ids: readonly number[],
  xid: string,
  replay: string | undefined,
  approver?: Approver,
): Promise<number> {
  return ctx.q.transaction().execute(async (tx) => {
    const free = await tx
      .selectFrom('staged_changes')
      .select(['id', 'person', 'table_schema', 'table_name'])
      .where('id', 'in', [...ids])
      .where('commit_id', 'is', null)
      .orderBy('id')
      .$call(lockRows(ctx.dialect))
      .execute();
    if (free.length !== ids.length) throw new ClaimLost();
    // Four eyes again, in the claim's own transaction: this layer holds without the review check.
    if (approver) {
      const own = free.filter((row) => row.person === approver.person);
      if (own.length > 0)
        refuseOwn(
          approver.person,
          own.map((row) => ({ id: Number(row.id), table: `${row.table_schema}.${row.table_name}` })),
        );
    }
    const { id } = await tx
      .insertInto('commits')
      .values({
        state: 'applying',
        committed_by: 'user',
        xid,
        holder: ctx.holder,
        lease_until: new Date(Date.now() + ctx.leaseMs),
        replay: replay ?? null,
        person: approver?.person ?? null,
        reviewed: approver?.reviewed ?? null,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await tx
      .updateTable('staged_changes')
      .set({ commit_id: Number(id) })
      .where('id', 'in', [...ids])
      .execute();
    return Number(id);
  });
}

/**
 * The write failed after the claim (or its answer was lost): this committer asks the database what
 * became of its own transaction, and settles it. An outcome that cannot be told is never left to
 * block: the changes are staged again, flagged for the user to resolve.
 */
export async function afterFailedApply(
  ctx: StagingContext,
  claimed: { id: number; xid: string; replay?: string; at: Date },
  changes: ChangeToApply[],
  error: unknown,
): Promise<CommitResult> {
  const status = await ctx
    .writer()
    .transactionStatus(claimed.xid, changes, {
      ...(claimed.replay ? { replay: claimed.replay } : {}),
      claimedAt: claimed.at,
    })
    .catch(() => 'unknown' as const);
  const ids = changes.map((change) => change.id);
  if (status === 'committed') {
    await settle(ctx, claimed.id, 'applied', null, 'recognised as applied after its answer was lost');
    const applied = { insert: 0, update: 0, delete: 0 };
    for (const change of changes) applied[change.kind]++;
    return { ok: true, applied, changeIds: ids };
  }
  if (status === 'aborted') {
    await settle(ctx, claimed.id, 'failed', null, (error as Error).message);
    throw error;
  }
  if (status === 'in progress') {
    // Still running in the database: the lease lapses now, so the next reader settles it.
    await ctx.q
      .updateTable('commits')
      .set({ lease_until: new Date() })
      .where('id', '=', claimed.id)
      .execute();
    return unsettled();
  }
  await settleUncertain(ctx, claimed.id);
  throw new DataSourceError(
    'connection',
    `The commit failed (${(error as Error).message}) and the database cannot tell whether it was applied. Its ${ids.length} change${ids.length === 1 ? ' is' : 's are'} staged again, flagged as commit #${claimed.id}: look at the items, then record what you find with toolrow staging resolve ${claimed.id} applied (or staged). Committing them again is safe: a change already applied is refused as changed.`,
    { cause: error },
  );
}

export async function unsettled(): Promise<never> {
  throw new DataSourceError(
    'connection',
    'These changes are being committed by another process right now (or the database has not finished the transaction): run the command again in a moment. A commit is never applied twice.',
  );
}

/**
 * The selected changes in parts of at most `max`, in staging order, each its own commit (all or
 * nothing), stopping at the first part refused: what the user confirmed for an engine whose
 * transactions take at most `max` items.
 */
export async function commitInParts(
  ctx: StagingContext,
  ids: number[],
  max: number,
  approver?: Approver,
): Promise<CommitResult> {
  const done = { parts: 0, applied: { insert: 0, update: 0, delete: 0 }, changeIds: [] as number[] };
  for (let start = 0; start < ids.length; start += max) {
    const part = selection({ ids: ids.slice(start, start + max) }, undefined, ctx.connection);
    const result = await commitWhere(ctx, part, approver);
    if (!result.ok) return done.parts > 0 ? { ...result, appliedBefore: done } : result;
    done.parts++;
    for (const kind of ['insert', 'update', 'delete'] as const) done.applied[kind] += result.applied[kind];
    done.changeIds.push(...result.changeIds);
  }
  return { ok: true, applied: done.applied, changeIds: done.changeIds, parts: done.parts };
}

/** See Staging.commit: the commit, then its line in the audit log (whatever the outcome applied). */
export async function commitChanges(
  ctx: StagingContext,
  filter: StagingFilter | undefined,
  options: CommitOptions = {},
): Promise<CommitResult> {
  // Settles what dead committers left; a live committer's claim only keeps its own changes.
  await recover(ctx, { finish: true });
  const { approver } = options;
  // On a team's store: an approver, named, reviewing (the claim checks their own changes again).
  await checkCommitter(ctx.q, approver);
  const table = await tableFilterOf(ctx, filter);
  const where = approver
    ? selection({ ids: await checkReview(ctx, filter, table, approver) }, undefined, ctx.connection)
    : selection(filter, table, ctx.connection);
  const authors = await authorsOf(ctx, where);
  const result = await commitSelected(ctx, where, options);
  const applied = result.ok ? result.changeIds : (result.appliedBefore?.changeIds ?? []);
  if (applied.length > 0) {
    const by = authors.filter((author) => applied.includes(author.id)).map((author) => author.name);
    const count = `${applied.length} change${applied.length === 1 ? '' : 's'} (${idList(applied)})`;
    await recordStagingAudit(ctx.q, {
      tool: 'commitStaged',
      input: { ids: applied, ...(approver ? { reviewed: approver.reviewed } : {}) },
      profile: filter?.profile ?? ctx.connection,
      by: { actor: options.by?.actor ?? 'user', person: approver?.person ?? options.by?.person ?? null },
      detail: `${approver ? 'approved and committed' : 'committed'} ${count} staged by ${[...new Set(by)].join(', ')}${result.ok ? '' : ', before a later part was refused'}.`,
    });
  }
  return result;
}

/** Who staged each selected change: their person, else the actor. */
async function authorsOf(ctx: StagingContext, where: Where): Promise<{ id: number; name: string }[]> {
  const rows = await ctx.q
    .selectFrom('staged_changes')
    .select(['id', 'person', 'staged_by'])
    .where(where)
    .where('commit_id', 'is', null)
    .execute();
  return rows.map((row) => ({ id: Number(row.id), name: row.person ?? row.staged_by }));
}

async function commitSelected(
  ctx: StagingContext,
  where: Where,
  options: CommitOptions,
): Promise<CommitResult> {
  const { approver } = options;
  const max = ctx.writer().maxChangesPerTransaction;
  if (max !== undefined) {
    const selected = (await changesWhere(ctx, (qb) => qb.where(where).where('commit_id', 'is', null))).map(
      (change) => change.id,
    );
    if (selected.length > max) {
      const parts = Math.ceil(selected.length / max);
      if (!options.inParts) {
        throw new DataSourceError(
          'invalid-change',
          `${ctx.source.description} applies at most ${max} changes in one transaction, and ${selected.length} are selected: nothing was applied. Commit them in ${parts} parts of at most ${max}, each all or nothing (toolrow staging commit --in-parts; in the app, Commit offers it), or select at most ${max}.`,
        );
      }
      return commitInParts(ctx, selected, max, approver);
    }
  }
  return commitWhere(ctx, where, approver);
}

/** Commits what `where` selects now, in one transaction of the data. */
async function commitWhere(ctx: StagingContext, where: Where, approver: Approver): Promise<CommitResult> {
  // Read what to commit, then claim it inside the data's write transaction, recording that
  // transaction's id in the same state transaction as the claim. A claimed commit therefore always
  // names a transaction whose outcome the data database decides: no reader, second process,
  // crash or retry can free a claim whose changes may still be applied.
  for (let attempt = 1; ; attempt++) {
    const changes = await changesWhere(ctx, (qb) => qb.where(where).where('commit_id', 'is', null));
    if (changes.length === 0)
      return { ok: true, applied: { insert: 0, update: 0, delete: 0 }, changeIds: [] };
    const ids = changes.map((change) => change.id);
    let claimed: { id: number; xid: string; replay?: string; at: Date } | undefined;
    let stopRenewing: (() => void) | undefined;
    let result: Awaited<ReturnType<ChangeWriter['apply']>>;
    try {
      result = await ctx.writer().apply(changes, {
        onTransaction: async (xid, replay) => {
          const at = new Date();
          const id = await claim(ctx, ids, xid, replay, approver);
          claimed = { id, xid, at, ...(replay ? { replay } : {}) };
          stopRenewing = renewLease(ctx, id);
          await ctx.fault('claimed');
        },
      });
    } catch (error) {
      stopRenewing?.();
      if (error instanceof ClaimLost) {
        if (attempt < 10) continue;
        return unsettled();
      }
      if (claimed === undefined) throw error;
      return afterFailedApply(ctx, claimed, changes, error);
    }
    stopRenewing?.();
    await ctx.fault('data-committed');
    if (!result.ok) {
      if (claimed) await settle(ctx, claimed.id, 'failed', null, 'conflicts');
      else {
        // Refused before any claim (the engine's check): when another commit took some of
        // these changes meanwhile, its write is what the check saw. Start again from what is left.
        const left = await changesWhere(ctx, (qb) =>
          qb.where('id', 'in', ids).where('commit_id', 'is', null),
        );
        if (left.length !== ids.length && attempt < 10) continue;
      }
      return { ok: false, conflicts: result.conflicts };
    }
    // An engine may find nothing to write (an insert and its delete): no claim was needed.
    if (claimed) await settle(ctx, claimed.id, 'applied', result.applied, null);
    return { ok: true, applied: result.applied, changeIds: ids };
  }
}
