// The registry: one implementation per row (but the loop tool), and invokeTool, the one way the
// agent, the MCP server, the server app and the CLI run a tool.
import {
  isLoop,
  isServedBy,
  isToolName,
  LOOP_TOOLS,
  notServedMessage,
  PROPOSE_TWINS,
  type ProposeToolName,
  TOOL_NAMES,
} from '@toolrow/catalog';
import { isDataSourceError, nearestNames } from '@toolrow/datasource';
import { z } from 'zod';
import type { ToolContext } from './context.ts';
import type {
  ImplementedToolName,
  ProposableImplementation,
  ProposableToolName,
  ProposalChip,
  ToolImplementation,
} from './define.ts';
import { describeIssues, ToolError, type ToolErrorCode } from './errors.ts';
import {
  diffStagedChanges,
  getExportStatus,
  getSavedSpec,
  listAuditLog,
  listSavedSpecs,
  listStagedChanges,
  readAttachment,
} from './tools/app-tools.ts';
import { drawChart } from './tools/chart-tools.ts';
import {
  countRows,
  getRow,
  stageDeleteRows,
  stageInsertRows,
  stageUpdateRows,
  startExport,
} from './tools/data-tools.ts';
import { explainQuery, listQueryHistory, runQuery, validateQuery } from './tools/query-tools.ts';
import {
  describeRelations,
  describeTable,
  findColumns,
  getIndexStats,
  getTableStats,
  listConnections,
  listTables,
  sampleValues,
} from './tools/schema-tools.ts';
import {
  getActiveView,
  getSelection,
  listOpenTabs,
  openRow,
  openTable,
  openWorkbench,
  setFilter,
} from './tools/ui-tools.ts';

type ImmediateToolName = Exclude<ImplementedToolName, ProposeToolName>;

// `satisfies` fails the build when a row has no implementation here or a key is no row.
const IMMEDIATE = {
  listConnections,
  listTables,
  describeTable,
  findColumns,
  sampleValues,
  getTableStats,
  validateQuery,
  getActiveView,
  getSelection,
  listOpenTabs,
  readAttachment,
  listQueryHistory,
  explainQuery,
  getIndexStats,
  describeRelations,
  listSavedSpecs,
  getSavedSpec,
  listStagedChanges,
  diffStagedChanges,
  getExportStatus,
  listAuditLog,
  runQuery,
  drawChart,
  getRow,
  countRows,
  openTable,
  openWorkbench,
  setFilter,
  openRow,
  startExport,
  stageInsertRows,
  stageUpdateRows,
  stageDeleteRows,
} satisfies { readonly [N in ImmediateToolName]: ToolImplementation };

// Every tool a propose row names as its twin must know how to prepare and label a chip.
const PROPOSABLE: { readonly [N in ProposableToolName]: ProposableImplementation } = IMMEDIATE;

type Immediate = typeof IMMEDIATE;
type TwinOf<P extends ProposeToolName> = (typeof PROPOSE_TWINS)[P];

type ProposeImplementations = {
  readonly [P in ProposeToolName]: ToolImplementation<
    Immediate[TwinOf<P>]['inputSchema'],
    ProposalChip<TwinOf<P>>
  >;
};

const CHIP_NOTE =
  'Nothing happened yet: the user sees a button and decides. Do not call the immediate tool as well.';

/** Each propose tool takes its twin's input, validates it the same way, and returns a chip. */
function proposeImplementations(): ProposeImplementations {
  const out: Record<string, ToolImplementation> = {};
  for (const [propose, twin] of Object.entries(PROPOSE_TWINS) as [ProposeToolName, ProposableToolName][]) {
    const immediate = PROPOSABLE[twin];
    out[propose] = {
      inputSchema: immediate.inputSchema,
      async execute(input, ctx) {
        const prepared = await immediate.prepare(input, ctx);
        const chip: ProposalChip = {
          kind: 'chip',
          proposedBy: propose,
          tool: twin,
          label: immediate.label(prepared),
          input: prepared,
          note: CHIP_NOTE,
        };
        return chip;
      },
    };
  }
  return out as ProposeImplementations;
}

/** Every tool's schema and execute, keyed by the generated tool name (all rows but the loop tool). */
export const TOOL_IMPLEMENTATIONS: Immediate & ProposeImplementations = {
  ...IMMEDIATE,
  ...proposeImplementations(),
};

export type ToolImplementations = typeof TOOL_IMPLEMENTATIONS;
/** The input a tool accepts (before defaults), e.g. ToolInput<'runQuery'> = { sql: string; limit?: number }. */
export type ToolInput<N extends ImplementedToolName> = z.input<ToolImplementations[N]['inputSchema']>;
/** What a tool returns. */
export type ToolOutput<N extends ImplementedToolName> = Awaited<
  ReturnType<ToolImplementations[N]['execute']>
>;

/** The implemented tool names, in row order (every row but the loop tool, once each has its implementation). */
export const IMPLEMENTED_TOOLS: readonly ImplementedToolName[] = TOOL_NAMES.filter(
  (name): name is ImplementedToolName => !isLoop(name) && Object.hasOwn(TOOL_IMPLEMENTATIONS, name),
);

/**
 * Rows that have no implementation yet: empty, except between adding a row and writing its
 * implementation (the type checker fails then too, but amid knock-on errors).
 */
export const UNIMPLEMENTED_TOOLS: readonly ImplementedToolName[] = TOOL_NAMES.filter(
  (name): name is ImplementedToolName => !isLoop(name) && !Object.hasOwn(TOOL_IMPLEMENTATIONS, name),
);

