import { INLINE_TOOLS, TOOL_NAMES } from '@toolrow/catalog';
import { describe, expect, it } from 'vitest';
import { notActiveMessage, refusalMessage, ToolFailure, ToolRefusal, unknownToolMessage } from './refusal.ts';

// Pinned by hand: the exact text, join format and row order the model reads.
const INLINE_LIST =
  'searchTools, listConnections, listTables, describeTable, findColumns, sampleValues, getTableStats, ' +
  'validateQuery, getActiveView, getSelection, listOpenTabs, readAttachment, listQueryHistory, runQuery, ' +
  'getRow, countRows, openTable, proposeOpenTable, openWorkbench, proposeOpenWorkbench, setFilter, ' +
  'proposeSetFilter, openRow, proposeOpenRow, stageInsertRows, stageUpdateRows, stageDeleteRows';

describe('refusals', () => {
  it('names the recovery call and the inline tools, comma-separated in row order', () => {
    expect(notActiveMessage('startExport')).toBe(
      `Tool 'startExport' not in active set. Call searchTools(query='startExport') to discover it, or use one of: ${INLINE_LIST}`,
    );
    expect(INLINE_LIST).toBe(INLINE_TOOLS.join(', '));
  });

  it('gives a name in no row the same shape with the nearest active names', () => {
    const active = [...INLINE_TOOLS];
    expect(unknownToolMessage('runSql', active)).toBe(
      "Tool 'runSql' not in active set. Call searchTools(query='runSql') to discover it, or use one of: runQuery, validateQuery, openWorkbench",
    );
    expect(refusalMessage('exportTable', active)).toMatch(
      /^Tool 'exportTable' not in active set\. Call searchTools\(query='exportTable'\) to discover it, or use one of: [a-zA-Z]+, [a-zA-Z]+, [a-zA-Z]+$/,
    );
  });

  it('uses the known-tool text for every row name and the unknown text otherwise', () => {
    for (const name of TOOL_NAMES) expect(refusalMessage(name, [])).toBe(notActiveMessage(name));
    expect(refusalMessage('dropTable', ['listTables'])).toBe(
      "Tool 'dropTable' not in active set. Call searchTools(query='dropTable') to discover it, or use one of: listTables",
    );
  });

  it('escapes quotes in a name so the suggested call stays well formed', () => {
    expect(unknownToolMessage("a'b", ['getRow'])).toContain("searchTools(query='a\\'b')");
  });

  it('names the nearest active tools first, then fills from the active set so there is always a way on', () => {
    expect(unknownToolMessage('listTable', ['getRow', 'listTables', 'describeTable'])).toMatch(
      /or use one of: listTables, (getRow, describeTable|describeTable, getRow)$/,
    );
    expect(unknownToolMessage('zzzz', ['getRow', 'countRows'])).toMatch(/or use one of: getRow, countRows$/);
  });

  it('prints refusals and failures without an "Error:" prefix, as the SDK sends String(error)', () => {
    expect(String(new ToolRefusal('no'))).toBe('no');
    expect(String(new ToolFailure('table: expected a string'))).toBe('table: expected a string');
  });
});

describe('a former name', () => {
  it('is told the name the row has now, and how to find it when it is not active', () => {
    const renamed = { countOldRows: 'countRows', exportTable: 'startExport' };
    expect(unknownToolMessage('countOldRows', ['countRows'], 3, renamed)).toBe(
      "Tool 'countOldRows' was renamed to 'countRows'. Call countRows instead.",
    );
    expect(unknownToolMessage('exportTable', ['countRows'], 3, renamed)).toBe(
      "Tool 'exportTable' was renamed to 'startExport'. Call startExport instead (searchTools(query='startExport') finds it).",
    );
  });
});
