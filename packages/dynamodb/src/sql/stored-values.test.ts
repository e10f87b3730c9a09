// Names resolved as SQL resolves them and values as DynamoDB stores them: items written with the AWS
// SDK alone (ISO text with offsets, numbers past 2^53 and past 38 digits, sets, binary, attributes
// that differ only in case), and statements whose answer is what is stored, not what a guess
// made of it. Each case failed before DuckDB bound the statements.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { type DataSourceWith, isDataSourceError } from '@toolrow/datasource';
import { describeWithService } from '@toolrow/test-services';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { bareClient, writeTables } from '../../test/bare-sdk.ts';
import { freshDynamoUrl } from '../../test/dynamodb-local.ts';
import { openDynamoDataSource } from '../source.ts';

const BIG = '12345678901234567890123456789012345678';
const ITEMS: Record<string, AttributeValue>[] = [
  {
    id: { N: '1' },
    ts: { S: '2026-02-13T10:00:00Z' },
    created_at: { S: '2026-05-03' },
    total: { N: '12.5' },
    Status: { S: 'Open' },
    status: { S: 'b' },
    big: { N: BIG },
    ns: { NS: ['1', '2.50'] },
    ss: { SS: ['x', 'y'] },
    bin: { B: new Uint8Array([0, 1, 92, 120]) },
    kind: { S: 'a' },
  },
  {
    id: { N: '2' },
    ts: { S: '2026-01-01T00:00:00+05:30' },
    created_at: { S: '2026-04-30' },
    total: { N: '7' },
    Status: { S: 'Closed' },
    status: { S: 'c' },
    big: { N: '0.5' },
    kind: { S: 'a' },
  },
  { id: { N: '9007199254740992' }, total: { N: '1' }, kind: { S: 'b' } },
  { id: { N: '9007199254740993' }, total: { N: '2' }, kind: { S: 'b' } },
];

/** One statement and the rows it must give (as the result's row objects). */
const CASES: readonly [string, Record<string, unknown>[]][] = [
  // Aliases: a select-list alias in GROUP BY, a lateral alias, CTE columns, a correlated subquery.
  [
    'select kind as k, count(*) as n from events group by k order by k',
    [
      { k: 'a', n: '2' },
      { k: 'b', n: '2' },
    ],
  ],
  ["select status as s, s || '!' as s2 from events where id = 1", [{ s: 'b', s2: 'b!' }]],
  [
    'with x(a, b) as (select id, total from events) select count(a) as n, sum(b) as t from x',
    [{ n: '4', t: '22.5' }],
  ],
  [
    'select id, (select count(*) from events e2 where e2.total >= e.total) as place from events e where id <= 2 order by id',
    [
      { id: '1', place: '1' },
      { id: '2', place: '2' },
    ],
  ],
  // ISO text stays the text stored; compared as text unless the statement says instant.
  ['select ts from events where id = 1', [{ ts: '2026-02-13T10:00:00Z' }]],
  ["select count(*) as n from events where created_at >= '2026-05'", [{ n: '1' }]],
  ["select id from events where ts = '2025-12-31T18:30:00Z'", []],
  ["select id from events where ts = TIMESTAMPTZ '2025-12-31T18:30:00Z'", [{ id: '2' }]],
  ["select id from events where created_at < DATE '2026-05-01'", [{ id: '2' }]],
  // Numbers exact: keys past 2^53, a column of 38 digits beside 0.5.
  ['select id, total from events where id = 9007199254740993', [{ id: '9007199254740993', total: '2' }]],
  ['select id from events where id in (9007199254740992, 7)', [{ id: '9007199254740992' }]],
  ['select big from events where id = 1', [{ big: BIG }]],
  // Sets keep their digits; binary is base64.
  ['select ns, ss from events where id = 1', [{ ns: ['1', '2.5'], ss: ['x', 'y'] }]],
  ['select bin from events where id = 1', [{ bin: Buffer.from([0, 1, 92, 120]).toString('base64') }]],
  // Attributes that differ only in case stay two columns.
  ['select status, "Status_2" from events where id = 2', [{ status: 'c', Status_2: 'Closed' }]],
];

describeWithService('dynamodb', 'SQL over DynamoDB: names as SQL binds them, values as stored', () => {
  let dir: string;
  let ds: DataSourceWith;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'toolrow-sql-stored-'));
    const url = freshDynamoUrl();
    const client = bareClient(url);
    await writeTables(client, [{ name: 'events', key: [['id', 'N']], items: ITEMS }]);
    client.destroy();
    ds = await openDynamoDataSource({ url, dataDir: dir });
    await ds.schema.refresh();
  }, 120_000);

  afterAll(async () => {
    await ds?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it.each(CASES)('%s', async (sql, rows) => {
    const result = await ds.queries.run(sql, { maxRows: 100 });
    expect(
      JSON.parse(
        JSON.stringify(result.rows, (_key, value) => (typeof value === 'number' ? String(value) : value)),
      ),
    ).toEqual(rows);
  });

  it('SELECT * holds both case-differing attributes', async () => {
    const result = await ds.queries.run('select * from events where id = 1');
    expect(result.rows[0]).toMatchObject({ status: 'b', Status_2: 'Open' });
  });

  it('a misspelt attribute is read where items have it, and the plan and the result say no item does', async () => {
    const plan = await ds.queries.plan('select totl from events');
    expect(plan.warnings).toEqual([
      'totl is in no sampled item of events (did you mean total?): it is read from the items that have it, and NULL elsewhere.',
    ]);
    const result = await ds.queries.run('select totl from events');
    expect(result.rows).toEqual(Array.from({ length: 4 }, () => ({ totl: null })));
    expect(result.reads?.[0]?.note).toBe('No item of events read has an attribute totl: did you mean total?');
  });

  it.each([
    ['select nosuch(id) from events', /nosuch/],
    ['select id from events where ts >= 5', /cannot run/],
    ['select e.id from events e, events f where id = 1', /ambiguous|cannot run/i],
  ])('what cannot bind is refused before anything is read: %s', async (sql, message) => {
    const error = await ds.queries.plan(sql).catch((caught: unknown) => caught);
    expect(isDataSourceError(error)).toBe(true);
    expect((error as Error).message).toMatch(message);
  });

  it('text the statement uses as an instant must read as one, and the error says how to cast', async () => {
    const error = await ds.queries
      .run("select id from events where kind < TIMESTAMPTZ '2026-01-01'")
      .catch((caught: unknown) => caught);
    expect(isDataSourceError(error)).toBe(true);
    expect((error as Error).message).toMatch(/kind as a date or an instant|cannot run/);
  });
});
