// A small real table, valid inputs for every tool, and a snapshot of everything a tool can change,
// for the real-database suites (toolrow.test.ts here, mcp.test.ts in apps/cli).
import { existsSync } from 'node:fs';
import { exampleOf, TOOL_NAMES, type ToolName } from '@toolrow/catalog';
import { DEFAULT_PROFILE, featureOf } from '@toolrow/datasource';
import { sqlDatabaseOf } from '@toolrow/postgres';
import type { Toolrow } from '@toolrow/state';
import { expect } from 'vitest';
import type { McpApprovals } from '../src/approvals.ts';
import type { FairShare } from '../src/fair-share.ts';
import type { McpScope } from '../src/generated/mcp-scopes.ts';
import { createMcpHttpHandler, type RunningMcpHttp, serveMcpHttp } from '../src/http.ts';
import { createToken } from '../src/tokens.ts';
import { createToolrowBackend } from '../src/toolrow-backend.ts';

export const WIDGETS = 'widgets';

export async function createWidgets({ source, state }: Toolrow): Promise<void> {
  // The sample shop beside it (small): the rows' examples run on it, so a new row needs no entry here.
  if (!(await source.schema.get()).tables.some((table) => table.name === 'orders'))
    await featureOf(source, 'seed')({ orders: 20 });
  await sqlDatabaseOf(source).exec(`
    CREATE TABLE public.${WIDGETS} (id integer PRIMARY KEY, name text NOT NULL, qty integer NOT NULL);
    INSERT INTO public.${WIDGETS} VALUES (1, 'bolt', 10), (2, 'nut', 20), (3, 'gear', 3);
    ANALYZE public.${WIDGETS};
  `);
  await state.specs.save({ name: 'big-widgets', kind: 'view', spec: { table: WIDGETS } });
  await source.schema.refresh();
}

/**
 * One valid input per tool: over the widgets table where a suite checks what a call changed there,
 * else the row's own example on the sample shop (so a new row needs no entry here).
 */
export function validInputs(exportId: string): Partial<Record<ToolName, unknown>> {
  return {
    ...Object.fromEntries(TOOL_NAMES.map((name) => [name, exampleOf(name)])),
    ...widgetInputs(exportId),
  };
}

function widgetInputs(exportId: string): Partial<Record<ToolName, unknown>> {
  const view = { table: WIDGETS, filter: { column: 'qty', op: 'gt', value: 5 } };
  // Not the view openTable opens, so setting it changes something.
  const narrower = {
    table: WIDGETS,
    filter: { column: 'qty', op: 'lt', value: 15 },
    sort: [{ column: 'name' }],
  };
  return {
    searchTools: { query: 'export csv' },
    listConnections: {},
    listTables: {},
    describeTable: { table: WIDGETS },
    findColumns: { text: 'qty' },
    sampleValues: { table: WIDGETS, column: 'name' },
    getTableStats: { table: WIDGETS },
    validateQuery: { sql: `SELECT id, name FROM ${WIDGETS}` },
    getActiveView: {},
    getSelection: {},
    listOpenTabs: {},
    readAttachment: { name: 'notes.txt' },
    listQueryHistory: {},
    explainQuery: { sql: `SELECT * FROM ${WIDGETS} WHERE qty > 1` },
    getIndexStats: { table: WIDGETS },
    describeRelations: { table: WIDGETS },
    listSavedSpecs: {},
    getSavedSpec: { name: 'big-widgets' },
    listStagedChanges: {},
    diffStagedChanges: {},
    getExportStatus: { id: exportId },
    listAuditLog: {},
    runQuery: { sql: `SELECT sum(qty) AS total FROM ${WIDGETS}` },
    getRow: { table: WIDGETS, key: { id: 1 } },
    countRows: { table: WIDGETS },
    openTable: view,
    proposeOpenTable: view,
    openWorkbench: { sql: `SELECT * FROM ${WIDGETS}` },
    proposeOpenWorkbench: { sql: `SELECT * FROM ${WIDGETS}` },
    setFilter: narrower,
    proposeSetFilter: narrower,
    openRow: { table: WIDGETS, key: { id: 2 } },
    proposeOpenRow: { table: WIDGETS, key: { id: 2 } },
    startExport: { table: WIDGETS, format: 'csv' },
    proposeExport: { table: WIDGETS, format: 'csv' },
    stageInsertRows: { table: WIDGETS, rows: [{ id: 100, name: 'spring', qty: 5 }] },
    stageUpdateRows: { table: WIDGETS, updates: [{ key: { id: 1 }, values: { qty: 11 } }] },
    stageDeleteRows: { table: WIDGETS, keys: [{ id: 3 }] },
  };
}

