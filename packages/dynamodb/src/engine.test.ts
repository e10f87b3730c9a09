// The DynamoDB engine on AWS's own DynamoDB Local: schema, reads as Query or Scan, PartiQL, the
// write corpus against each read layer alone, and commits as conditional transactions.
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type AttributeValue,
  ListTablesCommand,
  ScanCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import type { ChangeToApply, DataSourceWith, QueryRunner, Row } from '@toolrow/datasource';
import { createMemoryExportJobStore } from '@toolrow/datasource-utils';
import { describeWithService } from '@toolrow/test-services';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { freshDynamoUrl } from '../test/dynamodb-local.ts';
import { apiWrites, PARTIQL_WRITES } from '../test/write-corpus.ts';
import { createClients, ReadOnlyViolation } from './clients.ts';
import { openDynamoDataSource } from './source.ts';
import { parseDynamoUrl } from './url.ts';

const NOW = new Date('2026-11-15T00:00:00Z');

/** DynamoDB's own PartiQL: the second language of the connection, after SQL. */
function partiqlOf(ds: DataSourceWith): QueryRunner {
  const partiql = ds.queries.modes?.find((runner) => runner.language.name === 'PartiQL');
  if (!partiql) throw new Error('the DynamoDB connection reads no PartiQL');
  return partiql;
}

/** Every item of every table, hashed: equal fingerprints mean nothing was written. */
async function fingerprint(url: string): Promise<string> {
  const clients = createClients(parseDynamoUrl(url));
  try {
    const hash = createHash('sha256');
    const tables = (await clients.read.send(new ListTablesCommand({}))).TableNames ?? [];
    hash.update(JSON.stringify(tables));
    for (const table of tables) {
      const items: string[] = [];
      let start: Record<string, AttributeValue> | undefined;
      do {
        const page = await clients.read.send(
          new ScanCommand({ TableName: table, ...(start ? { ExclusiveStartKey: start } : {}) }),
        );
        for (const item of page.Items ?? []) items.push(JSON.stringify(Object.entries(item).sort()));
        start = page.LastEvaluatedKey;
      } while (start);
      hash.update(`${table}:${items.sort().join('\n')}`);
    }
    return hash.digest('hex');
  } finally {
    clients.close();
  }
}

