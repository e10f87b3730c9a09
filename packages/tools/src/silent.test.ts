// Silent tools run without asking, so they must read only the schema cache and app state: never
// table data, never a write. Each runs here over a data source whose table-reading and writing
// parts throw; the data is reached only through capabilities, and a plan (queries.plan) is all a silent tool gets.
import { exampleOf, SILENT_TOOLS, type SilentToolName } from '@toolrow/catalog';
import type { DataSource } from '@toolrow/datasource';
import { sqlDatabaseOf } from '@toolrow/postgres';
import type { Toolrow, ToolrowState } from '@toolrow/state';
import { testStores } from '@toolrow/state/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invokeTool, parseToolInput } from './registry.ts';
import { contextFor } from './test-fixtures.ts';

function forbidden(part: string): never {
  throw new Error(`a silent tool reached ${part}`);
}

function onlyMethods<T extends object>(target: T, part: string, allowed: readonly string[]): T {
  return new Proxy(target, {
    get(object, property, receiver) {
      const value = Reflect.get(object, property, receiver);
      if (typeof value !== 'function') return value;
      if (!allowed.includes(String(property))) return () => forbidden(`${part}.${String(property)}`);
      return value.bind(object);
    },
  });
}

/** The user's data and Toolrow's state as a silent tool may see them: plans, never a run. */
function silentView({ source, state }: Toolrow): { source: DataSource; state: ToolrowState } {
  const data: DataSource = {
    ...source,
    // No driver handle at all: a silent tool reaches the data through capabilities only.
    ...{ db: onlyMethods(sqlDatabaseOf(source), 'db', []) },
    queries: onlyMethods(source.queries, 'queries', ['plan', 'check']),
    rows: onlyMethods(source.rows, 'rows', []),
    changes: onlyMethods(source.changes!, 'changes', []),
    seed: () => forbidden('seed'),
    close: source.close.bind(source),
  };
  return {
    source: data,
    state: {
      ...state,
      staging: onlyMethods(state.staging, 'staging', ['list', 'diff']),
      exports: onlyMethods(state.exports, 'exports', ['status', 'resolvePath']),
    },
  };
}

describe.each(testStores())('silent tools on $name', ({ open }) => {
  let ds: Toolrow;
  let exportId = '';

  beforeAll(async () => {
    ds = await open({ seed: { orders: 60 } });
    await ds.source.schema.get();
    // Something for every reader to find.
    await ds.state.attachments.add({
      profile: 'silent',
      name: 'notes.txt',
      mediaType: 'text/plain',
      content: 'a\nb',
    });
    await ds.state.specs.save({ name: 'all orders', kind: 'query', spec: { sql: 'select * from orders' } });
    await ds.state.staging.stageUpdate('orders', [{ key: 1, values: { note: 'x' } }], {
      actor: 'agent',
      profile: 'silent',
    });
    await ds.state.audit.record({
      tool: 'runQuery',
      input: {},
      decision: 'auto',
      decidedBy: 'agent',
      profile: 'silent',
    });
    await ds.state.history.add({
      profile: 'silent',
      actor: 'agent',
      sql: 'select 1',
      rowCount: 1,
      durationMs: 1,
      error: null,
    });
    const job = await ds.state.exports.start({
      source: { table: 'customers' },
      format: 'csv',
      actor: 'user',
    });
    await ds.state.exports.idle();
    exportId = job.id;
    const tab = { id: 't1', kind: 'table' as const, table: 'public.orders' };
    await ds.state.ui.update('silent', {
      tabs: [tab],
      focusedTabId: 't1',
      selection: { tabId: 't1', table: 'public.orders', keys: [{ id: 1 }] },
    });
  }, 120_000);
  afterAll(async () => {
    await ds?.close();
  });

  // Each row's example on the sample shop, but where this fixture made something of its own: a
  // new silent row is checked here without an edit.
  const inputs = (): Partial<Record<SilentToolName, unknown>> => ({
    ...Object.fromEntries(SILENT_TOOLS.map((name) => [name, exampleOf(name)])),
    readAttachment: { name: 'notes.txt' },
    getSavedSpec: { name: 'all orders' },
    getExportStatus: { id: exportId },
  });

  it('has an input for every silent row, and names only silent rows', () => {
    for (const name of Object.keys(inputs())) expect(SILENT_TOOLS).toContain(name);
    for (const name of SILENT_TOOLS)
      expect(() => parseToolInput(name, inputs()[name]), `${name}: give its row an example`).not.toThrow();
  });

  it.each([...SILENT_TOOLS])('%s reads only the schema cache and app state', async (name) => {
    const ctx = contextFor(silentView(ds), { profile: 'silent' });
    const output = await invokeTool(name, inputs()[name] ?? {}, ctx);
    expect(output).toBeTypeOf('object');
  });

  it('the view itself refuses table reads and writes (the test above could fail)', async () => {
    const view = silentView(ds);
    const ctx = contextFor(view, { profile: 'silent' });
    await expect(invokeTool('countRows', { table: 'orders' }, ctx)).rejects.toThrow(
      /silent tool reached rows\.count/,
    );
    await expect(invokeTool('runQuery', { sql: 'select 1' }, ctx)).rejects.toThrow(
      /silent tool reached queries\.run/,
    );
    // No driver handle: even a plan goes through queries.plan, never the database itself.
    expect(() => sqlDatabaseOf(view.source).readOnly((tx) => tx.query('explain analyze select 1'))).toThrow(
      /silent tool reached db\.readOnly/,
    );
  });
});
