// Input pieces shared by several tools. Every field is described: the agent sends these schemas to
// models (z.toJSONSchema) and the MCP server lists them, so the descriptions are the manual.
import { EXPORT_FORMATS, FILTER_OPS, type Filter, type Sort } from '@toolrow/datasource';
import { z } from 'zod';

export const tableName = z
  .string()
  .min(1)
  .max(200)
  .describe('Table name as listTables shows it, e.g. "orders" or "public.orders".');

export const columnName = z.string().min(1).max(200).describe('Column name, as describeTable shows it.');

const scalar = z.union([z.string(), z.number(), z.boolean(), z.null()]);

export const filterCondition = z
  .strictObject({
    column: columnName,
    op: z
      .enum(FILTER_OPS)
      .describe(
        'eq, neq, lt, lte, gt, gte: compare; in, not_in: value is a list; between: value is [low, high]; like, ilike: SQL pattern with %; contains, starts_with, ends_with: plain text; is_null, is_not_null: no value.',
      ),
    value: z
      .union([scalar, z.array(scalar).max(1000)])
      .optional()
      .describe(
        'The value to compare with; a list for in/not_in/between; omit for is_null/is_not_null. Dates as ISO text.',
      ),
  })
  .describe('One condition: column, operator, value.');

export const filterSchema: z.ZodType<Filter> = z
  .union([
    filterCondition,
    z.strictObject({
      get and() {
        return z.array(filterSchema).min(1).max(50).describe('Every one of these must hold.');
      },
    }),
    z.strictObject({
      get or() {
        return z.array(filterSchema).min(1).max(50).describe('At least one of these must hold.');
      },
    }),
    z.strictObject({
      get not() {
        return filterSchema;
      },
    }),
  ])
  .describe(
    'A structured filter: one condition {column, op, value}, or {and: [...]}, {or: [...]}, {not: {...}}. Example: {"and":[{"column":"status","op":"eq","value":"paid"},{"column":"created_at","op":"gte","value":"2026-05-01"}]}',
  ) as z.ZodType<Filter>;

export const sortSchema: z.ZodType<Sort[]> = z
  .array(
    z.strictObject({
      column: columnName,
      direction: z.enum(['asc', 'desc']).optional().describe('asc (default) or desc.'),
      nulls: z.enum(['first', 'last']).optional().describe('Where NULLs go.'),
    }),
  )
  .max(10)
  .describe('Sort order, first key first, e.g. [{"column":"created_at","direction":"desc"}].');

export const rowKey = z
  .union([z.record(z.string(), scalar), z.string(), z.number()])
  .describe(
    'Primary key of the row: {"id": 42} (or a bare 42 when the key is one column); every key column for a composite key.',
  );

export const rowValues = z
  .record(z.string(), z.unknown())
  .describe('Column name → value. Dates and timestamps as ISO text; JSON columns take objects.');

export const sqlText = z
  .string()
  .min(1)
  .max(20_000)
  .describe('One PostgreSQL SELECT statement (WITH, joins, GROUP BY are fine).');

export const exportFormat = z
  .enum(EXPORT_FORMATS)
  .describe('csv, json (one array) or ndjson (one JSON object per line).');

export function limitField(defaultRows: number, maxRows: number, what = 'rows') {
  return z
    .number()
    .int()
    .min(1)
    .max(maxRows)
    .optional()
    .describe(`Most ${what} to return (default ${defaultRows}, at most ${maxRows}).`);
}
