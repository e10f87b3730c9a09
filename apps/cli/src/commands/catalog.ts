import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import {
  CATALOG_ROWS,
  type CatalogRow,
  DISCOVERABLE_TOOLS,
  type EngineView,
  GATED_TOOLS,
  inlineToolsOf,
  isServedBy,
  LOOP_TOOLS,
  PROPOSE_TWINS,
  SILENT_TOOLS,
  toolsServedBy,
} from '@toolrow/catalog';
import { installedEngines } from '@toolrow/engines';
// The narrow entry points: the package indexes would load the MCP SDK, zod, the AI SDK and the
// data layer, which listing the rows never touches (apps/cli/bench/cold-start.ts measures it).
import { MCP_EXCLUDED_TOOLS, MCP_SCOPE_TOOLS, MCP_SCOPES, type McpScope } from '@toolrow/mcp-server/scopes';
import { READ_ONLY_TOOLS, WRITE_SCOPE_TOOLS, type WriteScope } from '@toolrow/tools/write-scopes';
import { type Command, type CommandIo, UsageError } from '../command.ts';
import { formatTable, toJson } from '../format.ts';

/** An installed engine as the catalog sees it: its id and the features the rows' needs name. */
interface Installed extends EngineView {
  readonly label: string;
}

const installed = (): Installed[] =>
  installedEngines.engines.map((each) => ({ engine: each.id, features: each.features, label: each.label }));

