// Everything the agent needs to know about a conversation is read back from its messages, so a
// conversation resumed from storage (or replayed by a browser) behaves exactly like a live one.
import { isToolName, LOOP_TOOLS, type ToolName } from '@toolrow/catalog';
import type { ModelMessage } from 'ai';

/** The one loop tool: the catalog's search. */
export const SEARCH_TOOL = LOOP_TOOLS[0];

type Part = Exclude<ModelMessage['content'], string>[number];

function partsOf(message: ModelMessage): readonly Part[] {
  return typeof message.content === 'string' ? [] : (message.content as readonly Part[]);
}

/** The names a searchTools output activated, in the order it listed them. */
export function namesInSearchOutput(output: unknown): ToolName[] {
  if (output === null || typeof output !== 'object') return [];
  const results = (output as { results?: unknown }).results;
  if (!Array.isArray(results)) return [];
  return results
    .map((result) => (result && typeof result === 'object' ? (result as { name?: unknown }).name : undefined))
    .filter((name): name is ToolName => typeof name === 'string' && isToolName(name));
}

/** Every tool a searchTools call in this conversation has activated. */
export function discoveredTools(messages: readonly ModelMessage[]): Set<ToolName> {
  const found = new Set<ToolName>();
  for (const message of messages) {
    if (message.role !== 'tool') continue;
    for (const part of partsOf(message)) {
      if (part.type !== 'tool-result' || part.toolName !== SEARCH_TOOL) continue;
      const output = part.output;
      if (output.type !== 'json') continue;
      for (const name of namesInSearchOutput(output.value)) found.add(name);
    }
  }
  return found;
}

/** Index of the last user message (-1 if none): the current agent turn starts after it. */
function lastUserIndex(messages: readonly ModelMessage[]): number {
  for (let index = messages.length - 1; index >= 0; index--)
    if (messages[index]!.role === 'user') return index;
  return -1;
}

/**
 * searchTools calls already made in the current agent turn. A turn that pauses for an approval and
 * resumes is still one turn, so the budget counts across the pause.
 */
export function searchesThisTurn(messages: readonly ModelMessage[]): number {
  let count = 0;
  for (const message of messages.slice(lastUserIndex(messages) + 1)) {
    if (message.role !== 'assistant') continue;
    for (const part of partsOf(message))
      if (part.type === 'tool-call' && part.toolName === SEARCH_TOOL) count++;
  }
  return count;
}

/** A user's answer to an approval request, found at the end of the history and not yet acted on. */
export interface ApprovalAnswer {
  approvalId: string;
  approved: boolean;
  reason?: string;
  toolCallId: string;
  toolName: string;
  input: unknown;
}

/**
 * The approval answers the AI SDK will act on when this history is sent: those in a trailing tool
 * message whose call has no result yet (the same rule the SDK applies).
 */
export function pendingApprovalAnswers(messages: readonly ModelMessage[]): ApprovalAnswer[] {
  const last = messages.at(-1);
  if (last?.role !== 'tool') return [];
  const calls = new Map<string, { toolName: string; input: unknown }>();
  const requests = new Map<string, string>();
  for (const message of messages) {
    if (message.role !== 'assistant') continue;
    for (const part of partsOf(message)) {
      if (part.type === 'tool-call')
        calls.set(part.toolCallId, { toolName: part.toolName, input: part.input });
      if (part.type === 'tool-approval-request') requests.set(part.approvalId, part.toolCallId);
    }
  }
  const results = new Map<string, string>();
  for (const part of partsOf(last))
    if (part.type === 'tool-result') results.set(part.toolCallId, part.output.type);
  const seen = new Set<string>();
  const answers: ApprovalAnswer[] = [];
  for (const part of partsOf(last)) {
    if (part.type !== 'tool-approval-response') continue;
    const toolCallId = requests.get(part.approvalId);
    const call = toolCallId ? calls.get(toolCallId) : undefined;
    if (!toolCallId || !call || seen.has(toolCallId)) continue;
    // As the SDK decides: a call that already has a result is settled, except a denial whose
    // result is the denial itself (converted UI messages carry it).
    const result = results.get(toolCallId);
    if (result !== undefined && (part.approved || result !== 'execution-denied')) continue;
    seen.add(toolCallId);
    answers.push({
      approvalId: part.approvalId,
      approved: part.approved,
      ...(part.reason !== undefined ? { reason: part.reason } : {}),
      toolCallId,
      toolName: call.toolName,
      input: call.input,
    });
  }
  return answers;
}
