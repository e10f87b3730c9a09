import { isGated, isPropose, isToolName, type ToolName } from '@toolrow/catalog';
import type { ExecutableToolName, GateStore, ToolBackend } from './ports.ts';

/** A propose tool's output as the agent reads it: a button that runs `twin` with `input` when clicked. */
export interface Chip {
  label: string;
  twin: ExecutableToolName;
  input: unknown;
}

/** The chip in a propose tool's output, or undefined when the output is not one. */
export function chipOf(output: unknown): Chip | undefined {
  if (output === null || typeof output !== 'object') return undefined;
  const candidate = (output as { chip?: unknown }).chip ?? output;
  if (candidate === null || typeof candidate !== 'object') return undefined;
  const { kind, label, twin, tool, input } = candidate as Record<string, unknown>;
  if (kind !== undefined && kind !== 'chip') return undefined;
  const target = typeof twin === 'string' ? twin : tool;
  if (typeof target !== 'string' || !isToolName(target) || !isGated(target) || isPropose(target))
    return undefined;
  return {
    label: typeof label === 'string' ? label : target,
    twin: target as ExecutableToolName,
    input: input ?? {},
  };
}

/**
 * The user clicked a chip: run its twin as the user. The click is the approval, so it is audited
 * as approved by the user before the tool runs.
 */
export async function acceptChip(
  chip: Chip,
  deps: { backend: ToolBackend; store: GateStore; now?: () => Date },
  options: { profileId: string; person?: string },
): Promise<unknown> {
  const twin: ToolName = chip.twin;
  await deps.store.appendAudit({
    tool: twin,
    input: chip.input,
    decision: 'approved',
    decidedBy: 'user',
    profileId: options.profileId,
    ...(options.person ? { person: options.person } : {}),
    at: (deps.now ?? (() => new Date()))(),
    reason: `The user clicked the chip "${chip.label}".`,
  });
  return deps.backend.execute(chip.twin, chip.input, {
    actor: 'user',
    profileId: options.profileId,
    ...(options.person ? { person: options.person } : {}),
  });
}
