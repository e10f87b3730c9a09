import { parseArgs } from 'node:util';
import { type ChangeProtection, conflictReason, featureOf, type StagingConflict } from '@toolrow/datasource';
import type {
  ChangeDiff,
  CommitOptions,
  CommitResult,
  ResolvedOutcome,
  StagedChange,
  StagingFilter,
} from '@toolrow/state';
import { type AppRoute, openOrApp, postToApp } from '../app-client.ts';
import { type Command, type CommandIo, UsageError } from '../command.ts';
import { formatTable, formatTime, toJson } from '../format.ts';

const USAGE = `Usage: toolrow staging <list|diff|check|commit|discard|resolve> [ids…] [options]

Changes the agent (or an MCP client) staged wait here until you commit or discard them.

  list [--table T] [--json]            the staged changes
  diff [ids…] [--table T] [--json]     before → after for each column that changes
  check [ids…] [--table T] [--json]    which a commit would refuse now (rows changed, deleted or
                                       taken since staging), read-only; exit 1 if any
  commit [ids…] [--table T] [--json]   apply them in one transaction (default: all). Each row is
         [--in-parts] [--reviewed D]   re-read first; if any changed since it was staged, nothing
                                       is applied and the conflicting rows are listed (exit 1).
                                       --in-parts: more than one transaction of the engine takes
                                       (DynamoDB: 100 items) goes in parts, each all or nothing,
                                       stopping at the first part refused.
                                       --reviewed: on a team, the review digest \`list\` printed:
                                       the approver commits exactly the listing they saw.
  discard (ids… | --all) [--table T]   drop staged changes without applying them
  resolve <commit> applied|staged      a commit whose outcome could not be told (its committer
                                       stopped, and the items do not say): record what you found.
                                       applied drops its changes; staged keeps them staged.

Ids are the numbers \`list\` shows. While the app (npm start) holds the database, these go through it.`;

interface Options {
  ids: number[];
  table?: string;
  json: boolean;
  all: boolean;
  inParts: boolean;
  reviewed?: string;
}

/** How much of a review digest the CLI prints and takes: enough to name one listing. */
const DIGEST_SHOWN = 16;

