// UI state: the silent readers and the open tools (which change tabs now). Propose twins reuse
// each open tool's `prepare` and `label` (see propose.ts) and change nothing.
import { randomUUID } from 'node:crypto';
import { filterText } from '@toolrow/catalog';
import type { Filter, RowKey, Sort } from '@toolrow/datasource';
import { normalizeKey } from '@toolrow/datasource-utils';
import type { Tab, UiState } from '@toolrow/state';
import { z } from 'zod';
import { capList, clipText, modelValue } from '../bounds.ts';
import { limitsOf, readOptions, signalOf, type ToolContext } from '../context.ts';
import { defineProposable, defineTool } from '../define.ts';
import { ToolError } from '../errors.ts';
import { checkFilter, checkSort, fromFilter, toFilter } from '../filter-input.ts';
import {
  filterField,
  nullableFilterField,
  nullableSortField,
  rowKey,
  sortSchema,
  tableName,
  textField,
} from '../schemas.ts';

function sortText(sort: readonly Sort[] | undefined): string {
  if (!sort || sort.length === 0) return '';
  return sort.map((entry) => `${entry.column} ${entry.direction ?? 'asc'}`).join(', ');
}

function keyText(key: RowKey): string {
  return Object.entries(key)
    .map(([column, value]) => `${column} ${String(value)}`)
    .join(', ');
}

function newTabId(): string {
  return randomUUID().slice(0, 8);
}

/** A tab as the model reads it. */
function tabSummary(tab: Tab, focusedTabId: string | null, maxChars: number) {
  const base = {
    id: tab.id,
    kind: tab.kind,
    focused: tab.id === focusedTabId,
    ...(tab.title ? { title: tab.title } : {}),
  };
  if (tab.kind === 'table') {
    return {
      ...base,
      table: tab.table,
      // In the form the filter tools take, so the model can send it back changed.
      ...(tab.filter ? { filter: fromFilter(tab.filter), filterText: filterText(tab.filter) } : {}),
      ...(tab.sort && tab.sort.length > 0 ? { sort: tab.sort } : {}),
    };
  }
  if (tab.kind === 'workbench') return { ...base, sql: clipText(tab.sql, maxChars * 4) };
  return { ...base, table: tab.table, key: modelValue(tab.key, maxChars) };
}

async function addTab(
  ctx: ToolContext,
  tab: Tab,
  reuse: (existing: Tab) => boolean,
): Promise<{ state: UiState; tab: Tab; reused: boolean }> {
  const state = await ctx.state.ui.get(ctx.profile);
  const existing = state.tabs.find(reuse);
  if (existing) {
    const next = await ctx.state.ui.update(ctx.profile, { focusedTabId: existing.id });
    return { state: next, tab: existing, reused: true };
  }
  const next = await ctx.state.ui.update(ctx.profile, {
    tabs: [...state.tabs, tab],
    focusedTabId: tab.id,
  });
  return { state: next, tab, reused: false };
}

// App state stores views as jsonb, which reorders object keys: compare with sorted keys.
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([, inner]) => inner !== undefined)
        .sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0))
        .map(([key, inner]) => [key, canonical(inner)]),
    );
  }
  return value;
}

const sameJson = (left: unknown, right: unknown) =>
  JSON.stringify(canonical(left ?? null)) === JSON.stringify(canonical(right ?? null));

// ── Silent readers ───────────────────────────────────────────────────────────────────────────

export const getActiveView = defineTool({
  inputSchema: z.strictObject({}),
  async execute(_input, ctx) {
    const state = await ctx.state.ui.get(ctx.profile);
    const tab = state.tabs.find((candidate) => candidate.id === state.focusedTabId);
    if (!tab) {
      return {
        focused: null,
        openTabs: state.tabs.length,
        note: 'No tab is focused: the user is not looking at a table right now.',
      };
    }
    return {
      focused: tabSummary(tab, state.focusedTabId, limitsOf(ctx).maxValueChars),
      openTabs: state.tabs.length,
    };
  },
});

