import {
  type ColumnInfo,
  type CompiledSql,
  DataSourceError,
  FILTER_OPS,
  type Filter,
  type FilterCondition,
  type FilterOp,
  type FilterScalar,
  resolveColumnIn,
  type Sort,
  type TableInfo,
} from '@toolrow/datasource';
import { checkIntegerValue } from './integer-range.ts';
import { quoteIdent } from './sql.ts';

const MAX_DEPTH = 8;
const MAX_LIST = 1000;
const MAX_CONDITIONS = 200;

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
/** An odd run of backslashes at the end: LIKE would fail with "must not end with escape character". */
const TRAILING_ESCAPE = /(^|[^\\])(\\\\)*\\$/;

function invalid(message: string): DataSourceError {
  return new DataSourceError('invalid-filter', message);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'string' ? `the string ${JSON.stringify(value).slice(0, 60)}` : typeof value;
}

function isScalar(value: unknown): value is FilterScalar {
  return (
    value === null ||
    typeof value === 'string' ||
    typeof value === 'boolean' ||
    (typeof value === 'number' && Number.isFinite(value))
  );
}

/** Catches obvious type mistakes with a clear message before Postgres does with a vaguer one. */
function checkValueForColumn(column: ColumnInfo, value: FilterScalar, where: string): void {
  if (value === null) return;
  checkIntegerValue(column, value, where, 'invalid-filter');
  if (NUMERIC_TYPE_IDS.has(column.typeId)) {
    const ok =
      typeof value === 'number' ||
      (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value)));
    if (!ok)
      throw invalid(
        `${where}: column '${column.name}' is ${column.type}, so the value must be a number, got ${describe(value)}.`,
      );
  } else if (column.typeId === BOOLEAN_TYPE_ID) {
    const ok = typeof value === 'boolean' || value === 'true' || value === 'false';
    if (!ok)
      throw invalid(
        `${where}: column '${column.name}' is boolean, so the value must be true or false, got ${describe(value)}.`,
      );
  }
}

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (char) => `\\${char}`);
}

class Compiler {
  readonly params: unknown[] = [];
  conditions = 0;
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

  node(filter: unknown, path: string, depth: number): string {
    if (depth > MAX_DEPTH) throw invalid(`${path}: filters nest at most ${MAX_DEPTH} levels deep.`);
    if (typeof filter !== 'object' || filter === null || Array.isArray(filter)) {
      throw invalid(
        `${path}: expected a condition {column, op, value} or {and: [...]}, {or: [...]}, {not: {...}}, got ${describe(filter)}.`,
      );
    }
    const keys = Object.keys(filter);
    if (keys.length === 1 && (keys[0] === 'and' || keys[0] === 'or')) {
      const key = keys[0];
      const children = (filter as Record<string, unknown>)[key];
      if (!Array.isArray(children))
        throw invalid(`${path}.${key}: expected an array of filters, got ${describe(children)}.`);
      if (children.length === 0) return key === 'and' ? 'TRUE' : 'FALSE';
      const parts = children.map((child, index) => this.node(child, `${path}.${key}[${index}]`, depth + 1));
      return `(${parts.join(key === 'and' ? ' AND ' : ' OR ')})`;
    }
    if (keys.length === 1 && keys[0] === 'not') {
      return `(NOT ${this.node((filter as { not: unknown }).not, `${path}.not`, depth + 1)})`;
    }
    return this.condition(filter as Record<string, unknown>, path);
  }