/** What to do about a row without an implementation; `npm run gen` says the same, naming the file. */
export function missingImplementationMessage(name: string): string {
  return `The row ${name} (packages/declarations/src/tools.ts) has no implementation yet: export \`const ${name} = defineTool({ inputSchema, execute })\` from a file in packages/tools/src/tools/ and add ${name} to IMMEDIATE in packages/tools/src/registry.ts. \`npm run gen\` names the file.`;
}

export function isImplementedTool(name: string): name is ImplementedToolName {
  return Object.hasOwn(TOOL_IMPLEMENTATIONS, name);
}

/** A tool's schema and execute; a row without an implementation throws ToolError 'unknown-tool' saying what to add. */
export function implementationOf<N extends ImplementedToolName>(name: N): ToolImplementations[N] {
  if (!isImplementedTool(name)) throw new ToolError('unknown-tool', name, missingImplementationMessage(name));
  return TOOL_IMPLEMENTATIONS[name];
}

/** The JSON Schema of a tool's input (zod 4's native converter, input side: defaults are optional). */
export function inputJsonSchema(name: ImplementedToolName): Record<string, unknown> {
  return z.toJSONSchema(implementationOf(name).inputSchema, { io: 'input' }) as Record<string, unknown>;
}

const DATASOURCE_CODES: Readonly<Record<string, ToolErrorCode>> = {
  'unknown-table': 'not-found',
  'unknown-column': 'not-found',
  'row-not-found': 'not-found',
  'not-found': 'not-found',
  'invalid-filter': 'invalid-input',
  'invalid-sort': 'invalid-input',
  'invalid-key': 'invalid-input',
  'invalid-change': 'invalid-input',
  'export-path': 'refused',
  aborted: 'aborted',
};

/** Any error from a tool as a ToolError whose message a model can act on. */
export function toToolError(name: string, error: unknown): ToolError {
  if (error instanceof ToolError) return error;
  if (isDataSourceError(error))
    return new ToolError(DATASOURCE_CODES[error.code] ?? 'failed', name, error.message, { cause: error });
  const message = error instanceof Error ? error.message : String(error);
  return new ToolError('failed', name, `${name} failed: ${message}`, { cause: error });
}

/** Checks a raw input against the tool's schema; throws ToolError 'invalid-input' naming each bad field. */
export function parseToolInput<N extends ImplementedToolName>(
  name: N,
  rawInput: unknown,
): z.output<ToolImplementations[N]['inputSchema']> {
  const schema: z.ZodType = implementationOf(name).inputSchema;
  // MCP clients and models send no arguments at all for tools without fields.
  const input = rawInput === undefined || rawInput === null ? {} : rawInput;
  const parsed = schema.safeParse(input, { reportInput: true });
  if (parsed.success) return parsed.data as z.output<ToolImplementations[N]['inputSchema']>;
  const issues = describeIssues(parsed.error.issues, input);
  throw new ToolError(
    'invalid-input',
    name,
    `Invalid input for ${name}: ${issues.map((issue) => issue.message).join('; ')}.`,
    {
      issues,
      cause: parsed.error,
    },
  );
}

/** Throws ToolError 'unknown-tool' unless `name` is a tool this package runs. */
export function assertImplementedTool(name: string): asserts name is ImplementedToolName {
  if (isImplementedTool(name)) return;
  if (isToolName(name) && !isLoop(name))
    throw new ToolError('unknown-tool', name, missingImplementationMessage(name));
  if (isToolName(name) && isLoop(name)) {
    throw new ToolError(
      'unknown-tool',
      name,
      `${name} is part of the agent loop (${LOOP_TOOLS.join(', ')}), not a tool over your data: only the agent runs it.`,
    );
  }
  const suggestions = nearestNames(name, IMPLEMENTED_TOOLS);
  throw new ToolError(
    'unknown-tool',
    name,
    `There is no tool '${name}'.${suggestions.length > 0 ? ` Did you mean ${suggestions.map((candidate) => `'${candidate}'`).join(' or ')}?` : ''} The tools are: ${IMPLEMENTED_TOOLS.join(', ')}.`,
  );
}

/**
 * Validates `rawInput` against the tool's schema and runs it. Every failure is a ToolError:
 * 'unknown-tool', 'invalid-input' (naming each field), 'refused', 'not-found', 'aborted', 'failed'.
 * Gating (who may call what, approvals, audit) is the caller's job: this runs what it is given.
 */
export async function invokeTool<N extends ImplementedToolName>(
  name: N,
  rawInput: unknown,
  ctx: ToolContext,
): Promise<ToolOutput<N>>;
export async function invokeTool(name: string, rawInput: unknown, ctx: ToolContext): Promise<unknown>;
export async function invokeTool(name: string, rawInput: unknown, ctx: ToolContext): Promise<unknown> {
  assertImplementedTool(name);
  // Before the input is read: a tool the connection's engine does not serve runs nothing at all.
  if (!isServedBy(ctx.source, name)) throw new ToolError('refused', name, notServedMessage(name, ctx.source));
  if (ctx.signal?.aborted) throw new ToolError('aborted', name, `${name} was cancelled before it started.`);
  const input = parseToolInput(name, rawInput);
  const implementation = TOOL_IMPLEMENTATIONS[name] as ToolImplementation;
  try {
    return await implementation.execute(input, ctx);
  } catch (error) {
    throw toToolError(name, error);
  }
}
