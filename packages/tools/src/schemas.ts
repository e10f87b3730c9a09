// Input pieces shared by several tools. The agent sends these schemas to models on every request
// (z.toJSONSchema) and the MCP server lists them, so every field is described, but only with what
// the JSON Schema cannot say itself: types, enums and required fields are already there.
// Size bounds that no sensible call comes near are checked without appearing in the JSON Schema
// (a model learns nothing from "maxLength: 200" on a table name, and it costs every request).
import type { ToolName } from '@toolrow/catalog';
import { EXPORT_FORMATS, FILTER_OPS, type Filter, type Sort } from '@toolrow/datasource';
import { z } from 'zod';
import {
  FILTER_INPUT_OPS,
  type FilterInput,
  type FilterInputItem,
  normalizeFilterInput,
} from './filter-input.ts';

type Sized = z.ZodString | z.ZodArray<z.ZodType>;

/** Length (characters or items) bounds that are enforced but not advertised; errors read like zod's own. */
export function within<T extends Sized>(schema: T, min: number, max: number): T {
  const origin = schema instanceof z.ZodString ? 'string' : 'array';
  return (schema as z.ZodType<string | unknown[]>).check((payload) => {
    const length = payload.value.length;
    if (length < min)
      payload.issues.push({ code: 'too_small', origin, minimum: min, inclusive: true, input: payload.value });
    else if (length > max)
      payload.issues.push({ code: 'too_big', origin, maximum: max, inclusive: true, input: payload.value });
  }) as T;
}

/** Non-empty text of at most `max` characters. */
export function textField(max: number): z.ZodString {
  return within(z.string(), 1, max);
}

export const tableName = textField(200).describe('e.g. "orders" or "public.orders"');

export const columnName = textField(200).describe('Column name.');

const scalar = z.union([z.string(), z.number(), z.boolean(), z.null()]);
// Lists (in, not_in, between) hold no NULLs: the data source refuses them with a pointer to is_null.
const listValue = z.array(z.union([z.string(), z.number(), z.boolean()]));

/**
 * What a model reads in place of a schema's own JSON Schema. Only for leaves and closed shapes
 * (no $ref inside: the reference syntax depends on the target the caller converts to), and
 * always a fresh object, since the AI SDK edits the JSON it gets in place.
 */
function shownAs<T extends z.ZodType>(schema: T, json: () => Record<string, unknown>): T {
  schema._zod.toJSONSchema = json;
  // zod would still fold the schema this one was cloned from (by .describe()) into the output,
  // and that schema was never converted; the JSON above is the whole of it, so nothing is lost.
  schema._zod.parent = undefined;
  return schema;
}

/**
 * The one place that explains the filter (its tool says the rest), so that each other copy of
 * the filter carries only the shape. The tool must be inline and in every MCP scope, so that it is
 * listed wherever a filter tool is; schemas.test.ts holds it to that.
 */
export const FILTER_GUIDE_TOOL = 'countRows' satisfies ToolName;

export const FILTER_EXAMPLE =
  '[{"column":"status","op":"eq","value":"paid"},{"or":[{"column":"total","op":"gt","value":100},{"column":"shipped_at","op":"is_null"}]}]';

const FILTER_GUIDE =
  `each item is a condition {column, op, value} or a group {"or": [items]} (one must hold) or {"and": [items]} (all must), e.g. ${FILTER_EXAMPLE}. ` +
  'not_ before an op negates it (not_like, not_between); like/ilike: SQL pattern with %; ' +
  'contains/starts_with/ends_with: plain text, any case. value: a list for in/not_in, [low, high] for between, ' +
  'none for is_null/is_not_null; dates as ISO text';

// The schema validates every operator the input takes (negations included, after the aliases
// are read in normalizeFilterInput) but shows only the data source's own: the negations follow
// one rule that the guide states once, rather than doubling the enum in every copy.
const filterOp = shownAs(z.enum(FILTER_INPUT_OPS).describe('not_<op> negates it.'), () => ({
  type: 'string',
  enum: [...FILTER_OPS],
}));

