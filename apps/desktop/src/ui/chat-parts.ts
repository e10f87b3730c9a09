// Reading the agent's UI messages: chips, token usage. Pure, so they are unit-tested.
import { isPropose, isToolName, twinOf } from '@toolrow/catalog';
import type { Chip } from './api.ts';

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The chip in a propose tool's output, if there is one. A chip names the immediate tool it
 * stands for (the propose row's twin) and the input to run it with.
 */
export function chipOf(toolName: string, output: unknown): Chip | null {
  if (!isToolName(toolName) || !isPropose(toolName) || !isRecord(output)) return null;
  const source = isRecord(output.chip) ? output.chip : output;
  const twin = twinOf(toolName);
  const tool =
    typeof source.tool === 'string' ? source.tool : typeof source.twin === 'string' ? source.twin : twin;
  // A chip for another tool than the row's twin would let a tool output run anything: refuse it.
  if (tool !== twin) return null;
  const input = 'input' in source ? source.input : 'args' in source ? source.args : undefined;
  if (!isRecord(input)) return null;
  const label = typeof source.label === 'string' && source.label ? source.label : `${twin}`;
  return { label, tool, input };
}

export interface TurnUsage {
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
}

const num = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : 0);

/** Token usage of one assistant turn, from the message metadata the server streams. */
export function usageOf(metadata: unknown): TurnUsage | null {
  if (!isRecord(metadata)) return null;
  const usage = isRecord(metadata.usage)
    ? metadata.usage
    : isRecord(metadata.totalUsage)
      ? metadata.totalUsage
      : null;
  if (!usage) return null;
  const inputDetails = isRecord(usage.inputTokenDetails) ? usage.inputTokenDetails : {};
  return {
    inputTokens: num(usage.inputTokens),
    outputTokens: num(usage.outputTokens),
    cachedInputTokens: num(usage.cachedInputTokens) || num(inputDetails.cacheReadTokens),
  };
}

/** "1.2k in · 340 out · 800 cached". */
export function formatUsage(usage: TurnUsage): string {
  const short = (n: number) =>
    n >= 10_000 ? `${Math.round(n / 1000)}k` : n >= 1000 ? `${(n / 1000).toFixed(1)}k` : String(n);
  const parts = [`${short(usage.inputTokens)} in`, `${short(usage.outputTokens)} out`];
  if (usage.cachedInputTokens > 0) parts.push(`${short(usage.cachedInputTokens)} cached`);
  return parts.join(' · ');
}

/** A short one-line summary of a tool input for the call list: `{"table":"orders"}` → `table: orders`. */
export function summarizeInput(input: unknown): string {
  if (!isRecord(input)) return input === undefined ? '' : JSON.stringify(input);
  return Object.entries(input)
    .map(([key, value]) => `${key}: ${typeof value === 'string' ? value : JSON.stringify(value)}`)
    .join(', ')
    .slice(0, 120);
}
