import {
  CATALOG_ROWS,
  type EngineView,
  inlineToolsOf,
  TOOL_NAMES,
  type ToolName,
  type ToolVisibility,
  toolsServedBy,
} from '@toolrow/catalog';
import { RESULT_TOKEN_BUDGET } from '@toolrow/tools';
import { generateText } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import type { ToolBackend } from './ports.ts';
import { buildToolSet } from './turn.ts';

/** Named wherever a count is shown: a real tokenizer, but not the one every provider uses. */
export const COST_TOKENIZER =
  'gpt-tokenizer o200k_base over the JSON of each definition; an approximation (every provider tokenizes and frames tool definitions its own way)';

export interface ToolCost {
  name: ToolName;
  visibility: ToolVisibility;
  /** Tokens of this tool's definition: name, description and input JSON Schema. */
  tokens: number;
  bytes: number;
  /** Where the tokens go: the description, each input field, shared definitions and the framing. */
  fields: FieldCost[];
}

/**
 * The tokens of one part of a definition, counted alone: `description`, `input.<field>` (its
 * JSON Schema), `definitions.<id>` (a shared shape the fields refer to, such as the filter
 * item), and `framing` (the name, type and punctuation: what the parts do not add up to).
 */
export interface FieldCost {
  field: string;
  tokens: number;
}

export interface ToolDefinitionCost {
  tokenizer: string;
  /** What every request carries when only the inline core is active (a turn's first step). */
  inline: { tools: number; tokens: number; bytes: number };
  /** What every request would carry with all the rows active. */
  all: { tools: number; tokens: number; bytes: number };
  /** all.tokens / inline.tokens. */
  ratio: number;
  perTool: ToolCost[];
}

interface SentTool {
  name: string;
  description?: string;
  inputSchema: unknown;
}

/**
 * The tool definitions the AI SDK hands the provider for a set of active tools: captured from a
 * real generateText call (schemas converted by zod 4's native z.toJSONSchema, as the SDK does).
 */
export async function definitionsSent(
  backend: Pick<ToolBackend, 'inputSchema'>,
  activeTools: readonly ToolName[],
): Promise<SentTool[]> {
  let sent: SentTool[] = [];
  const model = new MockLanguageModelV4({
    doGenerate: async (call) => {
      sent = (call.tools ?? []).flatMap((tool) =>
        tool.type === 'function'
          ? [{ name: tool.name, description: tool.description, inputSchema: tool.inputSchema }]
          : [],
      );
      return {
        content: [{ type: 'text', text: '' }],
        finishReason: { unified: 'stop', raw: undefined },
        usage: {
          inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 },
          outputTokens: { total: 0, text: 0, reasoning: 0 },
        },
        warnings: [],
      };
    },
  });
  await generateText({
    model,
    tools: buildToolSet(backend),
    activeTools: [...activeTools],
    toolOrder: [...TOOL_NAMES],
    prompt: 'cost',
  });
  return sent;
}

/** The shape most chat APIs put on the wire for one function tool. */
function wireJson(tool: SentTool): string {
  return JSON.stringify({
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: tool.inputSchema },
  });
}

function fieldCosts(tool: SentTool, total: number, countTokens: (text: string) => number): FieldCost[] {
  const schema = (tool.inputSchema ?? {}) as {
    properties?: Record<string, unknown>;
    definitions?: Record<string, unknown>;
    $defs?: Record<string, unknown>;
  };
  const fields: FieldCost[] = [];
  if (tool.description)
    fields.push({ field: 'description', tokens: countTokens(JSON.stringify(tool.description)) });
  for (const [name, property] of Object.entries(schema.properties ?? {}))
    fields.push({ field: `input.${name}`, tokens: countTokens(JSON.stringify({ [name]: property })) });
  for (const [id, definition] of Object.entries(schema.definitions ?? schema.$defs ?? {}))
    fields.push({ field: `definitions.${id}`, tokens: countTokens(JSON.stringify({ [id]: definition })) });
  const parts = fields.reduce((sum, part) => sum + part.tokens, 0);
  fields.push({ field: 'framing', tokens: total - parts });
  return fields;
}

/**
 * Tokens the tool definitions cost on every request: the inline core against all the rows (with an
 * engine: the inline core and the rows of that engine's connections).
 */