export const getSelection = defineTool({
  inputSchema: z.strictObject({}),
  async execute(_input, ctx) {
    const state = await ctx.state.ui.get(ctx.profile);
    const selection = state.selection;
    if (!selection || selection.keys.length === 0) {
      return { table: null, keys: [], count: 0, truncated: false, note: 'The user has no rows selected.' };
    }
    const limits = limitsOf(ctx);
    const { items, truncated } = capList(selection.keys, limits.maxRows);
    return {
      table: selection.table,
      tabId: selection.tabId,
      keys: items.map((key) => modelValue(key, limits.maxValueChars)),
      count: selection.keys.length,
      truncated,
    };
  },
});

export const listOpenTabs = defineTool({
  inputSchema: z.strictObject({}),
  async execute(_input, ctx) {
    const state = await ctx.state.ui.get(ctx.profile);
    const maxChars = limitsOf(ctx).maxValueChars;
    return {
      tabs: state.tabs.map((tab) => tabSummary(tab, state.focusedTabId, maxChars)),
      focusedTabId: state.focusedTabId,
    };
  },
});

// ── Open tools ───────────────────────────────────────────────────────────────────────────────

const tableViewInput = z.strictObject({
  table: tableName,
  filter: filterField().optional(),
  sort: sortSchema.optional(),
});

async function prepareTableView(input: z.output<typeof tableViewInput>, ctx: ToolContext) {
  const table = await ctx.source.schema.resolveTable(input.table);
  checkFilter('openTable', table, input.filter, 'filter', ctx.source.rows.checkValue);
  checkSort('openTable', table, input.sort);
  return { ...input, table: table.qualifiedName };
}

export const openTable = defineProposable({
  inputSchema: tableViewInput,
  prepare: prepareTableView,
  label(input) {
    const filter = filterText(toFilter(input.filter));
    const sort = sortText(input.sort);
    return `Open ${input.table}${filter ? ` where ${filter}` : ''}${sort ? `, sorted by ${sort}` : ''}`;
  },
  async execute(raw, ctx) {
    const input = await prepareTableView(raw, ctx);
    const filter = toFilter(input.filter);
    const sort = input.sort && input.sort.length > 0 ? input.sort : undefined;
    const tab: Tab = {
      id: newTabId(),
      kind: 'table',
      table: input.table,
      ...(filter ? { filter } : {}),
      ...(sort ? { sort } : {}),
    };
    const result = await addTab(
      ctx,
      tab,
      (existing) =>
        existing.kind === 'table' &&
        existing.table === input.table &&
        sameJson(existing.filter, filter) &&
        sameJson(existing.sort, sort),
    );
    return {
      opened: result.tab.id,
      reusedExistingTab: result.reused,
      tab: tabSummary(result.tab, result.state.focusedTabId, limitsOf(ctx).maxValueChars),
      openTabs: result.state.tabs.length,
    };
  },
});

const workbenchInput = z.strictObject({
  sql: textField(20_000).describe('The SQL to prefill; the user edits and runs it.'),
  title: textField(80).optional().describe('Tab title (default: "SQL").'),
});

async function prepareWorkbench(input: z.output<typeof workbenchInput>) {
  return { ...input, sql: input.sql.trim() };
}

export const openWorkbench = defineProposable({
  inputSchema: workbenchInput,
  prepare: prepareWorkbench,
  label(input) {
    return `Open the SQL workbench${input.title ? ` "${input.title}"` : ''} with: ${clipText(input.sql.replace(/\s+/g, ' '), 60)}`;
  },
  async execute(raw, ctx) {
    const input = await prepareWorkbench(raw);
    const tab: Tab = {
      id: newTabId(),
      kind: 'workbench',
      sql: input.sql,
      ...(input.title ? { title: input.title } : {}),
    };
    const result = await addTab(ctx, tab, () => false);
    return {
      opened: result.tab.id,
      tab: tabSummary(result.tab, result.state.focusedTabId, limitsOf(ctx).maxValueChars),
      openTabs: result.state.tabs.length,
      note: 'The workbench is open with the SQL; nothing ran. The user runs it.',
    };
  },
});

const setFilterInput = z.strictObject({
  table: tableName
    .optional()
    .describe('Table to filter (default: the focused table tab); opens a tab for it if none is open.'),
  filter: nullableFilterField(
    'New filter (null clears it, omit keeps it): rows must match every item',
  ).optional(),
  sort: nullableSortField('New sort keys (null clears them, omit keeps them)').optional(),
});

