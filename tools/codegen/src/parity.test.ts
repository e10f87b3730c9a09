// The committed generated modules, loaded as code, against the rows loaded as code: every row
// lands in exactly the derived sets its fields say, and the counts from the seed hold.
import * as catalog from '@toolrow/catalog';
import { TOOL_ROWS, type ToolRow } from '@toolrow/declarations';
import { describe, expect, it } from 'vitest';
import * as mcp from '../../../packages/mcp-server/src/generated/mcp-scopes.ts';
import * as writes from '../../../packages/tools/src/generated/write-scopes.ts';

const rows: readonly ToolRow[] = TOOL_ROWS;
const has = (list: readonly string[], name: string) => list.includes(name);
const LEVEL = { readonly: 0, staged: 1, full: 2 } as const;

// The one test that pins counts: the seed catalog's 38 rows must keep the tiers, visibility and
// MCP exposure the seed gave them. Counted over the seed's rows only, so a new row passes (every
// other test derives its numbers from @toolrow/catalog) and a flipped seed row fails here alone.
const SEED_ROWS = [
  'searchTools',
  'listConnections',
  'listTables',
  'describeTable',
  'findColumns',
  'sampleValues',
  'getTableStats',
  'validateQuery',
  'getActiveView',
  'getSelection',
  'listOpenTabs',
  'readAttachment',
  'listQueryHistory',
  'explainQuery',
  'getIndexStats',
  'describeRelations',
  'listSavedSpecs',
  'getSavedSpec',
  'listStagedChanges',
  'diffStagedChanges',
  'getExportStatus',
  'listAuditLog',
  'runQuery',
  'getRow',
  'countRows',
  'openTable',
  'proposeOpenTable',
  'openWorkbench',
  'proposeOpenWorkbench',
  'setFilter',
  'proposeSetFilter',
  'openRow',
  'proposeOpenRow',
  'startExport',
  'proposeExport',
  'stageInsertRows',
  'stageUpdateRows',
  'stageDeleteRows',
] as const;

describe('conformance to the seed catalog', () => {
  const seed = (list: readonly string[]) =>
    list.filter((name) => (SEED_ROWS as readonly string[]).includes(name));

  it('keeps every seed row, in the seed order', () => {
    expect(seed(catalog.TOOL_NAMES)).toEqual([...SEED_ROWS]);
  });

  it.each([
    ['rows', seed(catalog.TOOL_NAMES).length, 38],
    ['inline', seed(catalog.INLINE_TOOLS).length, 27],
    ['discoverable', seed(catalog.DISCOVERABLE_TOOLS).length, 11],
    ['silent', seed(catalog.SILENT_TOOLS).length, 21],
    ['gated', seed(catalog.GATED_TOOLS).length, 16],
    ['loop', seed(catalog.LOOP_TOOLS).length, 1],
    ['immediate/propose pairs', seed(Object.keys(catalog.PROPOSE_TWINS)).length, 5],
    ['MCP-excluded', seed(mcp.MCP_EXCLUDED_TOOLS).length, 3],
    ['listed by tables:readonly', seed(mcp.MCP_SCOPE_TOOLS['tables:readonly']).length, 22],
    ['listed by tables:staged', seed(mcp.MCP_SCOPE_TOOLS['tables:staged']).length, 30],
    ['listed by tables:full', seed(mcp.MCP_SCOPE_TOOLS['tables:full']).length, 35],
  ])('%s: %i', (_what, actual, expected) => {
    expect(actual).toBe(expected);
  });

  it('searchTools is the one loop tool', () => {
    expect(catalog.LOOP_TOOLS).toEqual(['searchTools']);
  });
});

describe.each(rows.map((row) => [row.name, row] as const))('%s', (name, row) => {
  it('is named in row order', () => {
    expect(catalog.TOOL_NAMES.indexOf(name as catalog.ToolName)).toBe(rows.indexOf(row));
  });

  it('is in exactly one tier set, the one its row names', () => {
    expect({
      silent: has(catalog.SILENT_TOOLS, name),
      gated: has(catalog.GATED_TOOLS, name),
      loop: has(catalog.LOOP_TOOLS, name),
    }).toEqual({ silent: row.tier === 'silent', gated: row.tier === 'gated', loop: row.tier === 'loop' });
  });

  it('is inline or discoverable as its row says', () => {
    expect(has(catalog.INLINE_TOOLS, name)).toBe(row.visibility === 'inline');
    expect(has(catalog.DISCOVERABLE_TOOLS, name)).toBe(row.visibility === 'discoverable');
  });

  it('has its access class and twin', () => {
    expect((catalog.TOOL_ACCESS as Record<string, string>)[name]).toBe(row.access);
    expect((catalog.PROPOSE_TWINS as Record<string, string>)[name]).toBe(row.twin);
  });

  it('is listed by exactly the MCP scopes that cover its exposure', () => {
    for (const scope of mcp.MCP_SCOPES) {
      const level = scope.replace('tables:', '') as keyof typeof LEVEL;
      const covered = row.mcp !== 'excluded' && LEVEL[row.mcp] <= LEVEL[level];
      expect(has(mcp.MCP_SCOPE_TOOLS[scope], name), scope).toBe(covered);
    }
    expect(has(mcp.MCP_EXCLUDED_TOOLS, name)).toBe(row.mcp === 'excluded');
    expect((mcp.MCP_REQUIRED_SCOPE as Record<string, string>)[name]).toBe(
      row.mcp === 'excluded' ? undefined : `tables:${row.mcp}`,
    );
  });

  it('is in the write scope its row names', () => {
    for (const scope of ['ui', 'staging', 'files'] as const) {
      expect(has(writes.WRITE_SCOPE_TOOLS[scope], name), scope).toBe(row.writes === scope);
    }
    expect(has(writes.READ_ONLY_TOOLS, name)).toBe(row.writes === 'none');
  });

  it('agrees with the catalog helpers', () => {
    expect(catalog.isToolName(name)).toBe(true);
    expect(catalog.rowOf(name as catalog.ToolName)).toBe(row);
    expect(catalog.accessOf(name as catalog.ToolName)).toBe(row.access);
    expect(catalog.isGated(name)).toBe(row.tier === 'gated');
    expect(catalog.isPropose(name)).toBe(row.access === 'propose');
    if (row.twin) expect(catalog.proposeVariantOf(row.twin as catalog.ToolName)).toBe(name);
  });
});

it('isToolName refuses names in no row', () => {
  expect(catalog.isToolName('dropTable')).toBe(false);
  expect(catalog.isToolName('toString')).toBe(false);
  expect(catalog.isPropose('toString')).toBe(false);
});
