import {
  type ColumnInfo,
  DataSourceError,
  FILTER_OPS,
  type Filter,
  type FilterCondition,
  type FilterScalar,
  type TableInfo,
  UnknownNameError,
} from '@toolrow/datasource';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileFilter, compileSort } from './filters.ts';
import { quoteIdent } from './sql.ts';

function column(
  name: string,
  type: string,
  typeId: number,
  position: number,
  primaryKey = false,
): ColumnInfo {
  return {
    name,
    type,
    typeId,
    nullable: !primaryKey,
    default: null,
    generated: false,
    position,
    primaryKey,
    comment: null,
    commonValues: [],
    min: null,
    max: null,
    distinctEstimate: null,
    nullFraction: null,
  };
}

const HOSTILE = 'na"me; DROP TABLE orders; --';
const TABLE: TableInfo = {
  schema: 'public',
  name: 'orders',
  qualifiedName: 'public.orders',
  kind: 'table',
  comment: null,
  columns: [
    column('id', 'integer', 23, 1, true),
    column('status', 'text', 25, 2),
    column('total', 'numeric(12,2)', 1700, 3),
    column('paid', 'boolean', 16, 4),
    column(HOSTILE, 'text', 25, 5),
    column('Mixed Case', 'text', 25, 6),
  ],
  primaryKey: ['id'],
  indexes: [],
  foreignKeys: [],
  referencedBy: [],
  rowEstimate: 0,
  tableBytes: 0,
  totalBytes: 0,
};

