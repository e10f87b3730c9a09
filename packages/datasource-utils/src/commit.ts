// The commit protocol of a SQL engine's ChangeWriter, written once: each change's table from the
// schema (reloaded once when one is unknown), every row compared inside the write transaction with
// the image it was staged against (locked where the engine locks rows), the whole commit refused on
// any conflict, the changes applied in order, and a failure named by its change. An engine supplies
// its SQL as a CommitDialect; PostgreSQL and SQLite use it, and so does the next engine.
import {
  type ApplyOptions,
  type ApplyResult,
  type ChangeToApply,
  DataSourceError,
  type Row,
  type RowKey,
  type SchemaCache,
  type StagingConflict,
  type TableInfo,
} from '@toolrow/datasource';
import { referencedDeletes } from './referenced.ts';

/** The row under a change's key as it is now, beside the image the change was staged against. */
export interface RowNow {
  /** The row as JSON text (the engine's image: the text currentRowJson gives). */
  current: string;
  /** Whether it equals the staged image. */
  same: boolean;
  /** The columns whose values differ from the staged image, in the order the engine lists them. */
  changed: readonly string[];
}

/**
 * What an engine supplies for the protocol. `Tx` is whatever its statements run on: a connection
 * inside the write transaction while committing, the reader while checking.
 */
export interface CommitDialect<Tx> {
  /** Runs `work` in one write transaction: committed when it returns, rolled back when it throws. */
  transaction<T>(work: (tx: Tx) => Promise<T>): Promise<T>;
  /** The open transaction's id, as transactionStatus takes it after a crash. */
  transactionId(tx: Tx): Promise<string>;
  /** Refuses, before any row is read, a commit the writer lacks the rights for. */
  checkPrivileges?(tx: Tx, changes: readonly ChangeToApply[]): Promise<void>;
  /** The row under the change's key (undefined: none), locked until COMMIT when `lock`. */
  rowNow(tx: Tx, table: TableInfo, change: ChangeToApply, lock: boolean): Promise<RowNow | undefined>;
  /** Applies one change; throws when no row matched its key. */
  applyOne(tx: Tx, change: ChangeToApply, table: TableInfo): Promise<void>;
  /** The engine's reading of a failed change (a missing right, a read-only file), else undefined. */
  applyError?(change: ChangeToApply, error: unknown): DataSourceError | undefined;
  /** Up to `limit` rows of `child` whose `columns` hold `values`, as JSON records. */
  referencing(
    tx: Tx,
    child: TableInfo,
    columns: readonly string[],
    values: readonly unknown[],
    limit: number,
  ): Promise<Row[]>;
}

/** Thrown inside the transaction so that it rolls back; returned as the commit's answer. */
class Conflicts extends Error {
  readonly conflicts: StagingConflict[];
  constructor(conflicts: StagingConflict[]) {
    super('conflicts');
    this.conflicts = conflicts;
  }
}

const tableOf = (change: ChangeToApply, tables: readonly TableInfo[]) =>
  tables.find((table) => table.schema === change.schema && table.name === change.table);

/** The schema's tables, reloaded once when a change names a table newer than the cache. */
async function tablesFor(schema: SchemaCache, changes: readonly ChangeToApply[]): Promise<TableInfo[]> {
  const tables = (await schema.get()).tables;
  return changes.some((change) => !tableOf(change, tables)) ? (await schema.refresh()).tables : tables;
}

/** Whether the change still applies to the row as it is now; the conflict when it does not. */
async function conflictOf<Tx>(
  dialect: CommitDialect<Tx>,
  tx: Tx,
  change: ChangeToApply,
  table: TableInfo | undefined,
  lock: boolean,
): Promise<StagingConflict | undefined> {
  const base = {
    changeId: change.id,
    table: `${change.schema}.${change.table}`,
    key: change.keyJson === null ? null : (JSON.parse(change.keyJson) as RowKey),
  };
  const missing = { ...base, reason: 'missing' as const, current: null, changedColumns: [] };
  if (!table) return missing;
  if (change.kind === 'insert' && change.keyJson === null) return undefined;
  if (table.primaryKey.length === 0 || change.keyJson === null) return missing;
  const now = await dialect.rowNow(tx, table, change, lock);
  if (change.kind === 'insert') {
    return now
      ? { ...base, reason: 'exists', current: JSON.parse(now.current) as Row, changedColumns: [] }
      : undefined;
  }
  if (!now) return missing;
  if (now.same) return undefined;
  return {
    ...base,
    reason: 'changed',
    current: JSON.parse(now.current) as Row,
    changedColumns: [...now.changed],
  };
}

/** ChangeWriter.apply: the staged changes in one transaction, or the conflicts and nothing applied. */
export async function commitChanges<Tx>(
  dialect: CommitDialect<Tx>,
  schema: SchemaCache,
  changes: readonly ChangeToApply[],
  options: ApplyOptions = {},
): Promise<ApplyResult> {
  const applied = { insert: 0, update: 0, delete: 0 };
  if (changes.length === 0) return { ok: true, applied };
  const tables = await tablesFor(schema, changes);
  try {
    const result = await dialect.transaction(async (tx) => {
      await dialect.checkPrivileges?.(tx, changes);
      await options.onTransaction?.(await dialect.transactionId(tx));
      const conflicts: StagingConflict[] = [];
      for (const change of changes) {
        const conflict = await conflictOf(dialect, tx, change, tableOf(change, tables), true);
        if (conflict) conflicts.push(conflict);
      }
      if (conflicts.length > 0) throw new Conflicts(conflicts);
      for (const change of changes) {
        try {
          await dialect.applyOne(tx, change, tableOf(change, tables)!);
        } catch (error) {
          throw (
            dialect.applyError?.(change, error) ??
            new DataSourceError(
              'invalid-change',
              `Change #${change.id} (${change.kind} ${change.schema}.${change.table} ${change.keyJson === null ? '(new row)' : JSON.stringify(JSON.parse(change.keyJson))}) failed: ${(error as Error).message}. Nothing was applied; fix or discard that change and commit again.`,
              { cause: error },
            )
          );
        }
        applied[change.kind]++;
      }
      return { ok: true as const, applied };
    });
    schema.invalidate();
    return result;
  } catch (error) {
    if (error instanceof Conflicts) return { ok: false, conflicts: error.conflicts };
    throw error;
  }
}

/**
 * ChangeWriter.check: what apply would find in conflict now, read on `reader` without locks, and
 * deletes of rows still referenced under a key that does not cascade.
 */
export async function checkChanges<Tx>(
  dialect: CommitDialect<Tx>,
  reader: Tx,
  schema: SchemaCache,
  changes: readonly ChangeToApply[],
): Promise<StagingConflict[]> {
  const tables = (await schema.get()).tables;
  const conflicts: StagingConflict[] = [];
  for (const change of changes) {
    const conflict = await conflictOf(dialect, reader, change, tableOf(change, tables), false);
    if (conflict) conflicts.push(conflict);
  }
  const stale = new Set(conflicts.map((conflict) => conflict.changeId));
  conflicts.push(
    ...(await referencedDeletes(
      changes.filter((change) => !stale.has(change.id)),
      tables,
      (child, columns, values, limit) => dialect.referencing(reader, child, columns, values, limit),
    )),
  );
  return conflicts.sort((a, b) => a.changeId - b.changeId);
}
