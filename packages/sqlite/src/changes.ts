// Staged changes committed to a SQLite file: one IMMEDIATE transaction on a connection of its own
// (the one connection of this file that may write), each row compared with the image it was staged
// against first, as PostgreSQL's writer does. SQLite keeps no ids of its transactions: after a crash
// the outcome is read from the rows themselves (committed, aborted, or unknown when they disagree).
import { randomUUID } from 'node:crypto';
import { DatabaseSync } from 'node:sqlite';
import {
  type ChangeToApply,
  type ChangeWriter,
  DataSourceError,
  type Row,
  type SchemaCache,
  type TableInfo,
  type TransactionStatus,
} from '@toolrow/datasource';
import { type CommitDialect, checkChanges, commitChanges } from '@toolrow/datasource-utils';
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

  /** The row under the change's key as its JSON image (text equal to the staged one: unchanged). */
  function imageNow(target: DatabaseSync, table: TableInfo, keyJson: string): string | undefined {
    const found = target
      .prepare(
        `SELECT ${imageOf(table)} AS current FROM ${quoteIdent(table.name)} WHERE ${keyWhere(table, '?1')}`,
      )
      .get(keyJson) as { current: string } | undefined;
    return found?.current;
  }

  // BEGIN IMMEDIATE holds every other writer out until COMMIT: no row lock is needed (or exists).
  const dialect: CommitDialect<DatabaseSync> = {
    async transaction(work) {
      const target = writer();
      try {
        target.exec('BEGIN IMMEDIATE');
      } catch (error) {
        throw writeError(path, error);
      }
      try {
        const result = await work(target);
        target.exec('COMMIT');
        return result;
      } catch (error) {
        if (target.isTransaction) target.exec('ROLLBACK');
        throw error;
      }
    },
    // SQLite keeps no transaction ids: recovery reads the outcome from the rows (transactionStatus).
    transactionId: async () => randomUUID(),
    async rowNow(target, table, change) {
      const current = imageNow(target, table, change.keyJson!);
      if (current === undefined) return undefined;
      if (current === change.beforeJson) return { current, same: true, changed: [] };
      const changed = target
        .prepare(
          "SELECT a.key AS key FROM json_each(?1) AS a WHERE a.value IS NOT json_extract(?2, '$.\"' || a.key || '\"') ORDER BY a.key",
        )
        .all(current, change.beforeJson ?? '{}') as { key: string }[];
      return { current, same: false, changed: changed.map((row) => row.key) };
    },
    applyOne: async (target, change, table) => applyOne(target, change, table),
    applyError: (_change, error) =>
      /readonly|read-only/i.test((error as Error).message) ? writeError(path, error) : undefined,
    async referencing(target, child, columns, values, limit) {
      return (
        target
          .prepare(
            `SELECT ${imageOf(child)} AS row FROM ${quoteIdent(child.name)} WHERE ${columns.map((column, index) => `${quoteIdent(column)} = ?${index + 1}`).join(' AND ')} LIMIT ${limit}`,
          )
          .all(...(values as never[])) as { row: string }[]
      ).map((found) => JSON.parse(found.row) as Row);
    },
  };

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
    const current = imageNow(target, table, change.keyJson);
    if (change.kind === 'delete')
      return current !== undefined ? (current === change.beforeJson ? 'before' : 'neither') : 'after';
    if (change.kind === 'insert') return current !== undefined ? 'after' : 'before';
    if (current === undefined) return 'neither';
    if (current === change.beforeJson) return 'before';
    const differs = target
      .prepare(
        "SELECT count(*) AS n FROM json_each(?1) AS v WHERE v.value IS NOT json_extract(?2, '$.\"' || v.key || '\"')",
      )
      .get(change.valuesJson ?? '{}', current) as { n: number };
    return Number(differs.n) === 0 ? 'after' : 'neither';
  }

  return {
    writer: { description: `SQLite ${path}`, source: 'embedded' },

    async currentRowJson(table, key) {
      return imageNow(writer(), table, JSON.stringify(key)) ?? null;
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

    apply: (changes, options) => commitChanges(dialect, schema, changes, options),

    check: (changes) => checkChanges(dialect, writer(), schema, changes),

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
