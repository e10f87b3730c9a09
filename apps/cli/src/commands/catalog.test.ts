import {
  DISCOVERABLE_TOOLS,
  GATED_TOOLS,
  INLINE_TOOLS,
  LOOP_TOOLS,
  PROPOSE_TWINS,
  SILENT_TOOLS,
  TOOL_NAMES,
} from '@toolrow/catalog';
import { TOOL_ROWS } from '@toolrow/declarations';
import { MCP_EXCLUDED_TOOLS, MCP_SCOPE_TOOLS, MCP_SCOPES } from '@toolrow/mcp-server';
import { describe, expect, it } from 'vitest';
import { runCli, spawnCli } from '../testing.ts';

interface JsonRow {
  name: string;
  visibility: string;
  tier: string;
  access?: string;
  twin?: string;
  mcp: string;
  writes: string;
  keywords: string[];
  description: string;
}

const count = (rows: JsonRow[], predicate: (row: JsonRow) => boolean) => rows.filter(predicate).length;

describe('toolrow catalog', () => {
  // The seed's counts are pinned once, in tools/codegen/src/parity.test.ts; here they derive from the catalog.
  it('--json prints every row with its fields, and the counts match the catalog', async () => {
    const result = await spawnCli(['catalog', '--json']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const rows = JSON.parse(result.stdout) as JsonRow[];
    expect(rows).toEqual(JSON.parse(JSON.stringify(TOOL_ROWS)));
    expect({
      rows: rows.length,
      inline: count(rows, (row) => row.visibility === 'inline'),
      discoverable: count(rows, (row) => row.visibility === 'discoverable'),
      silent: count(rows, (row) => row.tier === 'silent'),
      gated: count(rows, (row) => row.tier === 'gated'),
      loop: count(rows, (row) => row.tier === 'loop'),
      pairs: count(rows, (row) => row.twin !== undefined),
      excluded: count(rows, (row) => row.mcp === 'excluded'),
    }).toEqual({
      rows: TOOL_NAMES.length,
      inline: INLINE_TOOLS.length,
      discoverable: DISCOVERABLE_TOOLS.length,
      silent: SILENT_TOOLS.length,
      gated: GATED_TOOLS.length,
      loop: LOOP_TOOLS.length,
      pairs: Object.keys(PROPOSE_TWINS).length,
      excluded: MCP_EXCLUDED_TOOLS.length,
    });
  });

  it('prints a readable table with the derived memberships and a summary line', async () => {
    const result = await runCli(['catalog']);
    expect(result.code).toBe(0);
    const lines = result.stdout.split('\n');
    expect(lines[0]).toMatch(
      /^#\s+name\s+tier\s+access\s+visibility\s+twin\s+writes\s+MCP scopes that list it$/,
    );
    expect(lines.find((line) => /\bstartExport\b/.test(line) && !/proposeExport/.test(line))).toMatch(
      /startExport\s+gated\s+export\s+discoverable\s+-\s+files\s+full$/,
    );
    expect(lines.find((line) => /\bproposeExport\b/.test(line))).toMatch(
      /proposeExport\s+gated\s+propose\s+discoverable\s+startExport\s+ui\s+staged,full$/,
    );
    expect(lines.find((line) => /\bsearchTools\b/.test(line))).toMatch(
      /searchTools\s+loop\s+-\s+inline\s+-\s+none\s+-$/,
    );
    const scopes = MCP_SCOPES.map((scope) => `${MCP_SCOPE_TOOLS[scope].length} ${scope}`).join(', ');
    expect(result.stdout).toContain(
      `${TOOL_NAMES.length} rows: ${INLINE_TOOLS.length} inline, ${DISCOVERABLE_TOOLS.length} discoverable; ${SILENT_TOOLS.length} silent, ${GATED_TOOLS.length} gated, ${LOOP_TOOLS.length} loop; ${Object.keys(PROPOSE_TWINS).length} immediate/propose pairs; MCP lists ${scopes}; ${MCP_EXCLUDED_TOOLS.length} excluded.`,
    );
  });

  it('refuses an unknown flag with its usage and exit code 2', async () => {
    const result = await runCli(['catalog', '--jsno']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/Unknown option '--jsno'/);
    expect(result.stderr).toContain('Usage: toolrow catalog');
  });
});

describe('toolrow', () => {
  it('lists its commands', async () => {
    const result = await runCli([]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/Commands:\n[\s\S]*catalog\s+Show the tool rows/);
  });

  it('names an unknown command and exits 2', async () => {
    const result = await runCli(['catalgo']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^Unknown command 'catalgo'. Did you mean 'catalog'\?/);
  });
});
