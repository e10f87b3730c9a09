// Staged changes committed to a SQLite file: one IMMEDIATE transaction on a connection of its own
// (the one connection of this file that may write), each row compared with the image it was staged
// against first, as PostgreSQL's writer does. SQLite keeps no ids of its transactions: after a crash
// the outcome is read from the rows themselves (committed, aborted, or unknown when they disagree).
import { randomUUID } from 'node:crypto';
import { DatabaseSync } from 'node:sqlite';
import {
  type ApplyResult,
  type ChangeToApply,
  type ChangeWriter,
  DataSourceError,
  type Row,
  type RowKey,
  type SchemaCache,
  type StagingConflict,
  type TableInfo,
  type TransactionStatus,
} from '@toolrow/datasource';
import { referencedDeletes } from '@toolrow/datasource-utils';
import { memberPath, quoteIdent } from './sql.ts';

/** A column's value as JSON text holds it: blobs as \x and hex (as the read workers show them). */
function imageValue(column: string): string {
  const ref = quoteIdent(column);
  return `CASE typeof(${ref}) WHEN 'blob' THEN '\\x' || lower(hex(${ref})) ELSE ${ref} END`;
}

/** The whole row as JSON text, in column order: equal text is an unchanged row. */
function imageOf(table: TableInfo): string {
  return `json_object(${table.columns.map((column) => `'${column.name.replaceAll("'", "''")}', ${imageValue(column.name)}`).join(', ')})`;
}

/** `"a" = json_extract(?1, '$."a"') AND …`: the key from a JSON parameter. */
function keyWhere(table: TableInfo, param: string): string {
  return table.primaryKey
    .map(
      (column) =>
        `${quoteIdent(column)} = json_extract(${param}, '${memberPath(column).replaceAll("'", "''")}')`,
    )
    .join(' AND ');
}

const NUMERIC_TEXT = /^\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*$/;

/** SQLite's affinity of a declared type (https://sqlite.org/datatype3.html, 3.1). */
export function affinityOf(type: string): 'INTEGER' | 'TEXT' | 'BLOB' | 'REAL' | 'NUMERIC' {
  const upper = type.toUpperCase();
  if (upper.includes('INT')) return 'INTEGER';
  if (/CHAR|CLOB|TEXT/.test(upper)) return 'TEXT';
  if (upper.includes('BLOB') || upper === '' || upper === 'ANY') return 'BLOB';
  if (/REAL|FLOA|DOUB/.test(upper)) return 'REAL';
  return 'NUMERIC';
}

/** A value as the column will hold it, as JSON text (integers keep every digit). */
function canonical(type: string, value: unknown): string {
  if (value === null || value === undefined) return 'null';
  const affinity = affinityOf(type);
  if (typeof value === 'boolean')
    return affinity === 'TEXT' ? JSON.stringify(value ? '1' : '0') : value ? '1' : '0';
  if (typeof value === 'object') return JSON.stringify(JSON.stringify(value));
  if (affinity === 'TEXT') return JSON.stringify(String(value));
  if (typeof value === 'string' && affinity !== 'BLOB' && NUMERIC_TEXT.test(value)) {
    const text = value.trim();
    if (/^[+-]?\d+$/.test(text)) return BigInt(text).toString();
    return String(Number(text));
  }
  return JSON.stringify(value);
}

export interface SqliteChangeWriterOptions {
  path: string;
  schema: SchemaCache;
}

