// A tool call whose signal fires (the user stopped the turn, the MCP client cancelled) stops its
// table read and fails with ToolError 'aborted', on the real engines. The runaway statement never
// ends by itself: a test that finishes was stopped by the abort.
import type { DataSource } from '@toolrow/datasource';
import { sqlDatabaseOf } from '@toolrow/postgres';
import type { Toolrow, ToolrowState } from '@toolrow/state';
import { pgliteOnDiskStores, testStores } from '@toolrow/state/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isToolError, type ToolError } from '../errors.ts';
import { invokeTool } from '../registry.ts';
import { contextFor, dataFingerprint } from '../test-fixtures.ts';

const RUNAWAY =
  'SELECT count(*) AS n FROM generate_series(1, 3000) a, generate_series(1, 3000) b, generate_series(1, 3000) c';
const ABORTED = /^The query was cancelled because the request was aborted/;

async function toolFailure(run: Promise<unknown>): Promise<ToolError> {
  const error = await run.then(
    () => new Error('the call succeeded'),
    (caught: unknown) => caught,
  );
  expect(isToolError(error), String(error)).toBe(true);
  return error as ToolError;
}

const stoppable = [...testStores().filter((engine) => engine.name === 'postgres'), pgliteOnDiskStores];

describe.each(stoppable)('runQuery aborted mid-flight on $name', ({ name, open }) => {
  let toolrow: Toolrow;
  let source: DataSource;
  let state: ToolrowState;
  beforeAll(async () => {
    toolrow = await open({ seed: { orders: 40 } });
    ({ source, state } = toolrow);
  });
  afterAll(() => toolrow?.close());

  const activeStatements = async (like = '%') =>
    (
      await sqlDatabaseOf(source).query(
        `SELECT pid FROM pg_stat_activity
          WHERE state = 'active' AND datname = current_database() AND pid <> pg_backend_pid() AND query LIKE $1`,
        [like],
      )
    ).rows.length;

  it('stops the running statement, says so (not "failed"), records it in the history; the next call works', async () => {
    const before = await dataFingerprint(source);
    const controller = new AbortController();
    // A timeout far beyond the abort: only the abort can end this call in time.
    const ctx = contextFor(toolrow, { signal: controller.signal, limits: { statementTimeoutMs: 45_000 } });
    const call = toolFailure(invokeTool('runQuery', { sql: RUNAWAY }, ctx));
    if (name === 'postgres') await expect.poll(() => activeStatements('FETCH FORWARD%')).toBe(1);
    else await new Promise((resolve) => setTimeout(resolve, 500));
    controller.abort();
    const error = await call;
    expect(error.code).toBe('aborted');
    expect(error.tool).toBe('runQuery');
    expect(error.message).toMatch(ABORTED);
    if (name === 'postgres') expect(await activeStatements()).toBe(0);
    const [entry] = await state.history.list({ limit: 1, profile: 'default' });
    expect(entry).toMatchObject({ sql: RUNAWAY, rowCount: null, error: expect.stringMatching(ABORTED) });

    const after = await invokeTool(
      'runQuery',
      { sql: 'SELECT count(*)::int AS n FROM orders' },
      contextFor(toolrow, { signal: new AbortController().signal }),
    );
    expect(after.rows).toEqual([{ n: 40 }]);
    expect(await dataFingerprint(source)).toEqual(before);
  });
});

describe.each(testStores())('tool reads aborted after the call started on $name', ({ open }) => {
  let toolrow: Toolrow;
  let source: DataSource;
  let state: ToolrowState;
  beforeAll(async () => {
    toolrow = await open({ seed: { orders: 30 } });
    ({ source, state } = toolrow);
  });
  afterAll(() => toolrow?.close());

  // Each reads table data; aborted once the call is under way, the read is never sent.
  const calls: [string, Record<string, unknown>][] = [
    ['runQuery', { sql: 'SELECT * FROM orders' }],
    ['countRows', { table: 'orders', filter: [{ column: 'status', op: 'eq', value: 'paid' }] }],
    ['getRow', { table: 'orders', key: 1 }],
    ['explainQuery', { sql: 'SELECT * FROM orders' }],
    ['validateQuery', { sql: 'SELECT * FROM orders' }],
    ['openRow', { table: 'orders', key: 1 }],
    ['startExport', { table: 'orders', format: 'csv' }],
  ];

  it.each(calls)('%s fails with code aborted and changes nothing', async (tool, input) => {
    const jobs = (await state.exportJobs.list()).length;
    const tabs = (await state.ui.get('default')).tabs.length;
    const controller = new AbortController();
    const call = toolFailure(invokeTool(tool, input, contextFor(toolrow, { signal: controller.signal })));
    controller.abort();
    const error = await call;
    expect(error.code).toBe('aborted');
    expect(error.tool).toBe(tool);
    expect(error.message).toMatch(/cancelled/);
    expect((await state.exportJobs.list()).length).toBe(jobs);
    expect((await state.ui.get('default')).tabs.length).toBe(tabs);
  });

  it('a call that finished keeps its result when its signal fires afterwards', async () => {
    const controller = new AbortController();
    const ctx = contextFor(toolrow, { signal: controller.signal });
    const count = await invokeTool('countRows', { table: 'orders' }, ctx);
    const row = await invokeTool('getRow', { table: 'orders', key: 3 }, ctx);
    controller.abort();
    expect(count.count).toBe(30);
    expect(row.row).toMatchObject({ id: 3 });
    expect((await invokeTool('countRows', { table: 'orders' }, contextFor(toolrow))).count).toBe(30);
  });
});
