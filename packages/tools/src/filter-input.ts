// The filter a model writes, and the data source's Filter it stands for.
//
// Models get a flat list of conditions that must all hold, with {or: [...]} / {and: [...]} groups
// for the rest, and negated operators (not_contains, not_between, …) instead of a {not: …} node:
// the common case ("status is paid and total over 100") is a plain array, with no wrapper to get
// wrong, and the JSON Schema stays small. Nothing is lost: negation can always be pushed down to
// the conditions (De Morgan, and every operator has an exact complement in SQL's three-valued
// logic), so every data-source Filter has an equivalent input (fromFilter) and back (toFilter).
import {
  FILTER_OPS,
  type Filter,
  type FilterCondition,
  type FilterOp,
  type FilterScalar,
  isDataSourceError,
  resolveColumnIn,
  type Sort,
  type TableInfo,
  type ValueCheck,
} from '@toolrow/datasource';
import { validateFilter, validateSort } from '@toolrow/datasource-utils';
import { ToolError } from './errors.ts';

/** The negated operators the input adds; each becomes {not: {…, op: base}} for the data source. */
export const NEGATED_OPS = {
  not_between: 'between',
  not_like: 'like',
  not_ilike: 'ilike',
  not_contains: 'contains',
  not_starts_with: 'starts_with',
  not_ends_with: 'ends_with',
} as const satisfies Readonly<Record<string, FilterOp>>;
export type NegatedOp = keyof typeof NEGATED_OPS;
export type FilterInputOp = FilterOp | NegatedOp;

const NEGATION_OF = Object.fromEntries(
  Object.entries(NEGATED_OPS).map(([negated, base]) => [base, negated]),
) as Readonly<Partial<Record<FilterOp, NegatedOp>>>;

/** Every operator a filter input may use: the data source's, each followed by its negation when it is new. */
export const FILTER_INPUT_OPS: readonly [FilterInputOp, ...FilterInputOp[]] = FILTER_OPS.flatMap(
  (op): FilterInputOp[] => (NEGATION_OF[op] ? [op, NEGATION_OF[op]] : [op]),
) as [FilterInputOp, ...FilterInputOp[]];

// NOT (a < v) is exactly a >= v in SQL, NULL included (both are NULL), and so on for each pair.
const COMPLEMENT: Readonly<Record<FilterInputOp, FilterInputOp>> = {
  eq: 'neq',
  neq: 'eq',
  lt: 'gte',
  gte: 'lt',
  lte: 'gt',
  gt: 'lte',
  in: 'not_in',
  not_in: 'in',
  is_null: 'is_not_null',
  is_not_null: 'is_null',
  between: 'not_between',
  not_between: 'between',
  like: 'not_like',
  not_like: 'like',
  ilike: 'not_ilike',
  not_ilike: 'ilike',
  contains: 'not_contains',
  not_contains: 'contains',
  starts_with: 'not_starts_with',
  not_starts_with: 'starts_with',
  ends_with: 'not_ends_with',
  not_ends_with: 'ends_with',
};

export interface FilterInputCondition {
  column: string;
  op: FilterInputOp;
  value?: FilterScalar | FilterScalar[];
}

/** One item of a filter input: a condition, or a group of items. */
export type FilterInputItem = FilterInputCondition | { or: FilterInputItem[] } | { and: FilterInputItem[] };

/** What the tools take as `filter`: items that must all hold. An empty list restricts nothing. */
export type FilterInput = FilterInputItem[];

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function onlyKey(value: Record<string, unknown>): string | undefined {
  const keys = Object.keys(value);
  return keys.length === 1 ? keys[0] : undefined;
}

function isNegated(op: FilterInputOp): op is NegatedOp {
  return Object.hasOwn(NEGATED_OPS, op);
}

function itemToFilter(item: FilterInputItem): Filter {
  if ('or' in item) return { or: item.or.map(itemToFilter) };
  if ('and' in item) return { and: item.and.map(itemToFilter) };
  const { column, op } = item;
  const value = 'value' in item ? { value: item.value } : {};
  if (isNegated(op)) return { not: { column, op: NEGATED_OPS[op], ...value } };
  return { column, op, ...value } as FilterCondition;
}

/** The data source's Filter for a filter input; undefined when it restricts nothing. */
export function toFilter(input: FilterInput | null | undefined): Filter | undefined {
  if (!input || input.length === 0) return undefined;
  if (input.length === 1) return itemToFilter(input[0]!);
  return { and: input.map(itemToFilter) };
}

/** Operators as models also write them: SQL's symbols, and not_ before any operator. */
const OP_ALIASES: Readonly<Record<string, FilterInputOp>> = {
  '=': 'eq',
  '==': 'eq',
  '!=': 'neq',
  '<>': 'neq',
  '<': 'lt',
  '<=': 'lte',
  '>': 'gt',
  '>=': 'gte',
};

/**
 * The operator an alias stands for ("=" → eq, "NOT IN" → not_in, not_eq → neq, not_is_null →
 * is_not_null); anything else is returned as it is, for validation to name.
 */
export function canonicalOp(op: string): string {
  if (Object.hasOwn(COMPLEMENT, op)) return op;
  const spelled = op
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_');
  if (Object.hasOwn(OP_ALIASES, spelled)) return OP_ALIASES[spelled]!;
  if (Object.hasOwn(COMPLEMENT, spelled)) return spelled;
  const base = /^not_(.+)$/.exec(spelled)?.[1];
  if (base !== undefined) {
    const inner = canonicalOp(base);
    if (Object.hasOwn(COMPLEMENT, inner)) return COMPLEMENT[inner as FilterInputOp];
  }
  return op;
}

