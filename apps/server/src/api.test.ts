import { existsSync } from 'node:fs';
// The HTTP API over a real socket and a real database: the sample shop on PGlite, and on
// PostgreSQL when TOOLROW_TEST_DATABASE_URL is set (CI sets it).
import type { DataSource } from '@toolrow/datasource';
import type {
  AppStatus,
  ExportJob,
  QueryResult,
  StagedChange,
  TableInfo,
  UiState,
} from '@toolrow/desktop/wire';
import { sqlDatabaseOf } from '@toolrow/postgres';
import type { Toolrow, ToolrowState } from '@toolrow/state';
import { testStores } from '@toolrow/state/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, bearer, startTestServer, type TestServer } from './test-support.ts';

describe.each(testStores())('the API on $name', ({ name, open }) => {
  let toolrow: Toolrow;
  let source: DataSource;
  let state: ToolrowState;
  let app: TestServer;

  beforeAll(async () => {
    toolrow = await open({ seed: { orders: 1500 } });
    ({ source, state } = toolrow);
    app = await startTestServer(toolrow, { desktopDir: null });
  }, 180_000);

  afterAll(async () => {
    await app?.close();
    await toolrow?.close();
  });

  /** fetch() with the app token; tests of the token itself use fetch(). */
  async function raw(
    path: string,
    init: Omit<RequestInit, 'headers'> & { headers?: Record<string, string> } = {},
  ) {
    return fetch(`${app.url}${path}`, { ...init, headers: bearer(app.token, init.headers) });
  }

  interface ErrorJson {
    error: { message: string; code: string; hint?: string; details?: { suggestions?: string[] } };
  }
  const errorOf = async (response: Response) => ((await response.json()) as ErrorJson).error;

  describe('status and profile', () => {
    it('reports the database, no model with how to set one, MCP off, and the mode', async () => {
      const status = await api<AppStatus>(app, '/api/status');
      expect(status.model.configured).toBe(false);
      expect(status.model.hint).toContain('Pick one in Settings');
      expect(status.model.hint).toContain('bedrock:<model id>');
      expect(status.mcp.enabled).toBe(false);
      expect(status.database.engine).toBe(name);
      expect(status.mode).toBe('manual');
    });

    it('changes the permission mode and refuses an unknown one', async () => {
      expect(await api(app, '/api/profile', { method: 'PUT', body: { mode: 'auto' } })).toEqual({
        mode: 'auto',
      });
      expect((await state.profiles.ensure('default')).mode).toBe('auto');
      const refused = await raw('/api/profile', {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ mode: 'yolo' }),
      });
      expect(refused.status).toBe(400);
      expect((await errorOf(refused)).message).toContain(
        'mode: expected one of "manual", "auto", "full-auto", got "yolo"',
      );
      await api(app, '/api/profile', { method: 'PUT', body: { mode: 'manual' } });
    });
  });

  describe('tables', () => {
    it('lists the sample shop and describes a table', async () => {
      const { tables } = await api<{ tables: { id: string; rowEstimate: number }[] }>(app, '/api/tables');
      expect(tables.map((table) => table.id).sort()).toEqual(
        ['public.customers', 'public.order_items', 'public.orders', 'public.products'].sort(),
      );
      const orders = await api<TableInfo>(app, '/api/tables/orders');
      expect(orders.id).toBe('public.orders');
      expect(orders.primaryKey).toEqual(['id']);
      expect(orders.columns.map((column) => column.name)).toContain('status');
      expect(
        orders.foreignKeys.some(
          (fk) => fk.direction === 'in' && fk.references.table === 'public.order_items',
        ),
      ).toBe(true);
    });

    it('names the nearest tables for an unknown one', async () => {
      const response = await raw('/api/tables/ordrs');
      expect(response.status).toBe(404);
      const error = await errorOf(response);
      expect(error.message).toContain('orders');
      expect(error.details?.suggestions).toContain('public.orders');
    });

    it('pages rows with a structured filter and sort, and counts the same rows', async () => {
      const filter = { combine: 'and', conditions: [{ column: 'status', op: 'eq', value: 'paid' }] };
      const { count } = await api<{ count: number }>(app, '/api/tables/public.orders/count', {
        body: { filter },
      });
      expect(count).toBe(await source.rows.count('orders', { column: 'status', op: 'eq', value: 'paid' }));
      expect(count).toBeGreaterThan(0);

      const sort = [{ column: 'id', direction: 'desc' }];
      const first = await api<{ rows: { id: number; status: string }[] }>(
        app,
        '/api/tables/public.orders/rows',
        {
          body: { filter, sort, offset: 0, limit: 50 },
        },
      );
      const second = await api<{ rows: { id: number; status: string }[] }>(
        app,
        '/api/tables/public.orders/rows',
        {
          body: { filter, sort, offset: 50, limit: 50 },
        },
      );
      const ids = [...first.rows, ...second.rows].map((row) => row.id);
      expect(ids).toHaveLength(Math.min(100, count));
      expect(ids).toEqual([...ids].sort((a, b) => b - a));
      expect(new Set(ids).size).toBe(ids.length);
      expect([...first.rows, ...second.rows].every((row) => row.status === 'paid')).toBe(true);
    });

    it('a page of huge values stays small: each value over the cap is null and named, the page bounded', async () => {
      await sqlDatabaseOf(source).exec(`CREATE TABLE IF NOT EXISTS blobs (id int PRIMARY KEY, body text);
        DELETE FROM blobs;
        INSERT INTO blobs SELECT g, repeat('x', 2000000) FROM generate_series(1, 12) AS g;`);
      await source.schema.refresh();
      const response = await raw('/api/tables/blobs/rows', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ limit: 200 }),
      });
      const text = await response.text();
      expect(response.status).toBe(200);
      expect(text.length).toBeLessThan(64 * 1024);
      const page = JSON.parse(text) as { rows: { id: number; body: string | null }[]; oversized: unknown[] };
      expect(page.rows.map((row) => row.id)).toEqual(Array.from({ length: 12 }, (_, index) => index + 1));
      expect(page.rows.every((row) => row.body === null)).toBe(true);
      expect(page.oversized).toHaveLength(12);
      expect(page.oversized[0]).toEqual({ row: 0, column: 'body', bytes: 2_000_000 });
    });

    it('refuses a filter on an unknown column, naming the columns there are', async () => {
      const response = await raw('/api/tables/orders/rows', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          filter: { combine: 'and', conditions: [{ column: 'stat', op: 'eq', value: 'x' }] },
        }),
      });
      expect(response.status).toBe(400);
      expect((await errorOf(response)).message).toContain('status');
    });

    it('reads one row by primary key, and null for a missing key', async () => {
      const { row } = await api<{ row: { id: number } | null }>(app, '/api/tables/orders/row', {
        body: { key: { id: 1 } },
      });
      expect(row?.id).toBe(1);
      const missing = await api<{ row: unknown }>(app, '/api/tables/orders/row', {
        body: { key: { id: 999_999 } },
      });
      expect(missing.row).toBeNull();
    });
  });

  describe('the SQL workbench', () => {
    it('runs a read-only query', async () => {
      const result = await api<QueryResult>(app, '/api/query', {
        body: { sql: 'select status, count(*)::int as n from orders group by status order by status' },
      });
      expect(result.columns).toEqual(['status', 'n']);
      expect(result.rows.reduce((sum, row) => sum + (row.n as number), 0)).toBe(
        await source.rows.count('orders'),
      );
    });

    it('one row wider than the result cap is not sent: the result says it was cut', async () => {
      const columns = Array.from({ length: 120 }, (_, index) => `repeat('w', 60000) AS c${index}`).join(', ');
      const response = await raw('/api/query', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ sql: `select ${columns}` }),
      });
      const text = await response.text();
      expect(response.status).toBe(200);
      expect(text.length).toBeLessThan(1024 * 1024);
      expect(JSON.parse(text)).toMatchObject({ rows: [], truncated: true });
    });

    it.each([
      'delete from orders',
      'update orders set status = $$x$$',
      'select 1; delete from orders',
      'with gone as (delete from orders returning *) select count(*) from gone',
      'drop table orders',
      'select pg_sleep(0)',
    ])('refuses %j and changes nothing', async (sql) => {
      const before = await source.rows.count('orders');
      const response = await raw('/api/query', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ sql }),
      });
      expect(response.status).toBe(400);
      const error = await errorOf(response);
      expect(error.message.length).toBeGreaterThan(10);
      expect(error.hint).toBe('The workbench runs one read-only SELECT at a time.');
      // Said for the person at the workbench: no tool names, no "the user reviews".
      expect(error.message).not.toMatch(/stage tools|stageUpdate|the user reviews|explainQuery|sampleValues/);
      expect(await source.rows.count('orders')).toBe(before);
    });

    it('a write is refused with what to do in the app', async () => {
      const error = await errorOf(
        await raw('/api/query', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ sql: 'update orders set note = null' }),
        }),
      );
      expect(error.message).toMatch(
        /^UPDATE is refused: The workbench only reads\. To change data, open the table and edit its rows \(double-click a cell, or select rows and Stage delete\): edits wait in Staging until you commit them\.$/,
      );
    });

    it.each([
      ['select * from ordrs', /Did you mean 'orders'/],
      ['select totl from orders', /Did you mean 'total'/],
      ['select o.statu from orders o', /Did you mean 'status'/],
    ])('a name the database does not know: %j points to the nearest', async (sql, nearest) => {
      const error = await errorOf(
        await raw('/api/query', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ sql }),
        }),
      );
      expect(error.message).toMatch(/^The query failed: .*does not exist/);
      expect(`${error.message} ${error.hint}`).toMatch(nearest);
      expect(`${error.message} ${error.hint}`.match(/Did you mean|Perhaps you meant/g)).toHaveLength(1);
      expect(error.hint).toMatch(
        /\(the table list on the left has every table; a header shows each column\)\.$/,
      );
    });
  });

  describe('staging review', () => {
    it('stages an edit, shows the diff, and commits it only when asked', async () => {
      const before = (await source.rows.get('orders', { id: 5 })) as { status: string };
      const next = before.status === 'cancelled' ? 'paid' : 'cancelled';
      const { ids } = await api<{ ids: string[] }>(app, '/api/staging/update', {
        body: { table: 'public.orders', key: { id: 5 }, values: { status: next } },
      });
      expect(ids).toHaveLength(1);
      expect(((await source.rows.get('orders', { id: 5 })) as { status: string }).status).toBe(before.status);

      const { changes } = await api<{ changes: StagedChange[] }>(app, '/api/staging');
      const change = changes.find((c) => c.id === ids[0]);
      expect(change).toMatchObject({
        kind: 'update',
        table: 'public.orders',
        key: { id: 5 },
        stagedBy: 'user',
      });
      // Each value comes with its column's type, which the review shows it by.
      expect(change?.changes).toEqual([
        { column: 'status', type: 'text', before: before.status, after: next },
      ]);
      expect(await api(app, '/api/staging/check', { body: { ids } })).toEqual({ conflicts: [] });

      const result = await api<{ committed: number; conflicts: unknown[] }>(app, '/api/staging/commit', {
        body: { ids },
      });
      expect(result).toEqual({ committed: 1, conflicts: [] });
      expect(((await source.rows.get('orders', { id: 5 })) as { status: string }).status).toBe(next);
      expect(
        (await api<{ changes: StagedChange[] }>(app, '/api/staging')).changes.find((c) => c.id === ids[0]),
      ).toBeUndefined();
    });

    it('refuses an edit based on a value another writer changed since it was read (no lost update)', async () => {
      const db = sqlDatabaseOf(source);
      await db.query(`update products set price = 200.55 where id = 11`);
      // What the record editor showed, as the API serves it.
      const { row } = await api<{ row: { price: unknown } }>(app, '/api/tables/products/row', {
        body: { key: { id: 11 } },
      });
      await db.query(`update products set price = 250.00 where id = 11`); // the other writer
      const stagedBefore = (await state.staging.list()).length;
      const refused = await raw('/api/staging/update', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          table: 'products',
          key: { id: 11 },
          values: { price: '300.00' },
          seen: { price: row.price },
        }),
      });
      expect(refused.status).toBe(409);
      const error = (await refused.json()) as {
        error: { code: string; message: string; details: { stale: unknown[]; current: { price: unknown } } };
      };
      expect(error.error.code).toBe('staging-conflict');
      expect(error.error.message).toMatch(/'price' is "?250(\.00)?"? now \(it was "?200\.55"? when read\)/);
      expect(error.error.message).toContain('Nothing was staged');
      expect(error.error.details.stale).toEqual([
        { column: 'price', seen: expect.anything(), now: expect.anything() },
      ]);
      expect(Number(error.error.details.current.price)).toBe(250);
      expect((await state.staging.list()).length).toBe(stagedBefore);

      // The person saw the new value and decided: staged against it, and the commit applies it.
      const { ids } = await api<{ ids: string[] }>(app, '/api/staging/update', {
        body: { table: 'products', key: { id: 11 }, values: { price: '300.00' }, seen: { price: '250.00' } },
      });
      const { changes } = await api<{ changes: StagedChange[] }>(app, '/api/staging');
      expect(Number(changes.find((c) => c.id === ids[0])?.changes[0]?.before)).toBe(250);
      // The same value written differently (250 vs 250.00) is no conflict; a delete checks too.
      await api(app, '/api/staging/discard', { body: { ids } });
      await api(app, '/api/staging/update', {
        body: { table: 'products', key: { id: 11 }, values: { stock: 3 }, seen: { price: 250 } },
      });
      const deleteRefused = await raw('/api/staging/delete', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ table: 'products', keys: [{ id: 11 }], seen: [{ price: '200.55' }] }),
      });
      expect(deleteRefused.status).toBe(409);
      await api(app, '/api/staging/discard', { body: {} });
    });

    it('reports a conflict and applies nothing when the row changed after staging', async () => {
      const { ids } = await api<{ ids: string[] }>(app, '/api/staging/update', {
        body: { table: 'orders', key: { id: 6 }, values: { status: 'refunded' } },
      });
      await sqlDatabaseOf(source).query(
        `update orders set status = 'pending' where id = 6 and status <> 'pending'`,
      );
      await sqlDatabaseOf(source).query(
        `update orders set status = 'shipped' where id = 6 and status = 'pending'`,
      );
      // The check before Commit already sees it, with the row as it is now, and writes nothing.
      const checked = await api<{ conflicts: unknown[] }>(app, '/api/staging/check', { body: {} });
      expect(checked.conflicts).toEqual([
        expect.objectContaining({
          id: ids[0],
          changedColumns: ['status'],
          current: expect.objectContaining({ id: 6, status: 'shipped' }),
        }),
      ]);
      const result = await api<{ committed: number; conflicts: { id: string; reason: string }[] }>(
        app,
        '/api/staging/commit',
        { body: { ids } },
      );
      expect(result.committed).toBe(0);
      expect(result.conflicts).toEqual([
        expect.objectContaining({ id: ids[0], reason: expect.stringContaining('changed') }),
      ]);
      expect(((await source.rows.get('orders', { id: 6 })) as { status: string }).status).toBe('shipped');
      expect(await api(app, '/api/staging/discard', { body: { ids } })).toEqual({ discarded: 1 });
    });

    it('stages and discards deletes without touching the table', async () => {
      const count = await source.rows.count('orders');
      const { ids } = await api<{ ids: string[] }>(app, '/api/staging/delete', {
        body: { table: 'orders', keys: [{ id: 7 }, { id: 8 }] },
      });
      expect(ids).toHaveLength(2);
      expect(await source.rows.count('orders')).toBe(count);
      expect(await api(app, '/api/staging/discard', { body: {} })).toMatchObject({ discarded: 2 });
      expect((await api<{ changes: unknown[] }>(app, '/api/staging')).changes).toEqual([]);
    });
  });

  describe('the state routes and tools, for the CLI while the app runs', () => {
    it('lists, diffs, commits and discards as @toolrow/state does, over every profile', async () => {
      await state.staging.stageUpdate('orders', [{ key: { id: 11 }, values: { note: 'from the app' } }], {
        actor: 'user',
        profile: 'default',
      });
      await state.staging.stageUpdate('orders', [{ key: { id: 12 }, values: { note: 'from a client' } }], {
        actor: 'mcp:client',
        profile: 'elsewhere',
      });
      const listed = await api<{
        changes: { id: number; profile: string; values: unknown; createdAt: string }[];
      }>(app, '/api/state/staging/list', { body: {} });
      const local = await state.staging.list({});
      expect(listed.changes).toEqual(JSON.parse(JSON.stringify(local)));
      expect(listed.changes.map((change) => change.profile).sort()).toEqual(['default', 'elsewhere']);
      const one = await api<{ changes: unknown[] }>(app, '/api/state/staging/list', {
        body: { profile: 'elsewhere', table: 'orders' },
      });
      expect(one.changes).toHaveLength(1);
      const diffs = await api<{ diffs: unknown[] }>(app, '/api/state/staging/diff', { body: {} });
      expect(diffs.diffs).toEqual(JSON.parse(JSON.stringify(await state.staging.diff({}))));

      const [first] = local;
      const committed = await api<{ result: { ok: boolean; changeIds: number[] }; writer: string }>(
        app,
        '/api/state/staging/commit',
        { body: { ids: [first!.id] } },
      );
      expect(committed.result).toMatchObject({ ok: true, changeIds: [first!.id] });
      expect(committed.writer).toBe(source.changes!.writer.description);
      expect(await api(app, '/api/state/staging/discard', { body: {} })).toEqual({ discarded: 1 });
      expect(await state.staging.list({})).toEqual([]);

      const unknown = await raw('/api/state/staging/apply', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      expect(unknown.status).toBe(404);
      expect((await errorOf(unknown)).hint).toContain('list, diff, check, commit or discard');
    });

    it('runs a tool as the user, and explains an unknown tool or a bad input', async () => {
      const counted = await api<{ output: { count: number } }>(app, '/api/tools/countRows', {
        body: { input: { table: 'orders' } },
      });
      expect(counted.output.count).toBe(await source.rows.count('orders'));
      const call = (name: string, body: unknown) =>
        raw(`/api/tools/${name}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      const unknown = await call('dropEverything', {});
      expect(unknown.status).toBe(400);
      expect((await errorOf(unknown)).message).toContain("no tool 'dropEverything'");
      const invalid = await call('countRows', { input: { table: 42 } });
      expect(invalid.status).toBe(400);
      expect((await errorOf(invalid)).code).toBe('invalid-input');
      // An export started this way can be waited for: the file is complete when the answer comes.
      const started = await api<{ output: { jobId?: string; id?: string } }>(app, '/api/tools/startExport', {
        body: { input: { table: 'products', format: 'csv' }, waitForExports: true },
      });
      const jobs = await state.exportJobs.list({ limit: 1 });
      expect(jobs[0]?.state).toBe('done');
      expect(JSON.stringify(started.output)).toContain(String(jobs[0]?.id));
    });
  });

  it('lists MCP clients with MCP off (the grants are in the state either way), and a revoke of none is a 404 that says where the ids are', async () => {
    expect(await api(app, '/api/mcp/clients')).toEqual({ clients: [] });
    const none = await api(app, '/api/mcp/clients/nobody/revoke', { body: {} }).catch(
      (error: { status: number; data: { error: { message: string } } }) => error,
    );
    expect(none).toMatchObject({ status: 404 });
  });

  describe('exports', () => {
    it('Cancel stops a running export: the job says cancelled with its rows, and no file is left', async () => {
      const job = await api<ExportJob>(app, '/api/exports', {
        body: { sql: 'SELECT g, md5(g::text) FROM generate_series(1, 1000000) AS g', format: 'csv' },
      });
      const cancelled = await api<ExportJob>(app, `/api/exports/${job.id}/cancel`, { body: {} });
      expect(cancelled.state).toBe('cancelled');
      expect(cancelled.rowsDone).toBeLessThan(1_000_000);
      const stored = await state.exports.status(job.id);
      expect(stored.state).toBe('cancelled');
      expect(existsSync(stored.path)).toBe(false);
      // Cancelling what has settled changes nothing; an unknown id is a 404.
      expect((await api<ExportJob>(app, `/api/exports/${job.id}/cancel`, { body: {} })).state).toBe(
        'cancelled',
      );
      const unknown = await api(app, '/api/exports/nope/cancel', { body: {} }).catch(
        (error: { status: number }) => error,
      );
      expect(unknown).toMatchObject({ status: 404 });
    });

    it('starts an export, reports progress, and serves the finished file', async () => {
      const filter = { combine: 'and', conditions: [{ column: 'status', op: 'eq', value: 'paid' }] };
      const job = await api<ExportJob>(app, '/api/exports', {
        body: { table: 'orders', filter, sort: [], format: 'csv' },
      });
      expect(['queued', 'running', 'done']).toContain(job.state);
      let current = job;
      for (let i = 0; i < 200 && current.state !== 'done' && current.state !== 'failed'; i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        current = await api<ExportJob>(app, `/api/exports/${job.id}`);
      }
      expect(current.state).toBe('done');
      const paid = await source.rows.count('orders', { column: 'status', op: 'eq', value: 'paid' });
      expect(current.rowsDone).toBe(paid);
      const file = await raw(`/api/exports/${job.id}/download`);
      expect(file.status).toBe(200);
      expect(file.headers.get('content-disposition')).toContain('.csv');
      const lines = (await file.text()).trim().split(/\r?\n/);
      expect(lines).toHaveLength(paid + 1);
      expect(lines[0]).toContain('status');
      const { jobs } = await api<{ jobs: ExportJob[] }>(app, '/api/exports');
      expect(jobs.some((other) => other.id === job.id && other.state === 'done')).toBe(true);
    });

    it('exports a read-only query and refuses a write', async () => {
      const job = await api<ExportJob>(app, '/api/exports', {
        body: { sql: 'select id from products', format: 'ndjson' },
      });
      expect(job.id).toBeTruthy();
      const refused = await raw('/api/exports', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ sql: 'delete from products', format: 'csv' }),
      });
      expect(refused.status).toBe(400);
    });
  });

  describe('UI state, chips, audit', () => {
    it('stores the tabs the desktop sends and returns them', async () => {
      const ui: UiState = {
        tabs: [
          {
            id: 'a',
            kind: 'table',
            table: 'public.orders',
            filter: { combine: 'and', conditions: [{ column: 'status', op: 'eq', value: 'paid' }] },
            sort: [{ column: 'id', direction: 'desc' }],
          },
          { id: 'b', kind: 'workbench', sql: 'select 1' },
        ],
        focusedTabId: 'a',
        selection: [{ id: 1 }],
      };
      expect(await api<UiState>(app, '/api/ui-state', { method: 'PUT', body: ui })).toEqual(ui);
      expect(await api<UiState>(app, '/api/ui-state')).toEqual(ui);
      const stored = await state.ui.get('default');
      expect(stored.selection).toEqual({ tabId: 'a', table: 'public.orders', keys: [{ id: 1 }] });
    });

    it('runs a clicked chip as the user, audits it as approved, and refuses tools no chip runs', async () => {
      const result = await api<{ uiState: UiState }>(app, '/api/chips/accept', {
        body: { tool: 'openTable', input: { table: 'customers' } },
      });
      const focused = result.uiState.tabs.find((tab) => tab.id === result.uiState.focusedTabId);
      expect(focused).toMatchObject({ kind: 'table', table: 'public.customers' });
      const [entry] = await state.audit.list({ limit: 1 });
      expect(entry).toMatchObject({ tool: 'openTable', decision: 'approved', decidedBy: 'user' });

      for (const tool of ['stageDeleteRows', 'runQuery', 'proposeOpenTable', 'searchTools']) {
        const refused = await raw('/api/chips/accept', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ tool, input: {} }),
        });
        expect(refused.status, tool).toBe(400);
      }
    });

    it('lists the audit log newest first', async () => {
      const { entries } = await api<{ entries: { tool: string; decision: string }[] }>(
        app,
        '/api/audit?limit=5',
      );
      expect(entries[0]).toMatchObject({ tool: 'openTable', decision: 'approved' });
    });
  });

  describe('chat without a model', () => {
    it('answers with how to set TOOLROW_MODEL, as a UI message stream', async () => {
      const response = await raw('/api/chat', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          id: 'c1',
          messages: [{ id: 'm1', role: 'user', parts: [{ type: 'text', text: 'hi' }] }],
        }),
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toContain('text/event-stream');
      const text = await response.text();
      expect(text).toContain('"type":"text-delta"');
      expect(text).toContain('Pick one in Settings');
      expect(text).toContain('set TOOLROW_MODEL');
      expect(text).toContain('openai-compatible:<base URL>#<model>');
    });
  });

  describe('the guard on a real socket', () => {
    it('refuses a cross-site write and a foreign Host, and nothing is staged', async () => {
      const foreignOrigin = await raw('/api/staging/update', {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: 'http://evil.example' },
        body: JSON.stringify({ table: 'orders', key: { id: 9 }, values: { status: 'paid' } }),
      });
      expect(foreignOrigin.status).toBe(403);
      const simpleRequest = await raw('/api/staging/update', {
        method: 'POST',
        headers: { 'content-type': 'text/plain' },
        body: JSON.stringify({ table: 'orders', key: { id: 9 }, values: { status: 'paid' } }),
      });
      expect(simpleRequest.status).toBe(415);
      const port = new URL(app.url).port;
      const rebinding = await app.server.app.request('/api/tables', {
        headers: { host: `evil.example:${port}` },
      });
      expect(rebinding.status).toBe(403);
      expect(
        (await state.staging.list()).filter((change) => JSON.stringify(change.key) === '{"id":9}'),
      ).toEqual([]);
    });
  });
});