export function createSqliteChangeWriter({ path, schema }: SqliteChangeWriterOptions): ChangeWriter {
  let db: DatabaseSync | undefined;
  const writer = () => {
    if (!db) {
      db = new DatabaseSync(path, { timeout: 5000, enableForeignKeyConstraints: true });
    }
    return db;
  };
  const tableOf = (change: ChangeToApply, tables: TableInfo[]) =>
    tables.find((table) => table.schema === change.schema && table.name === change.table);

  function findConflict(
    target: DatabaseSync,
    change: ChangeToApply,
    table: TableInfo | undefined,
  ): StagingConflict | undefined {
    const base = {
      changeId: change.id,
      table: `${change.schema}.${change.table}`,
      key: change.keyJson === null ? null : (JSON.parse(change.keyJson) as RowKey),
    };
    const missing = { ...base, reason: 'missing' as const, current: null, changedColumns: [] };
    if (!table) return missing;
    if (change.kind === 'insert' && change.keyJson === null) return undefined;
    if (table.primaryKey.length === 0 || change.keyJson === null) return missing;
    const found = target
      .prepare(
        `SELECT ${imageOf(table)} AS current FROM ${quoteIdent(table.name)} WHERE ${keyWhere(table, '?1')}`,
      )
      .get(change.keyJson) as { current: string } | undefined;
    if (change.kind === 'insert') {
      return found
        ? { ...base, reason: 'exists', current: JSON.parse(found.current) as Row, changedColumns: [] }
        : undefined;
    }
    if (!found) return missing;
    if (found.current === change.beforeJson) return undefined;
    const changed = target
      .prepare(
        "SELECT a.key AS key FROM json_each(?1) AS a WHERE a.value IS NOT json_extract(?2, '$.\"' || a.key || '\"') ORDER BY a.key",
      )
      .all(found.current, change.beforeJson ?? '{}') as { key: string }[];
    return {
      ...base,
      reason: 'changed',
      current: JSON.parse(found.current) as Row,
      changedColumns: changed.map((row) => row.key),
    };
  }

  function applyOne(target: DatabaseSync, change: ChangeToApply, table: TableInfo): void {
    const columns = Object.keys(change.valuesJson === null ? {} : (JSON.parse(change.valuesJson) as Row));
    const value = (column: string) => `json_extract(?1, '${memberPath(column).replaceAll("'", "''")}')`;
    if (change.kind === 'insert') {
      target
        .prepare(
          columns.length === 0
            ? `INSERT INTO ${quoteIdent(table.name)} DEFAULT VALUES`
            : `INSERT INTO ${quoteIdent(table.name)} (${columns.map(quoteIdent).join(', ')}) VALUES (${columns.map(value).join(', ')})`,
        )
        .run(...(columns.length === 0 ? [] : [change.valuesJson]));
      return;
    }
    const result =
      change.kind === 'update'
        ? target
            .prepare(
              `UPDATE ${quoteIdent(table.name)} SET ${columns.map((column) => `${quoteIdent(column)} = ${value(column)}`).join(', ')} WHERE ${keyWhere(table, '?2')}`,
            )
            .run(change.valuesJson, change.keyJson)
        : target
            .prepare(`DELETE FROM ${quoteIdent(table.name)} WHERE ${keyWhere(table, '?1')}`)
            .run(change.keyJson);
    if (Number(result.changes) === 0)
      throw new Error('the row is gone (an earlier change in this commit deleted it)');
  }

  /** Whether the row now is as the change leaves it ('after'), as it found it ('before'), or neither. */
  function stateOf(
    target: DatabaseSync,
    change: ChangeToApply,
    table: TableInfo | undefined,
  ): 'after' | 'before' | 'neither' {
    if (!table || change.keyJson === null) return 'neither';
    const found = target
      .prepare(
        `SELECT ${imageOf(table)} AS current FROM ${quoteIdent(table.name)} WHERE ${keyWhere(table, '?1')}`,
      )
      .get(change.keyJson) as { current: string } | undefined;
    if (change.kind === 'delete')
      return found ? (found.current === change.beforeJson ? 'before' : 'neither') : 'after';
    if (change.kind === 'insert') return found ? 'after' : 'before';
    if (!found) return 'neither';
    if (found.current === change.beforeJson) return 'before';
    const differs = target
      .prepare(
        "SELECT count(*) AS n FROM json_each(?1) AS v WHERE v.value IS NOT json_extract(?2, '$.\"' || v.key || '\"')",
      )
      .get(change.valuesJson ?? '{}', found.current) as { n: number };
    return Number(differs.n) === 0 ? 'after' : 'neither';
  }

  return {
    writer: { description: `SQLite ${path}`, source: 'embedded' },

    async currentRowJson(table, key) {
      const found = writer()
        .prepare(
          `SELECT ${imageOf(table)} AS current FROM ${quoteIdent(table.name)} WHERE ${keyWhere(table, '?1')}`,
        )
        .get(JSON.stringify(key)) as { current: string } | undefined;
      return found?.current ?? null;
    },

    async canonicalJson(table, values) {
      const parts: string[] = [];
      for (const [name, value] of Object.entries(values)) {
        const column = table.columns.find((each) => each.name === name);
        if (!column)
          throw new DataSourceError('invalid-change', `${table.qualifiedName} has no column '${name}'.`);
        parts.push(`${JSON.stringify(name)}:${canonical(column.type, value)}`);
      }
      return `{${parts.join(',')}}`;
    },

    async apply(changes, options = {}): Promise<ApplyResult> {
      const applied = { insert: 0, update: 0, delete: 0 };
      if (changes.length === 0) return { ok: true, applied };
      let tables = (await schema.get()).tables;
      if (changes.some((change) => !tableOf(change, tables))) tables = (await schema.refresh()).tables;
      const target = writer();
      try {
        target.exec('BEGIN IMMEDIATE');
      } catch (error) {
        throw writeError(path, error);
      }
      try {
        await options.onTransaction?.(randomUUID());
        const conflicts = changes.flatMap(
          (change) => findConflict(target, change, tableOf(change, tables)) ?? [],
        );
        if (conflicts.length > 0) {
          target.exec('ROLLBACK');
          return { ok: false, conflicts };
        }
        for (const change of changes) {
          try {
            applyOne(target, change, tableOf(change, tables)!);
          } catch (error) {
            if (/readonly|read-only/i.test((error as Error).message)) throw writeError(path, error);
            throw new DataSourceError(
              'invalid-change',
              `Change #${change.id} (${change.kind} ${change.schema}.${change.table}) failed: ${(error as Error).message}. Nothing was applied; fix or discard that change and commit again.`,
              { cause: error },
            );
          }
          applied[change.kind]++;
        }
        target.exec('COMMIT');
        schema.invalidate();
        return { ok: true, applied };
      } catch (error) {
        if (target.isTransaction) target.exec('ROLLBACK');
        throw error;
      }
    },

    async check(changes) {
      const tables = (await schema.get()).tables;
      const target = writer();
      const conflicts = changes.flatMap(
        (change) => findConflict(target, change, tableOf(change, tables)) ?? [],
      );
      // A delete still referenced under a key that does not cascade: the commit would be refused.
      const stale = new Set(conflicts.map((conflict) => conflict.changeId));
      conflicts.push(
        ...(await referencedDeletes(
          changes.filter((change) => !stale.has(change.id)),
          tables,
          async (child, columns, values, limit) =>
            (
              target
                .prepare(
                  `SELECT ${imageOf(child)} AS row FROM ${quoteIdent(child.name)} WHERE ${columns.map((column, index) => `${quoteIdent(column)} = ?${index + 1}`).join(' AND ')} LIMIT ${limit}`,
                )
                .all(...(values as never[])) as { row: string }[]
            ).map((found) => JSON.parse(found.row) as Row),
        )),
      );
      return conflicts.sort((a, b) => a.changeId - b.changeId);
    },

    async transactionStatus(_xid, changes = []): Promise<TransactionStatus> {
      if (changes.length === 0) return 'unknown';
      const tables = (await schema.refresh()).tables;
      const target = writer();
      const states = new Set(changes.map((change) => stateOf(target, change, tableOf(change, tables))));
      // One transaction: all of it landed or none did; rows that say both were changed since.
      if (states.size === 1 && states.has('after')) return 'committed';
      if (states.size === 1 && states.has('before')) return 'aborted';
      return 'unknown';
    },

    protectionOf: () => ({
      kind: 'check',
      detail:
        'Each row is compared with what was staged inside the write transaction (BEGIN IMMEDIATE holds every other writer out until COMMIT).',
    }),

    async close() {
      db?.close();
      db = undefined;
    },
  };
}

function writeError(path: string, cause: unknown): DataSourceError {
  const message = (cause as Error).message;
  if (/readonly|read-only|unable to open/i.test(message))
    return new DataSourceError(
      'permission',
      `Committing needs write access to ${path}, and it is read-only to this process (${message}). Make the file and its folder writable for the user Toolrow runs as. Nothing was applied; the staged changes are kept.`,
      { cause },
    );
  if (/locked|busy/i.test(message))
    return new DataSourceError(
      'connection',
      `${path} is locked by another writer (${message}). Commit again when it is done. Nothing was applied.`,
      { cause },
    );
  return new DataSourceError('connection', `Could not start a write on ${path}: ${message}`, { cause });
}