describe('compileFilter', () => {
  it('compiles each operator to a quoted identifier and $n parameters', () => {
    const cases: [FilterCondition, string, unknown[]][] = [
      [{ column: 'status', op: 'eq', value: 'paid' }, '"status" = $1', ['paid']],
      [{ column: 'status', op: 'neq', value: 'paid' }, '"status" <> $1', ['paid']],
      [{ column: 'total', op: 'lt', value: 5 }, '"total" < $1', [5]],
      [{ column: 'total', op: 'lte', value: '5.5' }, '"total" <= $1', ['5.5']],
      [{ column: 'total', op: 'gt', value: 5 }, '"total" > $1', [5]],
      [{ column: 'total', op: 'gte', value: 5 }, '"total" >= $1', [5]],
      [{ column: 'status', op: 'in', value: ['a', 'b'] }, '"status" IN ($1, $2)', ['a', 'b']],
      [{ column: 'status', op: 'not_in', value: ['a'] }, '"status" NOT IN ($1)', ['a']],
      [{ column: 'status', op: 'like', value: 'p%' }, '"status"::text LIKE $1', ['p%']],
      [{ column: 'status', op: 'ilike', value: 'P%' }, '"status"::text ILIKE $1', ['P%']],
      [{ column: 'status', op: 'contains', value: '50%_off' }, '"status"::text ILIKE $1', ['%50\\%\\_off%']],
      [{ column: 'status', op: 'starts_with', value: 'pa' }, '"status"::text ILIKE $1', ['pa%']],
      [{ column: 'status', op: 'ends_with', value: 'id' }, '"status"::text ILIKE $1', ['%id']],
      [{ column: 'status', op: 'is_null' }, '"status" IS NULL', []],
      [{ column: 'status', op: 'is_not_null' }, '"status" IS NOT NULL', []],
      [{ column: 'total', op: 'between', value: [1, 9] }, '"total" BETWEEN $1 AND $2', [1, 9]],
      [{ column: 'paid', op: 'eq', value: true }, '"paid" = $1', [true]],
      [{ column: HOSTILE, op: 'eq', value: 'x' }, `${quoteIdent(HOSTILE)} = $1`, ['x']],
      [{ column: 'mixed case', op: 'eq', value: 'x' }, '"Mixed Case" = $1', ['x']],
    ];
    expect(cases.map(([condition]) => condition.op)).toEqual(expect.arrayContaining([...FILTER_OPS]));
    for (const [condition, sql, params] of cases) {
      expect(compileFilter(TABLE, condition), condition.op).toEqual({ sql, params });
    }
  });

  it('combines with and / or / not and numbers parameters from firstParam', () => {
    const filter: Filter = {
      or: [
        {
          and: [
            { column: 'status', op: 'eq', value: 'paid' },
            { column: 'total', op: 'gt', value: 100 },
          ],
        },
        { not: { column: 'status', op: 'in', value: ['pending', 'cancelled'] } },
      ],
    };
    expect(compileFilter(TABLE, filter, 3)).toEqual({
      sql: '(("status" = $3 AND "total" > $4) OR (NOT "status" IN ($5, $6)))',
      params: ['paid', 100, 'pending', 'cancelled'],
    });
    expect(compileFilter(TABLE, { and: [] }).sql).toBe('TRUE');
    expect(compileFilter(TABLE, { or: [] }).sql).toBe('FALSE');
    expect(compileFilter(TABLE, undefined)).toEqual({ sql: 'TRUE', params: [] });
  });

  it('rejects bad filters with a message naming the place and the fix', () => {
    const bad: [unknown, RegExp][] = [
      [{ column: 'statos', op: 'eq', value: 1 }, /Unknown column 'statos'.*Did you mean 'status'/],
      [{ column: 'status', op: 'equals', value: 1 }, /filter\.op: expected one of eq, neq/],
      [{ column: 'status', op: 'eq', value: null }, /use op 'is_null'/],
      [{ column: 'status', op: 'eq', value: { $gt: 1 } }, /value must be a string, number or boolean/],
      [{ column: 'status', op: 'in', value: [] }, /array of 1 to 1000 values/],
      [{ column: 'status', op: 'in', value: 'paid' }, /array of 1 to 1000 values/],
      [{ column: 'total', op: 'between', value: [1] }, /\[low, high\]/],
      [
        { column: 'total', op: 'eq', value: 'lots' },
        /column 'total' is numeric\(12,2\), so the value must be a number/,
      ],
      [{ column: 'paid', op: 'eq', value: 'yes' }, /must be true or false/],
      [{ column: 'status', op: 'is_null', value: 'x' }, /takes no value/],
      [{ column: 'status', op: 'eq', value: 'x', extra: 1 }, /unexpected field 'extra'/],
      [{ and: [{ column: 'status', op: 'eq' }] }, /filter\.and\[0\]/],
      [{ and: 'x' }, /filter\.and: expected an array/],
      ['status = 1', /expected a condition/],
      // Integers out of the column's range, fractions, and numbers JSON already rounded.
      [
        { column: 'id', op: 'eq', value: '99999999999999999999' },
        /column 'id' is integer, which holds -2,147,483,648 to 2,147,483,647; 99999999999999999999 is outside that/,
      ],
      [{ column: 'id', op: 'gt', value: 2147483648 }, /2147483648 is outside that/],
      [{ column: 'id', op: 'in', value: [1, -2147483649] }, /-2147483649 is outside that/],
      [
        { column: 'id', op: 'eq', value: JSON.parse('99999999999999999999') },
        /arrived as 100000000000000000000: a JSON number beyond ±9,007,199,254,740,991 loses digits.*Pass it as a string/,
      ],
      [{ column: 'id', op: 'eq', value: 1.5 }, /1\.5 \(not a whole number\)/],
      [{ column: 'id', op: 'eq', value: '1.5' }, /'1\.5' \(not written as a whole number\)/],
    ];
    for (const [filter, message] of bad) {
      expect(() => compileFilter(TABLE, filter as Filter), JSON.stringify(filter)).toThrow(message);
    }
    let deep: Filter = { column: 'status', op: 'eq', value: 'x' };
    for (let depth = 0; depth < 10; depth++) deep = { not: deep };
    expect(() => compileFilter(TABLE, deep)).toThrow(/at most 8 levels/);
  });

  it('unknown columns throw UnknownNameError with suggestions', () => {
    try {
      compileFilter(TABLE, { column: 'totl', op: 'eq', value: 1 });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(UnknownNameError);
      expect((error as UnknownNameError).code).toBe('unknown-column');
      expect((error as UnknownNameError).suggestions).toContain('total');
    }
  });

  const scalar = fc.oneof(
    fc.string({ unit: 'binary', maxLength: 40 }),
    fc.constantFrom("'; DROP TABLE orders; --", '$1', '"', '\\', '%', '_', "' OR '1'='1", '\u0000', '$$'),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.boolean(),
  );

  /** Arbitrary filter trees over the text column, so any value type is acceptable to the compiler. */
  const conditionArb: fc.Arbitrary<FilterCondition> = fc.oneof(
    fc.record({
      column: fc.constantFrom('status', HOSTILE, 'Mixed Case'),
      op: fc.constantFrom('eq', 'neq', 'lt', 'lte', 'gt', 'gte'),
      value: scalar,
    }),
    fc.record({
      column: fc.constantFrom('status', HOSTILE),
      op: fc.constantFrom('in', 'not_in'),
      value: fc.array(scalar, { minLength: 1, maxLength: 5 }),
    }),
    fc.record({
      column: fc.constantFrom('status', HOSTILE),
      op: fc.constantFrom('like', 'ilike', 'contains', 'starts_with', 'ends_with'),
      // A lone trailing backslash is refused for like/ilike (tested separately).
      value: fc.string({ maxLength: 30 }).filter((text) => !/(^|[^\\])(\\\\)*\\$/.test(text)),
    }),
    fc.record({
      column: fc.constantFrom('status', HOSTILE),
      op: fc.constantFrom('between'),
      value: fc.tuple(scalar, scalar),
    }),
  ) as fc.Arbitrary<FilterCondition>;
  const { filter: filterArb } = fc.letrec<{ filter: Filter }>((tie) => ({
    filter: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      conditionArb,
      fc.record({ and: fc.array(tie('filter'), { maxLength: 3 }) }),
      fc.record({ or: fc.array(tie('filter'), { maxLength: 3 }) }),
      fc.record({ not: tie('filter') }),
    ),
  }));

  function replaceValues(filter: Filter): Filter {
    if ('and' in filter) return { and: filter.and.map(replaceValues) };
    if ('or' in filter) return { or: filter.or.map(replaceValues) };
    if ('not' in filter) return { not: replaceValues(filter.not) };
    const same = (value: FilterScalar) => (typeof value === 'string' ? 'v' : value === null ? null : 0);
    const value = Array.isArray(filter.value) ? filter.value.map(same) : same(filter.value as FilterScalar);
    return { ...filter, value };
  }

  function values(filter: Filter): unknown[] {
    if ('and' in filter) return filter.and.flatMap(values);
    if ('or' in filter) return filter.or.flatMap(values);
    if ('not' in filter) return values(filter.not);
    return Array.isArray(filter.value) ? filter.value : [filter.value];
  }

  it('property: values never change the SQL text; they all travel as parameters', () => {
    fc.assert(
      fc.property(filterArb, (filter) => {
        const compiled = compileFilter(TABLE, filter);
        const shape = compileFilter(TABLE, replaceValues(filter));
        expect(compiled.sql).toBe(shape.sql);
        expect(compiled.params.length).toBe(values(filter).length);
        // Every placeholder is numbered in order, and nothing else is a literal.
        const placeholders = [...compiled.sql.matchAll(/\$(\d+)/g)].map((match) => Number(match[1]));
        expect(placeholders).toEqual(compiled.params.map((_, index) => index + 1));
        expect(compiled.sql).not.toMatch(/'/);
      }),
      { numRuns: 400 },
    );
  });

  it('property: identifiers the cache does not know never compile, whatever they contain', () => {
    fc.assert(
      fc.property(
        fc
          .string({ unit: 'binary', minLength: 1, maxLength: 40 })
          .filter(
            (name) => !TABLE.columns.some((known) => known.name.toLowerCase() === name.trim().toLowerCase()),
          ),
        fc.constantFrom(...FILTER_OPS),
        (name, op) => {
          expect(() => compileFilter(TABLE, { column: name, op, value: 'x' })).toThrow(DataSourceError);
          expect(() => compileSort(TABLE, [{ column: name }])).toThrow(UnknownNameError);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('property: a known hostile identifier is always emitted as one quoted identifier', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, maxLength: 30 }).filter((name) => !name.includes('\u0000')),
        (name) => {
          const table: TableInfo = { ...TABLE, columns: [column(name, 'text', 25, 1)] };
          const { sql } = compileFilter(table, { column: name, op: 'eq', value: 'x' });
          expect(sql).toBe(`${quoteIdent(name)} = $1`);
          // The identifier body has every double quote doubled, so it cannot close early.
          const body = sql.slice(1, sql.length - ' = $1'.length - 1);
          expect(body.replaceAll('""', '')).not.toContain('"');
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('compileSort', () => {
  it('compiles directions and nulls placement, quoting the cached names', () => {
    expect(
      compileSort(TABLE, [{ column: 'total', direction: 'desc', nulls: 'last' }, { column: 'mixed case' }]),
    ).toBe('"total" DESC NULLS LAST, "Mixed Case" ASC');
    expect(compileSort(TABLE, [])).toBe('');
    expect(() => compileSort(TABLE, [{ column: 'total', direction: 'up' as 'asc' }])).toThrow(
      /'asc' or 'desc'/,
    );
    expect(() => compileSort(TABLE, [{ column: 'total', nulls: 'middle' as 'first' }])).toThrow(
      /'first' or 'last'/,
    );
  });
});

describe('like patterns', () => {
  it('refuses a pattern ending in a lone escape character, accepts an escaped one', () => {
    for (const bad of ['abc\\', '\\', 'a\\\\\\']) {
      expect(() => compileFilter(TABLE, { column: 'status', op: 'like', value: bad }), bad).toThrow(
        /ends with the escape character/,
      );
    }
    for (const good of ['abc\\\\', 'a\\%', '%', '']) {
      expect(compileFilter(TABLE, { column: 'status', op: 'ilike', value: good }).params, good).toEqual([
        good,
      ]);
    }
  });
});
