// The list-form filter against the data source's Filter: same rows, on a real database.
import {
  type DataSource,
  FILTER_OPS,
  type Filter,
  type FilterCondition,
  type TableInfo,
} from '@toolrow/datasource';
import { checkPostgresValue, sqlDatabaseOf } from '@toolrow/postgres';
import type { Toolrow } from '@toolrow/state';
import { testStores } from '@toolrow/state/testing';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ToolError } from './errors.ts';
import {
  checkFilter,
  checkSort,
  FILTER_INPUT_OPS,
  type FilterInput,
  type FilterInputItem,
  type FilterInputOp,
  fromFilter,
  NEGATED_OPS,
  normalizeFilterInput,
  toFilter,
} from './filter-input.ts';
import { invokeTool, parseToolInput } from './registry.ts';
import { contextFor } from './test-fixtures.ts';

const STATUSES = ['pending', 'paid', 'shipped', 'delivered', 'cancelled', 'refunded'];

/** Conditions over the sample shop's orders that the data source accepts, nullable columns included. */
const conditionArb: fc.Arbitrary<FilterCondition> = fc.oneof(
  fc.record({
    column: fc.constant('status'),
    op: fc.constantFrom('eq', 'neq', 'lt', 'lte', 'gt', 'gte'),
    value: fc.constantFrom(...STATUSES),
  }),
  fc.record({
    column: fc.constantFrom('status', 'note'),
    op: fc.constantFrom('in', 'not_in'),
    value: fc.array(fc.constantFrom(...STATUSES, 'gift'), { minLength: 1, maxLength: 3 }),
  }),
  fc.record({
    column: fc.constantFrom('status', 'note'),
    op: fc.constantFrom('like', 'ilike', 'contains', 'starts_with', 'ends_with'),
    value: fc.constantFrom('pa', 'ed', 'p%', '%i%', 'gift', 'S', '_a%'),
  }),
  fc.record({
    column: fc.constant('total'),
    op: fc.constantFrom('eq', 'neq', 'lt', 'lte', 'gt', 'gte'),
    value: fc.integer({ min: 0, max: 800 }),
  }),
  fc.record({
    column: fc.constant('total'),
    op: fc.constant('between'),
    value: fc.tuple(fc.integer({ min: 0, max: 400 }), fc.integer({ min: 100, max: 900 })),
  }),
  fc.record({
    column: fc.constantFrom('shipped_at', 'ordered_at'),
    op: fc.constantFrom('gte', 'lt'),
    value: fc.constantFrom('2026-03-01', '2026-05-15T12:00:00Z'),
  }),
  fc.record({
    column: fc.constantFrom('shipped_at', 'note'),
    op: fc.constantFrom('is_null', 'is_not_null'),
  }),
) as fc.Arbitrary<FilterCondition>;

const { filter: filterArb } = fc.letrec<{ filter: Filter }>((tie) => ({
  filter: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    conditionArb,
    fc.record({ and: fc.array(tie('filter'), { minLength: 1, maxLength: 3 }) }),
    fc.record({ or: fc.array(tie('filter'), { minLength: 1, maxLength: 3 }) }),
    fc.record({ not: tie('filter') }),
  ),
}));

function keysIn(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(keysIn);
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, inner]) => [key, ...keysIn(inner)]);
}

function depthOf(filter: Filter): number {
  if ('and' in filter) return 1 + Math.max(0, ...filter.and.map(depthOf));
  if ('or' in filter) return 1 + Math.max(0, ...filter.or.map(depthOf));
  if ('not' in filter) return 1 + depthOf(filter.not);
  return 0;
}

