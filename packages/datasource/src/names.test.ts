import { describe, expect, it } from 'vitest';
import { editDistance, nearestNames, unknownNameHint } from './names.ts';

const TABLES = [
  { schema: 'public', name: 'orders', columns: [{ name: 'id' }, { name: 'status' }, { name: 'total' }] },
  { schema: 'public', name: 'customers', columns: [{ name: 'id' }, { name: 'email' }] },
  { schema: 'sales', name: 'order_items', columns: [{ name: 'quantity' }] },
];

describe('unknownNameHint', () => {
  it.each([
    ['relation "order" does not exist', " Did you mean 'orders' or 'order_items'?"],
    ['relation "public.custmers" does not exist', " Did you mean 'customers'?"],
    ['column "totl" does not exist', " Did you mean 'total'?"],
    ['column o.statu does not exist', " Did you mean 'status'?"],
    ['column "Quantity" does not exist', " Did you mean 'quantity'?"],
    ['relation "zzzzzzzz" does not exist', ''],
    ['division by zero', ''],
    ['column "totl" does not exist (hint: Perhaps you meant to reference the column "orders.total".)', ''],
  ])('%j → %j', (message, hint) => {
    expect(unknownNameHint(message, TABLES)).toBe(hint);
  });
});

// The one rule every "did you mean" in the project uses: tables, columns, tools, commands, fields.
const TOOLS = ['listTables', 'describeTable', 'getRow', 'openRow', 'countRows', 'runQuery', 'startExport'];
describe('nearestNames', () => {
  it.each([
    ['order', ['customers', 'orders', 'order_items'], 3, ['orders', 'order_items']],
    ['startExprot', TOOLS, 1, ['startExport']],
    ['StartExport', TOOLS, 1, ['startExport']],
    ['runquery', TOOLS, 1, ['runQuery']],
    ['getRows', TOOLS, 1, ['getRow']],
    ['listTable', ['getRow', 'listTables', 'describeTable'], 2, ['listTables', 'describeTable']],
    ['dropDatabase', TOOLS, 3, []],
    ['zzzzzzzz', ['orders', 'customers'], 3, []],
    ['cat', ['dog', 'car', 'cat', 'bat'], 2, ['cat', 'bat']],
    ['custmers', ['orders', 'customers'], 3, ['customers']],
    ['order_date', ['order_id', 'created_at', 'total'], 3, ['order_id']],
  ] as const)('%s among %j (limit %i) → %j', (wanted, known, limit, want) => {
    expect(nearestNames(wanted, known, limit)).toEqual(want);
  });

  it('lists a name once, however often it is known', () => {
    expect(nearestNames('ordr', ['orders', 'orders'])).toEqual(['orders']);
  });
});

describe('editDistance', () => {
  it.each([
    ['', '', 0],
    ['kitten', 'sitting', 3],
    ['flaw', 'lawn', 2],
    ['abc', 'abc', 0],
    ['', 'abc', 3],
  ] as const)('%s → %s is %i', (a, b, want) => {
    expect(editDistance(a, b)).toBe(want);
    expect(editDistance(b, a)).toBe(want);
  });
});
