import {
  DataSourceError,
  type Row,
  type RowKey,
  type RowPage,
  type RowReader,
  type RowReadOptions,
  resolveColumnIn,
  type SchemaCache,
  type SelectRowsOptions,
  type TableInfo,
} from '@toolrow/datasource';
import { normalizeKey as normalizeKeyOf } from '@toolrow/datasource-utils';
import type { Database, QueryResult } from './database.ts';
import { checkValue, compileFilter, compileSort } from './filters.ts';
import { quoteIdent, quoteQualified } from './sql.ts';

const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 10_000;

/** Turns `5` or `{ id: 5 }` into a full primary-key object for the table (PostgreSQL's integer ranges checked). */
export function normalizeKey(table: TableInfo, key: unknown): RowKey {
  return normalizeKeyOf(table, key, checkValue);
}

/** WHERE "a" = $n AND "b" = $n+1 for a normalised key. */
export function keyCondition(
  table: TableInfo,
  key: RowKey,
  firstParam = 1,
): { sql: string; params: unknown[] } {
  const params = table.primaryKey.map((column) => key[column]);
  const sql = table.primaryKey
    .map((column, index) => `${quoteIdent(column)} = $${firstParam + index}`)
    .join(' AND ');
  return { sql, params };
}

export function tableRef(table: TableInfo): string {
  return quoteQualified(table.schema, table.name);
}

const PAGE_MAX_BYTES = 16 * 1024 * 1024;

export function createRowReader(db: Database, schema: SchemaCache): RowReader {
  // Stoppable reads need a READ ONLY transaction: on-disk PGlite only ever stops read-only work.
  const read = <R = Row>(
    sql: string,
    params: unknown[],
    options: RowReadOptions = {},
  ): Promise<QueryResult<R>> => {
    if (!options.signal && options.timeoutMs === undefined && !options.priority)
      return db.query<R>(sql, params);
    // One statement: run again from the start if, a client's, it gives way to the user's own read.
    return db.readOnly((tx) => tx.query<R>(sql, params), {
      timeoutMs: options.timeoutMs ?? 0,
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.priority ? { priority: options.priority } : {}),
    });
  };
  return {
    checkValue,
    async select(tableName, options: SelectRowsOptions = {}): Promise<RowPage> {
      const table = await schema.resolveTable(tableName);
      const limit = options.limit ?? DEFAULT_LIMIT;
      const offset = options.offset ?? 0;
      if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
        throw new DataSourceError(
          'misuse',
          `limit must be a whole number from 1 to ${MAX_LIMIT}, got ${limit}.`,
        );
      }
      if (!Number.isInteger(offset) || offset < 0) {
        throw new DataSourceError('misuse', `offset must be a whole number ≥ 0, got ${offset}.`);
      }
      const columns = options.columns?.length
        ? options.columns.map((name) => resolveColumnIn(table, name))
        : table.columns;
      const where = compileFilter(table, options.filter);
      // A stable order makes paging deterministic: the requested sort, then the primary key.
      const order = [compileSort(table, options.sort), table.primaryKey.map(quoteIdent).join(', ')]
        .filter((part) => part.length > 0)
        .join(', ');
      const sql = `SELECT ${columns.map((column) => quoteIdent(column.name)).join(', ')} FROM ${tableRef(table)} WHERE ${where.sql}${
        order ? ` ORDER BY ${order}` : ''
      } LIMIT ${limit + 1} OFFSET ${offset}`;
      // Bounded like every read a caller cannot size beforehand: a page of huge values stops at
      // its byte cap, and a value past its cap comes back null (named in `oversized`).
      const result = await db.readQuery(sql, where.params, {
        maxRows: limit + 1,
        maxBytes: options.maxBytes ?? PAGE_MAX_BYTES,
        ...(options.maxValueBytes !== undefined ? { maxValueBytes: options.maxValueBytes } : {}),
        timeoutMs: options.timeoutMs ?? 0,
        ...(options.signal ? { signal: options.signal } : {}),
        ...(options.priority ? { priority: options.priority } : {}),
      });
      const hasMore = result.rows.length > limit || result.truncatedBy === 'bytes';
      const oversized = result.oversized?.filter((entry) => entry.row < limit);
      return {
        table,
        columns,
        rows: result.rows.length > limit ? result.rows.slice(0, limit) : result.rows,
        hasMore,
        truncated: result.truncatedBy === 'bytes',
        ...(oversized && oversized.length > 0 ? { oversized } : {}),
      };
    },
    async count(tableName, filter, options) {
      const table = await schema.resolveTable(tableName);
      const where = compileFilter(table, filter);
      const result = await read<{ n: number | string }>(
        `SELECT count(*) AS n FROM ${tableRef(table)} WHERE ${where.sql}`,
        where.params,
        options,
      );
      return Number(result.rows[0]!.n);
    },
    async get(tableName, key, options): Promise<Row | undefined> {
      const table = await schema.resolveTable(tableName);
      const condition = keyCondition(table, normalizeKey(table, key));
      const result = await read(
        `SELECT * FROM ${tableRef(table)} WHERE ${condition.sql}`,
        condition.params,
        options,
      );
      return result.rows[0];
    },
  };
}
