// The filter language's checks, engine-neutral: what every engine's reads may rely on having passed.

import type { ColumnInfo, Filter, TableInfo } from '@toolrow/datasource';
import { describe, expect, it } from 'vitest';
import {
  filterColumns,
  normalizeKey,
  type ValueCheck,
  validateFilter,
  validateSort,
} from './filter-check.ts';

function column(name: string, primaryKey = false): ColumnInfo {
  return {
    name,
    type: 'N',
    typeId: 0,
    nullable: !primaryKey,
    default: null,
    generated: false,
    position: 1,
    primaryKey,
    comment: null,
    commonValues: [],
    min: null,
    max: null,
    distinctEstimate: null,
    nullFraction: null,
  };
}

const orders: TableInfo = {
  schema: '',
  name: 'orders',
  qualifiedName: 'orders',
  kind: 'table',
  comment: null,
  columns: [column('id', true), column('status'), column('total')],
  primaryKey: ['id'],
  indexes: [],
  foreignKeys: [],
  referencedBy: [],
  rowEstimate: 0,
  tableBytes: 0,
  totalBytes: 0,
};

describe('validateFilter', () => {
  it.each([
    [{ column: 'total', op: 'gt', value: 1 }],
    [
      {
        and: [
          { column: 'status', op: 'in', value: ['paid', 'shipped'] },
          { not: { column: 'total', op: 'is_null' } },
        ],
      },
    ],
    [{ column: 'status', op: 'starts_with', value: 'pa' }],
    [{ column: 'total', op: 'between', value: [1, 2] }],
  ])('accepts %j', (filter) => {
    expect(() => validateFilter(orders, filter as Filter)).not.toThrow();
  });

  it.each([
    [{ column: 'total', op: 'gt', value: null }, /^filter \(total gt\): value is null; use op 'is_null'/],
    [
      { column: 'total', op: 'around', value: 1 },
      /^filter\.op: expected one of eq, .*got the string "around"/,
    ],
    [{ column: 'totl', op: 'gt', value: 1 }, /Unknown column 'totl'.*total/],
    [
      { column: 'status', op: 'in', value: [] },
      /^filter \(status in\): value must be an array of 1 to 1000 values/,
    ],
    [{ column: 'status', op: 'like', value: 'a\\' }, /ends with the escape character/],
    [{ column: 'total', op: 'between', value: [1] }, /value must be \[low, high\]/],
    [{ column: 'total', op: 'is_null', value: 3 }, /takes no value/],
    [{ column: 'total', op: 'eq', value: 1, extra: true }, /unexpected field 'extra'/],
    [{ or: 'x' }, /^filter\.or: expected an array of filters/],
  ])('refuses %j, naming the condition', (filter, message) => {
    expect(() => validateFilter(orders, filter as unknown as Filter)).toThrow(message);
  });

  it('refuses nesting past 8 levels and more than 200 conditions', () => {
    let deep: Filter = { column: 'total', op: 'gt', value: 1 };
    for (let level = 0; level < 9; level++) deep = { not: deep };
    expect(() => validateFilter(orders, deep)).toThrow(/nest at most 8 levels/);
    const wide = {
      and: Array.from({ length: 201 }, () => ({ column: 'total', op: 'gt', value: 1 })),
    } as Filter;
    expect(() => validateFilter(orders, wide)).toThrow(/at most 200 conditions/);
  });

  it("hands every non-null value to the engine's own check, and its refusal stands", () => {
    const seen: unknown[] = [];
    const check: ValueCheck = (_column, value, where, code) => {
      seen.push(value);
      if (value === 'bad') throw new Error(`${where} ${code}`);
    };
    validateFilter(
      orders,
      {
        or: [
          { column: 'total', op: 'in', value: [1, 2] },
          { column: 'total', op: 'between', value: [3, 4] },
        ],
      },
      check,
    );
    expect(seen).toEqual([1, 2, 3, 4]);
    expect(() => validateFilter(orders, { column: 'status', op: 'eq', value: 'bad' }, check)).toThrow(
      'filter (status eq) invalid-filter',
    );
    expect(filterColumns(orders, { and: [{ column: 'status', op: 'eq', value: 'x' }] }, check)).toEqual([
      'status',
    ]);
  });
});

describe('validateSort and normalizeKey', () => {
  it.each([
    [[{ column: 'total', direction: 'sideways' }], /sort\[0\]\.direction: expected 'asc' or 'desc'/],
    [[{ column: 'total', nulls: 'middle' }], /sort\[0\]\.nulls: expected 'first' or 'last'/],
    [Array.from({ length: 17 }, () => ({ column: 'total' })), /at most 16 sort columns/],
  ])('refuses the sort %j', (sort, message) => {
    expect(() => validateSort(orders, sort as never)).toThrow(message);
  });

  it('makes a key whole, or says what it lacks', () => {
    expect(normalizeKey(orders, 5)).toEqual({ id: 5 });
    expect(normalizeKey(orders, { ID: 5 })).toEqual({ id: 5 });
    expect(() => normalizeKey(orders, { status: 'x' })).toThrow(/'status' is not part of the primary key/);
    expect(() => normalizeKey(orders, { id: null })).toThrow(/needs a string or number value/);
    const check: ValueCheck = (_column, _value, where, code) => {
      throw new Error(`${where} ${code}`);
    };
    expect(() => normalizeKey(orders, 5, check)).toThrow("The key of 'orders' invalid-key");
  });
});