export async function toolDefinitionCost(
  backend: Pick<ToolBackend, 'inputSchema'>,
  engine?: EngineView,
): Promise<ToolDefinitionCost> {
  // The encoder's tables are large; load them only when a cost is asked for, not with the agent.
  const { countTokens } = await import('gpt-tokenizer/encoding/o200k_base');
  const all = await definitionsSent(backend, toolsServedBy(engine));
  const visibility = new Map(CATALOG_ROWS.map((row) => [row.name as string, row.visibility]));
  const perTool: ToolCost[] = all.map((tool) => {
    const json = wireJson(tool);
    const tokens = countTokens(json);
    return {
      name: tool.name as ToolName,
      visibility: visibility.get(tool.name) ?? 'inline',
      tokens,
      bytes: Buffer.byteLength(json),
      fields: fieldCosts(tool, tokens, countTokens),
    };
  });
  const inlineSent = await definitionsSent(backend, inlineToolsOf(engine));
  const measure = (tools: SentTool[]) => {
    const json = `[${tools.map(wireJson).join(',')}]`;
    return { tools: tools.length, tokens: countTokens(json), bytes: Buffer.byteLength(json) };
  };
  const inline = measure(inlineSent);
  const allMeasured = measure(all);
  return {
    tokenizer: COST_TOKENIZER,
    inline,
    all: allMeasured,
    ratio: allMeasured.tokens / Math.max(1, inline.tokens),
    perTool,
  };
}

const thousands = (value: number) => value.toLocaleString('en-US');

/**
 * The report `toolrow catalog --cost` prints: the inline core against all the rows, then each
 * tool's definition, most expensive first. With json, the ToolDefinitionCost as JSON.
 */
export async function toolCostReport(options: { json?: boolean; engine?: EngineView } = {}): Promise<string> {
  const { toolSchemas } = await import('./backends.ts');
  const cost = await toolDefinitionCost(toolSchemas, options.engine);
  if (options.json) return `${JSON.stringify(cost, null, 2)}\n`;
  const line = (label: string, part: { tools: number; tokens: number; bytes: number }, extra = '') =>
    `  ${label.padEnd(12)} ${String(part.tools).padStart(2)} tools  ${thousands(part.tokens).padStart(6)} tokens  ${(part.bytes / 1000).toFixed(1).padStart(5)} kB${extra}`;
  const width = Math.max(...cost.perTool.map((tool) => tool.name.length));
  const perTool = [...cost.perTool]
    .sort((a, b) => b.tokens - a.tokens)
    .map(
      (tool) =>
        `  ${tool.name.padEnd(width)}  ${tool.visibility.padEnd(12)}  ${thousands(tool.tokens).padStart(5)}`,
    );
  // The same field in several tools (filter, sort, table) is one line: that is what a shared
  // shape costs the inline core in all.
  const byField = new Map<string, { tokens: number; tools: number }>();
  for (const tool of cost.perTool.filter((candidate) => candidate.visibility === 'inline'))
    for (const { field, tokens } of tool.fields) {
      const entry = byField.get(field) ?? { tokens: 0, tools: 0 };
      entry.tokens += tokens;
      entry.tools += 1;
      byField.set(field, entry);
    }
  const fieldWidth = Math.max(...[...byField.keys()].map((field) => field.length));
  const perField = [...byField]
    .sort((a, b) => b[1].tokens - a[1].tokens)
    .map(
      ([field, entry]) =>
        `  ${field.padEnd(fieldWidth)}  ${thousands(entry.tokens).padStart(5)}  in ${String(entry.tools).padStart(2)} tools`,
    );
  return [
    'Tool definitions sent with every model request (name, description, input JSON Schema):',
    line('inline core', cost.inline),
    line('all rows', cost.all, `  (${cost.ratio.toFixed(2)}× the inline core)`),
    `  each result  at most ${thousands(RESULT_TOKEN_BUDGET)} tokens: longer lists are paged or narrowed, and say how to get the rest`,
    '',
    `Per tool, most expensive first (tokens):`,
    ...perTool,
    '',
    'Per field across the inline core, most expensive first (tokens, each part counted alone):',
    ...perField,
    '',
    `Counted with ${cost.tokenizer}.`,
    '',
  ].join('\n');
}
