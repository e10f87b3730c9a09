import { describe, expect, it } from 'vitest';
import { PARTIQL_WRITES } from '../test/write-corpus.ts';
import { readClientAllowsStatement } from './clients.ts';
import { checkReadOnlyPartiql } from './partiql-guard.ts';

describe('the PartiQL statement check', () => {
  it.each([
    ['SELECT * FROM "orders"', 'SELECT * FROM "orders"', 'orders', undefined],
    [
      'select id, status from orders where id = 5;',
      'select id, status from orders where id = 5',
      'orders',
      undefined,
    ],
    [
      '/* why */ SELECT * FROM "orders"."by_customer" -- last\n WHERE "customer_id" = 17',
      'SELECT * FROM "orders"."by_customer" WHERE "customer_id" = 17',
      'orders',
      'by_customer',
    ],
    [
      `SELECT * FROM "orders" WHERE "note" = 'it''s; DELETE'`,
      `SELECT * FROM "orders" WHERE "note" = 'it''s; DELETE'`,
      'orders',
      undefined,
    ],
    [
      'SELECT "set", "value" FROM "odd table"',
      'SELECT "set", "value" FROM "odd table"',
      'odd table',
      undefined,
    ],
  ])('passes %j as one read', (text, statement, table, index) => {
    const read = checkReadOnlyPartiql(text);
    expect(read).toEqual({ statement, table, ...(index ? { index } : {}) });
    // What it passes on, the read client's own check passes too.
    expect(readClientAllowsStatement(read.statement)).toBe(true);
  });

  it.each(PARTIQL_WRITES.map((text) => [text]))('refuses %j, saying what to write instead', (text) => {
    expect(() => checkReadOnlyPartiql(text)).toThrow(/SELECT/);
  });

  it.each(['', '   ', 'SELECT 1', 'SELECT * FROM "a", "b" WHERE x IN (SELECT y FROM "c")'])(
    'refuses %j (no single table to read)',
    (text) => {
      expect(() => checkReadOnlyPartiql(text)).toThrow();
    },
  );
});

describe("the read client's own statement check", () => {
  it.each(PARTIQL_WRITES.map((text) => [text]))('refuses %j', (text) => {
    expect(readClientAllowsStatement(text)).toBe(false);
  });

  it.each([
    'SELECT * FROM "orders"',
    'select "id" from "orders" where "id" = 1;',
    `SELECT * FROM t WHERE a = '--x'`,
  ])('passes %j', (text) => {
    expect(readClientAllowsStatement(text)).toBe(true);
  });
});
