// The SQL planner alone, without DynamoDB Local: DuckDB parses (in this process), analyze() reads
// the tree, DuckDB binds it against a schema written here (which attributes each table is read
// for), planReads() decides each table's read. Table-driven: the statement, and per table the read
// it must get.
import type { ColumnInfo, TableInfo } from '@toolrow/datasource';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DynamoKeys } from '../schema.ts';
import { analyze, relationAlias } from './analyze.ts';
import { BINDING_SETTINGS, bindStatement } from './bind.ts';
import { openSession } from './duckdb-process.ts';
import { planReads } from './plan.ts';
import { openSandbox, type Sandbox } from './sandbox.ts';

const column = (name: string, type: string): ColumnInfo =>
  ({
    name,
    type,
    typeId: 0,
    nullable: true,
    default: null,
    generated: false,
    position: 0,
    primaryKey: false,
    comment: null,
  }) as ColumnInfo;

function table(name: string, rows: number, columns: [string, string][]): TableInfo {
  return {
    schema: '',
    name,
    qualifiedName: name,
    kind: 'table',
    comment: null,
    columns: columns.map(([each, type]) => column(each, type)),
    primaryKey: [],
    indexes: [],
    foreignKeys: [],
    referencedBy: [],
    rowEstimate: rows,
  } as unknown as TableInfo;
}

const TABLES = new Map<string, TableInfo>([
  [
    'orders',
    table('orders', 1000, [
      ['id', 'N'],
      ['customer_id', 'N'],
      ['status', 'S'],
      ['ordered_at', 'S'],
      ['total', 'N'],
    ]),
  ],
  [
    'order_items',
    table('order_items', 3000, [
      ['order_id', 'N'],
      ['id', 'N'],
      ['quantity', 'N'],
    ]),
  ],
  [
    'customers',
    table('customers', 200, [
      ['id', 'N'],
      ['name', 'S'],
      ['country', 'S'],
    ]),
  ],
]);
const KEYS = new Map<string, DynamoKeys>([
  [
    'orders',
    {
      partitionKey: 'id',
      indexes: [
        { name: 'by_customer', kind: 'GSI', partitionKey: 'customer_id', sortKey: 'ordered_at' },
        { name: 'by_status', kind: 'GSI', partitionKey: 'status', sortKey: 'ordered_at' },
      ],
    },
  ],
  [
    'order_items',
    {
      partitionKey: 'order_id',
      sortKey: 'id',
      indexes: [{ name: 'by_quantity', kind: 'LSI', partitionKey: 'order_id', sortKey: 'quantity' }],
    },
  ],
  ['customers', { partitionKey: 'id', indexes: [] }],
]);

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await openSandbox();
});
afterAll(() => sandbox?.close());

async function plan(sql: string) {
  const connection = await sandbox.connect();
  try {
    const reader = await connection.runAndReadAll('SELECT json_serialize_sql($1::VARCHAR) AS tree', [sql]);
    const tree = JSON.parse(String(reader.getRowObjects()[0]?.tree)) as { statements: unknown[] };
    const analysis = analyze(tree.statements, (name) => TABLES.get(name)?.columns.map((each) => each.name));
    const tables = new Map(analysis.refs.map((ref) => [ref.table, TABLES.get(ref.table)!]));
    const session = await openSession({ settings: { ...BINDING_SETTINGS } });
    let bound: Awaited<ReturnType<typeof bindStatement>>;
    try {
      bound = await bindStatement(
        session,
        sql,
        tree.statements,
        tables,
        (alias) => relationAlias(tree.statements, alias),
        (info) => KEYS.get(info.name)!.partitionKey,
      );
    } finally {
      session.close();
    }
    return planReads(
      analysis.refs,
      tables,
      (info) => KEYS.get(info.name)!,
      (name) => bound.get(name)!.attributes,
    ).map((access) => ({
      table: access.table.name,
      operation: access.operation,
      ...(access.index ? { index: access.index } : {}),
      ...(access.filters ? { filters: access.filters.map((pin) => pin.column) } : {}),
      attributes: access.attributes,
    }));
  } finally {
    connection.closeSync();
  }
}

describe('planReads: each table read the cheapest way its WHERE allows', () => {
  it.each([
    [
      'select * from orders where id = 7',
      [
        {
          table: 'orders',
          operation: 'GetItem',
          attributes: ['customer_id', 'id', 'ordered_at', 'status', 'total'],
        },
      ],
    ],
    [
      'select total from orders where id in (1, 2)',
      [{ table: 'orders', operation: 'BatchGetItem', attributes: ['id', 'total'] }],
    ],
    [
      'select count(*) from orders where customer_id = 3',
      [{ table: 'orders', operation: 'Query', index: 'by_customer', attributes: ['customer_id'] }],
    ],
    [
      "select id from orders where status = 'paid' and total > 10",
      [
        {
          table: 'orders',
          operation: 'Query',
          index: 'by_status',
          filters: ['total'],
          attributes: ['id', 'status', 'total'],
        },
      ],
    ],
    [
      // The table's sort key is free and a local index's is pinned: the index reads a range.
      'select id from order_items where order_id = 5 and quantity > 10',
      [
        {
          table: 'order_items',
          operation: 'Query',
          index: 'by_quantity',
          attributes: ['id', 'order_id', 'quantity'],
        },
      ],
    ],
    [
      'select id from order_items where order_id = 5 and id between 1 and 9 and quantity > 10',
      [
        {
          table: 'order_items',
          operation: 'Query',
          filters: ['quantity'],
          attributes: ['id', 'order_id', 'quantity'],
        },
      ],
    ],
    [
      'select id from orders where id = 1 or total > 5',
      [{ table: 'orders', operation: 'Scan', attributes: ['id', 'total'] }],
    ],
    ['select id from orders where id + 0 = 1', [{ table: 'orders', operation: 'Scan', attributes: ['id'] }]],
    [
      'select o.id, i.quantity from orders o join order_items i on i.order_id = o.id where o.customer_id = 3',
      [
        { table: 'orders', operation: 'Query', index: 'by_customer', attributes: ['customer_id', 'id'] },
        { table: 'order_items', operation: 'Query', attributes: ['order_id', 'quantity'] },
      ],
    ],
    [
      'select c.name from orders o join customers c on c.id = o.customer_id where o.id = 9',
      [
        { table: 'orders', operation: 'GetItem', attributes: ['customer_id', 'id'] },
        { table: 'customers', operation: 'BatchGetItem', attributes: ['id', 'name'] },
      ],
    ],
    [
      'select c.country, count(*) from orders o join customers c on c.id = o.customer_id group by c.country',
      [
        // Nothing pins either: the smaller table is read first, and no lookup reads fewer.
        { table: 'customers', operation: 'Scan', attributes: ['country', 'id'] },
        { table: 'orders', operation: 'Scan', attributes: ['customer_id'] },
      ],
    ],
  ])('%s', async (sql, expected) => {
    expect(await plan(sql)).toEqual(expected);
  });
});
