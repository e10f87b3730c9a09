// The staging area: changes the agent and MCP clients stage, and the user's commit of them —
// claimed, applied through the connection's engine, recorded, and settled after a crash.
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import {
  type Actor,
  type ChangeKind,
  type ChangeToApply,
  type ChangeWriter,
  type DataSource,
  DataSourceError,
  DEFAULT_PROFILE,
  featureOf,
  isActor,
  normalizeKey,
  type Row,
  type RowKey,
  resolveColumnIn,
  type StagingConflict,
  StaleEditError,
  type TableInfo,
  UnknownNameError,
} from '@toolrow/datasource';
import { type Expression, type ExpressionBuilder, type SqlBool, sql } from 'kysely';
import { date, jsonText, jsonValue, lockRows, type StateDb, type StateQueries } from './store/state-db.ts';
import type { StateTables } from './store/tables.ts';

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
}

export interface StagingFilter {
  /** Only these change ids. */
  ids?: number[];
  table?: string;
  profile?: string;
  /** Only changes staged by this actor (what an MCP client may see of the staging area). */
  stagedBy?: Actor;
}

const MAX_ROWS_PER_CALL = 1000;

function toChange(row: Row): StagedChange {
  return {
    id: Number(row.id),
    kind: row.kind as StagedChange['kind'],
    // As the engine names it: schema-qualified on PostgreSQL, the bare table name on DynamoDB (no schema).
    table: row.table_schema ? `${row.table_schema}.${row.table_name}` : (row.table_name as string),
    key: jsonValue<RowKey | null>(row.row_key) ?? null,
    before: jsonValue<Row | null>(row.before) ?? null,
    values: jsonValue<Row | null>(row.values) ?? null,
    stagedBy: row.staged_by as Actor,
    profile: row.profile as string,
    createdAt: date(row.created_at),
    ...(row.uncertain_commit == null ? {} : { uncertainCommit: Number(row.uncertain_commit) }),
  };
}

/** How long a claim holds without its committer renewing it (it renews every third of this). */
export const COMMIT_LEASE_MS = 30_000;

