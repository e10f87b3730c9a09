// Real calls of every implemented tool on a seeded sample shop, on both engines.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { exampleOf, PROPOSE_TWINS, type ProposeToolName } from '@toolrow/catalog';
import { type DataSource, ORDER_STATUSES } from '@toolrow/datasource';
import { sqlDatabaseOf } from '@toolrow/postgres';
import type { Toolrow } from '@toolrow/state';
import { testStores } from '@toolrow/state/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolContext } from './context.ts';
import type { ImplementedToolName } from './define.ts';
import { ToolError } from './errors.ts';
import { IMPLEMENTED_TOOLS, invokeTool, type ToolOutput } from './registry.ts';
import { tablesOfCall } from './tables-of.ts';
import { contextFor, dataFingerprint } from './test-fixtures.ts';

async function toolError(promise: Promise<unknown>): Promise<ToolError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ToolError) return error;
    throw error;
  }
  throw new Error('the call succeeded');
}

describe.each(testStores())('tools on $name', ({ open }) => {
  let ds: Toolrow;
  let ctx: ToolContext;
  const called = new Set<string>();
  const call = <N extends ImplementedToolName>(
    name: N,
    input: unknown,
    context = ctx,
  ): Promise<ToolOutput<N>> => {
    called.add(name);
    return invokeTool(name, input, context);
  };

  beforeAll(async () => {
    ds = await open({ seed: { orders: 200 } });
    await ds.source.schema.refresh({ analyze: true });
    ctx = contextFor(ds, { profile: 'tester' });
    await ds.state.profiles.ensure('tester');
  }, 120_000);
  afterAll(async () => {
    await ds?.close();
  });

  describe('schema cache tools', () => {
    it('listConnections marks exactly one active connection', async () => {
      const { connections } = await call('listConnections', {});
      expect(connections.length).toBeGreaterThan(0);
      expect(connections.filter((connection) => connection.active)).toHaveLength(1);
    });

    it('listTables lists the sample shop with estimates and a column summary', async () => {
      const out = await call('listTables', {});
      const names = out.tables.map((table) => table.name);
      expect(names).toEqual(
        expect.arrayContaining([
          'public.customers',
          'public.products',
          'public.orders',
          'public.order_items',
        ]),
      );
      expect(names.some((name) => name.startsWith('toolrow_app.'))).toBe(false);
      const orders = out.tables.find((table) => table.name === 'public.orders')!;
      expect(orders.columns).toContain('status text');
      const empty = await call('listTables', { schema: 'nowhere' });
      expect(empty.tables).toEqual([]);
      expect(empty.note).toMatch(/public/);
    });

    it('describeTable gives columns, key, indexes and foreign keys; unknown names suggest the nearest', async () => {
      const out = await call('describeTable', { table: 'Orders' });
      expect(out.table).toBe('public.orders');
      expect(out.primaryKey).toEqual(['id']);
      expect(out.columns.map((column) => column.name)).toEqual(
        expect.arrayContaining(['id', 'customer_id', 'status', 'total']),
      );
      expect(out.indexes.map((index) => index.name)).toContain('orders_status_idx');
      expect(out.foreignKeys.some((fk) => fk.to.startsWith('public.customers'))).toBe(true);
      expect(out.referencedBy.some((fk) => fk.from.startsWith('public.order_items'))).toBe(true);
      const error = await toolError(call('describeTable', { table: 'ordrs' }));
      expect(error.code).toBe('not-found');
      expect(error.message).toMatch(/public\.orders/);
    });

    it('findColumns finds columns by part of their name', async () => {
      const out = await call('findColumns', { text: 'mail' });
      expect(out.matches).toContainEqual(
        expect.objectContaining({ table: 'public.customers', column: 'email' }),
      );
      const none = await call('findColumns', { text: 'zzzz' });
      expect(none.matches).toEqual([]);
      expect(none.note).toBeDefined();
    });

    it('sampleValues reports the common statuses from the cache', async () => {
      const out = await call('sampleValues', { table: 'orders', column: 'status' });
      expect(out.commonValues.length).toBeGreaterThan(0);
      for (const value of out.commonValues) expect(ORDER_STATUSES).toContain(value.value);
      const error = await toolError(call('sampleValues', { table: 'orders', column: 'stauts' }));
      expect(error.message).toMatch(/status/);
    });

    it('getTableStats and getIndexStats read sizes and index use without scanning', async () => {
      const stats = await call('getTableStats', { table: 'orders' });
      expect(stats.totalBytes).toBeGreaterThan(0);
      expect(stats.totalBytes).toBeGreaterThanOrEqual(stats.tableBytes);
      expect(stats.indexes).toBeGreaterThanOrEqual(4);
      const indexes = await call('getIndexStats', { table: 'orders' });
      expect(indexes.indexes.find((index) => index.primary)?.columns).toEqual(['id']);
      for (const index of indexes.indexes) expect(index.scans).toBeGreaterThanOrEqual(0);
      expect(
        indexes.unusedIndexes.every((name) =>
          indexes.indexes.some((index) => index.name === name && !index.primary),
        ),
      ).toBe(true);
    });

    it('describeRelations shows both directions and how to join', async () => {
      const out = await call('describeRelations', { table: 'orders' });
      expect(out.references.map((fk) => fk.to)).toContain('public.customers(id)');
      expect(out.referencedBy.map((fk) => fk.from)).toContain('public.order_items(order_id)');
      expect(out.joins.some((join) => join.includes('public.orders.customer_id = public.customers.id'))).toBe(
        true,
      );
    });
  });

  describe('SQL tools', () => {
    it('runQuery answers aggregates that agree with countRows', async () => {
      const grouped = await call('runQuery', {
        sql: 'select status, count(*) as n from orders group by status order by status',
      });
      expect(grouped.columns).toEqual(['status', 'n']);
      for (const row of grouped.rows) {
        const counted = await call('countRows', {
          table: 'orders',
          filter: { column: 'status', op: 'eq', value: row.status as string },
        });
        expect(Number(row.n)).toBe(counted.count);
      }
      const total = grouped.rows.reduce((sum, row) => sum + Number(row.n), 0);
      expect(total).toBe((await call('countRows', { table: 'orders' })).count);
    });

    it('runQuery joins, windows and CTEs, capped with a truncated flag', async () => {
      const joined = await call('runQuery', {
        sql: `with spend as (select c.id, c.name, sum(o.total) as spent, row_number() over (order by sum(o.total) desc) as rank
                from customers c join orders o on o.customer_id = c.id group by c.id, c.name)
              select * from spend where rank <= 3 order by rank`,
      });
      expect(joined.rows.map((row) => Number(row.rank))).toEqual([1, 2, 3]);
      const capped = await call('runQuery', { sql: 'select id from orders order by id', limit: 7 });
      expect(capped.rows).toHaveLength(7);
      expect(capped.truncated).toBe(true);
      expect(capped.note).toMatch(/startExport/);
      const exact = await call('runQuery', { sql: 'select id from orders order by id limit 7', limit: 7 });
      expect(exact.truncated).toBe(false);
    });

    it('runQuery clips long values and names duplicate columns', async () => {
      const out = await call('runQuery', { sql: "select repeat('x', 5000) as long, 1 as a, 2 as a" });
      expect(String(out.rows[0]?.long).length).toBeLessThan(400);
      expect(String(out.rows[0]?.long)).toMatch(/clipped/);
      expect(out.note).toMatch(/distinct aliases/);
    });

    it('runQuery reports database errors clearly and records them in the history', async () => {
      const error = await toolError(call('runQuery', { sql: 'select nosuchcolumn from orders' }));
      expect(error.code).toBe('failed');
      expect(error.message).toMatch(/nosuchcolumn/);
      const history = await call('listQueryHistory', { limit: 5 });
      expect(history.entries[0]?.sql).toBe('select nosuchcolumn from orders');
      expect(history.entries[0]?.error).toMatch(/nosuchcolumn/);
      expect(
        history.entries.some(
          (entry) => entry.sql.startsWith('select status, count(*)') || entry.rowCount !== null,
        ),
      ).toBe(true);
    });

    it('runQuery names the nearest table or column when the database knows no such name', async () => {
      expect((await toolError(call('runQuery', { sql: 'select * from ordrs' }))).message).toMatch(
        /relation "ordrs" does not exist\. Did you mean 'orders'/,
      );
      // PostgreSQL names the column itself; its hint is kept and not said twice.
      const column = (await toolError(call('runQuery', { sql: 'select totl from orders' }))).message;
      expect(column).toMatch(/Perhaps you meant to reference the column "orders\.total"/);
      expect(column).not.toMatch(/Did you mean/);
    });

    it('validateQuery accepts good SQL and names the exact problem in bad SQL', async () => {
      const good = await call('validateQuery', {
        sql: 'select o.id, c.email from orders o join customers c on c.id = o.customer_id',
      });
      expect(good).toEqual({
        ok: true,
        tables: expect.arrayContaining(['public.orders', 'public.customers']),
      });
      const badColumn = await call('validateQuery', { sql: 'select o.totl from orders o' });
      expect(badColumn.ok).toBe(false);
      expect(badColumn.ok === false && badColumn.problems.join(' ')).toMatch(/'total'/);
      const badTable = await call('validateQuery', { sql: 'select * from order_itemz' });
      expect(badTable.ok === false && badTable.problems.join(' ')).toMatch(/order_items/);
      const typeError = await call('validateQuery', { sql: "select * from orders where total > 'abc'" });
      expect(typeError.ok === false && typeError.problems.join(' ')).toMatch(
        /(PostgreSQL|PGlite) .* rejects it/,
      );
      const write = await call('validateQuery', { sql: 'delete from orders' });
      expect(write.ok).toBe(false);
      const aliased = await call('validateQuery', {
        sql: 'select status as s, count(*) as n from orders group by s order by n desc',
      });
      expect(aliased.ok).toBe(true);
    });

    it('explainQuery returns a plan without running the statement', async () => {
      const out = await call('explainQuery', { sql: "select * from orders where status = 'paid'" });
      expect(out.plan).toMatch(/Scan/);
      expect(out.estimatedRows).toBeGreaterThanOrEqual(0);
      const refused = await toolError(call('explainQuery', { sql: 'explain analyze select 1' }));
      expect(refused.code).toBe('refused');
    });
  });

  describe('rows', () => {
    it('getRow fetches by primary key, bare or named; a missing key is not-found', async () => {
      const { rows } = await call('runQuery', {
        sql: 'select id, status from orders order by id desc limit 1',
      });
      const id = rows[0]!.id as number;
      const named = await call('getRow', { table: 'orders', key: { id } });
      expect(named.row.status).toBe(rows[0]!.status);
      const bare = await call('getRow', { table: 'public.orders', key: id });
      expect(bare.row).toEqual(named.row);
      const missing = await toolError(call('getRow', { table: 'orders', key: { id: 999_999_999 } }));
      expect(missing.code).toBe('not-found');
    });

    it('countRows validates filters against the schema', async () => {
      const all = await call('countRows', { table: 'orders' });
      const some = await call('countRows', {
        table: 'orders',
        filter: {
          or: [
            { column: 'status', op: 'eq', value: 'paid' },
            { column: 'status', op: 'in', value: ['shipped', 'delivered'] },
          ],
        },
      });
      expect(some.count).toBeLessThanOrEqual(all.count);
      expect(some.filter).toMatch(/status = "paid" or status is one of/);
      const negated = await call('countRows', {
        table: 'orders',
        filter: {
          not: {
            or: [
              { column: 'status', op: 'eq', value: 'paid' },
              { column: 'status', op: 'in', value: ['shipped', 'delivered'] },
            ],
          },
        },
      });
      expect(negated.count + some.count).toBe(all.count);
      const bad = await toolError(
        call('countRows', { table: 'orders', filter: { column: 'totl', op: 'gt', value: 1 } }),
      );
      expect(bad.message).toMatch(/total/);
    });
  });

  describe('UI state', () => {
    it('open tools change tabs now; silent readers see them', async () => {
      const empty = await call('getActiveView', {});
      expect(empty.focused).toBeNull();
      const opened = await call('openTable', {
        table: 'orders',
        filter: { column: 'status', op: 'eq', value: 'paid' },
      });
      const active = await call('getActiveView', {});
      expect(active.focused).toMatchObject({
        id: opened.opened,
        kind: 'table',
        table: 'public.orders',
        filterText: 'status = "paid"',
      });
      const again = await call('openTable', {
        table: 'public.orders',
        filter: { column: 'status', op: 'eq', value: 'paid' },
      });
      expect(again).toMatchObject({ opened: opened.opened, reusedExistingTab: true });

      const filtered = await call('setFilter', { sort: [{ column: 'ordered_at', direction: 'desc' }] });
      expect(filtered.openedNewTab).toBe(false);
      const view = await call('getActiveView', {});
      expect(view.focused).toMatchObject({
        filterText: 'status = "paid"',
        sort: [{ column: 'ordered_at', direction: 'desc' }],
      });
      await call('setFilter', { filter: null });
      expect((await call('getActiveView', {})).focused).not.toHaveProperty('filter');

      const workbench = await call('openWorkbench', { sql: '  select 1  ', title: 'Scratch' });
      const { rows } = await call('runQuery', { sql: 'select id from customers order by id limit 1' });
      const record = await call('openRow', { table: 'customers', key: rows[0]!.id });
      const tabs = await call('listOpenTabs', {});
      expect(tabs.tabs.map((tab) => tab.kind)).toEqual(['table', 'workbench', 'row']);
      expect(tabs.focusedTabId).toBe(record.opened);
      expect(tabs.tabs.find((tab) => tab.id === workbench.opened)).toMatchObject({
        sql: 'select 1',
        title: 'Scratch',
      });
      const missingRow = await toolError(call('openRow', { table: 'customers', key: 999_999_999 }));
      expect(missingRow.code).toBe('not-found');

      const noTable = contextFor(ds, { profile: 'nobody' });
      const unfocused = await toolError(
        call('setFilter', { filter: { column: 'status', op: 'eq', value: 'paid' } }, noTable),
      );
      expect(unfocused.message).toMatch(/Give `table`/);
      const openedByFilter = await call(
        'setFilter',
        { table: 'orders', filter: { column: 'status', op: 'eq', value: 'paid' } },
        noTable,
      );
      expect(openedByFilter.openedNewTab).toBe(true);
    });

    it('filters go in and come back out in the list form, so a model can send back what it read', async () => {
      const view = contextFor(ds, { profile: 'list-form' });
      const filter = [
        { column: 'status', op: 'not_in', value: ['cancelled', 'refunded'] },
        {
          or: [
            { column: 'total', op: 'gte', value: 300 },
            { column: 'note', op: 'not_contains', value: 'x' },
          ],
        },
      ];
      const opened = await call('openTable', { table: 'orders', filter }, view);
      expect(opened.tab).toMatchObject({
        filter,
        filterText: 'status is none of ["cancelled", "refunded"] and (total ≥ 300 or not note contains "x")',
      });
      // The tab stores the data source's Filter, which the desktop and the server read.
      const stored = (await ds.state.ui.get('list-form')).tabs[0];
      expect(stored).toMatchObject({
        filter: {
          and: [
            { column: 'status', op: 'not_in', value: ['cancelled', 'refunded'] },
            {
              or: [
                { column: 'total', op: 'gte', value: 300 },
                { not: { column: 'note', op: 'contains', value: 'x' } },
              ],
            },
          ],
        },
      });
      const active = await call('getActiveView', {}, view);
      expect(active.focused).toMatchObject({ filter });
      // What getActiveView shows is the same view: openTable focuses the tab instead of adding one.
      const again = await call(
        'openTable',
        { table: 'orders', filter: (active.focused as { filter: unknown }).filter },
        view,
      );
      expect(again).toMatchObject({ opened: opened.opened, reusedExistingTab: true });
      // The old form still works and means the same rows.
      const counted = await call('countRows', { table: 'orders', filter });
      const oldForm = await call('countRows', {
        table: 'orders',
        filter: stored!.kind === 'table' ? stored!.filter : undefined,
      });
      expect(oldForm.count).toBe(counted.count);
      // An empty list clears, like null.
      await call('setFilter', { filter: [] }, view);
      expect((await call('getActiveView', {}, view)).focused).not.toHaveProperty('filter');
      const error = await toolError(
        call(
          'setFilter',
          {
            filter: [
              { column: 'status', op: 'eq', value: 'paid' },
              { column: 'totl', op: 'gt', value: 1 },
            ],
          },
          view,
        ),
      );
      expect(error.message).toMatch(/^filter\[1\]\.column: Unknown column 'totl'/);
    });

    it('getSelection reads the selected keys', async () => {
      const none = await call('getSelection', {}, contextFor(ds, { profile: 'fresh' }));
      expect(none.count).toBe(0);
      const state = await ds.state.ui.get('tester');
      const tab = state.tabs.find((candidate) => candidate.kind === 'table')!;
      await ds.state.ui.update('tester', {
        selection: { tabId: tab.id, table: 'public.orders', keys: [{ id: 1 }, { id: 2 }] },
      });
      const out = await call('getSelection', {});
      expect(out).toMatchObject({ table: 'public.orders', count: 2, keys: [{ id: 1 }, { id: 2 }] });
    });

    it('propose tools return a chip for their twin and change nothing', async () => {
      const { rows } = await call('runQuery', { sql: 'select id from orders order by id limit 1' });
      // Each row's example, but where the test needs a particular input.
      const inputs: Record<ProposeToolName, unknown> = {
        ...(Object.fromEntries(
          Object.keys(PROPOSE_TWINS).map((name) => [name, exampleOf(name as ProposeToolName)]),
        ) as Record<ProposeToolName, unknown>),
        proposeOpenTable: { table: 'orders', sort: [{ column: 'total', direction: 'desc' }] },
        proposeOpenWorkbench: { sql: 'select count(*) from orders' },
        proposeSetFilter: { table: 'orders', filter: { column: 'status', op: 'eq', value: 'shipped' } },
        proposeOpenRow: { table: 'orders', key: rows[0]!.id },
        proposeExport: {
          table: 'orders',
          format: 'csv',
          filter: [{ column: 'note', op: 'not_contains', value: 'x' }],
        },
      };
      const uiBefore = await ds.state.ui.get('tester');
      const jobsBefore = await ds.state.exportJobs.list({ limit: 1000 });
      for (const [propose, twin] of Object.entries(PROPOSE_TWINS) as [
        ProposeToolName,
        ImplementedToolName,
      ][]) {
        const chip = await call(propose, inputs[propose]);
        expect(chip).toMatchObject({ kind: 'chip', proposedBy: propose, tool: twin });
        expect(chip.label.length).toBeGreaterThan(5);
        // The chip's input is exactly what the twin accepts.
        await expect(
          invokeTool(twin, chip.input, contextFor(ds, { profile: 'chip-clicks' })),
        ).resolves.toBeDefined();
      }
      expect(await ds.state.ui.get('tester')).toEqual(uiBefore);
      expect((await ds.state.exportJobs.list({ limit: 1000 })).length).toBe(jobsBefore.length + 1);
      // A filter sent in the old form comes back in the chip as the list form the twin advertises.
      const chip = await call('proposeSetFilter', inputs.proposeSetFilter);
      expect(chip.input).toMatchObject({ filter: [{ column: 'status', op: 'eq', value: 'shipped' }] });
      const exportChip = await call('proposeExport', inputs.proposeExport);
      expect(exportChip.label).toBe('Export public.orders where not note contains "x" as CSV');
      await ds.state.exports.idle();
      const badChip = await toolError(call('proposeOpenTable', { table: 'ordres' }));
      expect(badChip.code).toBe('not-found');
    });
  });

  describe('app state tools', () => {
    it('readAttachment reads CSV, JSON, NDJSON and text, and refuses binary', async () => {
      await ds.state.attachments.add({
        profile: 'tester',
        name: 'people.csv',
        mediaType: 'text/csv',
        content: 'name,city\n"Doe, Jane",Oslo\nBo,"Rio ""de"" Janeiro"\n',
      });
      await ds.state.attachments.add({
        profile: 'tester',
        name: 'items.json',
        mediaType: 'application/json',
        content: JSON.stringify([{ a: 1 }, { a: 2 }, { a: 3 }]),
      });
      await ds.state.attachments.add({
        profile: 'tester',
        name: 'log.ndjson',
        mediaType: 'application/x-ndjson',
        content: '{"n":1}\n{"n":2}\n',
      });
      await ds.state.attachments.add({
        profile: 'tester',
        name: 'notes.txt',
        mediaType: 'text/plain',
        content: 'one\ntwo\nthree',
      });
      await ds.state.attachments.add({
        profile: 'tester',
        name: 'image.png',
        mediaType: 'image/png',
        content: new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0xff, 0xfe, 0x00]),
      });
      const csv = await call('readAttachment', { name: 'people.csv' });
      expect(csv).toMatchObject({
        format: 'csv',
        columns: ['name', 'city'],
        rows: [
          { name: 'Doe, Jane', city: 'Oslo' },
          { name: 'Bo', city: 'Rio "de" Janeiro' },
        ],
      });
      const json = await call('readAttachment', { name: 'items.json', limit: 2 });
      expect(json).toMatchObject({
        format: 'json',
        items: [{ a: 1 }, { a: 2 }],
        itemCount: 3,
        truncated: true,
      });
      expect(await call('readAttachment', { name: 'log.ndjson' })).toMatchObject({
        format: 'ndjson',
        items: [{ n: 1 }, { n: 2 }],
      });
      expect(await call('readAttachment', { name: 'notes.txt', limit: 2 })).toMatchObject({
        lines: ['one', 'two'],
        truncated: true,
      });
      expect((await toolError(call('readAttachment', { name: 'image.png' }))).message).toMatch(/not text/);
      expect((await toolError(call('readAttachment', { name: 'missing.csv' }))).code).toBe('not-found');
    });

    it('listSavedSpecs and getSavedSpec read what the user saved', async () => {
      await ds.state.specs.save({
        name: 'paid orders',
        kind: 'view',
        spec: { table: 'public.orders', filter: { column: 'status', op: 'eq', value: 'paid' } },
      });
      const list = await call('listSavedSpecs', {});
      expect(list.specs).toContainEqual(
        expect.objectContaining({ name: 'paid orders', kind: 'view', table: 'public.orders' }),
      );
      const spec = await call('getSavedSpec', { name: 'paid orders' });
      expect(spec.spec).toMatchObject({ table: 'public.orders' });
      expect((await toolError(call('getSavedSpec', { name: 'unpaid' }))).code).toBe('not-found');
    });

    it('stage tools stage; listStagedChanges and diffStagedChanges show them; the table is unchanged', async () => {
      const before = await dataFingerprint(ds.source);
      const { rows } = await call('runQuery', {
        sql: "select id, status from orders where status <> 'refunded' order by id limit 2",
      });
      const [a, b] = rows as { id: number; status: string }[];
      const updated = await call('stageUpdateRows', {
        table: 'orders',
        updates: [{ key: { id: a!.id }, values: { status: 'refunded' } }],
      });
      expect(updated).toMatchObject({ table: 'public.orders', staged: 1 });
      expect(updated.note).toMatch(/cannot commit/);
      await call('stageDeleteRows', { table: 'orders', keys: [b!.id] });
      await call('stageInsertRows', {
        table: 'products',
        rows: [{ sku: 'NEW-1', name: 'New thing', category: 'misc', price: 9.5 }],
      });
      const list = await call('listStagedChanges', {});
      expect(list.counts).toEqual({ insert: 1, update: 1, delete: 1 });
      expect((await call('listStagedChanges', { table: 'products' })).total).toBe(1);
      const diff = await call('diffStagedChanges', { table: 'orders' });
      const update = diff.diffs.find((entry) => entry.kind === 'update')!;
      expect(update.columns).toEqual([{ column: 'status', before: a!.status, after: 'refunded' }]);
      expect(await dataFingerprint(ds.source)).toEqual(before);
      const badColumn = await toolError(
        call('stageUpdateRows', { table: 'orders', updates: [{ key: a!.id, values: { stauts: 'x' } }] }),
      );
      expect(badColumn.message).toMatch(/status/);
      await ds.state.staging.discard();
    });

    it('stageUpdateRows with the values the model read refuses an edit whose row changed since', async () => {
      const { rows } = await call('runQuery', { sql: 'select id, total from orders order by id limit 1' });
      const [read] = rows as { id: number; total: unknown }[];
      await sqlDatabaseOf(ds.source).query(`update orders set total = total + 1 where id = ${read!.id}`);
      const refused = await toolError(
        call('stageUpdateRows', {
          table: 'orders',
          updates: [{ key: { id: read!.id }, values: { total: 1 }, seen: { total: read!.total } }],
        }),
      );
      expect(refused.message).toMatch(/changed after it was read: 'total' is .* now \(it was .* when read\)/);
      expect((await call('listStagedChanges', {})).total).toBe(0);
      // Read again, staged against what it holds now.
      const again = (await call('getRow', { table: 'orders', key: { id: read!.id } })).row as {
        total: unknown;
      };
      expect(
        await call('stageUpdateRows', {
          table: 'orders',
          updates: [{ key: { id: read!.id }, values: { total: 1 }, seen: { total: again.total } }],
        }),
      ).toMatchObject({ staged: 1 });
      await ds.state.staging.discard();
    });

    it('startExport runs in the background; getExportStatus follows it to the file', async () => {
      const filter = [{ column: 'status', op: 'eq', value: 'delivered' }];
      const started = await call('startExport', {
        table: 'orders',
        format: 'ndjson',
        filter,
        path: 'delivered.ndjson',
      });
      expect(started.note).toMatch(/getExportStatus/);
      await ds.state.exports.idle();
      const status = await call('getExportStatus', { id: started.id });
      expect(status.state).toBe('done');
      const delivered = await call('countRows', { table: 'orders', filter });
      expect(delivered.count).toBeGreaterThan(0);
      expect(status.rowsDone).toBe(delivered.count);
      const lines = (await readFile(status.path, 'utf8')).trim().split('\n');
      expect(lines).toHaveLength(delivered.count);
      expect(lines.every((line) => JSON.parse(line).status === 'delivered')).toBe(true);
      const fromSql = await call('startExport', {
        sql: 'select id, total from orders where total > 100',
        format: 'csv',
      });
      await ds.state.exports.idle();
      const done = await call('getExportStatus', { id: fromSql.id });
      expect(done.state).toBe('done');
      expect(existsSync(done.path)).toBe(true);
      expect((await toolError(call('startExport', { format: 'csv' }))).code).toBe('invalid-input');
      expect((await toolError(call('getExportStatus', { id: 'nope' }))).code).toBe('not-found');
    });

    it('listAuditLog lists recorded decisions, filtered', async () => {
      await ds.state.audit.record({
        tool: 'runQuery',
        input: { sql: 'select 1' },
        decision: 'approved',
        decidedBy: 'user',
        profile: 'tester',
        table: 'public.orders',
      });
      await ds.state.audit.record({
        tool: 'startExport',
        input: {},
        decision: 'denied',
        decidedBy: 'user',
        profile: 'tester',
      });
      const all = await call('listAuditLog', {});
      expect(all.entries.length).toBeGreaterThanOrEqual(2);
      const denied = await call('listAuditLog', { decision: 'denied' });
      expect(denied.entries.every((entry) => entry.decision === 'denied')).toBe(true);
      expect(denied.entries.map((entry) => entry.tool)).toContain('startExport');
    });
  });

  it('tablesOfCall names the tables a call concerns', async () => {
    expect(await tablesOfCall({ table: 'Orders' }, ctx)).toEqual(['public.orders']);
    expect(
      await tablesOfCall(
        { sql: 'with x as (select 1) select * from orders o join customers c on true, x' },
        ctx,
      ),
    ).toEqual(['public.orders', 'public.customers']);
    expect(await tablesOfCall({ sql: 'not sql' }, ctx)).toBeUndefined();
    expect(await tablesOfCall({}, ctx)).toBeUndefined();
  });

  // A new row is called here with its example until a test of its own says more.
  it('runs every tool no test above called on its row example, and called every one', async () => {
    for (const name of IMPLEMENTED_TOOLS.filter((tool) => !called.has(tool)))
      expect(await call(name, exampleOf(name)), name).toBeTypeOf('object');
    expect(IMPLEMENTED_TOOLS.filter((name) => !called.has(name))).toEqual([]);
  });
});