const filterValue = shownAs(
  z.union([scalar, listValue]).optional().describe(`See ${FILTER_GUIDE_TOOL}.`),
  () => ({}),
);

/**
 * One object for conditions and groups, not a union of three: a third of the JSON Schema per
 * copy. The check below holds an item to exactly one of the forms, as the union did, and says
 * which form it wanted.
 */
const filterItem: z.ZodType<FilterInputItem> = z
  .strictObject({
    column: columnName.optional(),
    op: filterOp.optional(),
    value: filterValue,
    get or() {
      return within(z.array(filterItem), 1, 50).optional().describe('One must hold.');
    },
    get and() {
      return within(z.array(filterItem), 1, 50).optional().describe('All must hold.');
    },
  })
  .check((payload) => {
    const item = payload.value as Record<string, unknown>;
    const groups = ['or', 'and'].filter((key) => key in item);
    const condition = ['column', 'op', 'value'].filter((key) => key in item);
    if (groups.length === 1 && condition.length === 0) return;
    if (groups.length > 0) {
      payload.issues.push({
        code: 'custom',
        input: payload.value,
        message: `an item is one condition {column, op, value} or one group {"or": [...]} or {"and": [...]}, not ${[...condition, ...groups].join(' with ')}; nest the condition inside the group`,
      });
      return;
    }
    for (const key of ['column', 'op'])
      if (!(key in item))
        payload.issues.push({ code: 'invalid_type', expected: 'string', path: [key], input: undefined });
  })
  // Named, so the JSON Schema reads "#/definitions/filterItem" rather than "__schema0".
  .meta({ id: 'filterItem' }) as unknown as z.ZodType<FilterInputItem>;

const filterList = within(z.array(filterItem), 0, 50);

/**
 * The structured filter: a list of conditions and {or}/{and} groups, all of which must hold.
 * Also accepts what callers sent before the list form (a lone condition, {and}/{or}/{not} nodes,
 * the data source's own Filter) and operator aliases ("=", ">=", not_eq…), read as the
 * equivalent list; the JSON Schema shows the list only. `purpose` opens the description; with
 * `guide` (FILTER_GUIDE_TOOL only) the whole explanation and the example follow it, otherwise a
 * pointer to that tool.
 */
export function filterField(purpose = 'Rows must match every item', options: { guide?: boolean } = {}) {
  return z
    .preprocess(normalizeFilterInput, filterList)
    .describe(filterDescription(purpose, options)) as unknown as z.ZodType<FilterInput, FilterInput | Filter>;
}

function filterDescription(purpose: string, { guide = false }: { guide?: boolean }): string {
  return guide ? `${purpose}; ${FILTER_GUIDE}.` : `${purpose} (see ${FILTER_GUIDE_TOOL}).`;
}

/** filterField that also takes null (setFilter: null clears the filter). */
export function nullableFilterField(purpose: string) {
  return z
    .preprocess(normalizeFilterInput, filterList.nullable())
    .describe(filterDescription(purpose, {})) as unknown as z.ZodType<
    FilterInput | null,
    FilterInput | Filter | null
  >;
}

export const filterSchema = filterField();

const SORT_KEY = /^\s*(-)?\s*(.+?)(?:\s+(asc|desc))?(?:\s+nulls\s+(first|last))?\s*$/i;

/**
 * Reads a sort key written as text, the way ORDER BY reads ("total desc", "shipped_at nulls
 * last", "-created_at"), as the object the data source takes; objects pass through. A column
 * whose name has spaces may be written in double quotes.
 */
