import { describe, expect, it } from 'vitest';
import { nearestNames, unknownNameHint } from './names.ts';

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

describe('nearestNames', () => {
  it('puts a name that contains the wanted one first', () => {
    expect(nearestNames('order', ['customers', 'orders', 'order_items'])).toEqual(['orders', 'order_items']);
  });
});
