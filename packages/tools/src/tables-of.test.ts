// Grants are decided on the tables a statement reads, never on the names written: a CTE named like
// a table hides that table only where the CTE is in scope. Each form below reads `customers` (the
// table) through a CTE named `customers`, in every position a query can hold one, on both engines.

import { sqlDatabaseOf } from '@toolrow/postgres';
import type { Toolrow } from '@toolrow/state';
import { testStores } from '@toolrow/state/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tablesOfCall } from './tables-of.ts';
import { contextFor } from './test-fixtures.ts';

/** Statements that read public.customers (and public.orders) through a shadowing CTE. */
const SHADOWED: readonly [string, string][] = [
  ['top-level WITH', 'with customers as (select * from customers) select email from customers, orders'],
  [
    'a later CTE of the same list',
    'with o as (select * from orders), customers as (select * from customers) select * from customers, o',
  ],
  [
    'a derived table',
    'select * from orders, (with customers as (select * from customers) select * from customers) c',
  ],
  [
    'EXISTS',
    'select * from orders where exists (with customers as (select * from customers) select 1 from customers)',
  ],
  [
    'IN',
    'select * from orders where customer_id in (with customers as (select * from customers) select id from customers)',
  ],
  [
    'a scalar subquery',
    'select id, (with customers as (select * from customers) select count(*) from customers) from orders',
  ],
  [
    'LATERAL',
    'select * from orders o, lateral (with customers as (select * from customers where id = o.customer_id) select * from customers) c',
  ],
  [
    'WITH RECURSIVE whose seed reads the table',
    'with recursive t as (select id from orders union all select id from t where false), customers as (select * from public.customers) select * from customers, t',
  ],
  [
    'a nested WITH inside a CTE body',
    'with x as (with customers as (select * from customers) select * from customers) select * from x, orders',
  ],
  [
    'the other side of a UNION',
    '(with customers as (select id from orders) select id from customers) union (select id from customers)',
  ],
  [
    'a CTE listed after its user (a plain WITH sees only earlier ones)',
    'with a as (select * from customers), customers as (select 1 as id) select * from a, orders',
  ],
  [
    'a schema-qualified name beside a CTE of that name',
    'with customers as (select 1 as id) select * from public.customers, orders',
  ],
];

describe.each(testStores())('tables a statement reads, on $name', ({ open }) => {
  let toolrow: Toolrow;

  beforeAll(async () => {
    toolrow = await open({ seed: { orders: 20 } });
  }, 120_000);
  afterAll(() => toolrow?.close());

  it.each(SHADOWED)('a CTE named customers in %s does not hide the customers table', async (_, sql) => {
    const tables = await tablesOfCall({ sql }, contextFor(toolrow));
    expect(tables).toEqual(expect.arrayContaining(['public.customers', 'public.orders']));
    // The statement runs: the relations named are what the database reads.
    await sqlDatabaseOf(toolrow.source).readQuery(sql, [], { maxRows: 1 });
  });

  it.each([
    [
      'a CTE used where it is in scope',
      'with c as (select * from orders) select * from c',
      ['public.orders'],
    ],
    [
      'a recursive CTE referring to itself',
      'with recursive t as (select id from orders union all select id from t where false) select * from t',
      ['public.orders'],
    ],
    [
      'a CTE seen from a subquery of its query',
      'with c as (select * from orders) select * from customers where id in (select customer_id from c)',
      ['public.customers', 'public.orders'],
    ],
  ])('%s is not a table', async (_, sql, expected) => {
    expect((await tablesOfCall({ sql }, contextFor(toolrow)))?.sort()).toEqual([...expected].sort());
  });
});
