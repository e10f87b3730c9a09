// `toolrow call` for every row, on a seeded sample shop. In-process runs use PostgreSQL when
// TOOLROW_TEST_DATABASE_URL is set (a fresh database per run; opening PGlite from disk costs ~1 s
// per call), else a PGlite data dir; real-process runs use a PGlite data dir.
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exampleOf, LOOP_TOOLS, TOOL_NAMES } from '@toolrow/catalog';
import { sqlDatabaseOf } from '@toolrow/postgres';
import { openToolrow, type Toolrow } from '@toolrow/state';
import { createTestEnvironment, TEST_SEED_NOW } from '@toolrow/state/testing';
import { serviceUrl } from '@toolrow/test-services';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, spawnCli } from '../testing.ts';

const SEED = { orders: 150, now: TEST_SEED_NOW };
// In CI a missing server fails the run (test-services).
const serverUrl = serviceUrl('postgres');

let env: Record<string, string>;
let dataDir: string;
let dropDatabase: (() => Promise<void>) | undefined;

async function withSource<T>(fn: (ds: Toolrow) => Promise<T>): Promise<T> {
  const ds = await openToolrow({ env, cwd: dataDir });
  try {
    return await fn(ds);
  } finally {
    await ds.close();
  }
}

async function fingerprint(): Promise<string> {
  return withSource(async (ds) => {
    const result = await sqlDatabaseOf(ds.source).query<{ digest: string }>(
      `SELECT md5(string_agg(t::text, '|' ORDER BY t::text)) AS digest FROM (
         SELECT o::text AS t FROM orders o UNION ALL SELECT c::text FROM customers c
         UNION ALL SELECT p::text FROM products p UNION ALL SELECT i::text FROM order_items i) t`,
    );
    return result.rows[0]!.digest;
  });
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'toolrow-call-'));
  env = { TOOLROW_DATA_DIR: dataDir, TOOLROW_EXPORTS_DIR: join(dataDir, 'exports'), DATABASE_URL: '' };
  if (serverUrl) {
    const database = await createTestEnvironment('postgres');
    env.DATABASE_URL = database.env.DATABASE_URL!;
    // Toolrow's state on the server too: every command here opens it, and PGlite from disk is slow.
    env.TOOLROW_STATE_URL = database.env.TOOLROW_STATE_URL!;
    dropDatabase = database.cleanup;
  }
  await withSource(async (ds) => {
    await ds.source.seed!(SEED);
    await ds.source.schema.refresh({ analyze: true });
    await ds.state.attachments.add({
      name: 'cities.csv',
      mediaType: 'text/csv',
      content: 'city,country\nOslo,NO\nLima,PE\n',
    });
    await ds.state.specs.save({
      name: 'paid',
      kind: 'view',
      spec: { table: 'public.orders', filter: { column: 'status', op: 'eq', value: 'paid' } },
    });
    await ds.state.audit.record({
      tool: 'runQuery',
      input: {},
      decision: 'approved',
      decidedBy: 'user',
      profile: 'default',
    });
  });
}, 180_000);

afterAll(async () => {
  await dropDatabase?.();
  await rm(dataDir, { recursive: true, force: true });
});

const call = (tool: string, input?: unknown, extra: string[] = []) =>
  runCli(['call', tool, ...(input === undefined ? [] : [JSON.stringify(input)]), ...extra], env);

// Outputs are checked loosely here; their types are tested in packages/tools.
// biome-ignore lint/suspicious/noExplicitAny: parsed JSON of many shapes
type Json = Record<string, any>;

