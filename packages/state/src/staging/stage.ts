import {
  type Actor,
  DataSourceError,
  type Row,
  type RowKey,
  StaleEditError,
  type TableInfo,
} from '@toolrow/datasource';
import { normalizeKey } from '@toolrow/datasource-utils';
import type { StateQueries } from '../store/state-db.ts';
import { type StagingContext, tableFor } from './context.ts';
import { checkStager, idList, recordStagingAudit } from './people.ts';
import {
  checkCount,
  checkMeta,
  insertChange,
  keyOf,
  normalizeValues,
  parseExact,
  show,
  wrapStageError,
} from './shared.ts';
import type { StagedChange, StageMeta, Staging } from './types.ts';

/**
 * A person's own stage (the app's grid, `toolrow call` as the user, a personal token) in the
 * audit log, in the stage's own transaction. The agent's and MCP clients' are their gates'.
 */
async function auditOwnStage(
  tx: StateQueries,
  tool: 'stageInsertRows' | 'stageUpdateRows' | 'stageDeleteRows',
  input: unknown,
  table: TableInfo,
  changes: readonly StagedChange[],
  who: { actor: Actor; person: string | null; profile: string },
): Promise<void> {
  if (who.actor !== 'user') return;
  const what =
    tool === 'stageInsertRows'
      ? `${changes.length} insert${changes.length === 1 ? '' : 's'} into`
      : tool === 'stageUpdateRows'
        ? `${changes.length === 1 ? 'an update' : `${changes.length} updates`} of`
        : `${changes.length} delete${changes.length === 1 ? '' : 's'} from`;
  await recordStagingAudit(tx, {
    tool,
    input,
    profile: who.profile,
    by: { actor: who.actor, person: who.person },
    table: table.qualifiedName,
    detail: `staged ${what} ${table.qualifiedName} (${idList(changes.map((change) => change.id))}).`,
  });
}

export function wrapCanonical(
  ctx: StagingContext,
  table: TableInfo,
  values: Row,
  where: string,
): Promise<string> {
  return ctx
    .writer()
    .canonicalJson(table, values)
    .catch(async (error) => {
      // The database names the type, not the column: find the value it refused, one at a time.
      const columns = Object.keys(values);
      if (columns.length > 1 && !(error instanceof DataSourceError))
        for (const column of columns) {
          const alone = await ctx
            .writer()
            .canonicalJson(table, { [column]: values[column] })
            .then(
              () => undefined,
              (refused: unknown) => refused,
            );
          if (alone) return wrapStageError(alone, `${where}.${column}`);
        }
      return wrapStageError(error, columns.length === 1 ? `${where}.${columns[0]}` : where);
    });
}

export async function imageOf(
  ctx: StagingContext,
  table: TableInfo,
  key: RowKey,
  where: string,
): Promise<string> {
  const before = await ctx
    .writer()
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
export async function checkSeen(
  ctx: StagingContext,
  table: TableInfo,
  before: string,
  seen: unknown,
  where: string,
): Promise<void> {
  if (typeof seen !== 'object' || seen === null || Array.isArray(seen))
    throw new DataSourceError('invalid-change', `${where}: expected an object of column → value as read.`);
  const keyColumns = new Set(table.primaryKey);
  const read = Object.fromEntries(Object.entries(seen).filter(([column]) => !keyColumns.has(column)));
  if (Object.keys(read).length === 0) return;
  const readJson = await wrapCanonical(ctx, table, normalizeValues(table, read, where, true), where);
  const now = parseExact(before);
  const expected = { ...now, ...parseExact(readJson) };
  const [conflict] = await ctx
    .writer()
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
    .map(({ column, seen: was, now: is }) => `'${column}' is ${show(is)} now (it was ${show(was)} when read)`)
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

export async function stageInsert(
  ctx: StagingContext,
  tableName: string,
  rows: readonly unknown[],
  meta: StageMeta,
): Promise<StagedChange[]> {
  const { actor, profile, person } = checkMeta(meta);
  await checkStager(ctx.q, person);
  const table = await tableFor(ctx, tableName);
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
    stored.push(await wrapCanonical(ctx, table, values, `rows[${index}]`));
  return ctx.q.transaction().execute(async (tx) => {
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
          connection: ctx.connection,
          kind: 'insert',
          table,
          key: complete ? key : null,
          before: null,
          values: valuesJson,
          actor,
          person,
          profile,
        }),
      );
    }
    await auditOwnStage(tx, 'stageInsertRows', { table: table.qualifiedName, rows }, table, changes, {
      actor,
      person,
      profile,
    });
    return changes;
  });
}

