import { CATALOG_ROWS, type CatalogRow } from '@toolrow/catalog';
import { describe, expect, it } from 'vitest';
import {
  MCP_EXCLUDED_TOOLS,
  MCP_REQUIRED_SCOPE,
  MCP_SCOPE_TOOLS,
  MCP_SCOPES,
  type McpScope,
} from './generated/mcp-scopes.ts';
import {
  impliedScopes,
  isMcpToolName,
  parseScope,
  refusalFor,
  scopeCovers,
  toolsForScope,
  widestScope,
} from './scopes.ts';

// The expectation, derived from the rows directly (not from the generated table under test):
// a row is listed at a scope when its exposure level is at or below the scope's level.
const LEVELS = ['readonly', 'staged', 'full'] as const;
const levelOf = (scope: McpScope) => LEVELS.indexOf(scope.replace('tables:', '') as (typeof LEVELS)[number]);
function rowListedAt(row: CatalogRow, scope: McpScope): boolean {
  if (row.mcp === 'excluded') return false;
  return LEVELS.indexOf(row.mcp) <= levelOf(scope);
}

describe('the scope table, against the rows', () => {
  // The seed's counts are pinned once, in tools/codegen/src/parity.test.ts; here they derive from the rows.
  it('excludes the excluded rows and lists, at each scope, the rows at or below it', () => {
    expect([...MCP_EXCLUDED_TOOLS]).toEqual(
      CATALOG_ROWS.filter((row) => row.mcp === 'excluded').map((row) => row.name),
    );
    expect(MCP_SCOPES.map((scope) => toolsForScope(scope).length)).toEqual(
      MCP_SCOPES.map((scope) => CATALOG_ROWS.filter((row) => rowListedAt(row, scope)).length),
    );
    // Each scope lists strictly more than the one below it.
    const sizes = MCP_SCOPES.map((scope) => toolsForScope(scope).length);
    expect(sizes).toEqual([...sizes].sort((a, b) => a - b));
    expect(new Set(sizes).size).toBe(sizes.length);
  });

  // Every row × 3 scopes: every cell of the matrix.
  const cells = CATALOG_ROWS.flatMap((row) => MCP_SCOPES.map((scope) => ({ name: row.name, row, scope })));
  it.each(cells)('$name at $scope', ({ row, scope }) => {
    const listed = (toolsForScope(scope) as readonly string[]).includes(row.name);
    expect(listed).toBe(rowListedAt(row, scope));
    const refusal = refusalFor(row.name, scope);
    if (listed) {
      expect(refusal).toBeUndefined();
    } else if (row.mcp === 'excluded') {
      expect(refusal).toMatchObject({ kind: 'excluded', name: row.name });
    } else {
      expect(refusal).toMatchObject({
        kind: 'scope',
        name: row.name,
        needed: `tables:${row.mcp}`,
        held: scope,
      });
      expect(refusal?.message).toContain(`tables:${row.mcp}`);
    }
  });

  it('keeps row order in every scope list', () => {
    const order = CATALOG_ROWS.map((row) => row.name as string);
    for (const scope of MCP_SCOPES) {
      const list = MCP_SCOPE_TOOLS[scope] as readonly string[];
      expect([...list].sort((a, b) => order.indexOf(a) - order.indexOf(b))).toEqual(list);
    }
  });

  it('names the narrowest scope that lists each exposed tool', () => {
    for (const row of CATALOG_ROWS) {
      if (row.mcp === 'excluded') {
        expect(isMcpToolName(row.name)).toBe(false);
        continue;
      }
      const narrowest = MCP_SCOPES.find((scope) => rowListedAt(row, scope));
      expect(MCP_REQUIRED_SCOPE[row.name as keyof typeof MCP_REQUIRED_SCOPE]).toBe(narrowest);
    }
  });
});

describe('scope arithmetic', () => {
  it('nests readonly ⊂ staged ⊂ full, in every pair', () => {
    for (const held of MCP_SCOPES) {
      for (const needed of MCP_SCOPES) {
        expect(scopeCovers(held, needed)).toBe(levelOf(held) >= levelOf(needed));
        const heldTools = new Set(toolsForScope(held));
        const neededTools = toolsForScope(needed);
        expect(neededTools.every((tool) => heldTools.has(tool))).toBe(scopeCovers(held, needed));
      }
    }
  });

  it('implies every narrower scope', () => {
    expect(impliedScopes('tables:readonly')).toEqual(['tables:readonly']);
    expect(impliedScopes('tables:staged')).toEqual(['tables:readonly', 'tables:staged']);
    expect(impliedScopes('tables:full')).toEqual(['tables:readonly', 'tables:staged', 'tables:full']);
  });

  it('finds the widest granted scope and ignores strangers', () => {
    expect(widestScope(['tables:readonly', 'tables:full', 'tables:staged'])).toBe('tables:full');
    expect(widestScope(['openid', 'tables:staged'])).toBe('tables:staged');
    expect(widestScope(['openid'])).toBeUndefined();
  });

  it('parses full names and bare levels, and refuses anything else naming the scopes', () => {
    expect(parseScope('tables:staged')).toBe('tables:staged');
    expect(parseScope(' full ')).toBe('tables:full');
    for (const bad of ['', 'admin', 'tables:write', 'TABLES:FULL', 'views:readonly']) {
      expect(() => parseScope(bad)).toThrow(/Use one of: tables:readonly, tables:staged, tables:full/);
    }
  });

  it('refuses an unknown name as unknown at every scope', () => {
    for (const scope of MCP_SCOPES) {
      expect(refusalFor('dropTable', scope)).toMatchObject({ kind: 'unknown', name: 'dropTable' });
      expect(refusalFor('__proto__', scope)).toMatchObject({ kind: 'unknown' });
      expect(refusalFor('constructor', scope)).toMatchObject({ kind: 'unknown' });
    }
  });
});
