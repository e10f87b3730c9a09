import { parseArgs } from 'node:util';
import {
  CATALOG_ROWS,
  type CatalogRow,
  DISCOVERABLE_TOOLS,
  GATED_TOOLS,
  INLINE_TOOLS,
  LOOP_TOOLS,
  PROPOSE_TWINS,
  SILENT_TOOLS,
} from '@toolrow/catalog';
// The narrow entry points: the package indexes would load the MCP SDK, zod, the AI SDK and the
// data layer, which listing the rows never touches (apps/cli/bench/cold-start.ts measures it).
import { MCP_EXCLUDED_TOOLS, MCP_SCOPE_TOOLS, MCP_SCOPES, type McpScope } from '@toolrow/mcp-server/scopes';
import { READ_ONLY_TOOLS, WRITE_SCOPE_TOOLS, type WriteScope } from '@toolrow/tools/write-scopes';
import { type Command, UsageError } from '../command.ts';
import { formatTable, toJson } from '../format.ts';

function scopesListing(name: string): string {
  const scopes = MCP_SCOPES.filter((scope: McpScope) =>
    (MCP_SCOPE_TOOLS[scope] as readonly string[]).includes(name),
  );
  return scopes.length === 0 ? '-' : scopes.map((scope) => scope.replace('tables:', '')).join(',');
}

function writeScope(name: string): string {
  const scope = (Object.keys(WRITE_SCOPE_TOOLS) as WriteScope[]).find((key) =>
    (WRITE_SCOPE_TOOLS[key] as readonly string[]).includes(name),
  );
  return scope ?? ((READ_ONLY_TOOLS as readonly string[]).includes(name) ? 'none' : '?');
}

/** The row, as declared, for `--json`. */
function rowJson(row: CatalogRow): Record<string, unknown> {
  return { ...row, keywords: [...row.keywords] };
}

function summary(): string {
  const count = (list: readonly unknown[]) => list.length;
  const scopeCounts = MCP_SCOPES.map((scope) => `${count(MCP_SCOPE_TOOLS[scope])} ${scope}`).join(', ');
  return [
    `${CATALOG_ROWS.length} rows: ${count(INLINE_TOOLS)} inline, ${count(DISCOVERABLE_TOOLS)} discoverable;`,
    `${count(SILENT_TOOLS)} silent, ${count(GATED_TOOLS)} gated, ${count(LOOP_TOOLS)} loop;`,
    `${Object.keys(PROPOSE_TWINS).length} immediate/propose pairs;`,
    `MCP lists ${scopeCounts}; ${count(MCP_EXCLUDED_TOOLS)} excluded.`,
  ].join(' ');
}

export const catalogCommand: Command = {
  usage:
    "Usage: toolrow catalog [--json] [--cost]\n\n  --json  print a JSON array, one object per row with the row's fields\n  --cost  the tokens the tool definitions cost per request: inline core vs all rows (with --json: as JSON)",
  async run(args, io) {
    let values: { json?: boolean; cost?: boolean };
    try {
      values = parseArgs({
        args,
        options: { json: { type: 'boolean' }, cost: { type: 'boolean' } },
        allowPositionals: false,
      }).values;
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
    if (values.cost) {
      // The cost report builds the real tool set (AI SDK, zod, every tool): loaded only when asked.
      const { toolCostReport } = await import('@toolrow/agent');
      io.stdout(await toolCostReport({ json: values.json ?? false }));
      return 0;
    }
    if (values.json) {
      io.stdout(toJson(CATALOG_ROWS.map(rowJson)));
      return 0;
    }
    const table = formatTable(
      ['#', 'name', 'tier', 'access', 'visibility', 'twin', 'writes', 'MCP scopes that list it'],
      CATALOG_ROWS.map((row, index) => [
        String(index + 1),
        row.name,
        row.tier,
        row.access ?? '-',
        row.visibility,
        row.twin ?? '-',
        writeScope(row.name),
        scopesListing(row.name),
      ]),
    );
    io.stdout(`${table}\n\n${summary()}\n`);
    return 0;
  },
};
