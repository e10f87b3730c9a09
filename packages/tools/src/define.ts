import type { GatedToolName, LoopToolName, PROPOSE_TWINS, ProposeToolName, ToolName } from '@toolrow/catalog';
import type { z } from 'zod';
import type { ToolContext } from './context.ts';

/** Every tool this package implements: all rows but the loop tool (searchTools lives in the agent). */
export type ImplementedToolName = Exclude<ToolName, LoopToolName>;

/** The immediate tools that have a propose twin (openTable, setFilter, …). */
export type ProposableToolName = (typeof PROPOSE_TWINS)[ProposeToolName];

/** One tool: how its input is checked, and what it does. */
export interface ToolImplementation<Schema extends z.ZodType = z.ZodType, Output = unknown> {
  /** zod 4 schema of the input; every field described (it becomes the JSON Schema models see). */
  readonly inputSchema: Schema;
  /** Runs the tool on an input already parsed by inputSchema. Throws ToolError or a DataSourceError. */
  execute(input: z.output<Schema>, ctx: ToolContext): Promise<Output>;
}

/**
 * An immediate UI tool that a propose tool can offer as a chip. `prepare` validates and normalises
 * the input against the schema cache without changing anything (the propose twin runs only this);
 * `label` is the chip's button text.
 */
export interface ProposableImplementation<Schema extends z.ZodType = z.ZodType, Output = unknown>
  extends ToolImplementation<Schema, Output> {
  prepare(input: z.output<Schema>, ctx: ToolContext): Promise<z.output<Schema>>;
  label(input: z.output<Schema>): string;
}

/** What a propose tool returns: a chip the UI shows as a button; clicking it runs `tool` with `input`. */
export interface ProposalChip<Twin extends GatedToolName = GatedToolName> {
  kind: 'chip';
  /** The propose tool that made the chip. */
  proposedBy: ProposeToolName;
  /** The immediate tool the click runs. */
  tool: Twin;
  /** Button text, e.g. "Open public.orders (status = paid)". */
  label: string;
  /** The twin's input, already validated and normalised. */
  input: unknown;
  /** For the model: nothing happened yet. */
  note: string;
}

export function defineTool<Schema extends z.ZodType, Output>(
  implementation: ToolImplementation<Schema, Output>,
): ToolImplementation<Schema, Output> {
  return implementation;
}

export function defineProposable<Schema extends z.ZodType, Output>(
  implementation: ProposableImplementation<Schema, Output>,
): ProposableImplementation<Schema, Output> {
  return implementation;
}

/**
 * A tool output's `display` field is for the surfaces that draw it (the app's chart card, the
 * CLI's file, MCP's image and view), never for the model: it can be thousands of rows.
 */
export const DISPLAY_FIELD = 'display';

/** The output as the model reads it: without its display field. */
export function outputForModel(output: unknown): unknown {
  if (typeof output !== 'object' || output === null || Array.isArray(output) || !(DISPLAY_FIELD in output))
    return output;
  const { [DISPLAY_FIELD]: _display, ...rest } = output as Record<string, unknown>;
  return rest;
}
