import { APP_SCHEMA, DEFAULT_PROFILE } from './app-types.ts';
import type { Database, Queryable } from './database.ts';
import { DataSourceError } from './errors.ts';
import { normalizeKey, tableRef } from './rows-impl.ts';
import type { SchemaCache } from './schema-cache.ts';
import { resolveColumnIn } from './schema-names.ts';
import type { TableInfo } from './schema-types.ts';
import { quoteIdent } from './sql.ts';
import type { Staging } from './staging.ts';
import type {
  ChangeDiff,
  ColumnDiff,
  CommitResult,
  StagedChange,
  StageMeta,
  StagingConflict,
  StagingFilter,
} from './staging-types.ts';
import { type Actor, isActor, type Row, type RowKey } from './types.ts';

const S = APP_SCHEMA;
const MAX_ROWS_PER_CALL = 1000;

function toChange(row: Row): StagedChange {
  return {
    id: Number(row.id),
    kind: row.kind as StagedChange['kind'],
    table: `${row.table_schema}.${row.table_name}`,
    key: (row.row_key as RowKey | null) ?? null,
    before: (row.before as Row | null) ?? null,
    values: (row.values as Row | null) ?? null,
    stagedBy: row.staged_by as Actor,
    profile: row.profile as string,
    createdAt: row.created_at instanceof Date ? row.created_at : new Date(String(row.created_at)),
  };
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
    const column = resolveColumnIn(table, name);
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

/** The pieces of SQL that find a table's row by the key stored in a staged change ($1 = change id). */
function keyJoin(table: TableInfo, alias: string): string {
  return table.primaryKey
    .map((column) => `${alias}.${quoteIdent(column)} = k.${quoteIdent(column)}`)
    .join(' AND ');
}

function keyRecord(table: TableInfo, source: string): string {
  return `jsonb_populate_record(NULL::${tableRef(table)}, ${source}) AS k`;
}

function keyObject(table: TableInfo, alias: string): string {
  return `jsonb_build_object(${table.primaryKey.map((column) => `'${column.replaceAll("'", "''")}', ${alias}.${quoteIdent(column)}`).join(', ')})`;
}

function describeKey(key: RowKey | null): string {
  return key ? JSON.stringify(key) : '(new row)';
}

function wrapStageError(error: unknown, where: string): never {
  if (error instanceof DataSourceError) throw error;
  throw new DataSourceError('invalid-change', `${where}: ${(error as Error).message}.`, { cause: error });
}

interface Selected {
  where: string;
  params: unknown[];
}

function selection(filter: StagingFilter | undefined, tableFilter: TableInfo | undefined): Selected {
  const parts: string[] = [];
  const params: unknown[] = [];
  if (filter?.ids) {
    params.push(filter.ids.map(Number));
    parts.push(`id = ANY($${params.length}::int8[])`);
  }
  if (tableFilter) {
    params.push(tableFilter.schema, tableFilter.name);
    parts.push(`table_schema = $${params.length - 1} AND table_name = $${params.length}`);
  }
  if (filter?.profile) {
    params.push(filter.profile);
    parts.push(`profile = $${params.length}`);
  }
  return { where: parts.length > 0 ? parts.join(' AND ') : 'TRUE', params };
}

class Conflicts extends Error {
  readonly conflicts: StagingConflict[];
  constructor(conflicts: StagingConflict[]) {
    super('staging conflicts');
    this.conflicts = conflicts;
  }
}

export function createStaging(db: Database, schema: SchemaCache): Staging {
  async function tableFor(name: string): Promise<TableInfo> {
    const table = await schema.resolveTable(name);
    checkStageable(table);
    return table;
  }

  async function tableFilterOf(filter: StagingFilter | undefined): Promise<TableInfo | undefined> {
    if (!filter?.table) return undefined;
    return schema.resolveTable(filter.table);
  }

  async function list(filter?: StagingFilter): Promise<StagedChange[]> {
    const { where, params } = selection(filter, await tableFilterOf(filter));
    const result = await db.query(`SELECT * FROM ${S}.staged_changes WHERE ${where} ORDER BY id`, params);
    return result.rows.map(toChange);
  }

  /** Postgres converts the JSON to the column types: type errors surface now, and stored values are canonical. */
  async function canonical(tx: Queryable, table: TableInfo, values: Row): Promise<Row> {
    const result = await tx.query<{ values: Row }>(
      `SELECT (SELECT jsonb_object_agg(e.key, e.value) FROM jsonb_each(to_jsonb(r)) AS e WHERE e.key = ANY($2::text[])) AS values
       FROM jsonb_populate_record(NULL::${tableRef(table)}, $1::jsonb) AS r`,
      [JSON.stringify(values), Object.keys(values)],
    );
    return result.rows[0]!.values;
  }

  const staging: Staging = {
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
      return db.transaction(async (tx) => {
        const changes: StagedChange[] = [];
        for (const [index, values] of normalized.entries()) {
          const stored = await canonical(tx, table, values).catch((error) =>
            wrapStageError(error, `rows[${index}]`),
          );
          const hasKey =
            table.primaryKey.length > 0 &&
            table.primaryKey.every((column) => stored[column] !== undefined && stored[column] !== null);
          const result = await tx.query(
            `INSERT INTO ${S}.staged_changes (kind, table_schema, table_name, row_key, before, "values", staged_by, profile)
             SELECT 'insert', $1, $2, CASE WHEN $3 THEN (SELECT jsonb_object_agg(e.key, e.value) FROM jsonb_each($4::jsonb) AS e WHERE e.key = ANY($5::text[])) END,
                    NULL, $4::jsonb, $6, $7
             RETURNING *`,
            [table.schema, table.name, hasKey, JSON.stringify(stored), table.primaryKey, actor, profile],
          );
          changes.push(toChange(result.rows[0]!));
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
          key: normalizeKey(table, update.key),
          values: normalizeValues(table, update.values, `${where}.values`, true),
          where,
        };
      });
      return db.transaction(async (tx) => {
        const changes: StagedChange[] = [];
        for (const { key, values, where } of prepared) {
          const stored = await canonical(tx, table, values).catch((error) =>
            wrapStageError(error, `${where}.values`),
          );
          const result = await tx
            .query(
              `INSERT INTO ${S}.staged_changes (kind, table_schema, table_name, row_key, before, "values", staged_by, profile)
               SELECT 'update', $2, $3, ${keyObject(table, 't')}, to_jsonb(t.*), $4::jsonb, $5, $6
               FROM ${tableRef(table)} AS t, ${keyRecord(table, '$1::jsonb')}
               WHERE ${keyJoin(table, 't')}
               RETURNING *`,
              [JSON.stringify(key), table.schema, table.name, JSON.stringify(stored), actor, profile],
            )
            .catch((error) => wrapStageError(error, `${where}.key`));
          if (result.rows.length === 0) {
            throw new DataSourceError(
              'row-not-found',
              `${where}: no row of '${table.qualifiedName}' has the key ${JSON.stringify(key)}. Nothing was staged.`,
            );
          }
          changes.push(toChange(result.rows[0]!));
        }
        return changes;
      });
    },

    async stageDelete(tableName, keys, meta) {
      const { actor, profile } = checkMeta(meta);
      const table = await tableFor(tableName);
      checkCount(keys, 'key');
      const normalized = keys.map((key) => normalizeKey(table, key));
      return db.transaction(async (tx) => {
        const changes: StagedChange[] = [];
        for (const [index, key] of normalized.entries()) {
          const result = await tx
            .query(
              `INSERT INTO ${S}.staged_changes (kind, table_schema, table_name, row_key, before, "values", staged_by, profile)
               SELECT 'delete', $2, $3, ${keyObject(table, 't')}, to_jsonb(t.*), NULL, $4, $5
               FROM ${tableRef(table)} AS t, ${keyRecord(table, '$1::jsonb')}
               WHERE ${keyJoin(table, 't')}
               RETURNING *`,
              [JSON.stringify(key), table.schema, table.name, actor, profile],
            )
            .catch((error) => wrapStageError(error, `keys[${index}]`));
          if (result.rows.length === 0) {
            throw new DataSourceError(
              'row-not-found',
              `keys[${index}]: no row of '${table.qualifiedName}' has the key ${JSON.stringify(key)}. Nothing was staged.`,
            );
          }
          changes.push(toChange(result.rows[0]!));
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

    async commit(filter): Promise<CommitResult> {
      const tableFilter = await tableFilterOf(filter);
      // A table staged against may have been created after the cache was loaded: reload once if one is unknown.
      let snapshot = await schema.get();
      const pending = await db.query<{ table_schema: string; table_name: string }>(
        `SELECT DISTINCT table_schema, table_name FROM ${S}.staged_changes`,
      );
      if (
        pending.rows.some(
          (row) => !snapshot.tables.some((t) => t.schema === row.table_schema && t.name === row.table_name),
        )
      ) {
        snapshot = await schema.refresh();
      }
      try {
        const result = await db.transaction(async (tx) => {
          const { where, params } = selection(filter, tableFilter);
          const rows = (
            await tx.query(`SELECT * FROM ${S}.staged_changes WHERE ${where} ORDER BY id FOR UPDATE`, params)
          ).rows;
          const changes = rows.map(toChange);
          const applied = { insert: 0, update: 0, delete: 0 };
          if (changes.length === 0) return { ok: true as const, applied, changeIds: [] };

          const conflicts: StagingConflict[] = [];
          const tables = new Map<number, TableInfo>();
          for (const [index, change] of changes.entries()) {
            const row = rows[index]!;
            const table = snapshot.tables.find(
              (item) => item.schema === row.table_schema && item.name === row.table_name,
            );
            if (!table) {
              conflicts.push({
                changeId: change.id,
                table: change.table,
                key: change.key,
                reason: 'missing',
                current: null,
                changedColumns: [],
              });
              continue;
            }
            tables.set(change.id, table);
            if (change.kind === 'insert' && !change.key) continue;
            if (table.primaryKey.length === 0) {
              conflicts.push({
                changeId: change.id,
                table: change.table,
                key: change.key,
                reason: 'missing',
                current: null,
                changedColumns: [],
              });
              continue;
            }
            const check = await tx.query<{ current: Row; same: boolean; changed: string[] | null }>(
              `SELECT to_jsonb(t.*) AS current, to_jsonb(t.*) = c.before AS same,
                      ARRAY(SELECT e.key FROM jsonb_each(to_jsonb(t.*)) AS e WHERE e.value IS DISTINCT FROM c.before -> e.key ORDER BY e.key) AS changed
               FROM ${S}.staged_changes AS c, ${keyRecord(table, 'c.row_key')}, ${tableRef(table)} AS t
               WHERE c.id = $1 AND ${keyJoin(table, 't')}
               FOR UPDATE OF t`,
              [change.id],
            );
            const found = check.rows[0];
            if (change.kind === 'insert') {
              if (found)
                conflicts.push({
                  changeId: change.id,
                  table: change.table,
                  key: change.key,
                  reason: 'exists',
                  current: found.current,
                  changedColumns: [],
                });
            } else if (!found) {
              conflicts.push({
                changeId: change.id,
                table: change.table,
                key: change.key,
                reason: 'missing',
                current: null,
                changedColumns: [],
              });
            } else if (!found.same) {
              conflicts.push({
                changeId: change.id,
                table: change.table,
                key: change.key,
                reason: 'changed',
                current: found.current,
                changedColumns: found.changed ?? [],
              });
            }
          }
          if (conflicts.length > 0) throw new Conflicts(conflicts);

          for (const change of changes) {
            const table = tables.get(change.id)!;
            const label = `Change #${change.id} (${change.kind} ${change.table} ${describeKey(change.key)})`;
            try {
              if (change.kind === 'insert') {
                const columns = Object.keys(change.values ?? {}).map((name) => quoteIdent(name));
                await tx.query(
                  `INSERT INTO ${tableRef(table)} (${columns.join(', ')})
                   SELECT ${columns.map((column) => `r.${column}`).join(', ')}
                   FROM ${S}.staged_changes AS c, jsonb_populate_record(NULL::${tableRef(table)}, c."values") AS r WHERE c.id = $1`,
                  [change.id],
                );
              } else if (change.kind === 'update') {
                const columns = Object.keys(change.values ?? {}).map((name) => quoteIdent(name));
                const updated = await tx.query(
                  `UPDATE ${tableRef(table)} AS t SET ${columns.map((column) => `${column} = r.${column}`).join(', ')}
                   FROM ${S}.staged_changes AS c, ${keyRecord(table, 'c.row_key')}, jsonb_populate_record(NULL::${tableRef(table)}, c."values") AS r
                   WHERE c.id = $1 AND ${keyJoin(table, 't')}`,
                  [change.id],
                );
                if (updated.rowCount === 0)
                  throw new Error('the row is gone (an earlier change in this commit deleted it)');
              } else {
                const deleted = await tx.query(
                  `DELETE FROM ${tableRef(table)} AS t USING ${S}.staged_changes AS c, ${keyRecord(table, 'c.row_key')}
                   WHERE c.id = $1 AND ${keyJoin(table, 't')}`,
                  [change.id],
                );
                if (deleted.rowCount === 0)
                  throw new Error('the row is gone (an earlier change in this commit deleted it)');
              }
            } catch (error) {
              throw new DataSourceError(
                'invalid-change',
                `${label} failed: ${(error as Error).message}. Nothing was applied; fix or discard that change and commit again.`,
                { cause: error },
              );
            }
            applied[change.kind]++;
          }
          const ids = changes.map((change) => change.id);
          await tx.query(`DELETE FROM ${S}.staged_changes WHERE id = ANY($1::int8[])`, [ids]);
          return { ok: true as const, applied, changeIds: ids };
        });
        if (result.changeIds.length > 0) schema.invalidate();
        return result;
      } catch (error) {
        if (error instanceof Conflicts) return { ok: false, conflicts: error.conflicts };
        throw error;
      }
    },

    async discard(filter) {
      const { where, params } = selection(filter, await tableFilterOf(filter));
      return (await db.query(`DELETE FROM ${S}.staged_changes WHERE ${where}`, params)).rowCount;
    },
  };
  return staging;
}