function parse(args: string[], allowIds: boolean, allowAll: boolean, allowParts = false): Options {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args,
      options: {
        table: { type: 'string' },
        json: { type: 'boolean' },
        ...(allowAll ? { all: { type: 'boolean' } } : {}),
        ...(allowParts ? { 'in-parts': { type: 'boolean' }, reviewed: { type: 'string' } } : {}),
      },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const positionals = parsed.positionals;
  if (!allowIds && positionals.length > 0) throw new UsageError(`Unexpected argument '${positionals[0]}'.`);
  const ids = positionals
    .flatMap((text) => text.split(','))
    .map((text) => {
      const id = Number(text.replace(/^#/, ''));
      if (!Number.isInteger(id) || id < 1)
        throw new UsageError(
          `'${text}' is not a change id; ids are the numbers \`toolrow staging list\` shows.`,
        );
      return id;
    });
  const values = parsed.values as {
    table?: string;
    json?: boolean;
    all?: boolean;
    'in-parts'?: boolean;
    reviewed?: string;
  };
  if (values.reviewed !== undefined && !/^[0-9a-f]{12,64}$/i.test(values.reviewed))
    throw new UsageError(
      `--reviewed takes the review digest \`toolrow staging list\` prints (hex, at least 12 characters), got '${values.reviewed}'.`,
    );
  return {
    ids,
    table: values.table,
    json: values.json === true,
    all: values.all === true,
    inParts: values['in-parts'] === true,
    ...(values.reviewed ? { reviewed: values.reviewed.toLowerCase() } : {}),
  };
}

function filterOf(options: Options): StagingFilter {
  return {
    ...(options.ids.length > 0 ? { ids: options.ids } : {}),
    ...(options.table ? { table: options.table } : {}),
  };
}

export function showValue(value: unknown): string {
  if (value === null) return 'NULL';
  if (value === undefined) return '∅';
  const text = typeof value === 'string' ? JSON.stringify(value) : JSON.stringify(value);
  return text.length > 80 ? `${text.slice(0, 77)}…` : text;
}

function showKey(change: Pick<StagedChange, 'key'>): string {
  if (!change.key) return '(new row)';
  return Object.entries(change.key)
    .map(([column, value]) => `${column}=${showValue(value)}`)
    .join(', ');
}

function summary(change: StagedChange): string {
  if (change.kind === 'delete') return 'delete row';
  const columns = Object.keys(change.values ?? {});
  return `${change.kind === 'insert' ? 'set' : 'change'} ${columns.join(', ')}`;
}

function formatDiff(diffs: ChangeDiff[]): string {
  return diffs
    .map(({ change, columns }) => {
      const head = `#${change.id} ${change.kind} ${change.table} ${showKey(change)}  (by ${change.stagedBy}, ${formatTime(change.createdAt)})`;
      const lines = columns.map(({ column, before, after }) =>
        change.kind === 'insert'
          ? `    + ${column}: ${showValue(after)}`
          : change.kind === 'delete'
            ? `    - ${column}: ${showValue(before)}`
            : `    ~ ${column}: ${showValue(before)} → ${showValue(after)}`,
      );
      return [head, ...(lines.length > 0 ? lines : ['    (no column changes)'])].join('\n');
    })
    .join('\n\n');
}

function formatCommit(result: CommitResult, writer: string): string {
  if (result.ok) {
    const { insert, update, delete: deleted } = result.applied;
    if (result.changeIds.length === 0) return 'Nothing staged; nothing to commit.\n';
    return `Committed ${result.changeIds.length} change${result.changeIds.length === 1 ? '' : 's'} to ${writer}${result.parts ? ` in ${result.parts} transactions` : ''}: ${insert} inserted, ${update} updated, ${deleted} deleted.\n`;
  }
  if (result.appliedBefore) {
    const before = result.appliedBefore;
    return `Committed ${before.changeIds.length} changes in ${before.parts} part${before.parts === 1 ? '' : 's'} (each all or nothing); the next part was refused, applying none of it: ${result.conflicts.length} row${result.conflicts.length === 1 ? '' : 's'} changed under the staged changes.\n${conflictLines(result.conflicts)}\nThe rest stay staged. Review them (toolrow staging diff), discard the stale changes (toolrow staging discard <ids>) and commit again.\n`;
  }
  return `Nothing was committed: ${result.conflicts.length} row${result.conflicts.length === 1 ? '' : 's'} changed under the staged changes.\n${conflictLines(result.conflicts)}\nReview them (toolrow staging diff), then discard the stale changes (toolrow staging discard <ids>) and commit again.\n`;
}

function conflictLines(conflicts: readonly StagingConflict[]): string {
  return conflicts
    .map((conflict) => {
      return `  #${conflict.changeId} ${conflict.table} ${showKey(conflict)}: ${conflictReason(conflict)}`;
    })
    .join('\n');
}

/** The commits whose outcome could not be told, with the way out (ids marked '?' in the list). */
function uncertainNote(changes: readonly StagedChange[]): string {
  const commits = new Map<number, number[]>();
  for (const change of changes)
    if (change.uncertainCommit)
      commits.set(change.uncertainCommit, [...(commits.get(change.uncertainCommit) ?? []), change.id]);
  return [...commits]
    .map(
      ([commit, ids]) =>
        `\n? ${ids.map((id) => `#${id}`).join(', ')} ${ids.length === 1 ? 'was' : 'were'} in commit ${commit}, whose committer stopped before the database could tell whether it was applied; ${ids.length === 1 ? 'it is' : 'they are'} staged again. Look at the items (toolrow staging diff shows each as staged), then record what you find: toolrow staging resolve ${commit} applied (drops them) or toolrow staging resolve ${commit} staged (keeps them). Committing them again is safe: a change already applied is refused as changed.\n`,
    )
    .join('');
}

function formatCheck(conflicts: readonly StagingConflict[]): string {
  if (conflicts.length === 0)
    return 'Every staged change still matches its row: a commit would apply them.\n';
  const stale = conflicts.filter((conflict) => conflict.reason !== 'referenced');
  const referenced = conflicts.length - stale.length;
  const head =
    stale.length > 0
      ? `${stale.length} staged change${stale.length === 1 ? ' is' : 's are'} stale`
      : `${referenced} staged delete${referenced === 1 ? ' is' : 's are'} still referenced by other rows`;
  return `${head}: a commit would apply nothing.\n${conflictLines(conflicts)}\n${
    stale.length > 0
      ? 'Discard them (toolrow staging discard <ids>) and stage again against the current rows.\n'
      : ''
  }${referenced > 0 ? 'A foreign key refuses those deletes: delete or change the rows that reference them first, or stage their deletes too.\n' : ''}`;
}

/** Who staged a change, as the list shows it: the person (and through what), else the actor. */
function stagedByText(change: StagedChange): string {
  if (!change.person) return change.stagedBy;
  return change.stagedBy === 'user' ? change.person : `${change.person} (via ${change.stagedBy})`;
}

/** The listing's arguments again, for the line that commits exactly it. */
function sameArgs(options: Options): string {
  return [...(options.table ? [`--table ${options.table}`] : []), ...options.ids.map(String)].join(' ');
}

/** Through a team's app: the digest to commit this listing with, and whether you may. */
function teamNote(review: ListingReview, options: Options): string {
  if (!review.you) return '';
  const digest = review.digest.slice(0, DIGEST_SHOWN);
  if (review.mayCommit)
    return `\nReview digest ${digest}. Commit exactly these as ${review.you}: toolrow staging commit --reviewed ${digest}${sameArgs(options) ? ` ${sameArgs(options)}` : ''}\n`;
  return `\nReview digest ${digest}. ${review.why ?? 'You may not commit these.'}\n`;
}

/**
 * On a team (through its app), the digest a commit names: the full one the listing has now when
 * --reviewed is a prefix of it. Without --reviewed it shows the listing and how to commit it, and
 * returns null (nothing is sent). Outside a team: undefined (nothing to name).
 */
async function reviewedDigest(
  staging: StagingArea,
  options: Options,
  io: CommandIo,
): Promise<string | undefined | null> {
  const review = await staging.review({ ...(options.table ? { table: options.table } : {}) });
  if (!review.you) return options.reviewed;
  if (!options.reviewed) {
    if (review.changes.length === 0) return undefined;
    const diffs = await staging.diff({ ...(options.table ? { table: options.table } : {}) });
    io.stderr(
      `${formatDiff(diffs)}\n\nOn a team an approver commits exactly the listing they reviewed: nothing was committed.\n${teamNote(review, options) || `Review digest ${review.digest.slice(0, DIGEST_SHOWN)}.\n`}`,
    );
    return null;
  }
  // A digest of a listing that has changed since: the staging area refuses it with what changed.
  return review.digest.startsWith(options.reviewed) ? review.digest : options.reviewed;
}

/** Whether every id asked for is staged; says which are not (and exits 1) when some are not. */
async function idsStaged(staging: StagingArea, ids: readonly number[], io: CommandIo): Promise<boolean> {
  if (ids.length === 0) return true;
  const found = new Set((await staging.list({ ids: [...ids] })).map((change) => change.id));
  const missing = ids.filter((id) => !found.has(id));
  if (missing.length === 0) return true;
  io.stderr(
    `toolrow staging: no staged change with id ${missing.join(', ')}; see \`toolrow staging list\`.\n`,
  );
  return false;
}

interface ListingReview {
  changes: StagedChange[];
  digest: string;
  you?: string;
  mayCommit?: boolean;
  why?: string;
}

/** The staging area, over the database itself or through the running app: the same answers either way. */
interface StagingArea {
  list(filter: StagingFilter): Promise<StagedChange[]>;
  /**
   * The listing as a review shows it: its digest, and through a team's app who you are and
   * whether you may commit it (`you` is absent outside a team).
   */
  review(filter: StagingFilter): Promise<ListingReview>;
  diff(filter: StagingFilter): Promise<ChangeDiff[]>;
  /** What protects each table's items between the last check and the write. */
  protection(tables: readonly string[]): Promise<Record<string, ChangeProtection | null>>;
  commit(
    filter: StagingFilter,
    options: Pick<CommitOptions, 'inParts'> & { reviewed?: string },
  ): Promise<{ result: CommitResult; writer: string }>;
  check(filter: StagingFilter): Promise<StagingConflict[]>;
  discard(filter: StagingFilter): Promise<number>;
  resolve(commit: number, outcome: ResolvedOutcome): Promise<number>;
}

async function withStaging<T>(io: CommandIo, fn: (staging: StagingArea) => Promise<T>): Promise<T> {
  const opened = await openOrApp(io);
  if ('app' in opened) return fn(throughApp(opened.app));
  const { toolrow } = opened;
  try {
    const { staging } = toolrow.state;
    return await fn({
      list: (filter) => staging.list(filter),
      review: async (filter) => {
        const { diffs, ...review } = await staging.review(filter);
        return { changes: diffs.map((diff) => diff.change), ...review };
      },
      diff: (filter) => staging.diff(filter),
      // Alone, the CLI is nobody on a team: the staging area refuses a team's commit, saying how.
      commit: async (filter, options) => ({
        result: await staging.commit(filter, { inParts: options.inParts === true }),
        writer: featureOf(toolrow.source, 'changes').writer.description,
      }),
      check: (filter) => staging.check(filter),
      discard: (filter) => staging.discard(filter),
      resolve: (commit, outcome) => staging.resolve(commit, outcome),
      protection: async (tables) =>
        Object.fromEntries(
          await Promise.all(
            tables.map(async (name) => {
              const table = await toolrow.source.schema.resolveTable(name).catch(() => undefined);
              return [name, (table && toolrow.source.changes?.protectionOf?.(table)) || null] as const;
            }),
          ),
        ),
    });
  } finally {
    await toolrow.close();
  }
}

/** The app's /api/state/staging routes answer with the state's own objects; only dates need reviving. */
function throughApp(app: AppRoute): StagingArea {
  const post = <T>(action: string, filter: StagingFilter) =>
    postToApp<T>(app, `/api/state/staging/${action}`, filter);
  const revive = (change: StagedChange): StagedChange => ({
    ...change,
    createdAt: new Date(change.createdAt),
  });
  // The app answers a diff with each table's protection too: what protection() then gives.
  let protection: Record<string, ChangeProtection | null> = {};
  return {
    list: async (filter) => (await post<{ changes: StagedChange[] }>('list', filter)).changes.map(revive),
    review: async (filter) => {
      const answer = await post<{ changes: StagedChange[]; review: Omit<ListingReview, 'changes'> }>(
        'list',
        filter,
      );
      return { ...answer.review, changes: answer.changes.map(revive) };
    },
    diff: async (filter) => {
      const answer = await post<{ diffs: ChangeDiff[]; protection?: typeof protection }>('diff', filter);
      protection = answer.protection ?? {};
      return answer.diffs.map((diff) => ({ ...diff, change: revive(diff.change) }));
    },
    protection: async (tables) =>
      Object.fromEntries(tables.map((table) => [table, protection[table] ?? null])),
    commit: (filter, options) =>
      post<{ result: CommitResult; writer: string }>('commit', { ...filter, ...options }),
    check: async (filter) => (await post<{ conflicts: StagingConflict[] }>('check', filter)).conflicts,
    discard: async (filter) => (await post<{ discarded: number }>('discard', filter)).discarded,
    resolve: async (commit, outcome) =>
      (await postToApp<{ resolved: number }>(app, '/api/state/staging/resolve', { commit, outcome }))
        .resolved,
  };
}

export const stagingCommand: Command = {
  usage: USAGE,
  async run(args, io) {
    const [sub, ...rest] = args;
    switch (sub) {
      case 'list': {
        const options = parse(rest, false, false);
        return withStaging(io, async (staging) => {
          const review = await staging.review(filterOf(options));
          const { changes } = review;
          if (options.json) io.stdout(toJson(changes));
          else if (changes.length === 0) io.stdout('Nothing staged.\n');
          else {
            io.stdout(
              `${formatTable(
                ['id', 'kind', 'table', 'key', 'what', 'by', 'staged at'],
                changes.map((change) => [
                  `${change.id}${change.uncertainCommit ? '?' : ''}`,
                  change.kind,
                  change.table,
                  showKey(change),
                  summary(change),
                  stagedByText(change),
                  formatTime(change.createdAt),
                ]),
              )}\n\n${changes.length} staged change${changes.length === 1 ? '' : 's'}. Review with \`toolrow staging diff\`, apply with \`toolrow staging commit\`.\n${teamNote(review, options)}${uncertainNote(changes)}`,
            );
          }
          return 0;
        });
      }
      case 'diff': {
        const options = parse(rest, true, false);
        return withStaging(io, async (staging) => {
          if (!(await idsStaged(staging, options.ids, io))) return 1;
          const diffs = await staging.diff(filterOf(options));
          if (options.json) io.stdout(toJson(diffs));
          else if (diffs.length === 0) io.stdout('Nothing staged.\n');
          else {
            const protection = await staging.protection([...new Set(diffs.map((diff) => diff.change.table))]);
            const notes = Object.entries(protection)
              .filter((entry): entry is [string, ChangeProtection] => entry[1] !== null)
              .map(([table, found]) => `${table}: ${found.detail}`);
            io.stdout(`${formatDiff(diffs)}\n${notes.length > 0 ? `\n${notes.join('\n')}\n` : ''}`);
          }
          return 0;
        });
      }
      case 'commit': {
        const options = parse(rest, true, false, true);
        return withStaging(io, async (staging) => {
          if (!(await idsStaged(staging, options.ids, io))) return 1;
          const reviewed = await reviewedDigest(staging, options, io);
          if (reviewed === null) return 1;
          const { result, writer } = await staging.commit(filterOf(options), {
            inParts: options.inParts,
            ...(reviewed ? { reviewed } : {}),
          });
          if (options.json) io.stdout(toJson(result));
          else (result.ok ? io.stdout : io.stderr)(formatCommit(result, writer));
          return result.ok ? 0 : 1;
        });
      }
      case 'check': {
        const options = parse(rest, true, false);
        return withStaging(io, async (staging) => {
          if (!(await idsStaged(staging, options.ids, io))) return 1;
          const conflicts = await staging.check(filterOf(options));
          if (options.json) io.stdout(toJson(conflicts));
          else (conflicts.length === 0 ? io.stdout : io.stderr)(formatCheck(conflicts));
          return conflicts.length === 0 ? 0 : 1;
        });
      }
      case 'discard': {
        const options = parse(rest, true, true);
        if (options.ids.length === 0 && !options.all && !options.table) {
          throw new UsageError(
            'Name the changes to discard (ids from `toolrow staging list`), or pass --all.',
          );
        }
        if (options.ids.length > 0 && options.all) throw new UsageError('Give ids or --all, not both.');
        return withStaging(io, async (staging) => {
          if (!(await idsStaged(staging, options.ids, io))) return 1;
          const count = await staging.discard(filterOf(options));
          if (options.json) io.stdout(toJson({ discarded: count }));
          else io.stdout(`Discarded ${count} staged change${count === 1 ? '' : 's'}.\n`);
          return 0;
        });
      }
      case 'resolve': {
        const [commitText, outcome, ...extra] = rest;
        const commit = Number(commitText);
        if (
          !Number.isInteger(commit) ||
          commit < 1 ||
          (outcome !== 'applied' && outcome !== 'staged') ||
          extra.length > 0
        )
          throw new UsageError(
            'resolve takes a commit id and what you found: toolrow staging resolve <commit> applied|staged (the ids `toolrow staging list` marks with ?).',
          );
        return withStaging(io, async (staging) => {
          const count = await staging.resolve(commit, outcome);
          if (count === 0) {
            io.stderr(
              `toolrow staging: no commit ${commit} waits to be resolved; see \`toolrow staging list\`.\n`,
            );
            return 1;
          }
          io.stdout(
            outcome === 'applied'
              ? `Recorded commit ${commit} as applied: its ${count} change${count === 1 ? '' : 's'} left the staging area.\n`
              : `Recorded commit ${commit} as not applied: its ${count} change${count === 1 ? '' : 's'} stay staged.\n`,
          );
          return 0;
        });
      }
      default:
        throw new UsageError(
          sub
            ? `Unknown staging subcommand '${sub}'; use list, diff, check, commit, discard or resolve.`
            : 'Name a staging subcommand: list, diff, check, commit, discard or resolve.',
        );
    }
  },
};