describeWithService('dynamodb', 'the DynamoDB engine on DynamoDB Local', () => {
  let dir: string;
  let url: string;
  let ds: DataSourceWith;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'toolrow-ddb-'));
    url = freshDynamoUrl();
    ds = await openDynamoDataSource({ url, dataDir: dir });
    const seeded = await ds.seed({ orders: 200, now: NOW });
    expect(seeded.counts.orders).toBe(200);
  }, 180_000);

  afterAll(async () => {
    await ds?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('describes tables with their keys, indexes and sampled attributes', async () => {
    const { tables } = await ds.schema.get();
    expect(tables.map((table) => table.name)).toEqual(['customers', 'order_items', 'orders', 'products']);
    const orders = await ds.schema.resolveTable('orders');
    expect(orders.primaryKey).toEqual(['id']);
    expect(orders.indexes.map((index) => index.name)).toEqual(['primary', 'by_customer', 'by_status']);
    const total = ds.schema.resolveColumn(orders, 'total');
    expect(total.type).toBe('N');
    expect(total.comment).toMatch(/present in 100% of 200 sampled items/);
    // A sparse attribute: only some orders have a note.
    const note = ds.schema.resolveColumn(orders, 'note');
    expect(note.nullFraction).toBeGreaterThan(0.5);
    expect(ds.schema.resolveColumn(orders, 'customer_id').comment).toMatch(
      /partition key of GSI by_customer/,
    );
    const items = await ds.schema.resolveTable('order_items');
    expect(items.primaryKey).toEqual(['order_id', 'id']);
  });

  it('reads by a partition key as a Query (the index that serves it), anything else as a Scan, and says which', async () => {
    const byCustomer = await ds.rows.select('orders', {
      filter: { column: 'customer_id', op: 'eq', value: 17 },
      limit: 100,
    });
    expect(byCustomer.access).toMatchObject({ operation: 'Query', index: 'by_customer' });
    expect(byCustomer.rows.length).toBeGreaterThan(0);
    expect(byCustomer.rows.every((row) => row.customer_id === '17')).toBe(true);
    expect(byCustomer.access!.itemsRead).toBe(byCustomer.rows.length);

    const scanned = await ds.rows.select('orders', {
      filter: { column: 'total', op: 'gt', value: 400 },
      limit: 1000,
    });
    expect(scanned.access).toMatchObject({ operation: 'Scan', itemsRead: 200 });
    expect(scanned.rows.every((row) => Number(row.total) > 400)).toBe(true);
    expect(await ds.rows.count('orders', { column: 'total', op: 'gt', value: 400 })).toBe(
      scanned.rows.length,
    );

    const keyed = await ds.rows.select('order_items', {
      filter: {
        and: [
          { column: 'order_id', op: 'eq', value: 5 },
          { column: 'id', op: 'gte', value: 1 },
        ],
      },
    });
    expect(keyed.access).toMatchObject({ operation: 'Query', keyCondition: 'order_id = 5 AND id >= 1' });
    expect(keyed.access?.index).toBeUndefined();
  });

  it('keeps DynamoDB types exactly: numbers are decimal strings', async () => {
    const item = await ds.rows.get('order_items', { order_id: 1, id: 1 });
    expect(item).toMatchObject({ order_id: '1', id: '1' });
    expect(String(item!.unit_price)).toMatch(/^\d+\.\d\d$/);
  });

  it('refuses a key that is not the key, naming it', async () => {
    await expect(ds.rows.get('order_items', { order_id: 1 })).rejects.toThrow(/order_id \+ id; missing id/);
    await expect(ds.rows.get('orders', { nope: 1 })).rejects.toThrow(/not key attributes: nope/);
  });

  it('refuses a sort DynamoDB cannot do, and a filter op it has not, saying what to use', async () => {
    await expect(ds.rows.select('orders', { sort: [{ column: 'total' }] })).rejects.toThrow(/key order only/);
    await expect(
      ds.rows.select('orders', { filter: { column: 'status', op: 'like', value: 'p%' } }),
    ).rejects.toThrow(/no 'like'. Use 'contains' or 'starts_with'/);
  });

  it('runs PartiQL SELECTs bounded by rows, and plans Query or Scan before running', async () => {
    const one = await partiqlOf(ds).run('SELECT * FROM "orders" WHERE "id" = 5');
    expect(one.rows).toHaveLength(1);
    expect(one.rows[0]).toMatchObject({ id: '5' });
    // Every result says what it read: here a Query on the key.
    expect(one.reads).toEqual([expect.objectContaining({ table: 'orders', operation: 'Query', items: 1 })]);
    const capped = await partiqlOf(ds).run('SELECT * FROM "orders"', { maxRows: 10 });
    expect(capped).toMatchObject({ truncated: true, truncatedBy: 'rows' });
    expect(capped.reads?.[0]).toMatchObject({ table: 'orders', operation: 'Scan' });
    const byIndex = await partiqlOf(ds).run('SELECT * FROM "orders"."by_customer" WHERE "customer_id" = 5');
    expect(byIndex.reads?.[0]).toMatchObject({ operation: 'Query', index: 'by_customer' });
    expect(capped.rows).toHaveLength(10);
    expect(
      (await partiqlOf(ds).plan('SELECT * FROM "orders"."by_customer" WHERE "customer_id" = 5')).lines[0],
    ).toBe('Query on orders index by_customer: key condition customer_id = 5');
    expect((await partiqlOf(ds).plan('SELECT * FROM "orders" WHERE "total" > 5')).lines[0]).toMatch(
      /^Scan of the whole table orders \(200 items/,
    );
  });
  it('stops a selective Scan after the items it may read, and says so; a Query under the bound reads to the end', async () => {
    // No order has this status: every item is evaluated and none returned.
    const scan = await partiqlOf(ds).run(`SELECT * FROM "orders" WHERE "status" = 'no such status'`, {
      maxItemsRead: 50,
    });
    expect(scan).toMatchObject({ rows: [], truncated: true, truncatedBy: 'reads' });
    expect(scan.readStop).toMatch(/^DynamoDB stopped after evaluating up to 50 items/);
    const all = await partiqlOf(ds).run(`SELECT * FROM "orders" WHERE "status" = 'no such status'`);
    expect(all).toMatchObject({ rows: [], truncated: false });
    const byKey = await partiqlOf(ds).run('SELECT * FROM "orders"."by_customer" WHERE "customer_id" = 5', {
      maxItemsRead: 50,
    });
    expect(byKey.truncated).toBe(false);
    expect(byKey.rows.length).toBeGreaterThan(0);
  });
});

describeWithService('dynamodb', 'write attempts against each read layer alone', () => {
  let url: string;
  let before: string;

  beforeAll(async () => {
    url = freshDynamoUrl();
    const seeder = await openDynamoDataSource({ url, dataDir: tmpdir() });
    await seeder.seed({ orders: 20, now: NOW });
    await seeder.close();
    before = await fingerprint(url);
  }, 180_000);

  it(`the corpus is large enough: ${PARTIQL_WRITES.length} statements and ${apiWrites().length} API writes`, () => {
    expect(PARTIQL_WRITES.length + apiWrites().length).toBeGreaterThanOrEqual(60);
  });

  it('the statement check alone (the read client without its allow-list) refuses every statement', async () => {
    const ds = await openDynamoDataSource({ url, dataDir: tmpdir(), layers: { readAllowList: false } });
    try {
      for (const text of PARTIQL_WRITES) expect(() => partiqlOf(ds).check!(text), text).toThrow();
    } finally {
      await ds.close();
    }
    expect(await fingerprint(url)).toBe(before);
  });

  it('the read client alone (no statement check) refuses every statement and every API write before sending it', async () => {
    const ds = await openDynamoDataSource({ url, dataDir: tmpdir() });
    const clients = createClients(parseDynamoUrl(url));
    try {
      for (const text of PARTIQL_WRITES) {
        await expect(partiqlOf(ds).run(text), text).rejects.toBeInstanceOf(ReadOnlyViolation);
      }
      for (const { name, command } of apiWrites()) {
        await expect(clients.read.send(command as never), name).rejects.toBeInstanceOf(ReadOnlyViolation);
      }
    } finally {
      clients.close();
      await ds.close();
    }
    expect(await fingerprint(url)).toBe(before);
  });

  it('without both layers the same statements do write (so the tests above could fail)', async () => {
    const control = freshDynamoUrl();
    const seeder = await openDynamoDataSource({ url: control, dataDir: tmpdir() });
    await seeder.seed({ orders: 20, now: NOW });
    await seeder.close();
    const unguarded = await openDynamoDataSource({
      url: control,
      dataDir: tmpdir(),
      layers: { readAllowList: false },
    });
    const start = await fingerprint(control);
    try {
      await partiqlOf(unguarded).run(PARTIQL_WRITES[1]!);
    } finally {
      await unguarded.close();
    }
    expect(await fingerprint(control)).not.toBe(start);
  });
});

describeWithService('dynamodb', 'commits as conditional transactions', () => {
  let ds: DataSourceWith;
  // Someone else, writing to the same tables outside Toolrow.
  let other: ReturnType<typeof createClients>;
  let id = 0;
  const change = (partial: Omit<ChangeToApply, 'id' | 'schema'>): ChangeToApply => ({
    id: ++id,
    schema: '',
    ...partial,
  });

  beforeAll(async () => {
    const url = freshDynamoUrl();
    ds = await openDynamoDataSource({ url, dataDir: tmpdir() });
    other = createClients(parseDynamoUrl(url));
    await ds.seed({ orders: 20, now: NOW });
  }, 180_000);
  afterAll(async () => {
    other?.close();
    await ds?.close();
  });

  /** Another writer sets `attribute` on order `id`, as a concurrent app or Lambda would. */
  const setElsewhere = (orderId: number, attribute: string, value: AttributeValue) =>
    other.write().send(
      new UpdateItemCommand({
        TableName: 'orders',
        Key: { id: { N: String(orderId) } },
        UpdateExpression: 'SET #a = :v',
        ExpressionAttributeNames: { '#a': attribute },
        ExpressionAttributeValues: { ':v': value },
      }),
    );

  it('an attribute someone added after staging stops the commit: the whole item is checked just before the transaction', async () => {
    const orders = await ds.schema.resolveTable('orders');
    for (const [id, kind] of [
      [6, 'update'],
      [7, 'delete'],
    ] as const) {
      const before = await ds.changes.currentRowJson(orders, { id });
      const staged = change({
        kind,
        table: 'orders',
        keyJson: `{"id":"${id}"}`,
        beforeJson: before,
        valuesJson: kind === 'update' ? '{"status":"shipped"}' : null,
      });
      await setElsewhere(id, 'gift_wrap', { BOOL: true });
      const result = await ds.changes.apply([staged]);
      expect(result.ok, kind).toBe(false);
      if (result.ok) continue;
      expect(result.conflicts.map((conflict) => [conflict.reason, conflict.changedColumns])).toEqual([
        ['changed', ['gift_wrap']],
      ]);
      // The other writer's attribute is there, and nothing staged was applied.
      expect(await ds.rows.get('orders', { id })).toMatchObject({ gift_wrap: true });
      expect(await ds.rows.get('orders', { id })).not.toMatchObject({ status: 'shipped' });
    }
  });

  it('an update keeps an attribute someone added in the moment between the check and the transaction', async () => {
    const orders = await ds.schema.resolveTable('orders');
    const before = await ds.changes.currentRowJson(orders, { id: 8 });
    const staged = change({
      kind: 'update',
      table: 'orders',
      keyJson: '{"id":"8"}',
      beforeJson: before,
      valuesJson: '{"status":"shipped"}',
    });
    let token = '';
    const result = await ds.changes.apply([staged], {
      // After the check, before the transaction: another writer adds an attribute no condition names.
      onTransaction: async (xid) => {
        token = xid;
        await setElsewhere(8, 'gift_wrap', { BOOL: true });
      },
    });
    expect(result).toEqual({ ok: true, applied: { insert: 0, update: 1, delete: 0 } });
    expect(await ds.rows.get('orders', { id: 8 })).toMatchObject({ status: 'shipped', gift_wrap: true });
    // Recovery reads the commit as applied, whatever else the item gained since.
    await setElsewhere(8, 'packed_by', { S: 'sam' });
    expect(await ds.changes.transactionStatus(token, [staged])).toBe('committed');
  });

  it('an update that adds an attribute refuses to overwrite the one someone else added meanwhile', async () => {
    const orders = await ds.schema.resolveTable('orders');
    const before = await ds.changes.currentRowJson(orders, { id: 9 });
    expect(JSON.parse(before!)).not.toHaveProperty('gift_note');
    const staged = change({
      kind: 'update',
      table: 'orders',
      keyJson: '{"id":"9"}',
      beforeJson: before,
      valuesJson: '{"gift_note":"from us"}',
    });
    await setElsewhere(9, 'gift_note', { S: 'from them' });
    const result = await ds.changes.apply([staged]);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.conflicts.map((conflict) => [conflict.reason, conflict.changedColumns])).toEqual([
      ['changed', ['gift_note']],
    ]);
    expect(await ds.rows.get('orders', { id: 9 })).toMatchObject({ gift_note: 'from them' });
    // Neither image holds now: recovery cannot say, and says so.
    expect(await ds.changes.transactionStatus('unused', [staged])).toBe('unknown');
  });

  it('applies inserts, updates and deletes together, each checked against the item as it was staged', async () => {
    const orders = await ds.schema.resolveTable('orders');
    const before3 = await ds.changes.currentRowJson(orders, { id: 3 });
    const before4 = await ds.changes.currentRowJson(orders, { id: 4 });
    let token = '';
    const result = await ds.changes.apply(
      [
        change({
          kind: 'insert',
          table: 'orders',
          keyJson: null,
          beforeJson: null,
          valuesJson: await ds.changes.canonicalJson(orders, {
            id: 5001,
            customer_id: 1,
            status: 'pending',
            ordered_at: '2026-11-14T00:00:00Z',
            total: '12.50',
          }),
        }),
        change({
          kind: 'update',
          table: 'orders',
          keyJson: '{"id":"3"}',
          beforeJson: before3,
          valuesJson: '{"status":"refunded"}',
        }),
        change({
          kind: 'delete',
          table: 'orders',
          keyJson: '{"id":"4"}',
          beforeJson: before4,
          valuesJson: null,
        }),
      ],
      {
        onTransaction: async (xid) => {
          token = xid;
        },
      },
    );
    expect(result).toEqual({ ok: true, applied: { insert: 1, update: 1, delete: 1 } });
    expect(token).toMatch(/^[0-9a-f-]{36}$/);
    // DynamoDB keeps a number's value, not its spelling: 12.50 is stored as 12.5.
    expect(await ds.rows.get('orders', { id: 5001 })).toMatchObject({ total: '12.5', status: 'pending' });
    expect(await ds.rows.get('orders', { id: 3 })).toMatchObject({ status: 'refunded' });
    expect(await ds.rows.get('orders', { id: 4 })).toBeUndefined();
  });

  it('applies nothing when one item changed since it was staged, naming it and the attributes', async () => {
    const orders = await ds.schema.resolveTable('orders');
    const stale = await ds.changes.currentRowJson(orders, { id: 6 });
    const fresh = await ds.changes.currentRowJson(orders, { id: 7 });
    // Someone else changes order 6 after it was staged.
    await ds.changes.apply([
      change({
        kind: 'update',
        table: 'orders',
        keyJson: '{"id":"6"}',
        beforeJson: stale,
        valuesJson: '{"status":"cancelled"}',
      }),
    ]);
    const proposed = [
      change({
        kind: 'update',
        table: 'orders',
        keyJson: '{"id":"7"}',
        beforeJson: fresh,
        valuesJson: '{"status":"shipped"}',
      }),
      change({
        kind: 'update',
        table: 'orders',
        keyJson: '{"id":"6"}',
        beforeJson: stale,
        valuesJson: '{"status":"delivered"}',
      }),
      change({
        kind: 'insert',
        table: 'orders',
        keyJson: null,
        beforeJson: null,
        valuesJson: '{"id":"1","status":"pending"}',
      }),
    ];
    // The read-only check before Commit sees what the transaction will refuse, and writes nothing.
    const checked = await ds.changes.check(proposed);
    expect(checked.map((conflict) => [conflict.changeId, conflict.reason, conflict.changedColumns])).toEqual([
      [proposed[1]!.id, 'changed', ['status']],
      [proposed[2]!.id, 'exists', []],
    ]);
    expect(await ds.changes.currentRowJson(orders, { id: 7 })).toBe(fresh);
    const result = await ds.changes.apply(proposed);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.conflicts.map((conflict) => [conflict.reason, conflict.changedColumns])).toEqual([
      ['changed', ['status']],
      ['exists', expect.any(Array)],
    ]);
    // Order 7 was not changed either: all or nothing.
    expect(await ds.changes.currentRowJson(orders, { id: 7 })).toBe(fresh);
  });

  it('two changes to one item go as one write (DynamoDB takes one action per item)', async () => {
    const orders = await ds.schema.resolveTable('orders');
    const before = await ds.changes.currentRowJson(orders, { id: 12 });
    const update = (values: string) =>
      change({
        kind: 'update',
        table: 'orders',
        keyJson: '{"id":"12"}',
        beforeJson: before,
        valuesJson: values,
      });
    // Two updates: one Update, the later value winning.
    const first = await ds.changes.apply([
      update('{"status":"packed","note":"a"}'),
      update('{"status":"shipped"}'),
    ]);
    expect(first).toEqual({ ok: true, applied: { insert: 0, update: 2, delete: 0 } });
    expect(await ds.rows.get('orders', { id: 12 })).toMatchObject({ status: 'shipped', note: 'a' });
    // A delete and an insert of the same key: one Put in place of the item as it was staged.
    const at13 = await ds.changes.currentRowJson(orders, { id: 13 });
    const replaced = await ds.changes.apply([
      change({ kind: 'delete', table: 'orders', keyJson: '{"id":"13"}', beforeJson: at13, valuesJson: null }),
      change({
        kind: 'insert',
        table: 'orders',
        keyJson: '{"id":"13"}',
        beforeJson: null,
        valuesJson:
          '{"id":"13","customer_id":"2","status":"new","ordered_at":"2026-11-14T00:00:00Z","total":"3"}',
      }),
    ]);
    expect(replaced).toEqual({ ok: true, applied: { insert: 1, update: 0, delete: 1 } });
    const now13 = await ds.rows.get('orders', { id: 13 });
    expect(now13).toMatchObject({ status: 'new', total: '3' });
    expect(Object.keys(now13!).sort()).toEqual(['customer_id', 'id', 'ordered_at', 'status', 'total']);
    // An update of an item another change deletes cannot go: refused before anything is sent.
    const now12 = await ds.changes.currentRowJson(orders, { id: 12 });
    await expect(
      ds.changes.apply([
        change({
          kind: 'delete',
          table: 'orders',
          keyJson: '{"id":"12"}',
          beforeJson: now12,
          valuesJson: null,
        }),
        change({
          kind: 'update',
          table: 'orders',
          keyJson: '{"id":"12"}',
          beforeJson: now12,
          valuesJson: '{"note":"b"}',
        }),
      ]),
    ).rejects.toThrow(/updates an item of orders .* that change \d+ deletes: discard one of them/);
    expect(await ds.rows.get('orders', { id: 12 })).toMatchObject({ status: 'shipped' });
  });

  it('refuses a commit larger than one transaction, applying nothing', async () => {
    const many = Array.from({ length: 101 }, (_, index) =>
      change({
        kind: 'insert',
        table: 'orders',
        keyJson: null,
        beforeJson: null,
        valuesJson: `{"id":"${9000 + index}"}`,
      }),
    );
    await expect(ds.changes.apply(many)).rejects.toThrow(
      /at most 100 items, and 101 are staged: nothing was applied/,
    );
    expect(await ds.rows.get('orders', { id: 9000 })).toBeUndefined();
  });
});