export function parseSortKeys(value: unknown): unknown {
  if (!Array.isArray(value)) return value;
  return value.map((entry) => {
    if (typeof entry !== 'string') return entry;
    const match = SORT_KEY.exec(entry);
    if (!match) return { column: entry };
    const [, minus, rawColumn, direction, nulls] = match;
    const column = /^".+"$/.test(rawColumn!) ? rawColumn!.slice(1, -1) : rawColumn!;
    return {
      column,
      ...(direction || minus ? { direction: (direction?.toLowerCase() ?? 'desc') as 'asc' | 'desc' } : {}),
      ...(nulls ? { nulls: nulls.toLowerCase() as 'first' | 'last' } : {}),
    };
  });
}

const SORT_HINT = 'e.g. ["total desc", "name", "shipped_at nulls last"]';

function sortKeys(): z.ZodType<Sort[]> {
  const list = within(
    z.array(
      z.strictObject({
        column: columnName,
        direction: z.enum(['asc', 'desc']).optional().describe('Default asc.'),
        nulls: z.enum(['first', 'last']).optional().describe('Where NULLs go.'),
      }),
    ),
    0,
    10,
  );
  // Shown as the text form: a model writes ORDER BY keys without a schema, and at a third of
  // the tokens of the object form. Objects are still taken (what a view reports back).
  return z.preprocess(parseSortKeys, list) as unknown as z.ZodType<Sort[]>;
}

function shownAsText<T extends z.ZodType>(schema: T): T {
  return shownAs(schema, () => ({ type: 'array', items: { type: 'string' } }));
}

/** Sort keys, the first one first; `purpose` opens the description, the text form's example follows. */
export function sortField(purpose = 'Sort keys, the first one first'): z.ZodType<Sort[]> {
  return shownAsText(sortKeys().describe(`${purpose}, ${SORT_HINT}.`));
}

/** sortField that also takes null (setFilter: null clears the sort). */
export function nullableSortField(purpose: string): z.ZodType<Sort[] | null> {
  return shownAs(sortKeys().nullable().describe(`${purpose}, ${SORT_HINT}.`), () => ({
    anyOf: [{ type: 'array', items: { type: 'string' } }, { type: 'null' }],
  }));
}

/** Sort keys without a description, for fields that describe themselves (null clears, …). */
export const sortList: z.ZodType<Sort[]> = shownAsText(sortKeys());

export const sortSchema = sortField();

// Shown as one type list rather than three schemas: the description says what each form holds.
export const rowKey = shownAs(
  z
    .union([z.strictObject({}).catchall(scalar), z.string(), z.number()])
    .describe('Primary key: {"id": 42}, every column of a composite key, or 42 alone for a one-column key.'),
  () => ({ type: ['object', 'string', 'number'] }),
);

export const rowValues = z
  .strictObject({})
  .catchall(z.unknown())
  .describe('Column name → value. Dates as ISO text; JSON columns take objects.');

export const sqlText = textField(20_000).describe(
  "One SELECT (WITH, joins, GROUP BY) in the connection's query language.",
);

export const exportFormat = z.enum(EXPORT_FORMATS).describe('ndjson: one JSON object per line.');

/** A positive integer, e.g. an id. (zod's .int() would print the safe-integer range into the JSON Schema.) */
export function positiveInteger(): z.ZodNumber {
  return z.number().check((payload) => {
    if (!Number.isInteger(payload.value))
      payload.issues.push({ code: 'invalid_type', expected: 'int', input: payload.value });
    else if (payload.value < 1)
      payload.issues.push({
        code: 'too_small',
        origin: 'number',
        minimum: 1,
        inclusive: true,
        input: payload.value,
      });
  });
}

/**
 * Which page of a long result (1-based). Described in two words: a result that has pages says so,
 * with the call for the next one, and every inline tool's definition costs tokens on every request.
 */
export const pageField = z
  .number()
  .min(1)
  // A whole number, checked here: z.int() would put ±2^53 bounds into the JSON Schema the model reads.
  .refine(Number.isInteger, 'expected a whole number')
  .optional()
  .describe('Default 1.');

export function limitField(defaultRows: number, maxRows: number) {
  return z.number().int().min(1).max(maxRows).optional().describe(`Default ${defaultRows}.`);
}