/** Everything a tool call could change, apart from the audit log (compared on its own). */
export async function stateOf({ source, state }: Toolrow) {
  const [table, staged, ui, exportsJobs, history] = await Promise.all([
    sqlDatabaseOf(source).query(`SELECT id, name, qty FROM public.${WIDGETS} ORDER BY id`),
    state.staging.list(),
    state.ui.get(DEFAULT_PROFILE),
    state.exportJobs.list(),
    state.history.list(),
  ]);
  return {
    table: table.rows,
    staged: staged.map((change) => change.id),
    tabs: ui.tabs,
    focusedTabId: ui.focusedTabId,
    exports: exportsJobs.map((job) => job.id),
    history: history.map((entry) => entry.id),
  };
}

export async function auditOf({ state }: Toolrow) {
  return (await state.audit.list({ limit: 10_000 })).map((entry) => ({
    tool: entry.tool,
    decision: entry.decision,
    decidedBy: entry.decidedBy,
    id: entry.id,
  }));
}

/** The MCP endpoint over the real tools and state of `toolrow`, on a free port of 127.0.0.1. */
export function serveToolrowMcp(
  toolrow: Toolrow,
  options: { fairShare?: FairShare; approvals?: McpApprovals; scopeCeiling?: McpScope } = {},
): Promise<RunningMcpHttp> {
  return serveMcpHttp(
    createMcpHttpHandler({
      backend: createToolrowBackend({
        source: toolrow.source,
        state: toolrow.state,
        ...(options.fairShare ? { fairShare: options.fairShare } : {}),
      }),
      tokens: toolrow.state.tokens,
      ...(options.approvals ? { approvals: options.approvals } : {}),
      ...(options.scopeCeiling ? { scopeCeiling: options.scopeCeiling } : {}),
    }),
    0,
  );
}

/** A million rows: far more than an export writes before a test stops it. */
export const MILLION_ROWS = `SELECT g AS id, md5(g::text) AS pad FROM generate_series(1, 1000000) AS g`;

// Ten million rows, streamed (a join of two small series, never materialised whole): a task's
// cancel arrives on the client's next poll (every 500 ms), after which a fast PostgreSQL server
// may already have written a million.
export const TEN_MILLION_ROWS = `SELECT g * 10000 + h AS id, md5(h::text) AS pad
  FROM generate_series(0, 999) AS g, generate_series(1, 10000) AS h`;

/** A cancelled task's export stops (the engine stops between batches), says so, and removes its file. */
export async function expectExportCancelled({ state }: Toolrow, jobId: string): Promise<void> {
  await expect
    .poll(async () => (await state.exports.status(jobId)).state, { timeout: 30_000 })
    .toBe('cancelled');
  const job = await state.exports.status(jobId);
  expect(job.rowsDone).toBeLessThan(10_000_000);
  await state.exports.idle();
  expect(existsSync(job.path)).toBe(false);
}

/**
 * The export suites' set-up: Toolrow in Full Auto (every export runs), served over HTTP, and a
 * tables:full token per name. `close` stops both.
 */
export async function serveExporters<Name extends string>(
  open: () => Promise<Toolrow>,
  names: readonly Name[],
): Promise<{
  toolrow: Toolrow;
  server: RunningMcpHttp;
  tokens: Record<Name, string>;
  close(): Promise<void>;
}> {
  const toolrow = await open();
  await toolrow.state.profiles.setMode(DEFAULT_PROFILE, 'full-auto');
  const server = await serveToolrowMcp(toolrow);
  const tokens = {} as Record<Name, string>;
  for (const name of names)
    tokens[name] = (await createToken(toolrow.state.tokens, { scope: 'tables:full', name })).token;
  return {
    toolrow,
    server,
    tokens,
    async close() {
      await server.close();
      await toolrow.close();
    },
  };
}
