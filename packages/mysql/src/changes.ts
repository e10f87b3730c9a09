// Staged changes committed to MySQL or MariaDB through the shared commit protocol: one InnoDB
// transaction on the writer's session (TOOLROW_COMMIT_URL's account when set), each row locked
// SELECT … FOR UPDATE and compared with the image it was staged against. The server keeps no
// transaction id a client can ask about later: after a crash the outcome is read from the rows.
import { randomUUID } from 'node:crypto';
import {
  type ChangeToApply,
  type ChangeWriter,
  DataSourceError,
  type Row,
  type RowKey,
  type SchemaCache,
  type TableInfo,
  type TransactionStatus,
  type WriterInfo,
} from '@toolrow/datasource';
import { type CommitDialect, checkChanges, commitChanges } from '@toolrow/datasource-utils';
import type { PoolConnection } from 'mysql2/promise';
import { paramOf } from './rows.ts';
import { type Cell, cellOf, errnoOf, type MysqlServer } from './server.ts';
import { quoteIdent, tableRef } from './sql.ts';

const NUMERIC_TYPE =
  /^(tinyint|smallint|mediumint|int|integer|bigint|decimal|numeric|float|double|real|bit|year)\b/i;
const NUMBER_TEXT = /^-?(\d+)(\.\d+)?([eE][+-]?\d+)?$/;

/** One value as JSON text: numbers of numeric columns as the server wrote them (every digit kept). */
function valueText(type: string, value: Cell): string {
  if (value === null) return 'null';
  if (typeof value === 'number')
    return Number.isFinite(value) ? String(value) : JSON.stringify(String(value));
  if (NUMERIC_TYPE.test(type) && NUMBER_TEXT.test(value)) return value;
  return JSON.stringify(value);
}

/** A row as JSON text, in the order of `columns`: equal text is an unchanged row. */
function imageText(table: TableInfo, columns: readonly string[], cells: readonly Cell[]): string {
  const typeOf = (name: string) => table.columns.find((column) => column.name === name)?.type ?? '';
  return `{${columns.map((name, index) => `${JSON.stringify(name)}:${valueText(typeOf(name), cells[index] ?? null)}`).join(',')}}`;
}

/** JSON text's members, each as its own source text (numbers keep every digit). */
function membersOf(json: string): Map<string, string> {
  const members = new Map<string, string>();
  const parsed = JSON.parse(json, (_key, value, context?: { source?: string }) =>
    context?.source !== undefined ? { __source: context.source } : value,
  ) as Record<string, unknown>;
  for (const [name, value] of Object.entries(parsed))
    members.set(name, (value as { __source?: string }).__source ?? JSON.stringify(value));
  return members;
}

/** A key from its JSON text, integers as text when a number would round them. */
function keyOf(keyJson: string): RowKey {
  return Object.fromEntries(
    [...membersOf(keyJson)].map(([name, text]) => [
      name,
      NUMBER_TEXT.test(text) ? (Number.isSafeInteger(Number(text)) ? Number(text) : text) : JSON.parse(text),
    ]),
  ) as RowKey;
}

async function rows(
  connection: PoolConnection,
  sql: string,
  values: unknown[],
): Promise<{ columns: string[]; rows: Cell[][] }> {
  const [result, fields] = await connection.execute({ sql, values: values as never[], rowsAsArray: true });
  return {
    columns: (fields ?? []).map((field) => field.name),
    rows: (result as unknown[][]).map((row) => row.map(cellOf)),
  };
}

function keyWhere(table: TableInfo): string {
  return table.primaryKey.map((column) => `${quoteIdent(column)} = ?`).join(' AND ');
}
const keyParams = (table: TableInfo, keyJson: string) => {
  const key = keyOf(keyJson);
  return table.primaryKey.map((column) => paramOf(key[column]));
};

