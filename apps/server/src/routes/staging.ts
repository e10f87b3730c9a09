// Staging review: the user's own edits, commit, discard, resolve; and the staging area as the CLI reads it.
import { type ChangeProtection, type DataSource, featureOf } from '@toolrow/datasource';
import { reviewDigest, type StagingFilter, type ToolrowState } from '@toolrow/state';
import { Hono } from 'hono';
import { z } from 'zod';
import { changeIds, nonEmpty, readBody, rowKey } from '../body.ts';
import { badRequest, HttpError } from '../errors.ts';
import type { RequestConnection, ServerEnv, TeamMember } from '../request-connection.ts';
import { columnTypesOf, toWireChange, toWireConflict } from '../wire.ts';
import type { RouteContext } from './context.ts';
import { primaryKey } from './shared.ts';

/** Team mode: what the person did to the staging area, in the audit log under their name. */
async function auditAs(
  connection: RequestConnection,
  tool: string,
  input: unknown,
  detail: string,
): Promise<void> {
  if (!connection.person) return;
  await connection.state.audit.record({
    tool,
    input,
    decision: 'approved',
    decidedBy: 'user',
    profile: connection.profile,
    person: connection.person,
    detail: `${connection.person} ${detail}`,
  });
}

/** Team mode: whether this person may commit what the review lists (an approver, none of it theirs). */
function mayCommit(
  member: TeamMember,
  people: readonly (string | null)[],
): { approver: boolean; mayCommit: boolean; why?: string } {
  if (member.role !== 'approver' && member.role !== 'admin')
    return { approver: false, mayCommit: false, why: `As ${member.role} you stage; an approver commits.` };
  const own = people.filter((person) => person === member.email).length;
  if (own > 0)
    return {
      approver: true,
      mayCommit: false,
      why: `${own} of these ${own === 1 ? 'is' : 'are'} yours: another approver commits ${own === 1 ? 'it' : 'them'} (four eyes).`,
    };
  return { approver: true, mayCommit: true };
}

/**
 * Team mode's commit: the listing reviewed (the profile's changes, or one table's as the CLI may
 * list them) must be unchanged (its digest), the ids pick within it, and the approver is passed to
 * the staging area, which refuses their own changes inside the commit itself.
 */
async function approvedCommit(
  state: ToolrowState,
  view: { profile: string; table?: string },
  member: TeamMember,
  body: { ids?: number[] | null | undefined; reviewed?: string | undefined },
) {
  if (!body.reviewed)
    throw new HttpError(
      400,
      'bad-request',
      'A commit on a team names the review it approves: send reviewed, the review.digest GET /api/staging returned.',
      'Open Staging, review the changes, then Commit.',
    );
  const listing = await state.staging.list(view);
  if (reviewDigest(listing) !== body.reviewed)
    throw new HttpError(
      409,
      'stale-review',
      'The staged changes are not the ones you reviewed: a change was added, edited, committed or discarded since. Nothing was applied.',
      'Review them again, then commit.',
    );
  const wanted = body.ids ? new Set(body.ids) : undefined;
  const selected = wanted ? listing.filter((change) => wanted.has(change.id)) : listing;
  return {
    filter: { profile: view.profile, ids: selected.map((change) => change.id) },
    approver: { person: member.email, reviewed: reviewDigest(selected) },
    selected,
  };
}

