// Who acts on the staging area. Every commit, discard and resolve, and every stage a person makes
// themselves, is written to the audit log here, inside the staging area, so no entry point (the
// app, the CLI alone or through the app, a personal token, MCP) can skip it. The agent's and MCP
// clients' stages are recorded by their gates, with the decision that let them through.
//
// On a team's store (marked when a team's Toolrow starts) the same rules hold whoever calls: a
// change names its person; only an approver commits, never their own change; an analyst discards
// only their own. The routes check roles too: each layer holds alone.
import { describeCall } from '@toolrow/catalog';
import { DataSourceError } from '@toolrow/datasource';
import { digestInput } from '../repositories/audit.ts';
import { teamIssuer } from '../repositories/team-people.ts';
import type { TeamRole } from '../repositories/team-sessions.ts';
import type { StateQueries } from '../store/state-db.ts';
import type { StagedChange, StagingBy } from './types.ts';

/** The audit log's names of what people do to the staging area (beside the stage tools' own). */
export const STAGING_ACTIONS = ['commitStaged', 'discardStaged', 'resolveCommit'] as const;
export type StagingAction = (typeof STAGING_ACTIONS)[number];

function nobodyOnTeam(issuer: string, what: string): DataSourceError {
  return new DataSourceError(
    'permission',
    `This state store is a team's (people sign in through ${issuer}), and ${what} names the person who does it: nothing was changed. Go through the team's Toolrow as yourself: TOOLROW_URL=<the team's URL> TOOLROW_TOKEN=<your personal token (POST /api/team/tokens)> npx toolrow …, or use the app.`,
  );
}

/** A person's current role on this store's team; undefined for nobody known (or removed). */
async function roleOf(q: StateQueries, person: string): Promise<TeamRole | undefined> {
  const row = await q
    .selectFrom('team_people')
    .select('role')
    .where('email', '=', person)
    .where('removed_at', 'is', null)
    .executeTakeFirst();
  return row?.role as TeamRole | undefined;
}

const APPROVING: readonly TeamRole[] = ['approver', 'admin'];

/** On a team's store, a stage names its person. */
export async function checkStager(q: StateQueries, person: string | null): Promise<void> {
  const issuer = await teamIssuer(q);
  if (issuer && !person) throw nobodyOnTeam(issuer, 'a staged change');
}

/**
 * On a team's store, a commit is an approver's, reviewing what they commit: `approver` must be
 * given, name a person whose role approves, and carry the review's digest.
 */
export async function checkCommitter(
  q: StateQueries,
  approver: { person: string; reviewed?: string } | undefined,
): Promise<void> {
  const issuer = await teamIssuer(q);
  if (!issuer) return;
  if (!approver?.person) throw nobodyOnTeam(issuer, 'a commit');
  const role = await roleOf(q, approver.person);
  if (!role || !APPROVING.includes(role))
    throw new DataSourceError(
      'permission',
      `Four eyes: ${approver.person} is ${role ? `an ${role}` : 'no member of this team'}, and only an approver commits. Nothing was applied.`,
    );
  if (!approver.reviewed)
    throw new DataSourceError(
      'permission',
      'A commit on a team names the review it approves (the digest of the listing its approver saw): nothing was applied. In the app: open Staging, review, then Commit. From the CLI: `toolrow staging list` prints the digest for `toolrow staging commit --reviewed <digest>`.',
    );
}

/**
 * On a team's store, a discard names its person, and an analyst's covers only their own changes
 * (an approver or admin discards any). Returns nothing; refuses before anything is dropped.
 */
export async function checkDiscarder(
  q: StateQueries,
  by: StagingBy | undefined,
  changes: readonly Pick<StagedChange, 'id' | 'person'>[],
): Promise<void> {
  const issuer = await teamIssuer(q);
  if (!issuer) return;
  const person = by?.person;
  if (!person) throw nobodyOnTeam(issuer, 'a discard');
  const role = await roleOf(q, person);
  if (role && APPROVING.includes(role)) return;
  const others = changes.filter((change) => change.person !== person);
  if (role !== 'analyst' || others.length > 0)
    throw new DataSourceError(
      'permission',
      role === 'analyst'
        ? `As analyst ${person} discards only their own changes, and ${others
            .slice(0, 5)
            .map((change) => `#${change.id}`)
            .join(
              ', ',
            )}${others.length > 5 ? ` and ${others.length - 5} more` : ''} ${others.length === 1 ? 'is' : 'are'} someone else's: nothing was discarded. Pick your own (toolrow staging list shows who staged each), or ask an approver.`
        : `As ${role ?? 'no member of this team'} ${person} may not discard staged changes: nothing was discarded.`,
    );
}

/** On a team's store, resolving a commit is an approver's, as committing is. */
export async function checkResolver(q: StateQueries, by: StagingBy | undefined): Promise<void> {
  const issuer = await teamIssuer(q);
  if (!issuer) return;
  if (!by?.person) throw nobodyOnTeam(issuer, 'resolving a commit');
  const role = await roleOf(q, by.person);
  if (!role || !APPROVING.includes(role))
    throw new DataSourceError(
      'permission',
      `Only an approver records a commit's outcome, and ${by.person} is ${role ? `an ${role}` : 'no member of this team'}: nothing was recorded.`,
    );
}

/** One audit line for what someone did to the staging area. */
export async function recordStagingAudit(
  q: StateQueries,
  entry: {
    tool: string;
    input: unknown;
    profile: string;
    by: StagingBy | undefined;
    table?: string | null;
    detail: string;
  },
): Promise<void> {
  const person = entry.by?.person ?? null;
  await q
    .insertInto('audit_log')
    .values({
      tool: entry.tool,
      input_digest: digestInput(entry.input),
      decision: 'approved',
      decided_by: entry.by?.actor ?? 'user',
      profile: entry.profile,
      table_name: entry.table ?? null,
      detail: `${person ? `${person} ` : ''}${entry.detail}`,
      person,
      // Its shape only, as every audit line: the input is digested, never stored.
      summary: describeCall(entry.tool, entry.input, { values: false }),
    })
    .execute();
}

/** "#1, #2 and 3 more": ids as the review shows them. */
export function idList(ids: readonly number[], max = 10): string {
  const shown = ids.slice(0, max).map((id) => `#${id}`);
  return ids.length > max ? `${shown.join(', ')} and ${ids.length - max} more` : shown.join(', ');
}