/** This process, as a commit's holder: host, pid, and an id of this staging area. */
function holderId(): string {
  return `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
}

/**
 * Whether the committer holding a claim may still be at work: its lease has not run out, and when
 * it runs on this machine, its process is alive. A claim of an older release names no holder.
 */
function holderAlive(holder: string | null, leaseUntil: Date | null, now = Date.now()): boolean {
  if (!holder || !leaseUntil || leaseUntil.getTime() <= now) return false;
  const [host, pid] = holder.split(':');
  if (host !== hostname()) return true;
  try {
    process.kill(Number(pid), 0);
    return true;
  } catch (error) {
    // EPERM: it exists, owned by another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A value as a person reads it in a message: text quoted, absent said so. */
function show(value: unknown): string {
  if (value === undefined) return 'absent';
  return JSON.stringify(value);
}

function checkMeta(meta: StageMeta): { actor: Actor; profile: string } {
  if (!meta || !isActor(meta.actor)) {
    throw new DataSourceError(
      'misuse',
      `Staging needs an actor: 'user', 'agent' or 'mcp:<token name>', got '${meta?.actor}'.`,
    );
  }
  return { actor: meta.actor, profile: meta.profile ?? DEFAULT_PROFILE };
}

function checkStageable(table: TableInfo): void {
  if (table.kind !== 'table' && table.kind !== 'partitioned table') {
    throw new DataSourceError(
      'invalid-change',
      `'${table.qualifiedName}' is a ${table.kind}; only tables can be changed.`,
    );
  }
}

function checkCount(items: unknown, what: string): asserts items is unknown[] {
  if (!Array.isArray(items) || items.length === 0) {
    throw new DataSourceError(
      'invalid-change',
      `Give at least one ${what} (an array), got ${JSON.stringify(items)?.slice(0, 80)}.`,
    );
  }
  if (items.length > MAX_ROWS_PER_CALL) {
    throw new DataSourceError(
      'invalid-change',
      `At most ${MAX_ROWS_PER_CALL} ${what}s per call, got ${items.length}.`,
    );
  }
}

/** Maps the given column names to the table's real names; every value must be JSON. */
function normalizeValues(table: TableInfo, values: unknown, where: string, forUpdate: boolean): Row {
  if (typeof values !== 'object' || values === null || Array.isArray(values)) {
    throw new DataSourceError(
      'invalid-change',
      `${where}: expected an object of column → value, got ${JSON.stringify(values)?.slice(0, 80)}.`,
    );
  }
  const entries = Object.entries(values as Row);
  if (entries.length === 0) throw new DataSourceError('invalid-change', `${where}: no columns given.`);
  const result: Row = {};
  for (const [name, value] of entries) {
    const column = resolveColumnOrNew(table, name, where);
    if (forUpdate && column.primaryKey) {
      throw new DataSourceError(
        'invalid-change',
        `${where}: '${column.name}' is part of the primary key and cannot be updated; stage a delete and an insert instead.`,
      );
    }
    if (
      value === undefined ||
      typeof value === 'function' ||
      typeof value === 'symbol' ||
      typeof value === 'bigint'
    ) {
      throw new DataSourceError(
        'invalid-change',
        `${where}: column '${column.name}' needs a JSON value, got ${typeof value}.`,
      );
    }
    result[column.name] = value;
  }
  return result;
}

/**
 * A column of the table; on a schemaless table (DynamoDB) also a new attribute, unless its name is
 * close to a known one: 'stauts' beside 'status' is a typo far more often than a new attribute.
 */
function resolveColumnOrNew(
  table: TableInfo,
  name: string,
  where: string,
): { name: string; primaryKey: boolean } {
  try {
    return resolveColumnIn(table, name);
  } catch (error) {
    if (!(table.openColumns && error instanceof UnknownNameError && error.suggestions.length === 0))
      throw error;
    if (name.length === 0 || name.length > 255 || name.trim() !== name)
      throw new DataSourceError(
        'invalid-change',
        `${where}: '${name}' cannot be an attribute name (1 to 255 characters, no blanks at either end).`,
      );
    return { name, primaryKey: false };
  }
}

function wrapStageError(error: unknown, where: string): never {
  if (error instanceof DataSourceError) throw error;
  throw new DataSourceError('invalid-change', `${where}: ${(error as Error).message}.`, { cause: error });
}

/**
 * Points in a commit where a test can stop the process (see StagingOptions.faults): 'claimed' is
 * inside the data's write transaction, after the claim and its transaction id are recorded and
 * before any row is written; 'data-committed' is after the data's COMMIT, before the staging area
 * records the outcome.
 */
export type CommitPoint = 'claimed' | 'data-committed';

/** The changes a commit read were claimed or discarded by someone else before it could claim them. */
class ClaimLost extends Error {
  constructor() {
    super('the staged changes were claimed or discarded by another process');
  }
}

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

type Where = (eb: ExpressionBuilder<StateTables, 'staged_changes'>) => Expression<SqlBool>;

/** The staged changes a filter names. */
function selection(
  filter: StagingFilter | undefined,
  table: TableInfo | undefined,
  connection: string,
): Where {
  return (eb) => {
    const parts: Expression<SqlBool>[] = [eb('connection', '=', connection)];
    if (filter?.ids) {
      const ids = filter.ids.map(Number);
      parts.push(ids.length > 0 ? eb('id', 'in', ids) : sql<SqlBool>`1 = 0`);
    }
    if (table) parts.push(eb.and([eb('table_schema', '=', table.schema), eb('table_name', '=', table.name)]));
    if (filter?.profile) parts.push(eb('profile', '=', filter.profile));
    if (filter?.stagedBy) parts.push(eb('staged_by', '=', filter.stagedBy));
    return eb.and(parts);
  };
}

/** JSON.parse keeping every number's exact text (a bigint key must not round). */
function parseExact(json: string): Record<string, unknown> {
  const rawJson = (JSON as unknown as { rawJSON(text: string): unknown }).rawJSON;
  return JSON.parse(json, ((_key: string, value: unknown, context?: { source?: string }) =>
    typeof value === 'number' && context?.source !== undefined ? rawJson(context.source) : value) as never);
}

/** The primary-key columns of a row image, as JSON text (numbers exact); null when it has none. */
function keyOf(rowJson: string, table: TableInfo): string | null {
  const row = parseExact(rowJson);
  const key = table.primaryKey.filter((column) => Object.hasOwn(row, column));
  if (key.length === 0) return null;
  return JSON.stringify(Object.fromEntries(key.map((column) => [column, row[column]])));
}

async function insertChange(
  tx: StateQueries,
  change: {
    kind: StagedChange['kind'];
    table: TableInfo;
    key: string | null;
    before: string | null;
    values: string | null;
    actor: Actor;
    profile: string;
    connection: string;
  },
): Promise<StagedChange> {
  const row = await tx
    .insertInto('staged_changes')
    .values({
      kind: change.kind,
      table_schema: change.table.schema,
      table_name: change.table.name,
      row_key: change.key,
      before: change.before,
      values: change.values,
      staged_by: change.actor,
      profile: change.profile,
      connection: change.connection,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return toChange(row);
}

/**
 * The staging area: changes are recorded in Toolrow's own store (`db`), checked against and
 * applied to the user's data (`source`) only when the user commits.
 */
export function createStaging(db: StateDb, source: DataSource, options: StagingOptions = {}): Staging {
  // Staging on an engine without staged writes lists nothing it could not commit: each use refuses.
  const writer = () => featureOf(source, 'changes');
  const { q, dialect } = db;
  const connection = options.connection ?? DEFAULT_PROFILE;
  const holder = options.holder ?? holderId();
  const leaseMs = options.leaseMs ?? COMMIT_LEASE_MS;
  /** Renews this process's claim while its transaction is out, so no reader takes it for abandoned. */
  function renewLease(id: number): () => void {
    const timer = setInterval(() => {
      void q
        .updateTable('commits')
        .set({ lease_until: new Date(Date.now() + leaseMs) })
        .where('id', '=', id)
        .where('state', '=', 'applying')
        .execute()
        .catch(() => {});
    }, leaseMs / 3);
    timer.unref();
    return () => clearInterval(timer);
  }
  const fault = async (point: CommitPoint) => {
    await options.faults?.(point);
  };

  async function tableFor(name: string): Promise<TableInfo> {
    const table = await source.schema.resolveTable(name);
    checkStageable(table);
    return table;
  }

  async function tableFilterOf(filter: StagingFilter | undefined): Promise<TableInfo | undefined> {
    if (!filter?.table) return undefined;
    return source.schema.resolveTable(filter.table);
  }

  /** Staged changes as the data side applies them, in id order. */
  async function changesWhere(
    narrow: (qb: ReturnType<typeof selectChanges>) => ReturnType<typeof selectChanges>,
  ): Promise<ChangeToApply[]> {
    const rows = await narrow(selectChanges()).orderBy('id').execute();
    return rows.map((row) => ({
      id: Number(row.id),
      kind: row.kind as ChangeToApply['kind'],
      schema: row.table_schema as string,
      table: row.table_name as string,
      keyJson: (row.key_json as string | null) ?? null,
      beforeJson: (row.before_json as string | null) ?? null,
      valuesJson: (row.values_json as string | null) ?? null,
    }));
  }

  function selectChanges() {
    return q
      .selectFrom('staged_changes')
      .select([
        'id',
        'kind',
        'table_schema',
        'table_name',
        jsonText(dialect, 'row_key').as('key_json'),
        jsonText(dialect, 'before').as('before_json'),
        jsonText(dialect, 'values').as('values_json'),
      ]);
  }

  /**
   * See Staging.recover. `finish`: the user is committing, so a dead committer's transaction may
   * be resent (DynamoDB: same token, applied at most once) to learn its outcome, and one whose
   * outcome still cannot be told is released flagged. A reader (list, discard, opening) only
   * settles what the data shows for certain and leaves the rest, which blocks nobody.
   */
  async function recover({ finish = false }: { finish?: boolean } = {}): Promise<number[]> {
    const open = await q
      .selectFrom('commits')
      .select(['id', 'xid', 'holder', 'lease_until', 'replay', 'created_at'])
      .where('state', '=', 'applying')
      // Only commits of this connection's changes: another connection's transaction id means
      // nothing in this database.
      .where((eb) =>
        eb.exists(
          eb
            .selectFrom('staged_changes')
            .select('staged_changes.id')
            .whereRef('staged_changes.commit_id', '=', 'commits.id')
            .where('staged_changes.connection', '=', connection),
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
          : await writer()
              .transactionStatus(row.xid, await changesWhere((qb) => qb.where('commit_id', '=', id)), {
                ...(row.replay && finish ? { replay: row.replay } : {}),
                claimedAt: date(row.created_at),
              })
              .catch(() => 'in progress' as const);
      if (status === 'committed')
        await settle(id, 'applied', null, 'recognised as applied after an interrupted commit');
      else if (status === 'aborted')
        await settle(id, 'failed', null, 'interrupted before it was applied; nothing was written');
      else if (status === 'unknown' && finish) await settleUncertain(id);
      else busy.push(id);
    }
    return busy;
  }

  /**
   * A commit whose outcome cannot be told: its changes are staged again, flagged with it, so no
   * other commit waits for it and the user decides (resolve). Committing them again is safe: each
   * condition refuses an item that no longer holds what was staged.
   */
  async function settleUncertain(id: number): Promise<void> {
    await q.transaction().execute(async (tx) => {
      const current = await tx
        .selectFrom('commits')
        .select('state')
        .where('id', '=', id)
        .$call(lockRows(dialect))
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
  async function settle(
    id: number,
    outcome: 'applied' | 'failed',
    applied: AppliedCounts | null,
    error: string | null,
  ): Promise<boolean> {
    return q.transaction().execute(async (tx) => {
      const current = await tx
        .selectFrom('commits')
        .select('state')
        .where('id', '=', id)
        .$call(lockRows(dialect))
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

  /**
   * Claims the changes for a commit whose write transaction is `xid`, in one transaction of the
   * state store: all of them, or none (ClaimLost: another commit took some, or they were discarded).
   */
  async function claim(ids: readonly number[], xid: string, replay: string | undefined): Promise<number> {
    return q.transaction().execute(async (tx) => {
      const free = await tx
        .selectFrom('staged_changes')
        .select('id')
        .where('id', 'in', [...ids])
        .where('commit_id', 'is', null)
        .orderBy('id')
        .$call(lockRows(dialect))
        .execute();
      if (free.length !== ids.length) throw new ClaimLost();
      const { id } = await tx
        .insertInto('commits')
        .values({
          state: 'applying',
          committed_by: 'user',
          xid,
          holder,
          lease_until: new Date(Date.now() + leaseMs),
          replay: replay ?? null,
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
  async function afterFailedApply(
    claimed: { id: number; xid: string; replay?: string; at: Date },
    changes: ChangeToApply[],
    error: unknown,
  ): Promise<CommitResult> {
    const status = await writer()
      .transactionStatus(claimed.xid, changes, {
        ...(claimed.replay ? { replay: claimed.replay } : {}),
        claimedAt: claimed.at,
      })
      .catch(() => 'unknown' as const);
    const ids = changes.map((change) => change.id);
    if (status === 'committed') {
      await settle(claimed.id, 'applied', null, 'recognised as applied after its answer was lost');
      const applied = { insert: 0, update: 0, delete: 0 };
      for (const change of changes) applied[change.kind]++;
      return { ok: true, applied, changeIds: ids };
    }
    if (status === 'aborted') {
      await settle(claimed.id, 'failed', null, (error as Error).message);
      throw error;
    }
    if (status === 'in progress') {
      // Still running in the database: the lease lapses now, so the next reader settles it.
      await q.updateTable('commits').set({ lease_until: new Date() }).where('id', '=', claimed.id).execute();
      return unsettled();
    }
    await settleUncertain(claimed.id);
    throw new DataSourceError(
      'connection',
      `The commit failed (${(error as Error).message}) and the database cannot tell whether it was applied. Its ${ids.length} change${ids.length === 1 ? ' is' : 's are'} staged again, flagged as commit #${claimed.id}: look at the items, then record what you find with toolrow staging resolve ${claimed.id} applied (or staged). Committing them again is safe: a change already applied is refused as changed.`,
      { cause: error },
    );
  }

  async function unsettled(): Promise<never> {
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
  async function commitInParts(ids: number[], max: number): Promise<CommitResult> {
    const done = { parts: 0, applied: { insert: 0, update: 0, delete: 0 }, changeIds: [] as number[] };
    for (let start = 0; start < ids.length; start += max) {
      const result = await staging.commit({ ids: ids.slice(start, start + max) });
      if (!result.ok) return done.parts > 0 ? { ...result, appliedBefore: done } : result;
      done.parts++;
      for (const kind of ['insert', 'update', 'delete'] as const) done.applied[kind] += result.applied[kind];
      done.changeIds.push(...result.changeIds);
    }
    return { ok: true, applied: done.applied, changeIds: done.changeIds, parts: done.parts };
  }

  async function list(filter?: StagingFilter): Promise<StagedChange[]> {
    await recover();
    const rows = await q
      .selectFrom('staged_changes')
      .selectAll()
      .where(selection(filter, await tableFilterOf(filter), connection))
      .orderBy('id')
      .execute();
    return rows.map(toChange);
  }

  function wrapCanonical(table: TableInfo, values: Row, where: string): Promise<string> {
    return writer()
      .canonicalJson(table, values)
      .catch((error) => wrapStageError(error, where));
  }

  async function imageOf(table: TableInfo, key: RowKey, where: string): Promise<string> {
    const before = await writer()
      .currentRowJson(table, key)
      .catch((error) => wrapStageError(error, where));
    if (before === null) {
      throw new DataSourceError(
        'row-not-found',
        `${where}: no row of '${table.qualifiedName}' has the key ${JSON.stringify(key)}. Nothing was staged.`,
      );
    }
    return before;
  }

  /**
   * Refuses an edit whose base changed since it was read: the values read (key columns aside),
   * canonical as the engine stores them, laid over the row as it is now, must pass the very check
   * a commit runs (the engine's own comparison: numbers by value, DynamoDB's sets and maps).
   */
  async function checkSeen(table: TableInfo, before: string, seen: unknown, where: string): Promise<void> {
    if (typeof seen !== 'object' || seen === null || Array.isArray(seen))
      throw new DataSourceError('invalid-change', `${where}: expected an object of column → value as read.`);
    const keyColumns = new Set(table.primaryKey);
    const read = Object.fromEntries(Object.entries(seen).filter(([column]) => !keyColumns.has(column)));
    if (Object.keys(read).length === 0) return;
    const readJson = await wrapCanonical(table, normalizeValues(table, read, where, true), where);
    const now = parseExact(before);
    const expected = { ...now, ...parseExact(readJson) };
    const [conflict] = await writer()
      .check([
        {
          id: 0,
          kind: 'update',
          schema: table.schema,
          table: table.name,
          keyJson: keyOf(before, table),
          beforeJson: JSON.stringify(expected),
          valuesJson: readJson,
        },
      ])
      .catch((error) => wrapStageError(error, where));
    if (!conflict) return;
    const current = conflict.current ?? now;
    const columns = (conflict.changedColumns.length > 0 ? conflict.changedColumns : Object.keys(read))
      .filter((column) => Object.hasOwn(expected, column))
      .map((column) => ({ column, seen: expected[column], now: current[column] }));
    const said = columns
      .map(
        ({ column, seen: was, now: is }) => `'${column}' is ${show(is)} now (it was ${show(was)} when read)`,
      )
      .join('; ');
    throw new StaleEditError(
      {
        table: table.qualifiedName,
        key: keyOf(before, table) === null ? null : parseExact(keyOf(before, table)!),
        columns,
        current,
      },
      `${where}: the row of '${table.qualifiedName}' with the key ${keyOf(before, table)} changed after it was read: ${said}. Nothing was staged, so the other change is kept; read the row again and stage the edit against what it holds now.`,
    );
  }

  const staging: Staging = {
    recover: () => recover(),

    async stageInsert(tableName, rows, meta) {
      const { actor, profile } = checkMeta(meta);
      const table = await tableFor(tableName);
      checkCount(rows, 'row');
      const required = table.columns.filter(
        (column) => !column.nullable && column.default === null && !column.generated,
      );
      const normalized = rows.map((row, index) => {
        const where = `rows[${index}]`;
        const values = normalizeValues(table, row, where, false);
        const missing = required.filter(
          (column) => values[column.name] === undefined || values[column.name] === null,
        );
        if (missing.length > 0) {
          throw new DataSourceError(
            'invalid-change',
            `${where}: ${missing.map((column) => `'${column.name}'`).join(', ')} ${missing.length === 1 ? 'is' : 'are'} required (NOT NULL without a default) in '${table.qualifiedName}'.`,
          );
        }
        return values;
      });
      const stored: string[] = [];
      for (const [index, values] of normalized.entries())
        stored.push(await wrapCanonical(table, values, `rows[${index}]`));
      return q.transaction().execute(async (tx) => {
        const changes: StagedChange[] = [];
        for (const valuesJson of stored) {
          const key = table.primaryKey.length > 0 ? keyOf(valuesJson, table) : null;
          const complete =
            key !== null &&
            table.primaryKey.every((column) => {
              const value = (JSON.parse(key) as Row)[column];
              return value !== undefined && value !== null;
            });
          changes.push(
            await insertChange(tx, {
              connection,
              kind: 'insert',
              table,
              key: complete ? key : null,
              before: null,
              values: valuesJson,
              actor,
              profile,
            }),
          );
        }
        return changes;
      });
    },

    async stageUpdate(tableName, updates, meta) {
      const { actor, profile } = checkMeta(meta);
      const table = await tableFor(tableName);
      checkCount(updates, 'update');
      const prepared = updates.map((update, index) => {
        const where = `updates[${index}]`;
        if (typeof update !== 'object' || update === null) {
          throw new DataSourceError('invalid-change', `${where}: expected { key, values }.`);
        }
        return {
          key: normalizeKey(table, update.key, source.rows.checkValue),
          values: normalizeValues(table, update.values, `${where}.values`, true),
          seen: update.seen,
          where,
        };
      });
      const read: { valuesJson: string; before: string }[] = [];
      for (const { key, values, seen, where } of prepared) {
        const before = await imageOf(table, key, `${where}.key`);
        if (seen !== undefined) await checkSeen(table, before, seen, `${where}.seen`);
        read.push({ valuesJson: await wrapCanonical(table, values, `${where}.values`), before });
      }
      return q.transaction().execute(async (tx) => {
        const changes: StagedChange[] = [];
        for (const { valuesJson, before } of read) {
          changes.push(
            await insertChange(tx, {
              connection,
              kind: 'update',
              table,
              key: keyOf(before, table),
              before,
              values: valuesJson,
              actor,
              profile,
            }),
          );
        }
        return changes;
      });
    },

    async stageDelete(tableName, keys, meta, seen) {
      const { actor, profile } = checkMeta(meta);
      const table = await tableFor(tableName);
      checkCount(keys, 'key');
      const normalized = keys.map((key) => normalizeKey(table, key, source.rows.checkValue));
      const images: string[] = [];
      for (const [index, key] of normalized.entries()) {
        const before = await imageOf(table, key, `keys[${index}]`);
        const read = seen?.[index];
        if (read !== undefined) await checkSeen(table, before, read, `seen[${index}]`);
        images.push(before);
      }
      return q.transaction().execute(async (tx) => {
        const changes: StagedChange[] = [];
        for (const before of images) {
          changes.push(
            await insertChange(tx, {
              connection,
              kind: 'delete',
              table,
              key: keyOf(before, table),
              before,
              values: null,
              actor,
              profile,
            }),
          );
        }
        return changes;
      });
    },

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

    async commit(filter, options = {}): Promise<CommitResult> {
      // Settles what dead committers left; a live committer's claim only keeps its own changes.
      await recover({ finish: true });
      const where = selection(filter, await tableFilterOf(filter), connection);
      const max = writer().maxChangesPerTransaction;
      if (max !== undefined) {
        const selected = (await changesWhere((qb) => qb.where(where).where('commit_id', 'is', null))).map(
          (change) => change.id,
        );
        if (selected.length > max) {
          const parts = Math.ceil(selected.length / max);
          if (!options.inParts) {
            throw new DataSourceError(
              'invalid-change',
              `${source.description} applies at most ${max} changes in one transaction, and ${selected.length} are selected: nothing was applied. Commit them in ${parts} parts of at most ${max}, each all or nothing (toolrow staging commit --in-parts; in the app, Commit offers it), or select at most ${max}.`,
            );
          }
          return commitInParts(selected, max);
        }
      }
      // Read what to commit, then claim it inside the data's write transaction, recording that
      // transaction's id in the same state transaction as the claim. A claimed commit therefore always
      // names a transaction whose outcome the data database decides: no reader, second process,
      // crash or retry can free a claim whose changes may still be applied.
      for (let attempt = 1; ; attempt++) {
        const changes = await changesWhere((qb) => qb.where(where).where('commit_id', 'is', null));
        if (changes.length === 0)
          return { ok: true, applied: { insert: 0, update: 0, delete: 0 }, changeIds: [] };
        const ids = changes.map((change) => change.id);
        let claimed: { id: number; xid: string; replay?: string; at: Date } | undefined;
        let stopRenewing: (() => void) | undefined;
        let result: Awaited<ReturnType<ChangeWriter['apply']>>;
        try {
          result = await writer().apply(changes, {
            onTransaction: async (xid, replay) => {
              const at = new Date();
              const id = await claim(ids, xid, replay);
              claimed = { id, xid, at, ...(replay ? { replay } : {}) };
              stopRenewing = renewLease(id);
              await fault('claimed');
            },
          });
        } catch (error) {
          stopRenewing?.();
          if (error instanceof ClaimLost) {
            if (attempt < 10) continue;
            return unsettled();
          }
          if (claimed === undefined) throw error;
          return afterFailedApply(claimed, changes, error);
        }
        stopRenewing?.();
        await fault('data-committed');
        if (!result.ok) {
          if (claimed) await settle(claimed.id, 'failed', null, 'conflicts');
          else {
            // Refused before any claim (the engine's check): when another commit took some of
            // these changes meanwhile, its write is what the check saw. Start again from what is left.
            const left = await changesWhere((qb) => qb.where('id', 'in', ids).where('commit_id', 'is', null));
            if (left.length !== ids.length && attempt < 10) continue;
          }
          return { ok: false, conflicts: result.conflicts };
        }
        // An engine may find nothing to write (an insert and its delete): no claim was needed.
        if (claimed) await settle(claimed.id, 'applied', result.applied, null);
        return { ok: true, applied: result.applied, changeIds: ids };
      }
    },

    async check(filter) {
      const where = selection(filter, await tableFilterOf(filter), connection);
      const changes = await changesWhere((qb) => qb.where(where).where('commit_id', 'is', null));
      return changes.length === 0 ? [] : writer().check(changes);
    },

    async resolve(commitId, outcome: ResolvedOutcome) {
      return q.transaction().execute(async (tx) => {
        const uncertain = await tx
          .selectFrom('commits')
          .select('id')
          .where('id', '=', commitId)
          .where('uncertain', '=', true)
          .$call(lockRows(dialect))
          .executeTakeFirst();
        if (!uncertain) return 0;
        const mine = (qb: ReturnType<typeof tx.updateTable<'staged_changes'>>) =>
          qb.where('uncertain_commit', '=', commitId).where('connection', '=', connection);
        let count: number;
        if (outcome === 'applied') {
          const result = await tx
            .deleteFrom('staged_changes')
            .where('uncertain_commit', '=', commitId)
            .where('connection', '=', connection)
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
    },

    async discard(filter) {
      await recover();
      const result = await q
        .deleteFrom('staged_changes')
        .where(selection(filter, await tableFilterOf(filter), connection))
        .where('commit_id', 'is', null)
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
  return staging;
}
