// The filter language's own checks, the same on every engine: a filter's shape, its operators,
// columns and values, its size; a sort; a row key. An engine adds what only it knows (PostgreSQL:
// a value's type against the column's) through its RowReader's `checkValue`, and compiles the
// checked filter into its own reads.

import type { ColumnInfo, RowKey, TableInfo } from '@toolrow/datasource';
import {
  DataSourceError,
  FILTER_OPS,
  type Filter,
  type FilterCondition,
  type FilterOp,
  type FilterScalar,
  resolveColumnIn,
  type Sort,
} from '@toolrow/datasource';

/**
 * An engine's check of one value for a column (a filter's, or a key's): throws a DataSourceError
 * with `code` saying what the column holds. PostgreSQL checks integer ranges, numbers and booleans.
 */
export type ValueCheck = (
  column: ColumnInfo,
  value: unknown,
  where: string,
  code: 'invalid-filter' | 'invalid-key',
) => void;

export const MAX_FILTER_DEPTH = 8;
export const MAX_FILTER_LIST = 1000;
export const MAX_FILTER_CONDITIONS = 200;
const MAX_SORTS = 16;
/** An odd run of backslashes at the end: LIKE would fail with "must not end with escape character". */
const TRAILING_ESCAPE = /(^|[^\\])(\\\\)*\\$/;

function invalid(message: string): DataSourceError {
  return new DataSourceError('invalid-filter', message);
}

