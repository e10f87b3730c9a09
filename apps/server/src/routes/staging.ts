// Staging review: the user's own edits, commit, discard, resolve; and the staging area as the CLI reads it.
import { type ChangeProtection, type DataSource, featureOf } from '@toolrow/datasource';
import type { CommitOptions, Reviewer, StagingBy, StagingFilter } from '@toolrow/state';
import { type Context, Hono } from 'hono';
import { z } from 'zod';
import { changeIds, nonEmpty, readBody, rowKey } from '../body.ts';
import { badRequest, HttpError } from '../errors.ts';
import type { RequestConnection, ServerEnv, TeamMember } from '../request-connection.ts';
import { columnTypesOf, toWireChange, toWireConflict } from '../wire.ts';
import type { RouteContext } from './context.ts';
import { primaryKey } from './shared.ts';

/** Who the request is, as the staging area records them (the audit line, four eyes). */
function byOf(connection: RequestConnection): StagingBy {
  return { actor: 'user', person: connection.person ?? null };
}

/** Team mode: the reviewer a listing is shown to, and the approver a commit names. */
function reviewerOf(member: TeamMember | undefined): Reviewer | undefined {
  return member ? { email: member.email, role: member.role } : undefined;
}

/**
 * The commit options a request carries: in team mode the approver (the member) and the review's
 * digest they name; the staging area checks both (role, digest, their own changes) on every path.
 */
function commitOptions(
  member: TeamMember | undefined,
  body: { inParts?: boolean | undefined; reviewed?: string | undefined },
  connection: RequestConnection,
): CommitOptions {
  return {
    inParts: body.inParts === true,
    by: byOf(connection),
    ...(member ? { approver: { person: member.email, reviewed: body.reviewed } } : {}),
  };
}

export function stagingRoutes(_ctx: RouteContext): Hono<ServerEnv> {
  const app = new Hono<ServerEnv>();

  app.get('/api/staging', async (c) => {
    const { source, state, profile } = c.var.connection;
    const member = c.get('member');
    const [{ diffs, ...review }, snapshot] = await Promise.all([
      state.staging.review({ profile }, reviewerOf(member)),
      source.schema.get(),
    ]);
    const typeOf = columnTypesOf(snapshot.tables);
    const max = source.changes?.maxChangesPerTransaction;
    return c.json({
      changes: diffs.map((diff) => toWireChange(diff, typeOf)),
      ...(member ? { review } : {}),
      // What protects each table's items between the last check and the write (the review says it).
      protection: await protectionOf(source, diffs),
      // The most one transaction takes (DynamoDB: 100): more is committed in parts, when confirmed.
      ...(max !== undefined ? { maxPerTransaction: max } : {}),
    });
  });

  // What a live review polls: it changes whenever anyone's stage, commit or discard does.
  app.get('/api/staging/version', async (c) => {
    const { state, profile } = c.var.connection;
    return c.json({ version: await state.staging.version({ profile }) });
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
    const result = await state.staging.commit(
      { profile, ...(body.ids ? { ids: body.ids } : {}) },
      commitOptions(c.get('member'), body, c.var.connection),
    );
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
    const resolved = await state.staging.resolve(body.commit, body.outcome, byOf(c.var.connection));
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
    const discarded = await state.staging.discard(
      { profile, ...(body.ids ? { ids: body.ids } : {}) },
      byOf(c.var.connection),
    );
    return c.json({ discarded });
  });

  // Every profile unless the filter names one, and the state's own objects, so the CLI prints
  // the same through the app as over the database itself.
  // The staging area as @toolrow/state has it: what `toolrow staging` uses while the app runs.
  app.post('/api/state/staging/:action', stagingActionOfCli);
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

/** `toolrow staging <action>` through the app: the same staging area, four eyes and audit. */
async function stagingActionOfCli(c: Context<ServerEnv>) {
  const { source, state } = c.var.connection;
  const body = await readBody(c, stagingFilterBody);
  const filter: StagingFilter = {
    ...(body.ids ? { ids: body.ids } : {}),
    ...(body.table === undefined ? {} : { table: body.table }),
    ...(body.profile === undefined ? {} : { profile: body.profile }),
  };
  const member = c.get('member');
  switch (c.req.param('action')) {
    case 'list': {
      // The digest covers what is listed (the filter without its ids): a commit names it.
      const { diffs, ...review } = await state.staging.review(filter, reviewerOf(member));
      return c.json({ changes: diffs.map((diff) => diff.change), review });
    }
    case 'diff': {
      const diffs = await state.staging.diff(filter);
      return c.json({ diffs, protection: await protectionOf(source, diffs) });
    }
    case 'commit': {
      // The same staging area, four eyes and audit line as the review's Commit.
      return c.json({
        result: await state.staging.commit(filter, commitOptions(member, body, c.var.connection)),
        writer: featureOf(source, 'changes').writer.description,
      });
    }
    case 'check':
      return c.json({ conflicts: await state.staging.check(filter) });
    case 'discard':
      return c.json({ discarded: await state.staging.discard(filter, byOf(c.var.connection)) });
    case 'resolve': {
      if (body.commit === undefined || body.outcome === undefined)
        throw badRequest('resolve needs { commit, outcome: "applied" | "staged" }.');
      return c.json({
        resolved: await state.staging.resolve(body.commit, body.outcome, byOf(c.var.connection)),
      });
    }
    default:
      throw new HttpError(
        404,
        'not-found',
        `No staging action '${c.req.param('action')}'.`,
        'Use list, diff, check, commit or discard.',
      );
  }
}