export function stagingRoutes(_ctx: RouteContext): Hono<ServerEnv> {
  const app = new Hono<ServerEnv>();

  app.get('/api/staging', async (c) => {
    const { source, state, profile } = c.var.connection;
    const [diffs, snapshot] = await Promise.all([state.staging.diff({ profile }), source.schema.get()]);
    const typeOf = columnTypesOf(snapshot.tables);
    const max = source.changes?.maxChangesPerTransaction;
    const member = c.get('member');
    return c.json({
      changes: diffs.map((diff) => toWireChange(diff, typeOf)),
      ...(member
        ? {
            review: {
              digest: reviewDigest(diffs.map((diff) => diff.change)),
              you: member.email,
              ...mayCommit(
                member,
                diffs.map((diff) => diff.change.person),
              ),
            },
          }
        : {}),
      // What protects each table's items between the last check and the write (the review says it).
      protection: await protectionOf(source, diffs),
      // The most one transaction takes (DynamoDB: 100): more is committed in parts, when confirmed.
      ...(max !== undefined ? { maxPerTransaction: max } : {}),
    });
  });

  // Read-only: which staged changes a commit would refuse now, so the review shows them first.
  app.post('/api/staging/check', async (c) => {
    const { state, profile } = c.var.connection;
    const body = await readBody(c, idsBody);
    const conflicts = await state.staging.check({ profile, ...(body.ids ? { ids: body.ids } : {}) });
    return c.json({ conflicts: conflicts.map(toWireConflict) });
  });

  app.post('/api/staging/update', async (c) => {
    const { state, profile } = c.var.connection;
    const body = await readBody(
      c,
      z.strictObject({
        table: nonEmpty(),
        key: primaryKey,
        values: rowKey.refine((values) => Object.keys(values).length > 0, 'expected at least one column'),
        // What the person saw of those columns: a value written since is a conflict, not overwritten.
        seen: rowKey.optional(),
      }),
    );
    const { table } = body;
    const changes = await state.staging.stageUpdate(
      table,
      [{ key: body.key, values: body.values, ...(body.seen ? { seen: body.seen } : {}) }],
      { actor: 'user', profile, person: c.var.connection.person ?? null },
    );
    await auditAs(
      c.var.connection,
      'stageUpdateRows',
      body,
      `staged an update of ${changes[0]?.table ?? table} (#${changes.map((change) => change.id).join(', #')}).`,
    );
    return c.json({ ids: changes.map((change) => String(change.id)) });
  });

  app.post('/api/staging/delete', async (c) => {
    const { state, profile } = c.var.connection;
    const body = await readBody(
      c,
      z
        .strictObject({
          table: nonEmpty(),
          keys: z.array(primaryKey).min(1),
          // seen[i]: the row keys[i] named as the person saw it.
          seen: z.array(rowKey).optional(),
        })
        .refine((value) => !value.seen || value.seen.length === value.keys.length, {
          message: 'seen must hold one row per key',
          path: ['seen'],
        }),
    );
    const { table } = body;
    const changes = await state.staging.stageDelete(
      table,
      body.keys,
      { actor: 'user', profile, person: c.var.connection.person ?? null },
      body.seen,
    );
    await auditAs(
      c.var.connection,
      'stageDeleteRows',
      body,
      `staged ${changes.length} deletes from ${changes[0]?.table ?? table}.`,
    );
    return c.json({ ids: changes.map((change) => String(change.id)) });
  });

  app.post('/api/staging/insert', async (c) => {
    const { state, profile } = c.var.connection;
    const body = await readBody(c, z.strictObject({ table: nonEmpty(), rows: z.array(rowKey).min(1) }));
    const { table } = body;
    const changes = await state.staging.stageInsert(table, body.rows, {
      actor: 'user',
      profile,
      person: c.var.connection.person ?? null,
    });
    await auditAs(
      c.var.connection,
      'stageInsertRows',
      body,
      `staged ${changes.length} inserts into ${changes[0]?.table ?? table}.`,
    );
    return c.json({ ids: changes.map((change) => String(change.id)) });
  });

  app.post('/api/staging/commit', async (c) => {
    const { state, profile } = c.var.connection;
    const body = await readBody(
      c,
      z.strictObject({
        ids: changeIds.nullish(),
        inParts: z.boolean().optional(),
        // Team mode: review.digest of GET /api/staging, the changes the approver saw.
        reviewed: z.string().optional(),
      }),
    );
    const member = c.get('member');
    const approved = member ? await approvedCommit(state, { profile }, member, body) : undefined;
    const result = await state.staging.commit(
      approved?.filter ?? { profile, ...(body.ids ? { ids: body.ids } : {}) },
      { inParts: body.inParts === true, ...(approved ? { approver: approved.approver } : {}) },
    );
    if (approved && result.ok && result.changeIds.length > 0) {
      const authors = [...new Set(approved.selected.map((change) => change.person ?? change.stagedBy))];
      await auditAs(
        c.var.connection,
        'commitStaged',
        { ids: result.changeIds, reviewed: body.reviewed },
        `approved and committed ${result.changeIds.length} changes (#${result.changeIds.join(', #')}) staged by ${authors.join(', ')}.`,
      );
    }
    const count = (applied: { insert: number; update: number; delete: number }) =>
      applied.insert + applied.update + applied.delete;
    if (result.ok) {
      return c.json({
        committed: count(result.applied),
        conflicts: [],
        ...(result.parts ? { parts: result.parts } : {}),
      });
    }
    return c.json({
      committed: result.appliedBefore ? count(result.appliedBefore.applied) : 0,
      conflicts: result.conflicts.map(toWireConflict),
      ...(result.appliedBefore ? { parts: result.appliedBefore.parts } : {}),
    });
  });

  // A commit whose outcome could not be told: the user records what they found.
  app.post('/api/staging/resolve', async (c) => {
    const { state } = c.var.connection;
    const body = await readBody(
      c,
      z.strictObject({ commit: z.number().int().positive(), outcome: z.enum(['applied', 'staged']) }),
    );
    const resolved = await state.staging.resolve(body.commit, body.outcome);
    if (resolved === 0)
      throw new HttpError(
        404,
        'not-found',
        `No commit ${body.commit} waits to be resolved.`,
        'Reload the staging view.',
      );
    return c.json({ resolved });
  });

  app.post('/api/staging/discard', async (c) => {
    const { state, profile } = c.var.connection;
    const body = await readBody(c, idsBody);
    const discarded = await state.staging.discard({ profile, ...(body.ids ? { ids: body.ids } : {}) });
    await auditAs(c.var.connection, 'discardStaged', body, `discarded ${discarded} staged changes.`);
    return c.json({ discarded });
  });

  // Every profile unless the filter names one, and the state's own objects, so the CLI prints
  // the same through the app as over the database itself.
  // The staging area as @toolrow/state has it: what `toolrow staging` uses while the app runs.
  app.post('/api/state/staging/:action', async (c) => {
    const { source, state } = c.var.connection;
    const body = await readBody(c, stagingFilterBody);
    const filter: StagingFilter = {
      ...(body.ids ? { ids: body.ids } : {}),
      ...(body.table === undefined ? {} : { table: body.table }),
      ...(body.profile === undefined ? {} : { profile: body.profile }),
    };
    const member = c.get('member');
    // Team mode: what a review through here covers (the profile's changes, or one table's), and so
    // what a commit through here must name the digest of.
    const view = {
      profile: filter.profile ?? c.var.connection.profile,
      ...(filter.table === undefined ? {} : { table: filter.table }),
    };
    switch (c.req.param('action')) {
      case 'list': {
        const changes = await state.staging.list(filter);
        const review = member ? { review: { digest: reviewDigest(await state.staging.list(view)) } } : {};
        return c.json({ changes, ...review });
      }
      case 'diff': {
        const diffs = await state.staging.diff(filter);
        return c.json({ diffs, protection: await protectionOf(source, diffs) });
      }
      case 'commit': {
        // Team mode: the same four eyes as the review's Commit, bound to the listing it names.
        const approved = member ? await approvedCommit(state, view, member, body) : undefined;
        return c.json({
          result: await state.staging.commit(approved?.filter ?? filter, {
            inParts: body.inParts === true,
            ...(approved ? { approver: approved.approver } : {}),
          }),
          writer: featureOf(source, 'changes').writer.description,
        });
      }
      case 'check':
        return c.json({ conflicts: await state.staging.check(filter) });
      case 'discard':
        return c.json({ discarded: await state.staging.discard(filter) });
      case 'resolve': {
        if (body.commit === undefined || body.outcome === undefined)
          throw badRequest('resolve needs { commit, outcome: "applied" | "staged" }.');
        return c.json({ resolved: await state.staging.resolve(body.commit, body.outcome) });
      }
      default:
        throw new HttpError(
          404,
          'not-found',
          `No staging action '${c.req.param('action')}'.`,
          'Use list, diff, check, commit or discard.',
        );
    }
  });
  return app;
}

const idsBody = z.strictObject({ ids: changeIds.nullish() });

/** `{ ids?, table?, profile? }` of the state routes: the CLI's filter. */
const stagingFilterBody = z.object({
  ids: changeIds.nullish(),
  table: nonEmpty().optional(),
  profile: nonEmpty().optional(),
  inParts: z.boolean().optional(),
  commit: z.number().int().positive().optional(),
  outcome: z.enum(['applied', 'staged']).optional(),
  reviewed: z.string().optional(),
});

/** What protects each staged table's items between the last check and the write (null: a row lock). */
async function protectionOf(
  source: DataSource,
  diffs: readonly { change: { table: string } }[],
): Promise<Record<string, ChangeProtection | null>> {
  const names = [...new Set(diffs.map((diff) => diff.change.table))];
  return Object.fromEntries(
    await Promise.all(
      names.map(async (name) => {
        const table = await source.schema.resolveTable(name).catch(() => undefined);
        return [name, (table && source.changes?.protectionOf?.(table)) || null] as const;
      }),
    ),
  );
}