function withCanonicalOp(node: Record<string, unknown>): Record<string, unknown> {
  if (typeof node.op !== 'string') return node;
  const op = canonicalOp(node.op);
  return op === node.op ? node : { ...node, op };
}

// Pushes `not` down to the conditions. Works on unknown input (the schema's preprocess runs before
// validation): a shape it does not recognise is left as it is, for validation to name.
function pushDown(node: unknown, negate: boolean): unknown {
  if (!isRecord(node)) return negate ? { not: node } : node;
  const key = onlyKey(node);
  if (key === 'not') return pushDown(node.not, !negate);
  if ((key === 'and' || key === 'or') && Array.isArray(node[key])) {
    const group = negate ? (key === 'and' ? 'or' : 'and') : key;
    return { [group]: (node[key] as unknown[]).map((child) => pushDown(child, negate)) };
  }
  const condition = withCanonicalOp(node);
  if (!negate) return condition;
  const op = condition.op;
  if (typeof op === 'string' && Object.hasOwn(COMPLEMENT, op))
    return { ...condition, op: COMPLEMENT[op as FilterInputOp] };
  return { not: condition };
}

/**
 * Reads a filter as callers wrote it before the list form (and as the data source stores it):
 * a lone condition, or {and}/{or}/{not} nodes at any depth, is turned into the equivalent list.
 * A list passes through with any {not} inside pushed down; JSON text of any of these is parsed
 * first. Anything else is returned unchanged.
 */
export function normalizeFilterInput(value: unknown): unknown {
  // Smaller models sometimes send a nested argument as JSON text; read it as the JSON it is.
  if (typeof value === 'string' && /^\s*[[{]/.test(value)) {
    try {
      return normalizeFilterInput(JSON.parse(value));
    } catch {
      return value;
    }
  }
  if (Array.isArray(value)) return value.map((item) => pushDown(item, false));
  if (!isRecord(value)) return value;
  const item = pushDown(value, false);
  // A top-level {and: [...]} is the list itself.
  if (isRecord(item) && onlyKey(item) === 'and' && Array.isArray(item.and)) return item.and;
  return [item];
}

/** A data-source Filter as a filter input (what a model reads back and can send again). */
export function fromFilter(filter: Filter | null | undefined): FilterInput | undefined {
  if (!filter) return undefined;
  return normalizeFilterInput(filter) as FilterInput;
}

/** Every condition of a filter input with its path, e.g. ["filter[1].or[0]", {column, op, value}]. */
export function conditionsOf(
  input: FilterInput | null | undefined,
  field = 'filter',
): [path: string, condition: FilterInputCondition][] {
  const out: [string, FilterInputCondition][] = [];
  const walk = (item: FilterInputItem, path: string): void => {
    if ('or' in item) for (const [index, child] of item.or.entries()) walk(child, `${path}.or[${index}]`);
    else if ('and' in item)
      for (const [index, child] of item.and.entries()) walk(child, `${path}.and[${index}]`);
    else out.push([path, item]);
  };
  for (const [index, item] of (input ?? []).entries()) walk(item, `${field}[${index}]`);
  return out;
}

// A data-source error about part of a filter or sort, as a ToolError naming the field the caller wrote.
function located(tool: string, error: unknown, path: string, rewrite: (message: string) => string): unknown {
  if (!isDataSourceError(error)) return error;
  if (error.code === 'unknown-column') {
    const message = `${path}.column: ${error.message}`;
    return new ToolError('not-found', tool, message, {
      cause: error,
      issues: [{ path: `${path}.column`, message }],
    });
  }
  if (error.code !== 'invalid-filter') return error;
  const message = rewrite(error.message);
  return new ToolError('invalid-input', tool, message, { cause: error, issues: [{ path, message }] });
}

/**
 * Checks a filter input against a table (columns exist, values suit the operator and the column
 * type, size limits) and returns the data source's Filter for it. Errors are ToolErrors that name
 * the condition as the caller wrote it, e.g. "filter[1].or[0] (total gt): value must be a number…".
 */
export function checkFilter(
  tool: string,
  table: TableInfo,
  input: FilterInput | null | undefined,
  field = 'filter',
  /** The engine's own value check (its RowReader's), beyond the filter language's. */
  checkValue?: ValueCheck,
): Filter | undefined {
  for (const [path, condition] of conditionsOf(input, field)) {
    const base = isNegated(condition.op) ? NEGATED_OPS[condition.op] : condition.op;
    try {
      validateFilter(table, { ...condition, op: base } as FilterCondition, checkValue);
    } catch (error) {
      throw located(tool, error, path, (message) =>
        message.replace(/^filter(?=[ :])/, path).replace(/^(\S+ \([^)]* )[a-z_]+\)/, `$1${condition.op})`),
      );
    }
  }
  const filter = toFilter(input);
  try {
    // What a condition alone cannot show: the whole filter's size and depth.
    validateFilter(table, filter, checkValue);
  } catch (error) {
    throw located(tool, error, field, (message) => message.replace(/^filter[^\s:]*/, field));
  }
  return filter;
}

/** Checks a sort against a table; errors name the entry, e.g. "sort[0].column: Unknown column …". */
export function checkSort(
  tool: string,
  table: TableInfo,
  sort: readonly Sort[] | null | undefined,
  field = 'sort',
): void {
  for (const [index, entry] of (sort ?? []).entries()) {
    try {
      resolveColumnIn(table, entry.column);
    } catch (error) {
      throw located(tool, error, `${field}[${index}]`, (message) => message);
    }
  }
  try {
    validateSort(table, sort);
  } catch (error) {
    throw located(tool, error, field, (message) => message.replace(/^sort\b/, field));
  }
}
