// Request bodies and queries, checked with zod 4 before a route reads them. A wrong one gets a
// 400 naming each bad field, worded as the tools word theirs (describeIssues from @toolrow/tools)
// and carrying the same `details.issues`, so a client handles both one way.
import { describeIssues } from '@toolrow/tools';
import type { Context } from 'hono';
import { z } from 'zod';
import { badRequest, HttpError } from './errors.ts';

/** The JSON object a request carries; an empty body reads as {}. */
async function jsonObject(c: Context): Promise<unknown> {
  const text = await c.req.text();
  if (!text.trim()) return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw badRequest(`The request body is not valid JSON: ${(error as Error).message}.`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw badRequest('The request body must be a JSON object.');
  return value;
}

function check<S extends z.ZodType>(
  c: Context,
  schema: S,
  input: unknown,
  part: 'body' | 'query' | 'form',
): z.output<S> {
  const parsed = schema.safeParse(input, { reportInput: true });
  if (parsed.success) return parsed.data;
  const issues = describeIssues(parsed.error.issues, input);
  throw new HttpError(
    400,
    'invalid-input',
    `Invalid ${part} for ${c.req.method} ${c.req.routePath}: ${issues.map((issue) => issue.message).join('; ')}.`,
    undefined,
    { issues },
  );
}

/** The request's JSON body, parsed by `schema`; throws a 400 naming each bad field. */
export async function readBody<S extends z.ZodType>(c: Context, schema: S): Promise<z.output<S>> {
  return check(c, schema, await jsonObject(c), 'body');
}

/** A form post (application/x-www-form-urlencoded), its fields parsed by `schema`. */
export async function readForm<S extends z.ZodType>(c: Context, schema: S): Promise<z.output<S>> {
  const params = new URLSearchParams(await c.req.text());
  // A repeated field is a list; every other field is its one value.
  const fields = Object.fromEntries(
    [...new Set(params.keys())].map((key) => {
      const values = params.getAll(key);
      return [key, values.length > 1 ? values : values[0]];
    }),
  );
  return check(c, schema, fields, 'form');
}

/** The request's query string, parsed by `schema`; throws a 400 naming each bad parameter. */
export function readQuery<S extends z.ZodType>(c: Context, schema: S): z.output<S> {
  return check(c, schema, c.req.query(), 'query');
}

/** A query parameter that is a whole number in [min, max], `fallback` when absent or empty. */
export function queryInteger(min: number, max: number, fallback: number) {
  return z.preprocess(
    // Only numerals become numbers, so "limit=x" is reported as the text it is.
    (value) =>
      value === undefined || value === ''
        ? undefined
        : typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value)
          ? Number(value)
          : value,
    z.number().int().min(min).max(max).default(fallback),
  );
}

/** A non-empty string field. */
export const nonEmpty = () => z.string().trim().min(1);

/** Primary-key values of one row: column → value. */
export const rowKey = z.record(z.string(), z.unknown());

/** The desktop's filter (see apps/desktop/src/ui/api.ts); operators are checked by the data layer. */
export const wireFilter = z.object({
  combine: z.enum(['and', 'or']),
  conditions: z.array(z.object({ column: z.string(), op: z.string(), value: z.unknown().optional() })),
  raw: z.unknown().optional(),
  text: z.string().optional(),
});

export const wireSort = z.array(z.object({ column: z.string(), direction: z.enum(['asc', 'desc']) }));

const uiTab = z.discriminatedUnion('kind', [
  z.object({
    id: z.string(),
    kind: z.literal('table'),
    table: z.string(),
    filter: wireFilter,
    sort: wireSort,
  }),
  z.object({ id: z.string(), kind: z.literal('workbench'), sql: z.string() }),
  z.object({ id: z.string(), kind: z.literal('row'), table: z.string(), key: rowKey }),
]);

export const wireUiState = z.object({
  tabs: z.array(uiTab),
  focusedTabId: z.string().nullable(),
  selection: z.array(rowKey).optional(),
});

/** Change ids as GET /api/staging lists them (strings) or the state has them (numbers). */
export const changeIds = z
  .array(z.union([z.number().int().positive(), z.string().regex(/^[1-9]\d*$/, 'expected a change id')]))
  .min(1)
  .transform((ids) => ids.map(Number));