describe('filter input, without a database', () => {
  it('offers every data-source operator, each new negation right after its base', () => {
    expect(FILTER_INPUT_OPS.filter((op) => (FILTER_OPS as readonly string[]).includes(op))).toEqual([
      ...FILTER_OPS,
    ]);
    for (const [negated, base] of Object.entries(NEGATED_OPS)) {
      expect(FILTER_INPUT_OPS.indexOf(negated as FilterInputOp)).toBe(
        FILTER_INPUT_OPS.indexOf(base as FilterInputOp) + 1,
      );
    }
    expect(FILTER_INPUT_OPS).toHaveLength(FILTER_OPS.length + Object.keys(NEGATED_OPS).length);
  });

  it('turns the list into the Filter the data source takes', () => {
    expect(toFilter(undefined)).toBeUndefined();
    expect(toFilter(null)).toBeUndefined();
    expect(toFilter([])).toBeUndefined();
    const paid = { column: 'status', op: 'eq', value: 'paid' } as const;
    expect(toFilter([paid])).toEqual(paid);
    expect(toFilter([paid, { column: 'note', op: 'not_contains', value: 'gift' }])).toEqual({
      and: [paid, { not: { column: 'note', op: 'contains', value: 'gift' } }],
    });
    expect(
      toFilter([{ or: [paid, { and: [{ column: 'total', op: 'not_between', value: [1, 2] }] }] }]),
    ).toEqual({ or: [paid, { and: [{ not: { column: 'total', op: 'between', value: [1, 2] } }] }] });
  });

  it('reads the old forms as the list they stand for', () => {
    const paid = { column: 'status', op: 'eq', value: 'paid' };
    expect(normalizeFilterInput(paid)).toEqual([paid]);
    expect(normalizeFilterInput({ and: [paid, { column: 'note', op: 'is_null' }] })).toEqual([
      paid,
      { column: 'note', op: 'is_null' },
    ]);
    // not (a or b) = (not a) and (not b): a top-level and is the list itself.
    expect(normalizeFilterInput({ not: { or: [paid, { column: 'total', op: 'lt', value: 5 }] } })).toEqual([
      { ...paid, op: 'neq' },
      { column: 'total', op: 'gte', value: 5 },
    ]);
    expect(
      normalizeFilterInput({ or: [paid, { not: { and: [paid, { column: 'note', op: 'is_null' }] } }] }),
    ).toEqual([
      {
        or: [
          paid,
          {
            or: [
              { ...paid, op: 'neq' },
              { column: 'note', op: 'is_not_null' },
            ],
          },
        ],
      },
    ]);
    expect(normalizeFilterInput({ not: { not: paid } })).toEqual([paid]);
    expect(normalizeFilterInput([{ not: { column: 'note', op: 'like', value: '%x' } }])).toEqual([
      { column: 'note', op: 'not_like', value: '%x' },
    ]);
    expect(normalizeFilterInput(JSON.stringify([paid]))).toEqual([paid]);
    expect(normalizeFilterInput(` ${JSON.stringify({ not: paid })}`)).toEqual([{ ...paid, op: 'neq' }]);
    // What it does not recognise it leaves for validation to name.
    expect(normalizeFilterInput('status = paid')).toBe('status = paid');
    expect(normalizeFilterInput('[status = paid]')).toBe('[status = paid]');
    expect(normalizeFilterInput('"[1]"')).toBe('"[1]"');
    expect(parseToolInput('countRows', { table: 'orders', filter: JSON.stringify([paid]) }).filter).toEqual([
      paid,
    ]);
    expect(() => parseToolInput('countRows', { table: 'orders', filter: '[status = paid]' })).toThrow(
      /filter: expected an array, got "\[status = paid\]"/,
    );
    expect(normalizeFilterInput(null)).toBeNull();
    expect(normalizeFilterInput(undefined)).toBeUndefined();
    expect(normalizeFilterInput([{ not: 5 }])).toEqual([{ not: 5 }]);
    expect(normalizeFilterInput([{ not: { column: 'a', op: 'equals' } }])).toEqual([
      { not: { column: 'a', op: 'equals' } },
    ]);
  });

  it('property: every Filter has a list form with no not node, which the schema takes as it is', () => {
    fc.assert(
      fc.property(filterArb, (filter) => {
        const input = fromFilter(filter)!;
        expect(Array.isArray(input)).toBe(true);
        expect(keysIn(input)).not.toContain('not');
        // Already normal: the schema's preprocess leaves it alone, so parsing twice is harmless.
        expect(normalizeFilterInput(input)).toEqual(input);
        const parsed = parseToolInput('countRows', { table: 'orders', filter: input });
        expect(parsed.filter).toEqual(input);
        expect(parseToolInput('countRows', parsed)).toEqual(parsed);
        // No larger than the original: the same conditions, no more nesting.
        expect(keysIn(input).filter((key) => key === 'column')).toHaveLength(
          keysIn(filter).filter((key) => key === 'column').length,
        );
        const back = toFilter(input);
        if (back) expect(depthOf(back)).toBeLessThanOrEqual(depthOf(filter) + 1);
      }),
      { numRuns: 500 },
    );
  });

  it('property: list → Filter → list is the identity (up to a lone top-level and group)', () => {
    const itemArb = fc.letrec<{ item: FilterInputItem }>((tie) => ({
      item: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        conditionArb.chain((condition) =>
          fc.constantFrom(
            condition as FilterInputItem,
            {
              ...condition,
              op: (Object.entries(NEGATED_OPS).find(([, base]) => base === condition.op)?.[0] ??
                condition.op) as FilterInputOp,
            } as FilterInputItem,
          ),
        ),
        fc.record({ or: fc.array(tie('item'), { minLength: 1, maxLength: 3 }) }),
        fc.record({ and: fc.array(tie('item'), { minLength: 1, maxLength: 3 }) }),
      ),
    })).item;
    fc.assert(
      fc.property(fc.array(itemArb, { maxLength: 4 }), (input: FilterInput) => {
        const lone = input.length === 1 && 'and' in input[0]! ? input[0].and : input;
        expect(fromFilter(toFilter(input)) ?? []).toEqual(lone);
        expect(normalizeFilterInput(input)).toEqual(input);
      }),
      { numRuns: 500 },
    );
  });
});