function scopesListing(name: string, engine: EngineView | undefined): string {
  const scopes = MCP_SCOPES.filter(
    (scope: McpScope) =>
      (MCP_SCOPE_TOOLS[scope] as readonly string[]).includes(name) && isServedBy(engine, name),
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

/** The installed engines that serve a row, for the table ('all' when every one does). */
function enginesListing(row: CatalogRow): string {
  const engines = installed().filter((engine) => isServedBy(engine, row.name));
  return engines.length === installed().length ? 'all' : engines.map((engine) => engine.engine).join(',');
}

/** The counts of one engine's sets; every engine serves the same rows when it has what they need. */
function summary(engine: EngineView): string {
  const served = (list: readonly string[]) => list.filter((name) => isServedBy(engine, name)).length;
  const scopeCounts = MCP_SCOPES.map((scope) => `${served(MCP_SCOPE_TOOLS[scope])} ${scope}`).join(', ');
  return [
    `${toolsServedBy(engine).length} rows: ${inlineToolsOf(engine).length} inline, ${served(DISCOVERABLE_TOOLS)} discoverable;`,
    `${served(SILENT_TOOLS)} silent, ${served(GATED_TOOLS)} gated, ${served(LOOP_TOOLS)} loop;`,
    `${Object.keys(PROPOSE_TWINS).filter((name) => isServedBy(engine, name)).length} immediate/propose pairs;`,
    `MCP lists ${scopeCounts}; ${MCP_EXCLUDED_TOOLS.length} excluded.`,
  ].join(' ');
}

function parseEngine(text: string): Installed {
  const engine = installed().find((candidate) => candidate.engine === text.trim().toLowerCase());
  if (!engine)
    throw new UsageError(
      `Unknown engine '${text}' for --engine. Use one of: ${installed()
        .map((each) => each.engine)
        .join(', ')}.`,
    );
  return engine;
}

const pct = (value: number) => `${Math.round(value * 100)}%`;

/** `--audit`: does the users' own wording name each row? Exits 1 when a discoverable row is not named enough. */
async function audit(io: CommandIo, options: { json: boolean; eval?: string }): Promise<number> {
  const { auditVisibility, CORPUS, parseReport, AUDIT_TOP } = await import('@toolrow/eval');
  let run: Awaited<ReturnType<typeof parseReport>> | undefined;
  if (options.eval !== undefined) {
    const file = resolve(io.cwd, options.eval);
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch {
      throw new Error(`cannot read ${file}: write one with toolrow eval --json ${options.eval}`);
    }
    run = parseReport(text, file);
  }
  const result = auditVisibility(run ? { run } : {});
  if (options.json) {
    io.stdout(toJson(result));
  } else {
    const table = formatTable(
      ['tool', 'declared', 'requests', 'named', ...(run ? ['searched', 'found'] : []), 'recommended', 'note'],
      result.rows.map((row) => [
        row.tool,
        row.declared,
        String(row.requests),
        `${row.named} (${pct(row.namedRate)})`,
        ...(run
          ? [
              row.searchRate === undefined ? '-' : pct(row.searchRate),
              row.foundRate === undefined ? '-' : pct(row.foundRate),
            ]
          : []),
        row.disagrees ? `${row.recommended} *` : row.recommended,
        row.failing ? `FAIL: ${row.note}` : row.note,
      ]),
    );
    const disagreeing = result.rows.filter((row) => row.disagrees).length;
    io.stdout(
      `${table}\n\nnamed: the agent's searchTools ranks the row in its top ${AUDIT_TOP} for the request as typed (${CORPUS.length} requests).\n` +
        `${disagreeing} rows (*) disagree with their declared visibility; a discoverable row must be named by at least ${pct(result.threshold)} of its requests (NAMING_THRESHOLD in @toolrow/eval).\n` +
        (result.failing.length === 0
          ? 'Every discoverable row is named often enough.\n'
          : `${result.failing.length} discoverable rows are named too rarely: ${result.failing.map((row) => row.tool).join(', ')}.\n`),
    );
  }
  return result.failing.length === 0 ? 0 : 1;
}

export const catalogCommand: Command = {
  usage:
    "Usage: toolrow catalog [--engine <engine>] [--json] [--cost | --audit [--eval <run.json>]]\n\n  --engine <engine>  only the rows that engine serves (postgres, dynamodb), as its connections see them\n  --json   print a JSON array, one object per row with the row's fields\n  --cost   the tokens the tool definitions cost per request: inline core vs all rows (with --json: as JSON)\n  --audit  per row, how often the corpus' requests name it as typed; recommends inline or discoverable and\n           exits 1 when a discoverable row is named less often than the threshold\n  --eval <run.json>  with --audit: add how often the model searched for and found each row in that run",
  async run(args, io) {
    let values: { json?: boolean; cost?: boolean; audit?: boolean; eval?: string; engine?: string };
    try {
      values = parseArgs({
        args,
        options: {
          json: { type: 'boolean' },
          cost: { type: 'boolean' },
          audit: { type: 'boolean' },
          eval: { type: 'string' },
          engine: { type: 'string' },
        },
        allowPositionals: false,
      }).values;
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
    if (values.eval !== undefined && !values.audit)
      throw new UsageError('--eval <run.json> goes with --audit.');
    const engine = values.engine === undefined ? undefined : parseEngine(values.engine);
    const rows =
      engine === undefined ? CATALOG_ROWS : CATALOG_ROWS.filter((row) => isServedBy(engine, row.name));
    if (values.audit) {
      if (engine !== undefined) throw new UsageError('--audit covers every row; run it without --engine.');
      if (values.cost) throw new UsageError('--audit and --cost are separate reports; pass one.');
      return audit(io, {
        json: values.json ?? false,
        ...(values.eval !== undefined ? { eval: values.eval } : {}),
      });
    }
    if (values.cost) {
      // The cost report builds the real tool set (AI SDK, zod, every tool): loaded only when asked.
      const { toolCostReport } = await import('@toolrow/agent');
      io.stdout(
        await toolCostReport({
          json: values.json ?? false,
          ...(engine ? { engine: { engine: engine.engine, features: engine.features } } : {}),
        }),
      );
      return 0;
    }
    if (values.json) {
      io.stdout(toJson(rows.map(rowJson)));
      return 0;
    }
    const table = formatTable(
      ['#', 'name', 'tier', 'access', 'visibility', 'twin', 'writes', 'engines', 'MCP scopes that list it'],
      rows.map((row, index) => [
        String(index + 1),
        row.name,
        row.tier,
        row.access ?? '-',
        row.visibility,
        row.twin ?? '-',
        writeScope(row.name),
        enginesListing(row),
        scopesListing(row.name, engine),
      ]),
    );
    const summaries =
      engine !== undefined
        ? `On ${engine.engine}: ${summary(engine)}`
        : installed()
            .map((each) => `On ${each.engine}: ${summary(each)}`)
            .join('\n');
    io.stdout(`${table}\n\n${summaries}\n`);
    return 0;
  },
};