async function targetTableTab(
  ctx: ToolContext,
  table: string | undefined,
): Promise<{ state: UiState; tab: Tab | undefined }> {
  const state = await ctx.state.ui.get(ctx.profile);
  const focused = state.tabs.find((tab) => tab.id === state.focusedTabId);
  if (table === undefined) return { state, tab: focused?.kind === 'table' ? focused : undefined };
  if (focused?.kind === 'table' && focused.table === table) return { state, tab: focused };
  return { state, tab: state.tabs.find((tab) => tab.kind === 'table' && tab.table === table) };
}

async function prepareSetFilter(input: z.output<typeof setFilterInput>, ctx: ToolContext) {
  let name = input.table;
  if (name === undefined) {
    const { tab } = await targetTableTab(ctx, undefined);
    if (tab?.kind !== 'table') {
      throw new ToolError(
        'failed',
        'setFilter',
        'No table tab is focused, so there is no view to filter. Give `table` (the filter then opens it), or open the table first.',
      );
    }
    name = tab.table;
  }
  const table = await ctx.source.schema.resolveTable(name);
  checkFilter('setFilter', table, input.filter, 'filter', ctx.source.rows.checkValue);
  checkSort('setFilter', table, input.sort);
  return { ...input, table: table.qualifiedName };
}

export const setFilter = defineProposable({
  inputSchema: setFilterInput,
  prepare: prepareSetFilter,
  label(input) {
    const parts = [
      input.filter === null || input.filter?.length === 0
        ? 'clear the filter'
        : input.filter
          ? `filter ${filterText(toFilter(input.filter))}`
          : '',
      input.sort === null ? 'clear the sort' : input.sort ? `sort by ${sortText(input.sort)}` : '',
    ].filter(Boolean);
    return `${input.table}: ${parts.join('; ') || 'keep the view as it is'}`;
  },
  async execute(raw, ctx) {
    const input = await prepareSetFilter(raw, ctx);
    const table = input.table as string;
    const { state, tab } = await targetTableTab(ctx, table);
    const current = tab?.kind === 'table' ? tab : undefined;
    const filter = input.filter === undefined ? current?.filter : toFilter(input.filter);
    const sort = input.sort === undefined ? current?.sort : (input.sort ?? undefined);
    const next: Tab = {
      id: current?.id ?? newTabId(),
      kind: 'table',
      table,
      ...(current?.title ? { title: current.title } : {}),
      ...(filter ? { filter } : {}),
      ...(sort && sort.length > 0 ? { sort } : {}),
    };
    const tabs = current
      ? state.tabs.map((existing) => (existing.id === current.id ? next : existing))
      : [...state.tabs, next];
    const updated = await ctx.state.ui.update(ctx.profile, { tabs, focusedTabId: next.id });
    return {
      tab: tabSummary(next, updated.focusedTabId, limitsOf(ctx).maxValueChars),
      openedNewTab: !current,
    };
  },
});

const openRowInput = z.strictObject({ table: tableName, key: rowKey });

async function prepareOpenRow(input: z.output<typeof openRowInput>, ctx: ToolContext) {
  const table = await ctx.source.schema.resolveTable(input.table);
  return {
    table: table.qualifiedName,
    key: normalizeKey(table, input.key, ctx.source.rows.checkValue) as Record<
      string,
      string | number | boolean | null
    >,
  };
}

export const openRow = defineProposable({
  inputSchema: openRowInput,
  prepare: prepareOpenRow,
  label(input) {
    return `Open ${input.table} record ${keyText(input.key as RowKey)}`;
  },
  async execute(raw, ctx) {
    const input = await prepareOpenRow(raw, ctx);
    const key = input.key as RowKey;
    const row = await ctx.source.rows.get(input.table, key, readOptions(ctx));
    if (row === undefined) {
      throw new ToolError(
        'not-found',
        'openRow',
        `No row in ${input.table} with ${keyText(key)}; nothing was opened. Check the key.`,
      );
    }
    const tab: Tab = { id: newTabId(), kind: 'row', table: input.table, key };
    const result = await addTab(
      ctx,
      tab,
      (existing) => existing.kind === 'row' && existing.table === input.table && sameJson(existing.key, key),
    );
    return {
      opened: result.tab.id,
      reusedExistingTab: result.reused,
      tab: tabSummary(result.tab, result.state.focusedTabId, limitsOf(ctx).maxValueChars),
    };
  },
});
