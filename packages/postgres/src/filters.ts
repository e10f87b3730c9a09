// Filters and sorts compiled to SQL. What a filter may say is checked first by the filter
// language's own rules (@toolrow/datasource's validateFilter) with PostgreSQL's value checks below;
// what is compiled here is always a checked filter, and its values are only ever parameters.
import {
  type ColumnInfo,
  type CompiledSql,
  DataSourceError,
  type Filter,
  type FilterOp,
  resolveColumnIn,
  type Sort,
  type TableInfo,
  type ValueCheck,
} from '@toolrow/datasource';
import {
  describeValue,
  filterColumns as filterColumnsOf,
  validateFilter as validateFilterOf,
  validateSort,
} from '@toolrow/datasource-utils';
import { checkIntegerValue } from './integer-range.ts';
import { quoteIdent } from './sql.ts';

const COMPARISON: Partial<Record<FilterOp, string>> = {
  eq: '=',
  neq: '<>',
  lt: '<',
  lte: '<=',
  gt: '>',
  gte: '>=',
};
const NUMERIC_TYPE_IDS = new Set([20, 21, 23, 26, 700, 701, 1700]);
const BOOLEAN_TYPE_ID = 16;

/**
 * PostgreSQL's check of a value for a column: integer ranges (keys and filters), and in filters
 * numbers and booleans, caught with a clear message before Postgres says it more vaguely.
 */
export const checkValue: ValueCheck = (column: ColumnInfo, value, where, code) => {
  checkIntegerValue(column, value, where, code);
  if (code !== 'invalid-filter') return;
  if (NUMERIC_TYPE_IDS.has(column.typeId ?? 0)) {
    const ok =
      typeof value === 'number' ||
      (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value)));
    if (!ok)
      throw new DataSourceError(
        'invalid-filter',
        `${where}: column '${column.name}' is ${column.type}, so the value must be a number, got ${describeValue(value)}.`,
      );
  } else if (column.typeId === BOOLEAN_TYPE_ID) {
    const ok = typeof value === 'boolean' || value === 'true' || value === 'false';
    if (!ok)
      throw new DataSourceError(
        'invalid-filter',
        `${where}: column '${column.name}' is boolean, so the value must be true or false, got ${describeValue(value)}.`,
      );
  }
};

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (char) => `\\${char}`);
}

/** Builds the SQL of a filter validateFilter has passed: nothing is checked again here. */
class Compiler {
  readonly params: unknown[] = [];
  readonly table: TableInfo;
  readonly firstParam: number;
  constructor(table: TableInfo, firstParam: number) {
    this.table = table;
    this.firstParam = firstParam;
  }

  param(value: unknown): string {
    this.params.push(value);
    return `$${this.firstParam + this.params.length - 1}`;
  }

  node(filter: Filter): string {
    if ('and' in filter || 'or' in filter) {
      const key = 'and' in filter ? 'and' : 'or';
      const children = 'and' in filter ? filter.and : filter.or;
      if (children.length === 0) return key === 'and' ? 'TRUE' : 'FALSE';
      return `(${children.map((child) => this.node(child)).join(key === 'and' ? ' AND ' : ' OR ')})`;
    }
    if ('not' in filter) return `(NOT ${this.node(filter.not)})`;
    const { op, value } = filter;
    const ref = quoteIdent(resolveColumnIn(this.table, filter.column).name);
    switch (op) {
      case 'is_null':
      case 'is_not_null':
        return `${ref} ${op === 'is_null' ? 'IS NULL' : 'IS NOT NULL'}`;
      case 'in':
      case 'not_in':
        return `${ref} ${op === 'in' ? 'IN' : 'NOT IN'} (${(value as unknown[]).map((item) => this.param(item)).join(', ')})`;
      case 'between': {
        const [low, high] = value as [unknown, unknown];
        return `${ref} BETWEEN ${this.param(low)} AND ${this.param(high)}`;
      }
      case 'like':
      case 'ilike':
        return `${ref}::text ${op === 'like' ? 'LIKE' : 'ILIKE'} ${this.param(String(value))}`;
      case 'contains':
      case 'starts_with':
      case 'ends_with': {
        const text = escapeLike(String(value));
        const pattern = op === 'contains' ? `%${text}%` : op === 'starts_with' ? `${text}%` : `%${text}`;
        return `${ref}::text ILIKE ${this.param(pattern)}`;
      }
      default:
        return `${ref} ${COMPARISON[op]} ${this.param(value)}`;
    }
  }
}

/**
 * Validates a filter against a table and compiles it to a boolean SQL expression with $n parameters
 * starting at firstParam. Identifiers are the cache's names, quoted; values are only ever parameters.
 * An absent filter compiles to TRUE. Throws DataSourceError 'invalid-filter' / UnknownNameError.
 */
export function compileFilter(
  table: TableInfo,
  filter: Filter | undefined | null,
  firstParam = 1,
): CompiledSql {
  if (filter === undefined || filter === null) return { sql: 'TRUE', params: [] };
  validateFilterOf(table, filter, checkValue);
  const compiler = new Compiler(table, firstParam);
  const sql = compiler.node(filter);
  return { sql, params: compiler.params };
}

/** Checks a filter without compiling it for use (same errors as compileFilter). */
export function validateFilter(table: TableInfo, filter: Filter | undefined | null): void {
  validateFilterOf(table, filter, checkValue);
}

/** Compiles sorts to an ORDER BY list ('' when none). Unknown columns throw UnknownNameError. */
export function compileSort(table: TableInfo, sorts: readonly Sort[] | undefined | null): string {
  validateSort(table, sorts);
  if (!sorts || sorts.length === 0) return '';
  return sorts
    .map((sort) => {
      const nulls = sort.nulls ? ` NULLS ${sort.nulls.toUpperCase()}` : '';
      return `${quoteIdent(resolveColumnIn(table, sort.column).name)} ${(sort.direction ?? 'asc').toUpperCase()}${nulls}`;
    })
    .join(', ');
}

/** The column names a filter mentions (after resolution), e.g. to show or to check grants. */
export function filterColumns(table: TableInfo, filter: Filter | undefined | null): string[] {
  return filterColumnsOf(table, filter, checkValue);
}
