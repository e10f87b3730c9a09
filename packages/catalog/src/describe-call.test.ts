import { describe, expect, it } from 'vitest';
import { describeCall, filterText } from './describe-call.ts';
import { TOOL_NAMES } from './generated/tool-names.ts';

describe('describeCall: one plain line per call', () => {
  it.each([
    [
      'countRows',
      { table: 'orders', filter: [{ column: 'status', op: 'eq', value: 'paid' }] },
      'Count rows in orders where status = "paid"',
    ],
    [
      'countRows',
      {
        table: 'orders',
        filter: JSON.stringify([
          { column: 'total', op: 'between', value: [10, 20] },
          {
            or: [
              { column: 'city', op: 'is_null' },
              { column: 'city', op: 'in', value: ['Oslo', 'Rome'] },
            ],
          },
        ]),
      },
      'Count rows in orders where total is between 10 and 20 and (city is empty or city is one of ["Oslo", "Rome"])',
    ],
    [
      'runQuery',
      { sql: 'select status,\n  count(*)\nfrom orders group by 1', limit: 50 },
      'Run query: select status, count(*) from orders group by 1, at most 50',
    ],
    ['getRow', { table: 'orders', key: { id: 3 } }, 'Get row in orders at id 3'],
    [
      'startExport',
      {
        table: 'orders',
        filter: [{ column: 'status', op: 'neq', value: 'cancelled' }],
        sort: 'total desc',
        format: 'csv',
        path: 'big.csv',
      },
      'Start export of orders where status ≠ "cancelled", sorted by total desc as CSV to big.csv',
    ],
    [
      'stageUpdateRows',
      { table: 'orders', updates: [{ key: { id: 1 }, values: { note: 'call back', total: 12.5 } }] },
      'Stage update rows in orders: id 1 (note → "call back", total → 12.5)',
    ],
    [
      'stageDeleteRows',
      { table: 'orders', keys: [{ id: 1 }, { id: 2 }, { id: 3 }, { id: 4 }, { id: 5 }] },
      'Stage delete rows in orders: 5 rows (id 1; id 2; id 3; and 2 more)',
    ],
    [
      'stageInsertRows',
      { table: 'customers', rows: [{ name: 'Ada' }] },
      'Stage insert rows in customers: 1 new row',
    ],
    ['openTable', { table: 'orders', filter: [], sort: [] }, 'Open table orders'],
    ['listConnections', {}, 'List connections'],
    ['getExportStatus', { id: 'exp_12' }, 'Get export status, id "exp_12"'],
    [
      'runQuery',
      { sql: `select ${'x, '.repeat(100)}1` },
      expect.stringMatching(/^Run query: select x, x, .{100,}…$/),
    ],
  ])('%s %j', (name, input, expected) => {
    expect(describeCall(name, input)).toEqual(expected);
  });

  it.each([
    ['runQuery', { sql: 'select secret from vault' }, 'Run query (SQL of 24 characters)'],
    [
      'startExport',
      { table: 'orders', filter: [{ column: 'email', op: 'eq', value: 'ada@example.com' }], format: 'csv' },
      'Start export of orders where email = … as CSV',
    ],
    [
      'stageUpdateRows',
      {
        table: 'orders',
        updates: [
          { key: { id: 1 }, values: { note: 'x' } },
          { key: { id: 2 }, values: { total: 1 } },
        ],
      },
      'Stage update rows in orders: 2 rows (note, total)',
    ],
    ['stageDeleteRows', { table: 'orders', keys: [{ id: 1 }] }, 'Stage delete rows in orders: 1 row'],
    ['getRow', { table: 'orders', key: { id: 77 } }, 'Get row in orders at id …'],
  ])('without values (the audit log) %s %j', (name, input, expected) => {
    expect(describeCall(name, input, { values: false })).toBe(expected);
  });

  it('every tool gets a line that starts with its title, whatever the input', () => {
    for (const name of TOOL_NAMES) {
      for (const input of [undefined, null, {}, [], 'text', { table: 42, weird: { deep: [1, 2] } }]) {
        const line = describeCall(name, input);
        expect(line.length).toBeGreaterThan(0);
        expect(line.length).toBeLessThan(600);
        expect(line).not.toContain('\n');
      }
    }
  });
});

describe('filterText: the one rendering of a filter', () => {
  it.each([
    [{ column: 'status', op: 'eq', value: 'paid' }, 'status = "paid"'],
    // Exact numbers travel as text and read as numbers; text that only looks like one stays quoted.
    [{ column: 'id', op: 'eq', value: '99999999999999999999' }, 'id = 99999999999999999999'],
    [{ column: 'total', op: 'gte', value: '10.50' }, 'total ≥ 10.50'],
    [{ column: 'zip', op: 'eq', value: '02134' }, 'zip = "02134"'],
    [
      { column: 'status', op: 'not_in', value: ['cancelled', 'refunded'] },
      'status is none of ["cancelled", "refunded"]',
    ],
    [
      {
        and: [
          { column: 'a', op: 'gt', value: 1 },
          { or: [{ column: 'b', op: 'is_null' }, { not: { column: 'c', op: 'contains', value: 'x' } }] },
        ],
      },
      'a > 1 and (b is empty or not c contains "x")',
    ],
    [
      [
        { column: 'a', op: 'eq', value: 1 },
        { column: 'b', op: 'eq', value: 2 },
      ],
      'a = 1 and b = 2',
    ],
    [null, ''],
  ])('%j → %s', (filter, text) => {
    expect(filterText(filter)).toBe(text);
  });
});