export interface MysqlChangeWriterOptions {
  /** The session commits run on: the data connection's server, or TOOLROW_COMMIT_URL's. */
  writer: MysqlServer;
  writerInfo: WriterInfo;
  schema: SchemaCache;
  /** Closes the writer's server when it is the writer's own (TOOLROW_COMMIT_URL). */
  ownsWriter: boolean;
}

export function createMysqlChangeWriter(options: MysqlChangeWriterOptions): ChangeWriter {
  const { writer, schema } = options;
  const flavor = writer.flavor;

  async function imageNow(
    connection: PoolConnection,
    table: TableInfo,
    keyJson: string,
    lock: boolean,
  ): Promise<string | undefined> {
    const found = await rows(
      connection,
      `SELECT ${table.columns.map((column) => quoteIdent(column.name)).join(', ')} FROM ${tableRef(table)} WHERE ${keyWhere(table)}${lock ? ' FOR UPDATE' : ''}`,
      keyParams(table, keyJson),
    );
    return found.rows[0] ? imageText(table, found.columns, found.rows[0]) : undefined;
  }

  const dialect: CommitDialect<PoolConnection> = {
    transaction: (work) =>
      writer.withSession(async (connection) => {
        await connection.query('START TRANSACTION');
        try {
          const result = await work(connection);
          await connection.query('COMMIT');
          return result;
        } catch (error) {
          await connection.query('ROLLBACK').catch(() => {});
          throw error;
        }
      }),
    // The server names no transaction a client can ask about later: recovery reads the rows.
    transactionId: async () => randomUUID(),
    async rowNow(connection, table, change, lock) {
      const current = await imageNow(connection, table, change.keyJson!, lock);
      if (current === undefined) return undefined;
      if (current === change.beforeJson) return { current, same: true, changed: [] };
      const now = membersOf(current);
      const before = membersOf(change.beforeJson ?? '{}');
      const changed = [...now.keys()].filter((name) => now.get(name) !== before.get(name)).sort();
      return { current, same: changed.length === 0, changed };
    },
    async applyOne(connection, change, table) {
      const values = change.valuesJson === null ? new Map<string, string>() : membersOf(change.valuesJson);
      const columns = [...values.keys()];
      const params = columns.map((column) =>
        paramOf(
          JSON.parse(values.get(column)!, (_k, v, c?: { source?: string }) =>
            typeof v === 'number' ? (c?.source ?? v) : v,
          ),
        ),
      );
      if (change.kind === 'insert') {
        await connection.execute(
          columns.length === 0
            ? `INSERT INTO ${tableRef(table)} () VALUES ()`
            : `INSERT INTO ${tableRef(table)} (${columns.map(quoteIdent).join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`,
          params as never[],
        );
        return;
      }
      const [result] =
        change.kind === 'update'
          ? await connection.execute(
              `UPDATE ${tableRef(table)} SET ${columns.map((column) => `${quoteIdent(column)} = ?`).join(', ')} WHERE ${keyWhere(table)}`,
              [...params, ...keyParams(table, change.keyJson!)] as never[],
            )
          : await connection.execute(
              `DELETE FROM ${tableRef(table)} WHERE ${keyWhere(table)}`,
              keyParams(table, change.keyJson!) as never[],
            );
      if ((result as { affectedRows: number }).affectedRows === 0)
        throw new Error('the row is gone (an earlier change in this commit deleted it)');
    },
    applyError(change, error) {
      const errno = errnoOf(error);
      if (errno === 1142 || errno === 1143 || errno === 1792)
        return new DataSourceError(
          'permission',
          `Committing change #${change.id} to ${change.schema}.${change.table} needs a ${flavor} account that may write it, and ${options.writerInfo.description} may not (${(error as Error).message}). Point TOOLROW_COMMIT_URL at an account with INSERT, UPDATE and DELETE there. Nothing was applied; the staged changes are kept.`,
          { cause: error },
        );
      return undefined;
    },
    async referencing(connection, child, columns, values, limit) {
      const found = await rows(
        connection,
        `SELECT ${child.columns.map((column) => quoteIdent(column.name)).join(', ')} FROM ${tableRef(child)} WHERE ${columns.map((column) => `${quoteIdent(column)} = ?`).join(' AND ')} LIMIT ${Math.max(1, Math.floor(limit))}`,
        values.map(paramOf),
      );
      return found.rows.map((cells) => JSON.parse(imageText(child, found.columns, cells)) as Row);
    },
  };

  async function stateOf(
    connection: PoolConnection,
    change: ChangeToApply,
    table: TableInfo | undefined,
  ): Promise<'after' | 'before' | 'neither'> {
    if (!table || change.keyJson === null) return 'neither';
    const current = await imageNow(connection, table, change.keyJson, false);
    if (change.kind === 'delete')
      return current !== undefined ? (current === change.beforeJson ? 'before' : 'neither') : 'after';
    if (change.kind === 'insert') return current !== undefined ? 'after' : 'before';
    if (current === undefined) return 'neither';
    if (current === change.beforeJson) return 'before';
    const now = membersOf(current);
    const staged = membersOf(change.valuesJson ?? '{}');
    return [...staged].every(([name, text]) => now.get(name) === text) ? 'after' : 'neither';
  }

  return {
    writer: options.writerInfo,

    currentRowJson: (table, key) =>
      writer.withSession(
        async (connection) => (await imageNow(connection, table, JSON.stringify(key), false)) ?? null,
      ),

    // The server converts: a copy of the columns' types in a temporary table takes the values
    // under strict mode (a type error names its column), and gives them back as stored.
    canonicalJson: (table, values) =>
      writer.withSession(async (connection) => {
        const columns = Object.keys(values);
        for (const name of columns)
          if (!table.columns.some((column) => column.name === name))
            throw new DataSourceError('invalid-change', `${table.qualifiedName} has no column '${name}'.`);
        if (columns.length === 0) return '{}';
        const scratch = quoteIdent(`toolrow_canonical_${randomUUID().replaceAll('-', '')}`);
        const list = columns.map(quoteIdent).join(', ');
        await connection.query(
          `CREATE TEMPORARY TABLE ${scratch} SELECT ${list} FROM ${tableRef(table)} LIMIT 0`,
        );
        try {
          await connection.execute(
            `INSERT INTO ${scratch} (${list}) VALUES (${columns.map(() => '?').join(', ')})`,
            columns.map((name) => paramOf(values[name])) as never[],
          );
          const found = await rows(connection, `SELECT ${list} FROM ${scratch}`, []);
          return imageText(table, found.columns, found.rows[0]!);
        } catch (error) {
          if (errnoOf(error) !== undefined)
            throw new DataSourceError(
              'invalid-change',
              `${flavor} refuses the value: ${(error as Error).message}.`,
              { cause: error },
            );
          throw error;
        } finally {
          await connection.query(`DROP TEMPORARY TABLE IF EXISTS ${scratch}`).catch(() => {});
        }
      }),

    apply: (changes, applyOptions) => commitChanges(dialect, schema, changes, applyOptions),

    check: (changes) =>
      writer.withSession((connection) => checkChanges(dialect, connection, schema, changes)),

    async transactionStatus(_xid, changes = []): Promise<TransactionStatus> {
      if (changes.length === 0) return 'unknown';
      const tables = (await schema.refresh()).tables;
      const states = await writer.withSession(async (connection) => {
        const found = new Set<string>();
        for (const change of changes)
          found.add(
            await stateOf(
              connection,
              change,
              tables.find((table) => table.schema === change.schema && table.name === change.table),
            ),
          );
        return found;
      });
      // One transaction: all of it landed or none did; rows that say both were changed since.
      if (states.size === 1 && states.has('after')) return 'committed';
      if (states.size === 1 && states.has('before')) return 'aborted';
      return 'unknown';
    },

    async close() {
      if (options.ownsWriter) await writer.close();
    },
  };
}