export async function stageUpdate(
  ctx: StagingContext,
  tableName: string,
  updates: Parameters<Staging['stageUpdate']>[1],
  meta: StageMeta,
): Promise<StagedChange[]> {
  const { actor, profile, person } = checkMeta(meta);
  await checkStager(ctx.q, person);
  const table = await tableFor(ctx, tableName);
  checkCount(updates, 'update');
  const prepared = updates.map((update, index) => {
    const where = `updates[${index}]`;
    if (typeof update !== 'object' || update === null) {
      throw new DataSourceError('invalid-change', `${where}: expected { key, values }.`);
    }
    return {
      key: normalizeKey(table, update.key, ctx.source.rows.checkValue),
      values: normalizeValues(table, update.values, `${where}.values`, true),
      seen: update.seen,
      where,
    };
  });
  const read: { valuesJson: string; before: string }[] = [];
  for (const { key, values, seen, where } of prepared) {
    const before = await imageOf(ctx, table, key, `${where}.key`);
    if (seen !== undefined) await checkSeen(ctx, table, before, seen, `${where}.seen`);
    read.push({ valuesJson: await wrapCanonical(ctx, table, values, `${where}.values`), before });
  }
  return ctx.q.transaction().execute(async (tx) => {
    const changes: StagedChange[] = [];
    for (const { valuesJson, before } of read) {
      changes.push(
        await insertChange(tx, {
          connection: ctx.connection,
          kind: 'update',
          table,
          key: keyOf(before, table),
          before,
          values: valuesJson,
          actor,
          person,
          profile,
        }),
      );
    }
    await auditOwnStage(tx, 'stageUpdateRows', { table: table.qualifiedName, updates }, table, changes, {
      actor,
      person,
      profile,
    });
    return changes;
  });
}

export async function stageDelete(
  ctx: StagingContext,
  tableName: string,
  keys: readonly unknown[],
  meta: StageMeta,
  seen?: Parameters<Staging['stageDelete']>[3],
): Promise<StagedChange[]> {
  const { actor, profile, person } = checkMeta(meta);
  await checkStager(ctx.q, person);
  const table = await tableFor(ctx, tableName);
  checkCount(keys, 'key');
  const normalized = keys.map((key) => normalizeKey(table, key, ctx.source.rows.checkValue));
  const images: string[] = [];
  for (const [index, key] of normalized.entries()) {
    const before = await imageOf(ctx, table, key, `keys[${index}]`);
    const read = seen?.[index];
    if (read !== undefined) await checkSeen(ctx, table, before, read, `seen[${index}]`);
    images.push(before);
  }
  return ctx.q.transaction().execute(async (tx) => {
    const changes: StagedChange[] = [];
    for (const before of images) {
      changes.push(
        await insertChange(tx, {
          connection: ctx.connection,
          kind: 'delete',
          table,
          key: keyOf(before, table),
          before,
          values: null,
          actor,
          person,
          profile,
        }),
      );
    }
    await auditOwnStage(tx, 'stageDeleteRows', { table: table.qualifiedName, keys }, table, changes, {
      actor,
      person,
      profile,
    });
    return changes;
  });
}