/** A value as an error message names it. */
export function describeValue(value: unknown): string {
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

/**
 * Checks a filter against a table: shape, operators, known columns, values that suit the operator
 * (and the column, by the engine's `checkValue`), depth and size. Throws DataSourceError
 * 'invalid-filter' (or UnknownNameError) naming the condition, e.g. "filter.and[1] (total gt): …".
 */
export function validateFilter(
  table: TableInfo,
  filter: Filter | undefined | null,
  checkValue?: ValueCheck,
): void {
  if (filter === undefined || filter === null) return;
  let conditions = 0;
  const value = (column: ColumnInfo, item: unknown, where: string) => {
    if (item !== null) checkValue?.(column, item, where, 'invalid-filter');
  };
  const node = (filter: unknown, path: string, depth: number): void => {
    if (depth > MAX_FILTER_DEPTH)
      throw invalid(`${path}: filters nest at most ${MAX_FILTER_DEPTH} levels deep.`);
    if (typeof filter !== 'object' || filter === null || Array.isArray(filter)) {
      throw invalid(
        `${path}: expected a condition {column, op, value} or {and: [...]}, {or: [...]}, {not: {...}}, got ${describeValue(filter)}.`,
      );
    }
    const keys = Object.keys(filter);
    if (keys.length === 1 && (keys[0] === 'and' || keys[0] === 'or')) {
      const key = keys[0];
      const children = (filter as Record<string, unknown>)[key];
      if (!Array.isArray(children))
        throw invalid(`${path}.${key}: expected an array of filters, got ${describeValue(children)}.`);
      for (const [index, child] of children.entries()) node(child, `${path}.${key}[${index}]`, depth + 1);
      return;
    }
    if (keys.length === 1 && keys[0] === 'not') {
      node((filter as { not: unknown }).not, `${path}.not`, depth + 1);
      return;
    }
    condition(filter as Record<string, unknown>, path);
  };
  const condition = (raw: Record<string, unknown>, path: string): void => {
    if (++conditions > MAX_FILTER_CONDITIONS)
      throw invalid(`A filter may hold at most ${MAX_FILTER_CONDITIONS} conditions.`);
    const extra = Object.keys(raw).filter((key) => key !== 'column' && key !== 'op' && key !== 'value');
    if (extra.length > 0) {
      throw invalid(
        `${path}: unexpected field '${extra[0]}'; a condition has column, op and value (or use and/or/not to combine).`,
      );
    }
    const { column: columnName, op, value: given } = raw as Partial<FilterCondition>;
    if (typeof columnName !== 'string')
      throw invalid(`${path}.column: expected a column name, got ${describeValue(columnName)}.`);
    if (typeof op !== 'string' || !(FILTER_OPS as readonly string[]).includes(op)) {
      throw invalid(`${path}.op: expected one of ${FILTER_OPS.join(', ')}, got ${describeValue(op)}.`);
    }
    const column = resolveColumnIn(table, columnName);
    const where = `${path} (${column.name} ${op})`;
    switch (op as FilterOp) {
      case 'is_null':
      case 'is_not_null':
        if (given !== undefined && given !== null) throw invalid(`${where}: takes no value.`);
        return;
      case 'in':
      case 'not_in':
        if (!Array.isArray(given) || given.length === 0 || given.length > MAX_FILTER_LIST) {
          throw invalid(
            `${where}: value must be an array of 1 to ${MAX_FILTER_LIST} values, got ${describeValue(given)}.`,
          );
        }
        given.forEach((item, index) => {
          if (!isScalar(item) || item === null) {
            throw invalid(
              `${where}: value[${index}] must be a string, number or boolean, got ${describeValue(item)} (use is_null for NULL).`,
            );
          }
          value(column, item, where);
        });
        return;
      case 'between':
        if (
          !Array.isArray(given) ||
          given.length !== 2 ||
          !given.every((item) => isScalar(item) && item !== null)
        ) {
          throw invalid(
            `${where}: value must be [low, high] (two non-null values), got ${describeValue(given)}.`,
          );
        }
        for (const item of given) value(column, item, where);
        return;
      case 'like':
      case 'ilike':
      case 'contains':
      case 'starts_with':
      case 'ends_with':
        if (typeof given !== 'string' && typeof given !== 'number') {
          throw invalid(`${where}: value must be text, got ${describeValue(given)}.`);
        }
        if ((op === 'like' || op === 'ilike') && TRAILING_ESCAPE.test(String(given))) {
          throw invalid(
            `${where}: the pattern ends with the escape character \\; write \\\\ for a literal backslash, or use 'contains'.`,
          );
        }
        return;
      default:
        if (!isScalar(given) || given === undefined) {
          throw invalid(`${where}: value must be a string, number or boolean, got ${describeValue(given)}.`);
        }
        if (given === null)
          throw invalid(`${where}: value is null; use op 'is_null' or 'is_not_null' to test for NULL.`);
        value(column, given, where);
    }
  };
  node(filter, 'filter', 0);
}

/** Checks sorts against a table: known columns, directions, nulls, at most 16. Throws like validateFilter. */
export function validateSort(table: TableInfo, sorts: readonly Sort[] | undefined | null): void {
  if (!sorts || sorts.length === 0) return;
  if (!Array.isArray(sorts))
    throw invalid(`sort: expected an array of {column, direction}, got ${describeValue(sorts)}.`);
  if (sorts.length > MAX_SORTS) throw invalid(`sort: at most ${MAX_SORTS} sort columns.`);
  sorts.forEach((sort, index) => {
    if (typeof sort !== 'object' || sort === null || typeof sort.column !== 'string') {
      throw invalid(`sort[${index}]: expected {column, direction?, nulls?}, got ${describeValue(sort)}.`);
    }
    resolveColumnIn(table, sort.column);
    const direction = sort.direction ?? 'asc';
    if (direction !== 'asc' && direction !== 'desc') {
      throw invalid(`sort[${index}].direction: expected 'asc' or 'desc', got ${describeValue(direction)}.`);
    }
    if (sort.nulls !== undefined && sort.nulls !== 'first' && sort.nulls !== 'last') {
      throw invalid(`sort[${index}].nulls: expected 'first' or 'last', got ${describeValue(sort.nulls)}.`);
    }
  });
}

/** The column names a filter mentions (after resolution), e.g. to show or to check grants. */
export function filterColumns(
  table: TableInfo,
  filter: Filter | undefined | null,
  checkValue?: ValueCheck,
): string[] {
  const names = new Set<string>();
  const walk = (node: Filter): void => {
    if ('and' in node) node.and.forEach(walk);
    else if ('or' in node) node.or.forEach(walk);
    else if ('not' in node) walk(node.not);
    else names.add(resolveColumnIn(table, node.column).name);
  };
  if (filter) {
    validateFilter(table, filter, checkValue);
    walk(filter);
  }
  return [...names];
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

/**
 * Turns `5` or `{ id: 5 }` into a full primary-key object for the table; throws 'invalid-key'
 * naming what is missing (and, through the engine's `checkValue`, what the column holds).
 */
export function normalizeKey(table: TableInfo, key: unknown, checkValue?: ValueCheck): RowKey {
  if (table.primaryKey.length === 0) {
    throw new DataSourceError(
      'invalid-key',
      `Table '${table.qualifiedName}' has no primary key, so its rows cannot be addressed one by one. Use a filter instead.`,
    );
  }
  const shape = `{ ${table.primaryKey.map((column) => `${column}: …`).join(', ')} }`;
  const where = `The key of '${table.qualifiedName}'`;
  if (!isPlainObject(key)) {
    if (table.primaryKey.length === 1 && (typeof key === 'string' || typeof key === 'number')) {
      const column = resolveColumnIn(table, table.primaryKey[0]!);
      checkValue?.(column, key, where, 'invalid-key');
      return { [column.name]: key };
    }
    throw new DataSourceError(
      'invalid-key',
      `A key for '${table.qualifiedName}' must be ${shape}${table.primaryKey.length === 1 ? ' or the bare value' : ''}, got ${JSON.stringify(key) ?? String(key)}.`,
    );
  }
  const result: RowKey = {};
  for (const [name, value] of Object.entries(key)) {
    const column = resolveColumnIn(table, name);
    if (!column.primaryKey) {
      throw new DataSourceError(
        'invalid-key',
        `'${column.name}' is not part of the primary key of '${table.qualifiedName}'; a key is ${shape}.`,
      );
    }
    if (value === null || value === undefined || (typeof value === 'object' && !(value instanceof Date))) {
      throw new DataSourceError(
        'invalid-key',
        `Key column '${column.name}' needs a string or number value, got ${JSON.stringify(value) ?? 'undefined'}.`,
      );
    }
    checkValue?.(column, value, where, 'invalid-key');
    result[column.name] = value;
  }
  const missing = table.primaryKey.filter((column) => !(column in result));
  if (missing.length > 0) {
    throw new DataSourceError(
      'invalid-key',
      `The key for '${table.qualifiedName}' lacks ${missing.join(', ')}; a key is ${shape}.`,
    );
  }
  return result;
}