// Real calls with checks of their outputs, in an order where later calls can use what earlier ones made.
const CHECKED: readonly [string, unknown, (out: Json) => void][] = [
  [
    'searchTools',
    { query: 'export csv' },
    (out) => expect(out.results.map((r: Json) => r.name)).toContain('startExport'),
  ],
  ['listConnections', {}, (out) => expect(out.connections.filter((c: Json) => c.active)).toHaveLength(1)],
  ['listTables', {}, (out) => expect(out.tables.map((t: Json) => t.name)).toContain('public.orders')],
  ['describeTable', { table: 'orders' }, (out) => expect(out.primaryKey).toEqual(['id'])],
  ['findColumns', { text: 'email' }, (out) => expect(out.matches[0].column).toBe('email')],
  [
    'sampleValues',
    { table: 'orders', column: 'status' },
    (out) => expect(out.commonValues.length).toBeGreaterThan(0),
  ],
  ['getTableStats', { table: 'orders' }, (out) => expect(out.totalBytes).toBeGreaterThan(0)],
  ['validateQuery', { sql: 'select id from orders' }, (out) => expect(out.ok).toBe(true)],
  [
    'runQuery',
    { sql: 'select count(*) as n from orders' },
    (out) => expect(Number(out.rows[0].n)).toBe(SEED.orders),
  ],
  ['getRow', { table: 'orders', key: 1 }, (out) => expect(out.row.id).toBe(1)],
  ['countRows', { table: 'orders' }, (out) => expect(out.count).toBe(SEED.orders)],
  ['openTable', { table: 'orders' }, (out) => expect(out.tab.table).toBe('public.orders')],
  ['getActiveView', {}, (out) => expect(out.focused.table).toBe('public.orders')],
  [
    'setFilter',
    { filter: { column: 'status', op: 'eq', value: 'paid' } },
    (out) => expect(out.tab.filterText).toBe('status = "paid"'),
  ],
  ['openWorkbench', { sql: 'select 1' }, (out) => expect(out.tab.kind).toBe('workbench')],
  ['openRow', { table: 'customers', key: 1 }, (out) => expect(out.tab.kind).toBe('row')],
  ['listOpenTabs', {}, (out) => expect(out.tabs).toHaveLength(3)],
  ['getSelection', {}, (out) => expect(out.count).toBe(0)],
  [
    'proposeOpenTable',
    { table: 'products' },
    (out) => expect(out).toMatchObject({ kind: 'chip', tool: 'openTable' }),
  ],
  ['proposeOpenWorkbench', { sql: 'select 2' }, (out) => expect(out.tool).toBe('openWorkbench')],
  [
    'proposeSetFilter',
    { table: 'orders', filter: { column: 'total', op: 'gt', value: 100 } },
    (out) => expect(out.tool).toBe('setFilter'),
  ],
  [
    'proposeOpenRow',
    { table: 'orders', key: 2 },
    (out) => expect(out.input).toEqual({ table: 'public.orders', key: { id: 2 } }),
  ],
  ['proposeExport', { table: 'orders', format: 'csv' }, (out) => expect(out.tool).toBe('startExport')],
  [
    'readAttachment',
    { name: 'cities.csv' },
    (out) =>
      expect(out.rows).toEqual([
        { city: 'Oslo', country: 'NO' },
        { city: 'Lima', country: 'PE' },
      ]),
  ],
  ['listQueryHistory', {}, (out) => expect(out.entries[0].sql).toBe('select count(*) as n from orders')],
  ['explainQuery', { sql: 'select * from orders where id = 1' }, (out) => expect(out.plan).toMatch(/Scan/)],
  ['getIndexStats', { table: 'orders' }, (out) => expect(out.indexes.length).toBeGreaterThan(1)],
  ['describeRelations', { table: 'order_items' }, (out) => expect(out.references).toHaveLength(2)],
  ['listSavedSpecs', {}, (out) => expect(out.specs[0].name).toBe('paid')],
  ['getSavedSpec', { name: 'paid' }, (out) => expect(out.kind).toBe('view')],
  [
    'stageInsertRows',
    { table: 'products', rows: [{ sku: 'CLI-1', name: 'From the CLI', category: 'misc', price: 1 }] },
    (out) => expect(out.staged).toBe(1),
  ],
  [
    'stageUpdateRows',
    { table: 'orders', updates: [{ key: 3, values: { note: 'staged from the CLI' } }] },
    (out) => expect(out.staged).toBe(1),
  ],
  ['stageDeleteRows', { table: 'order_items', keys: [1] }, (out) => expect(out.staged).toBe(1)],
  ['listStagedChanges', {}, (out) => expect(out.counts).toEqual({ insert: 1, update: 1, delete: 1 })],
  [
    'diffStagedChanges',
    { table: 'orders' },
    (out) => expect(out.diffs[0].columns[0].after).toBe('staged from the CLI'),
  ],
  [
    'startExport',
    { table: 'customers', format: 'json', path: 'customers.json' },
    // The command ends with the file, and says how the export ended.
    (out) => expect(out).toMatchObject({ path: expect.stringMatching(/customers\.json$/), state: 'done' }),
  ],
  ['getExportStatus', { id: '<export id>' }, (out) => expect(out.state).toBe('done')],
  ['listAuditLog', {}, (out) => expect(out.entries.length).toBeGreaterThan(0)],
];