describe.each(testStores())('filter input on $name', ({ open }) => {
  let ds: Toolrow;
  let orders: TableInfo;
  const ctx = () => contextFor(ds);
  const count = (filter: Filter | undefined) => ds.source.rows.count('public.orders', filter);

  beforeAll(async () => {
    ds = await open({ seed: { orders: 300 } });
    // Some notes, so text operators meet NULLs and values on a nullable column.
    await sqlDatabaseOf(ds.source).query(
      `UPDATE orders SET note = CASE WHEN id % 3 = 0 THEN 'gift wrap' WHEN id % 3 = 1 THEN 'Paid twice' END`,
    );
    await ds.source.schema.refresh({ analyze: true });
    orders = await ds.source.schema.resolveTable('orders');
  }, 120_000);
  afterAll(async () => {
    await ds?.close();
  });

  it('each operator and its complement split the non-NULL rows exactly as {not: …} does', async () => {
    const cases: FilterCondition[] = [
      { column: 'status', op: 'eq', value: 'paid' },
      { column: 'total', op: 'lt', value: 200 },
      { column: 'total', op: 'lte', value: 200 },
      { column: 'total', op: 'gt', value: 200 },
      { column: 'total', op: 'gte', value: 200 },
      { column: 'status', op: 'neq', value: 'paid' },
      { column: 'note', op: 'in', value: ['gift wrap'] },
      { column: 'note', op: 'not_in', value: ['gift wrap'] },
      { column: 'shipped_at', op: 'between', value: ['2026-01-01', '2026-05-01'] },
      { column: 'note', op: 'like', value: 'g%' },
      { column: 'note', op: 'ilike', value: 'p%' },
      { column: 'note', op: 'contains', value: 'WRAP' },
      { column: 'note', op: 'starts_with', value: 'paid' },
      { column: 'note', op: 'ends_with', value: 'ice' },
      { column: 'note', op: 'is_null' },
      { column: 'shipped_at', op: 'is_not_null' },
    ];
    expect(new Set(cases.map((condition) => condition.op))).toEqual(new Set(FILTER_OPS));
    const all = await count(undefined);
    for (const condition of cases) {
      const [negated] = fromFilter({ not: condition })!;
      expect(negated).not.toHaveProperty('not');
      const matching = await count(condition);
      const notMatching = await count({ not: condition });
      expect(await count(toFilter([negated!])), JSON.stringify(negated)).toBe(notMatching);
      // A real split: both sides non-empty, so a wrong complement could not pass by accident.
      expect(matching, JSON.stringify(condition)).toBeGreaterThan(0);
      expect(notMatching, JSON.stringify(negated)).toBeGreaterThan(0);
      expect(matching + notMatching).toBeLessThanOrEqual(all);
    }
  });

  it('property: a Filter, its list form and the countRows tool (given either) count the same rows', async () => {
    await fc.assert(
      fc.asyncProperty(filterArb, async (filter) => {
        const input = fromFilter(filter)!;
        const expected = await count(filter);
        expect(await count(toFilter(input))).toBe(expected);
        const viaList = await invokeTool('countRows', { table: 'orders', filter: input }, ctx());
        expect(viaList.count).toBe(expected);
        const viaOldForm = await invokeTool('countRows', { table: 'orders', filter }, ctx());
        expect(viaOldForm.count).toBe(expected);
      }),
      { numRuns: 150 },
    );
  });

  it('names the condition as the caller wrote it when the table says no', () => {
    const failure = (input: unknown): ToolError => {
      try {
        // PostgreSQL's value check, as its connections' RowReader hands it over.
        checkFilter('countRows', orders, input as FilterInput, 'filter', checkPostgresValue);
      } catch (error) {
        if (error instanceof ToolError) return error;
        throw error;
      }
      throw new Error(`accepted ${JSON.stringify(input)}`);
    };
    const unknown = failure([
      { column: 'status', op: 'eq', value: 'paid' },
      { or: [{ column: 'totl', op: 'gt', value: 1 }] },
    ]);
    expect(unknown.code).toBe('not-found');
    expect(unknown.message).toMatch(/^filter\[1\]\.or\[0\]\.column: Unknown column 'totl'.*'total'/);
    expect(unknown.issues[0]?.path).toBe('filter[1].or[0].column');
    const badValue = failure([{ column: 'total', op: 'not_between', value: ['a', 'b'] }]);
    expect(badValue.code).toBe('invalid-input');
    expect(badValue.message).toMatch(/^filter\[0\] \(total not_between\): .*must be a number/);
    const badList = failure([{ column: 'status', op: 'in', value: [] }]);
    expect(badList.message).toMatch(/^filter\[0\] \(status in\): value must be an array of 1 to 1000/);
    const nullValue = failure([{ column: 'status', op: 'eq', value: null }]);
    expect(nullValue.message).toMatch(/use op 'is_null'/);
    const tooMany = failure(
      Array.from({ length: 5 }, () => ({
        or: Array.from({ length: 50 }, () => ({ column: 'total', op: 'gt', value: 1 })),
      })),
    );
    expect(tooMany.message).toMatch(/at most 200 conditions/);
    expect(checkFilter('countRows', orders, [])).toBeUndefined();
    expect(() => checkSort('openTable', orders, [{ column: 'id' }, { column: 'totl' }])).toThrow(
      /^sort\[1\]\.column: Unknown column 'totl'/,
    );
  });
});
