// Rows of a table by the filter language, read in one bounded read with the call's limit.
import {
  type Filter,
  type FilterCondition,
  type Row,
  type RowReader,
  resolveColumnIn,
  type SchemaCache,
  type Sort,
  type TableInfo,
} from '@toolrow/datasource';
import { normalizeKey, validateFilter, validateSort } from '@toolrow/datasource-utils';
import type { Cell, MysqlServer } from './server.ts';
import { quoteIdent, tableRef } from './sql.ts';

const COMPARISON: Record<string, string> = { eq: '=', neq: '<>', lt: '<', lte: '<=', gt: '>', gte: '>=' };

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (char) => `\\${char}`);
}

/** A value as a parameter of the binary protocol: booleans as 1/0, objects as JSON text. */
export function paramOf(value: unknown): unknown {
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (value !== null && typeof value === 'object') return JSON.stringify(value);
  if (typeof value === 'bigint') return value.toString();
  return value ?? null;
}

/**
 * A filter validateFilter has passed, as a MySQL expression with ? parameters. Comparisons follow
 * the column's collation (as every MySQL client's do); `like` compares case and accents exactly
 * (utf8mb4_bin), `ilike` and the text matches ignore case.
 */
export function compileMysqlFilter(
  table: TableInfo,
  filter: Filter | undefined,
): { sql: string; params: unknown[] } {
  const params: unknown[] = [];
  const param = (value: unknown) => {
    params.push(paramOf(value));
    return '?';
  };
  const node = (each: Filter): string => {
    if ('and' in each || 'or' in each) {
      const children = 'and' in each ? each.and : each.or;
      if (children.length === 0) return 'and' in each ? 'TRUE' : 'FALSE';
      return `(${children.map(node).join('and' in each ? ' AND ' : ' OR ')})`;
    }
    if ('not' in each) return `(NOT ${node(each.not)})`;
    const { op, value } = each as FilterCondition;
    const ref = quoteIdent(resolveColumnIn(table, each.column).name);
    const asText = `CAST(${ref} AS CHAR CHARACTER SET utf8mb4)`;
    switch (op) {
      case 'is_null':
        return `${ref} IS NULL`;
      case 'is_not_null':
        return `${ref} IS NOT NULL`;
      case 'in':
      case 'not_in':
        return `${ref} ${op === 'in' ? 'IN' : 'NOT IN'} (${(value as unknown[]).map(param).join(', ')})`;
      case 'between': {
        const [low, high] = value as [unknown, unknown];
        return `${ref} BETWEEN ${param(low)} AND ${param(high)}`;
      }
      case 'like':
        return `${asText} COLLATE utf8mb4_bin LIKE ${param(String(value))}`;
      case 'ilike':
        return `LOWER(${asText}) LIKE LOWER(${param(String(value))})`;
      case 'contains':
      case 'starts_with':
      case 'ends_with': {
        const text = escapeLike(String(value));
        const pattern = op === 'contains' ? `%${text}%` : op === 'starts_with' ? `${text}%` : `%${text}`;
        return `LOWER(${asText}) LIKE LOWER(${param(pattern)})`;
      }
      default:
        return `${ref} ${COMPARISON[op]} ${param(value)}`;
    }
  };
  return filter ? { sql: node(filter), params } : { sql: 'TRUE', params };
}

/**
 * ORDER BY the sort, else the key. MySQL has no NULLS FIRST/LAST: an `IS NULL` term before the
 * column says it. `total` appends the key after a sort too, so that pages read with OFFSET see each
 * row once.
 */
export function orderBy(table: TableInfo, sort: readonly Sort[] | undefined, total = false): string {
  const key = table.primaryKey.map((column) => quoteIdent(column));
  const sorts =
    sort && sort.length > 0
      ? [
          ...sort.flatMap((each) => {
            const ref = quoteIdent(resolveColumnIn(table, each.column).name);
            const direction = (each.direction ?? 'asc').toUpperCase();
            return [
              ...(each.nulls ? [`${ref} IS NULL ${each.nulls === 'first' ? 'DESC' : 'ASC'}`] : []),
              `${ref} ${direction}`,
            ];
          }),
          ...(total ? key : []),
        ]
      : key;
  return sorts.length > 0 ? ` ORDER BY ${sorts.join(', ')}` : '';
}

export function rowOf(columns: readonly string[], values: readonly Cell[]): Row {
  return Object.fromEntries(columns.map((name, index) => [name, values[index] ?? null]));
}

const int = (value: number) => Math.max(0, Math.floor(value));

export function createRowReader(server: MysqlServer, schema: SchemaCache): RowReader {
  return {
    async select(name, options = {}) {
      const table = await schema.resolveTable(name);
      validateFilter(table, options.filter);
      validateSort(table, options.sort);
      const limit = Math.min(Math.max(options.limit ?? 100, 1), 10_000);
      const offset = int(options.offset ?? 0);
      const columns = options.columns
        ? options.columns.map((column) => resolveColumnIn(table, column))
        : table.columns;
      const where = compileMysqlFilter(table, options.filter);
      const answer = await server.read(
        (session) =>
          session.rows(
            `SELECT ${columns.map((column) => quoteIdent(column.name)).join(', ')} FROM ${tableRef(table)} WHERE ${where.sql}${orderBy(table, options.sort)} LIMIT ${int(limit + 1)} OFFSET ${offset}`,
            where.params,
            {
              maxRows: limit + 1,
              maxBytes: options.maxBytes ?? 16 * 1024 * 1024,
              maxValueBytes: options.maxValueBytes ?? 64 * 1024,
            },
          ),
        options,
      );
      const rows = answer.rows.slice(0, limit).map((values) => rowOf(answer.columns, values));
      return {
        table,
        columns,
        rows,
        hasMore: answer.rows.length > limit || answer.truncatedBy === 'bytes',
        truncated: answer.truncatedBy === 'bytes',
        ...(answer.oversized.length > 0 ? { oversized: answer.oversized } : {}),
      };
    },
    async count(name, filter, options = {}) {
      const table = await schema.resolveTable(name);
      validateFilter(table, filter);
      const where = compileMysqlFilter(table, filter);
      const answer = await server.read(
        (session) =>
          session.rows(`SELECT COUNT(*) FROM ${tableRef(table)} WHERE ${where.sql}`, where.params, {
            maxRows: 1,
            maxBytes: 1024,
            maxValueBytes: 1024,
          }),
        options,
      );
      return Number(answer.rows[0]?.[0] ?? 0);
    },
    async get(name, key, options = {}) {
      const table = await schema.resolveTable(name);
      const normalized = normalizeKey(table, key);
      const columns = Object.keys(normalized);
      const answer = await server.read(
        (session) =>
          session.rows(
            `SELECT * FROM ${tableRef(table)} WHERE ${columns.map((column) => `${quoteIdent(column)} = ?`).join(' AND ')}`,
            columns.map((column) => paramOf(normalized[column])),
            { maxRows: 1, maxBytes: 16 * 1024 * 1024, maxValueBytes: 16 * 1024 * 1024 },
          ),
        options,
      );
      return answer.rows[0] ? rowOf(answer.columns, answer.rows[0]) : undefined;
    },
  };
}
