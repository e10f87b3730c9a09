// Rows of a SQLite table by the filter language, read in a read worker with the call's limit.
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
import type { ReadPool } from './read-pool.ts';
import { FOLD_FUNCTION, type WorkerValue } from './read-protocol.ts';
import { quoteIdent } from './sql.ts';

const COMPARISON: Record<string, string> = { eq: '=', neq: '<>', lt: '<', lte: '<=', gt: '>', gte: '>=' };

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (char) => `\\${char}`);
}

/** A filter validateFilter has passed, as a SQLite expression with ? parameters. */
export function compileSqliteFilter(
  table: TableInfo,
  filter: Filter | undefined,
): { sql: string; params: unknown[] } {
  const params: unknown[] = [];
  const param = (value: unknown) => {
    params.push(typeof value === 'boolean' ? Number(value) : value);
    return '?';
  };
  const node = (each: Filter): string => {
    if ('and' in each || 'or' in each) {
      const children = 'and' in each ? each.and : each.or;
      if (children.length === 0) return 'and' in each ? '1' : '0';
      return `(${children.map(node).join('and' in each ? ' AND ' : ' OR ')})`;
    }
    if ('not' in each) return `(NOT ${node(each.not)})`;
    const { op, value } = each as FilterCondition;
    const ref = quoteIdent(resolveColumnIn(table, each.column).name);
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
      // SQLite's LIKE ignores ASCII case: like adds GLOB, which keeps it; ilike is LIKE alone.
      case 'like':
        return `(CAST(${ref} AS TEXT) LIKE ${param(String(value))} AND CAST(${ref} AS TEXT) GLOB ${param(likeToGlob(String(value)))})`;
      // Any case, of any letter: both sides folded by the reader's own function.
      case 'ilike':
        return `${FOLD_FUNCTION}(CAST(${ref} AS TEXT)) LIKE ${FOLD_FUNCTION}(${param(String(value))})`;
      case 'contains':
      case 'starts_with':
      case 'ends_with': {
        const text = escapeLike(String(value));
        const pattern = op === 'contains' ? `%${text}%` : op === 'starts_with' ? `${text}%` : `%${text}`;
        return `${FOLD_FUNCTION}(CAST(${ref} AS TEXT)) LIKE ${FOLD_FUNCTION}(${param(pattern)}) ESCAPE '\\'`;
      }
      default:
        return `${ref} ${COMPARISON[op]} ${param(value)}`;
    }
  };
  return filter ? { sql: node(filter), params } : { sql: '1', params };
}

/** LIKE's % and _ as GLOB's * and ?, GLOB's own specials bracketed: the case-keeping half of `like`. */
function likeToGlob(pattern: string): string {
  return [...pattern]
    .map((char) => (char === '%' ? '*' : char === '_' ? '?' : /[*?[\]]/.test(char) ? `[${char}]` : char))
    .join('');
}

/**
 * ORDER BY the sort, else the key (a table without one: rowid). `total` appends the key after a
 * sort too, so that pages read with OFFSET see each row once.
 */
export function orderBy(table: TableInfo, sort: readonly Sort[] | undefined, total = false): string {
  const key =
    table.primaryKey.length > 0
      ? table.primaryKey.map((column) => quoteIdent(column))
      : table.kind === 'table'
        ? ['rowid']
        : [];
  const sorts =
    sort && sort.length > 0
      ? [
          ...sort.map(
            (each) =>
              `${quoteIdent(resolveColumnIn(table, each.column).name)} ${(each.direction ?? 'asc').toUpperCase()}${each.nulls ? ` NULLS ${each.nulls.toUpperCase()}` : ''}`,
          ),
          ...(total ? key : []),
        ]
      : key;
  return sorts.length > 0 ? ` ORDER BY ${sorts.join(', ')}` : '';
}

export function rowOf(columns: readonly string[], values: readonly WorkerValue[]): Row {
  return Object.fromEntries(columns.map((name, index) => [name, values[index] ?? null]));
}

export function createRowReader(pool: ReadPool, schema: SchemaCache): RowReader {
  return {
    async select(name, options = {}) {
      const table = await schema.resolveTable(name);
      validateFilter(table, options.filter);
      validateSort(table, options.sort);
      const limit = Math.min(Math.max(options.limit ?? 100, 1), 10_000);
      const offset = Math.max(options.offset ?? 0, 0);
      const columns = options.columns
        ? options.columns.map((column) => resolveColumnIn(table, column))
        : table.columns;
      const where = compileSqliteFilter(table, options.filter);
      const answer = await pool.ask(
        {
          kind: 'query',
          sql: `SELECT ${columns.map((column) => quoteIdent(column.name)).join(', ')} FROM ${quoteIdent(table.name)} WHERE ${where.sql}${orderBy(table, options.sort)} LIMIT ? OFFSET ?`,
          params: [...where.params, limit + 1, offset],
          maxRows: limit + 1,
          maxBytes: options.maxBytes ?? 16 * 1024 * 1024,
          maxValueBytes: options.maxValueBytes ?? 64 * 1024,
        },
        'rows',
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
      const where = compileSqliteFilter(table, filter);
      const answer = await pool.ask(
        {
          kind: 'query',
          sql: `SELECT count(*) FROM ${quoteIdent(table.name)} WHERE ${where.sql}`,
          params: where.params,
          maxRows: 1,
          maxBytes: 1024,
          maxValueBytes: 1024,
        },
        'rows',
        options,
      );
      return Number(answer.rows[0]?.[0] ?? 0);
    },
    async get(name, key, options = {}) {
      const table = await schema.resolveTable(name);
      const normalized = normalizeKey(table, key);
      const columns = Object.keys(normalized);
      const answer = await pool.ask(
        {
          kind: 'query',
          sql: `SELECT * FROM ${quoteIdent(table.name)} WHERE ${columns.map((column) => `${quoteIdent(column)} = ?`).join(' AND ')}`,
          params: columns.map((column) => normalized[column]),
          maxRows: 1,
          maxBytes: 16 * 1024 * 1024,
          maxValueBytes: 16 * 1024 * 1024,
        },
        'rows',
        options,
      );
      return answer.rows[0] ? rowOf(answer.columns, answer.rows[0]) : undefined;
    },
  };
}