  condition(raw: Record<string, unknown>, path: string): string {
    if (++this.conditions > MAX_CONDITIONS)
      throw invalid(`A filter may hold at most ${MAX_CONDITIONS} conditions.`);
    const extra = Object.keys(raw).filter((key) => key !== 'column' && key !== 'op' && key !== 'value');
    if (extra.length > 0) {
      throw invalid(
        `${path}: unexpected field '${extra[0]}'; a condition has column, op and value (or use and/or/not to combine).`,
      );
    }
    const { column: columnName, op, value } = raw as Partial<FilterCondition>;
    if (typeof columnName !== 'string')
      throw invalid(`${path}.column: expected a column name, got ${describe(columnName)}.`);
    if (typeof op !== 'string' || !(FILTER_OPS as readonly string[]).includes(op)) {
      throw invalid(`${path}.op: expected one of ${FILTER_OPS.join(', ')}, got ${describe(op)}.`);
    }
    const column = resolveColumnIn(this.table, columnName);
    const ref = quoteIdent(column.name);
    const where = `${path} (${column.name} ${op})`;
    switch (op as FilterOp) {
      case 'is_null':
      case 'is_not_null':
        if (value !== undefined && value !== null) throw invalid(`${where}: takes no value.`);
        return `${ref} ${op === 'is_null' ? 'IS NULL' : 'IS NOT NULL'}`;
      case 'in':
      case 'not_in': {
        if (!Array.isArray(value) || value.length === 0 || value.length > MAX_LIST) {
          throw invalid(
            `${where}: value must be an array of 1 to ${MAX_LIST} values, got ${describe(value)}.`,
          );
        }
        const items = value.map((item, index) => {
          if (!isScalar(item) || item === null) {
            throw invalid(
              `${where}: value[${index}] must be a string, number or boolean, got ${describe(item)} (use is_null for NULL).`,
            );
          }
          checkValueForColumn(column, item, where);
          return this.param(item);
        });
        return `${ref} ${op === 'in' ? 'IN' : 'NOT IN'} (${items.join(', ')})`;
      }
      case 'between': {
        if (
          !Array.isArray(value) ||
          value.length !== 2 ||
          !value.every((item) => isScalar(item) && item !== null)
        ) {
          throw invalid(`${where}: value must be [low, high] (two non-null values), got ${describe(value)}.`);
        }
        for (const item of value) checkValueForColumn(column, item as FilterScalar, where);
        return `${ref} BETWEEN ${this.param(value[0])} AND ${this.param(value[1])}`;
      }
      case 'like':
      case 'ilike':
      case 'contains':
      case 'starts_with':
      case 'ends_with': {
        if (typeof value !== 'string' && typeof value !== 'number') {
          throw invalid(`${where}: value must be text, got ${describe(value)}.`);
        }
        const text = String(value);
        if ((op === 'like' || op === 'ilike') && TRAILING_ESCAPE.test(text)) {
          throw invalid(
            `${where}: the pattern ends with the escape character \\; write \\\\ for a literal backslash, or use 'contains'.`,
          );
        }
        if (op === 'like' || op === 'ilike')
          return `${ref}::text ${op === 'like' ? 'LIKE' : 'ILIKE'} ${this.param(text)}`;
        const pattern =
          op === 'contains'
            ? `%${escapeLike(text)}%`
            : op === 'starts_with'
              ? `${escapeLike(text)}%`
              : `%${escapeLike(text)}`;
        return `${ref}::text ILIKE ${this.param(pattern)}`;
      }
      default: {
        if (!isScalar(value) || value === undefined) {
          throw invalid(`${where}: value must be a string, number or boolean, got ${describe(value)}.`);
        }
        if (value === null)
          throw invalid(`${where}: value is null; use op 'is_null' or 'is_not_null' to test for NULL.`);
        checkValueForColumn(column, value, where);
        return `${ref} ${COMPARISON[op as FilterOp]} ${this.param(value)}`;
      }
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
  const compiler = new Compiler(table, firstParam);
  const sql = compiler.node(filter, 'filter', 0);
  return { sql, params: compiler.params };
}

/** Checks a filter without compiling it for use (same errors as compileFilter). */
export function validateFilter(table: TableInfo, filter: Filter | undefined | null): void {
  compileFilter(table, filter);
}

/** Compiles sorts to an ORDER BY list ('' when none). Unknown columns throw UnknownNameError. */
export function compileSort(table: TableInfo, sorts: readonly Sort[] | undefined | null): string {
  if (!sorts || sorts.length === 0) return '';
  if (!Array.isArray(sorts))
    throw invalid(`sort: expected an array of {column, direction}, got ${describe(sorts)}.`);
  if (sorts.length > 16) throw invalid('sort: at most 16 sort columns.');
  return sorts
    .map((sort, index) => {
      if (typeof sort !== 'object' || sort === null || typeof sort.column !== 'string') {
        throw invalid(`sort[${index}]: expected {column, direction?, nulls?}, got ${describe(sort)}.`);
      }
      const column = resolveColumnIn(table, sort.column);
      const direction = sort.direction ?? 'asc';
      if (direction !== 'asc' && direction !== 'desc') {
        throw invalid(`sort[${index}].direction: expected 'asc' or 'desc', got ${describe(direction)}.`);
      }
      if (sort.nulls !== undefined && sort.nulls !== 'first' && sort.nulls !== 'last') {
        throw invalid(`sort[${index}].nulls: expected 'first' or 'last', got ${describe(sort.nulls)}.`);
      }
      const nulls = sort.nulls ? ` NULLS ${sort.nulls.toUpperCase()}` : '';
      return `${quoteIdent(column.name)} ${direction.toUpperCase()}${nulls}`;
    })
    .join(', ');
}

/** The column names a filter mentions (after resolution), e.g. to show or to check grants. */
export function filterColumns(table: TableInfo, filter: Filter | undefined | null): string[] {
  const names = new Set<string>();
  const walk = (node: Filter): void => {
    if ('and' in node) node.and.forEach(walk);
    else if ('or' in node) node.or.forEach(walk);
    else if ('not' in node) walk(node.not);
    else names.add(resolveColumnIn(table, node.column).name);
  };
  if (filter) {
    validateFilter(table, filter);
    walk(filter);
  }
  return [...names];
}