describeWithService('dynamodb', 'exports', () => {
  let ds: DataSourceWith;
  let dir: string;
  let exports: ReturnType<DataSourceWith['createExportEngine']>;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'toolrow-ddb-exports-'));
    ds = await openDynamoDataSource({ url: freshDynamoUrl(), dataDir: dir });
    await ds.seed({ orders: 300, now: NOW });
    exports = ds.createExportEngine(join(dir, 'exports'), createMemoryExportJobStore());
  }, 180_000);
  afterAll(async () => {
    await ds?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it.each(['csv', 'ndjson', 'json'] as const)(
    'a whole table to %s, read in parallel scan segments',
    async (format) => {
      const job = await exports.run({ source: { table: 'orders' }, format, actor: 'user' });
      expect(job).toMatchObject({ state: 'done', rowsDone: 300, rowsEstimate: 300, error: null });
      const text = await readFile(job.path, 'utf8');
      const ids =
        format === 'csv'
          ? text
              .trim()
              .split('\r\n')
              .slice(1)
              .map((line) => line.split(',')[0])
          : (format === 'json'
              ? (JSON.parse(text) as Row[])
              : text
                  .trim()
                  .split('\n')
                  .map((line) => JSON.parse(line) as Row)
            ).map((row) => row.id);
      // Every item once, whatever order the segments came in.
      expect(new Set(ids).size).toBe(300);
      if (format === 'csv') expect(text.split('\r\n')[0]).toMatch(/^id,/);
      expect((await stat(job.path)).mode & 0o777).toBe(0o600);
    },
  );

  it('a filtered Query and a SQL SELECT; a write statement is refused and writes no file', async () => {
    const byCustomer = await exports.run({
      source: { table: 'orders', filter: { column: 'customer_id', op: 'eq', value: 3 } },
      format: 'ndjson',
      actor: 'agent',
    });
    expect(byCustomer.state).toBe('done');
    const lines = (await readFile(byCustomer.path, 'utf8')).trim().split('\n').filter(Boolean);
    // Plain JSON: a number attribute is a JSON number.
    expect(lines.every((line) => (JSON.parse(line) as Row).customer_id === 3)).toBe(true);
    expect(byCustomer.rowsDone).toBe(
      await ds.rows.count('orders', { column: 'customer_id', op: 'eq', value: 3 }),
    );
    const query = await exports.run({
      source: { sql: `SELECT * FROM "orders" WHERE "status" = 'paid'` },
      format: 'csv',
      actor: 'agent',
    });
    expect(query.state).toBe('done');
    // A SELECT's columns come in its own order, not DynamoDB's.
    const listed = await exports.run({
      source: { sql: `SELECT "total", "status", "id" FROM "orders" WHERE "customer_id" = 3` },
      format: 'csv',
      actor: 'agent',
    });
    expect((await readFile(listed.path, 'utf8')).split('\r\n')[0]).toBe('total,status,id');
    const result = await ds.queries.run(
      `SELECT "total", "status", "id" FROM "orders" WHERE "customer_id" = 3`,
    );
    expect(result.fields.map((field) => field.name)).toEqual(['total', 'status', 'id']);
    await expect(
      exports.run({ source: { sql: `DELETE FROM "orders" WHERE "id" = 1` }, format: 'csv', actor: 'agent' }),
    ).rejects.toThrow(/Only a SELECT runs here/);
    expect(await ds.rows.get('orders', { id: 1 })).toBeDefined();
  });

  it('cancelled, it stops, says so, and leaves no partial file', async () => {
    const job = await exports.start({ source: { table: 'order_items' }, format: 'ndjson', actor: 'user' });
    const cancelled = await exports.cancel(job.id);
    expect(cancelled.state).toBe('cancelled');
    expect(cancelled.error).toMatch(/cancelled; the partial file was removed/);
    await expect(stat(job.path)).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
