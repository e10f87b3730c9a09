// The workbench's first PartiQL statement is written for the account's own tables.
import type { ColumnInfo, TableInfo } from '@toolrow/datasource';
import { describe, expect, it } from 'vitest';
import { partiqlExample } from './queries.ts';
import type { KeyMap } from './schema.ts';

const table = (name: string, columns: [string, string][]) =>
  ({ name, columns: columns.map(([column, type]) => ({ name: column, type }) as ColumnInfo) }) as TableInfo;

describe('the PartiQL example', () => {
  it.each([
    [
      'the sample shop',
      [table('orders', [['id', 'N']]), table('customers', [['id', 'N']])],
      'FROM "orders" WHERE "customer_id" = 7',
    ],
    [
      'a numeric partition key',
      [table('readings', [['sensor', 'N']])],
      `SELECT * FROM "readings" WHERE "sensor" = 1`,
    ],
    [
      'a string partition key',
      [table('Devices', [['deviceId', 'S']])],
      `SELECT * FROM "Devices" WHERE "deviceId" = '…'`,
    ],
    ['no tables', [], 'FROM "orders"'],
  ])('%s', (_, tables, expected) => {
    const keys: KeyMap = new Map(
      tables.map((each) => [each.name, { partitionKey: each.columns[0]!.name, indexes: [] }]),
    );
    expect(partiqlExample(tables, keys)).toContain(expected);
  });
});
