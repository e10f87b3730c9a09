// What every part of the staging area uses: a staged row as read back, the checks of a stage call's
// input, a commit's holder and lease, the selection a filter names.
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import {
  type Actor,
  DataSourceError,
  DEFAULT_PROFILE,
  isActor,
  type Row,
  type RowKey,
  resolveColumnIn,
  type TableInfo,
  UnknownNameError,
} from '@toolrow/datasource';
import { type Expression, type ExpressionBuilder, type SqlBool, sql } from 'kysely';
import { date, jsonValue, type StateQueries } from '../store/state-db.ts';
import type { StateTables } from '../store/tables.ts';
import type { StagedChange, StageMeta, StagingFilter } from './types.ts';

export const MAX_ROWS_PER_CALL = 1000;

export function toChange(row: Row): StagedChange {
  return {
    id: Number(row.id),
    kind: row.kind as StagedChange['kind'],
    // As the engine names it: schema-qualified on PostgreSQL, the bare table name on DynamoDB (no schema).
    table: row.table_schema ? `${row.table_schema}.${row.table_name}` : (row.table_name as string),
    key: jsonValue<RowKey | null>(row.row_key) ?? null,
    before: jsonValue<Row | null>(row.before) ?? null,
    values: jsonValue<Row | null>(row.values) ?? null,
    stagedBy: row.staged_by as Actor,
    person: (row.person as string | null | undefined) ?? null,
    profile: row.profile as string,
    createdAt: date(row.created_at),
    ...(row.uncertain_commit == null ? {} : { uncertainCommit: Number(row.uncertain_commit) }),
  };
}

/** How long a claim holds without its committer renewing it (it renews every third of this). */
export const COMMIT_LEASE_MS = 30_000;

/** This process, as a commit's holder: host, pid, and an id of this staging area. */
export function holderId(): string {
  return `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
}

/**
 * Whether the committer holding a claim may still be at work: its lease has not run out, and when
 * it runs on this machine, its process is alive. A claim of an older release names no holder.
 */
export function holderAlive(holder: string | null, leaseUntil: Date | null, now = Date.now()): boolean {
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
export function show(value: unknown): string {
  if (value === undefined) return 'absent';
  return JSON.stringify(value);
}

export function checkMeta(meta: StageMeta): { actor: Actor; profile: string; person: string | null } {
  if (!meta || !isActor(meta.actor)) {
    throw new DataSourceError(
      'misuse',
      `Staging needs an actor: 'user', 'agent' or 'mcp:<token name>', got '${meta?.actor}'.`,
    );
  }
  if (meta.person != null && (typeof meta.person !== 'string' || meta.person.trim() === ''))
    throw new DataSourceError('misuse', `Staging's person must be an email, got '${meta.person}'.`);
  return { actor: meta.actor, profile: meta.profile ?? DEFAULT_PROFILE, person: meta.person ?? null };
}

export function checkStageable(table: TableInfo): void {
  if (table.kind !== 'table' && table.kind !== 'partitioned table') {
    throw new DataSourceError(
      'invalid-change',
      `'${table.qualifiedName}' is a ${table.kind}; only tables can be changed.`,
    );
  }
}

export function checkCount(items: unknown, what: string): asserts items is unknown[] {
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
export function normalizeValues(table: TableInfo, values: unknown, where: string, forUpdate: boolean): Row {
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
export function resolveColumnOrNew(
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

export function wrapStageError(error: unknown, where: string): never {
  if (error instanceof DataSourceError) throw error;
  throw new DataSourceError('invalid-change', `${where}: ${(error as Error).message}.`, { cause: error });
}

/** The changes a commit read were claimed or discarded by someone else before it could claim them. */
export class ClaimLost extends Error {
  constructor() {
    super('the staged changes were claimed or discarded by another process');
  }
}

export type Where = (eb: ExpressionBuilder<StateTables, 'staged_changes'>) => Expression<SqlBool>;

/** The staged changes a filter names. */
export function selection(
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
export function parseExact(json: string): Record<string, unknown> {
  const rawJson = (JSON as unknown as { rawJSON(text: string): unknown }).rawJSON;
  return JSON.parse(json, ((_key: string, value: unknown, context?: { source?: string }) =>
    typeof value === 'number' && context?.source !== undefined ? rawJson(context.source) : value) as never);
}

/** The primary-key columns of a row image, as JSON text (numbers exact); null when it has none. */
export function keyOf(rowJson: string, table: TableInfo): string | null {
  const row = parseExact(rowJson);
  const key = table.primaryKey.filter((column) => Object.hasOwn(row, column));
  if (key.length === 0) return null;
  return JSON.stringify(Object.fromEntries(key.map((column) => [column, row[column]])));
}

export async function insertChange(
  tx: StateQueries,
  change: {
    kind: StagedChange['kind'];
    table: TableInfo;
    key: string | null;
    before: string | null;
    values: string | null;
    actor: Actor;
    person: string | null;
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
      person: change.person,
      profile: change.profile,
      connection: change.connection,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return toChange(row);
}