// Every other row is called with its example (a new row needs no entry here): it must run as the user.
const CALLS: readonly [string, unknown, (out: Json) => void][] = [
  ...CHECKED,
  ...TOOL_NAMES.filter((name) => !CHECKED.some(([tool]) => tool === name)).map(
    (name): [string, unknown, (out: Json) => void] => [
      name,
      exampleOf(name),
      (out) => expect(out).toBeTypeOf('object'),
    ],
  ),
];

describe('toolrow call', () => {
  it('covers every row, and checks only rows', () => {
    expect(CALLS.map(([tool]) => tool).sort()).toEqual([...TOOL_NAMES].sort());
    expect(CHECKED.filter(([tool]) => !(TOOL_NAMES as readonly string[]).includes(tool))).toEqual([]);
  });

  it('runs every tool as the user; stage tools only stage', async () => {
    const before = await fingerprint();
    let exportId = '';
    for (const [tool, input, check] of CALLS) {
      const actual = tool === 'getExportStatus' ? { id: exportId } : input;
      const result = await call(tool, actual);
      expect(result.stderr, tool).toBe('');
      expect(result.code, tool).toBe(0);
      const out = JSON.parse(result.stdout) as Json;
      check(out);
      if (tool === 'startExport') exportId = out.id;
    }
    expect(await fingerprint()).toBe(before);
    const staged = await withSource((ds) => ds.state.staging.list());
    expect(staged.map((change) => change.stagedBy)).toEqual(['user', 'user', 'user']);
    expect(await readdir(join(dataDir, 'exports'))).toContain('customers.json');
  }, 180_000);

  it('suggests the nearest tool for a bad name and exits 2', async () => {
    const result = await call('runQeury', { sql: 'select 1' });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/There is no tool 'runQeury'\. Did you mean 'runQuery'\?/);
  });

  it('names the field of a bad input and exits 2 without running', async () => {
    const result = await call('describeTable', { table: 42 });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('table: expected a string, got the integer 42');
    expect(result.stderr).toContain('toolrow call describeTable --schema');
    const notJson = await runCli(['call', 'runQuery', '{sql: select}'], env);
    expect(notJson.code).toBe(2);
    expect(notJson.stderr).toMatch(/not valid JSON/);
  });

  it('exits 1 naming the error when an export it started fails, and leaves no file', async () => {
    const result = await call('startExport', { sql: 'select 1/0 as x', format: 'csv', path: 'broken.csv' });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /toolrow call startExport: the export failed: .*division by zero.*No file was left/,
    );
    expect(JSON.parse(result.stdout)).toMatchObject({ state: 'failed' });
    expect(await readdir(join(dataDir, 'exports'))).not.toContain('broken.csv');
  });

  it('exits 1 with the reason when a tool refuses', async () => {
    const result = await call('runQuery', { sql: 'delete from orders' });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/DELETE is refused: Queries are read-only/);
  });

  it('prints the input JSON Schema with --schema', async () => {
    for (const tool of ['runQuery', ...LOOP_TOOLS]) {
      const result = await call(tool, undefined, ['--schema']);
      expect(result.code).toBe(0);
      expect(JSON.parse(result.stdout)).toMatchObject({ type: 'object', required: [expect.any(String)] });
    }
  });

  it('runs as a real process on a PGlite data dir', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'toolrow-call-pglite-'));
    try {
      const ds = await openToolrow({ dataDir: dir, env: {} });
      await ds.source.seed!({ orders: 20, now: TEST_SEED_NOW });
      await ds.close();
      const processEnv = { TOOLROW_DATA_DIR: dir, DATABASE_URL: '' };
      const ok = await spawnCli(
        ['call', 'countRows', '{"table":"orders","filter":{"column":"id","op":"lte","value":5}}'],
        { env: processEnv },
      );
      expect(ok.stderr).toBe('');
      expect(JSON.parse(ok.stdout)).toEqual({ table: 'public.orders', count: 5, filter: 'id ≤ 5' });
      // A bad input is refused before any database opens: this data dir is never created.
      const untouched = join(dir, 'never-created');
      const bad = await spawnCli(
        ['call', 'countRows', '{"table":"orders","filter":{"column":"id","op":"equals"}}'],
        { env: { TOOLROW_DATA_DIR: untouched, DATABASE_URL: '' } },
      );
      expect(bad.code).toBe(2);
      // Filters are lists now; a lone condition is read as one, and errors name the list path.
      expect(bad.stderr).toMatch(/filter\[0\]\.op: expected one of "eq"/);
      expect(existsSync(untouched)).toBe(false);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
