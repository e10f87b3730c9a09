import type { ColumnInfo } from './schema-types.ts';
/** Structured filters and sorts: data, validated against the schema cache, compiled to parameterised SQL. */

/** The operators a condition may use; nothing else compiles. */
export const FILTER_OPS = [
  'eq',
  'neq',
  'lt',
  'lte',
  'gt',
  'gte',
  'in',
  'not_in',
  'like',
  'ilike',
  'contains',
  'starts_with',
  'ends_with',
  'is_null',
  'is_not_null',
  'between',
] as const;
export type FilterOp = (typeof FILTER_OPS)[number];

/** Operators that take no value. */
export const NULLARY_OPS = ['is_null', 'is_not_null'] as const satisfies readonly FilterOp[];
/** Operators whose value is an array: in/not_in (1..1000 items), between ([low, high]). */
export const LIST_OPS = ['in', 'not_in', 'between'] as const satisfies readonly FilterOp[];

export type FilterScalar = string | number | boolean | null;

/**
 * One condition. `value` by operator: a scalar for eq…gte, like, ilike (the pattern as typed),
 * contains/starts_with/ends_with (plain text: % and _ match themselves), an array for in/not_in,
 * [low, high] for between (inclusive), nothing for is_null/is_not_null.
 * Text operators compare the column as text (so `contains` works on any type).
 */
export interface FilterCondition {
  column: string;
  op: FilterOp;
  value?: FilterScalar | FilterScalar[];
}

/** A filter: a condition, or conditions combined with and / or / not (nesting allowed, depth ≤ 8). */
export type Filter = FilterCondition | { and: Filter[] } | { or: Filter[] } | { not: Filter };

export interface Sort {
  column: string;
  direction?: 'asc' | 'desc';
  nulls?: 'first' | 'last';
}

/** SQL text with $n placeholders and the values that go with them. */
export interface CompiledSql {
  sql: string;
  params: unknown[];
}

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
