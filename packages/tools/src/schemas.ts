// Input pieces shared by several tools. The agent sends these schemas to models on every request
// (z.toJSONSchema) and the MCP server lists them, so every field is described, but only with what
// the JSON Schema cannot say itself: types, enums and required fields are already there.
// Size bounds that no sensible call comes near are checked without appearing in the JSON Schema
// (a model learns nothing from "maxLength: 200" on a table name, and it costs every request).
import { EXPORT_FORMATS, type Filter, type Sort } from '@toolrow/datasource';
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

export const tableName = textField(200).describe('Table name, e.g. "orders" or "public.orders".');

export const columnName = textField(200).describe('Column name.');

const scalar = z.union([z.string(), z.number(), z.boolean(), z.null()]);
// Lists (in, not_in, between) hold no NULLs: the data source refuses them with a pointer to is_null.
const listValue = z.array(z.union([z.string(), z.number(), z.boolean()]));

export const filterCondition = z.strictObject({
  column: columnName,
  op: z
    .enum(FILTER_INPUT_OPS)
    .describe('like/ilike: SQL pattern with %; contains/starts_with/ends_with: plain text, any case.'),
  value: z
    .union([scalar, listValue])
    .optional()
    .describe(
      'A list for in/not_in, [low, high] for between; none for is_null/is_not_null. Dates as ISO text.',
    ),
});

const filterItem: z.ZodType<FilterInputItem> = z
  .union([
    filterCondition,
    z.strictObject({
      get or() {
        return within(z.array(filterItem), 1, 50).describe('At least one must hold.');
      },
    }),
    z.strictObject({
      get and() {
        return within(z.array(filterItem), 1, 50).describe('All must hold.');
      },
    }),
  ])
  // Named, so the JSON Schema reads "#/definitions/filterItem" rather than "__schema0".
  .meta({ id: 'filterItem' }) as z.ZodType<FilterInputItem>;

const filterList = within(z.array(filterItem), 0, 50);

const FILTER_EXAMPLE =
  '[{"column":"status","op":"eq","value":"paid"},{"or":[{"column":"total","op":"gt","value":100},{"column":"shipped_at","op":"is_null"}]}]';

/**
 * The structured filter: a list of conditions and {or}/{and} groups, all of which must hold.
 * Also accepts what callers sent before the list form (a lone condition, {and}/{or}/{not} nodes,
 * the data source's own Filter), read as the equivalent list; the JSON Schema shows the list only.
 * `purpose` opens the description; the example follows it.
 */
export function filterField(purpose = 'Rows must match every item') {
  return z
    .preprocess(normalizeFilterInput, filterList)
    .describe(`${purpose}, e.g. ${FILTER_EXAMPLE}`) as unknown as z.ZodType<
    FilterInput,
    FilterInput | Filter
  >;
}

/** filterField that also takes null (setFilter: null clears the filter). */
export function nullableFilterField(purpose: string) {
  return z
    .preprocess(normalizeFilterInput, filterList.nullable())
    .describe(`${purpose}, e.g. ${FILTER_EXAMPLE}`) as unknown as z.ZodType<
    FilterInput | null,
    FilterInput | Filter | null
  >;
}

export const filterSchema = filterField();

/** Sort keys without a description, for fields that describe themselves (null clears, …). */
export const sortList: z.ZodType<Sort[]> = within(
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

export const sortSchema = sortList.describe('Sort keys, the first one first.');

export const rowKey = z
  .union([z.strictObject({}).catchall(scalar), z.string(), z.number()])
  .describe('Primary key: {"id": 42}, every column of a composite key, or 42 alone for a one-column key.');

export const rowValues = z
  .strictObject({})
  .catchall(z.unknown())
  .describe('Column name → value. Dates as ISO text; JSON columns take objects.');

export const sqlText = textField(20_000).describe('One PostgreSQL SELECT (WITH, joins, GROUP BY are fine).');

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

export function limitField(defaultRows: number, maxRows: number) {
  return z.number().int().min(1).max(maxRows).optional().describe(`Default ${defaultRows}.`);
}
