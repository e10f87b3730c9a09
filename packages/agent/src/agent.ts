import { randomBytes } from 'node:crypto';
import { LOOP_TOOLS, TOOL_NAMES } from '@toolrow/catalog';
import type { QueryLanguage } from '@toolrow/datasource';
import {
  convertToModelMessages,
  createUIMessageStreamResponse,
  generateText,
  isStepCount,
  type LanguageModel,
  type LanguageModelUsage,
  type ModelMessage,
  streamText,
  type ToolSet,
  type UIMessage,
  type UIMessageChunk,
} from 'ai';
import { acceptChip, type Chip, chipOf } from './chips.ts';
import { modelErrorText } from './model-errors.ts';
import type { GateStore, ToolBackend } from './ports.ts';
import type { ToolMatch } from './search/scorer.ts';
import { buildToolSet, SEARCH_BUDGET, Turn, type TurnOptions } from './turn.ts';

/** Tokens one turn cost, summed over its steps. Providers that do not report a number leave it undefined. */
export interface TurnUsage {
  inputTokens: number | undefined;
  outputTokens: number | undefined;
  /** Input tokens read from the provider's prompt cache. */
  cachedInputTokens: number | undefined;
}

export function turnUsage(usage: LanguageModelUsage): TurnUsage {
  return {
    inputTokens: usage.inputTokens,
    outputTokens: usage.outputTokens,
    cachedInputTokens: usage.inputTokenDetails?.cacheReadTokens,
  };
}

/** The metadata streamTurn attaches to the assistant message: the turn's token usage once it ends. */
export interface AgentMessageMetadata {
  usage?: TurnUsage;
}

export type AgentUIMessage = UIMessage<AgentMessageMetadata>;

/** A gated call waiting for the user's yes or no. */
export interface PendingApproval {
  approvalId: string;
  toolCallId: string;
  toolName: string;
  input: unknown;
  /** Why the ladder asks (the permission mode's rule). */
  reason?: string;
}

export interface TurnResult {
  /** Messages to append to the history: the assistant's steps and the tool results. */
  messages: ModelMessage[];
  text: string;
  usage: TurnUsage;
  /** Calls that wait for the user. Answer them with approvalResponse() and call runTurn again. */
  approvals: PendingApproval[];
  /** Outputs of the tools that ran, by tool call, in order (propose tools' outputs are chips). */
  toolResults: { toolCallId: string; toolName: string; input: unknown; output: unknown }[];
  /** Calls that failed or were refused, with the text the model read. */
  toolErrors: { toolCallId: string; toolName: string; input: unknown; error: string }[];
  /** The active tools when the turn ended. */
  activeTools: string[];
  steps: number;
}

export interface AgentOptions {
  model: LanguageModel;
  backend: ToolBackend;
  store: GateStore;
  /** System instructions; the default explains discovery, gating and staging. */
  instructions?: string;
  /** Steps per agent turn before it must answer (default 12). */
  maxSteps?: number;
  /**
   * Secret that signs approval requests, so a browser cannot forge one. Give the server a stable
   * secret if pending approvals must survive a restart; the default is random per agent.
   */
  approvalSecret?: string | Uint8Array;
  now?: () => Date;
  /** The ranking searchTools uses (default: searchCatalog); for experiments and tests. */
  search?: (query: string) => ToolMatch[];
  /**
   * Where a failed model call is reported, as one line (default: console.error). The user sees the same
   * text in the chat; the AI SDK's own report would dump the whole request instead.
   */
  onModelError?: (text: string) => void;
}

/** The first line of the instructions: what the agent is, and the language its connection's queries take. */
export function roleLine(language?: QueryLanguage): string {
  return language
    ? `You are Toolrow, a data agent for the user's tables. Queries take ${language.name} (${language.dialect} dialect).`
    : "You are Toolrow, a data agent for the user's tables. Queries take the connection's own language.";
}

/** The instructions for a turn on a connection whose queries take `language`. */
export function defaultInstructions(language?: QueryLanguage): string {
  return [roleLine(language), ...INSTRUCTION_LINES].join('\n');
}

const INSTRUCTION_LINES = [
  'Look at the schema before you write SQL or filters; prefer the structured tools over raw SQL when they fit.',
  `Some tools are not in your list until you find them: call ${LOOP_TOOLS[0]} with a few words about what you need, then call what it finds in your next step. You have ${SEARCH_BUDGET} searches per turn.`,
  "Tools that act on the world may need the user's approval. If the user says no, respect it: offer the matching propose tool (a button the user can click) or explain what you would have done.",
  'Changes to data only ever go to the staging area; the user reviews and commits them. Never claim that data was changed.',
  'Answer briefly and show numbers with their units.',
];

/** The instructions with no connection known (every tool, no language named). */
export const DEFAULT_INSTRUCTIONS: string = defaultInstructions();

export interface Agent {
  /** One agent turn with generateText over a model-message history (the CLI chat, tests). */
  runTurn(messages: readonly ModelMessage[], options: TurnOptions): Promise<TurnResult>;
  /**
   * One agent turn streamed to a browser with the AI SDK UI message protocol: tool parts,
   * approval requests (answer them with useChat's addToolApprovalResponse and send again), chips
   * as propose tools' outputs, and the turn's token usage in the message metadata at the end.
   */
  streamTurn(messages: readonly UIMessage[], options: TurnOptions & ResponseInit): Promise<Response>;
  /** The same turn as a stream of UI message chunks, to merge into a stream of your own. */
  uiMessageStream(
    messages: readonly UIMessage[],
    options: TurnOptions,
  ): Promise<ReadableStream<UIMessageChunk>>;
  /**
   * The user clicked a chip (a propose tool's output): run its twin as the user, audited as
   * approved by the user. Throws when the value is not a chip.
   */
  acceptChip(chipOrOutput: unknown, options: { profileId: string; person?: string }): Promise<unknown>;
  /** The tool definitions without executes, as the SDK sees them (for inspection and cost). */
  readonly tools: ToolSet;
}

export function createAgent(options: AgentOptions): Agent {
  const maxSteps = options.maxSteps ?? 12;
  const secret = options.approvalSecret ?? randomBytes(32);
  const deps = {
    backend: options.backend,
    store: options.store,
    now: options.now ?? (() => new Date()),
    ...(options.search ? { search: options.search } : {}),
  };
  const definitions = buildToolSet(options.backend);

  function settings(turn: Turn) {
    const tools = buildToolSet(options.backend, turn);
    return {
      model: options.model,
      instructions: options.instructions ?? defaultInstructions(turn.language),
      tools,
      // Re-read every step: searchTools grows the set inside its own execute.
      prepareStep: () => ({ activeTools: turn.activeTools() }),
      toolApproval: ({ toolCall }: { toolCall: { toolName: string; toolCallId: string; input: unknown } }) =>
        turn.approval(toolCall.toolName, toolCall.toolCallId, toolCall.input),
      repairToolCall: async ({
        toolCall,
        error,
      }: {
        toolCall: { toolName: string; input: string };
        error: unknown;
      }) => turn.repair(toolCall.toolName, toolCall.input, error),
      // Row order, so the definitions the provider sees (and caches) never reshuffle.
      toolOrder: [...TOOL_NAMES],
      stopWhen: isStepCount(maxSteps),
      experimental_toolApprovalSecret: secret,
    };
  }

  const reportModelError = options.onModelError ?? ((text: string) => console.error(`toolrow: ${text}`));

  async function uiMessageStream(messages: readonly UIMessage[], turnOptions: TurnOptions) {
    const history = await convertToModelMessages([...messages], { tools: definitions });
    const turn = await Turn.open(deps, history, turnOptions);
    const result = streamText({
      ...settings(turn),
      messages: turn.withDenialHints(history),
      ...(turnOptions.abortSignal ? { abortSignal: turnOptions.abortSignal } : {}),
      onError: ({ error }) => reportModelError(modelErrorText(error)),
    });
    return result.toUIMessageStream<AgentUIMessage>({
      originalMessages: [...messages] as AgentUIMessage[],
      // What failed, with the status and the provider's words, instead of "An error occurred."
      onError: modelErrorText,
      messageMetadata: ({ part }) =>
        part.type === 'finish' ? { usage: turnUsage(part.totalUsage) } : undefined,
    });
  }

  return {
    tools: definitions,

    async runTurn(messages, turnOptions) {
      const turn = await Turn.open(deps, messages, turnOptions);
      const result = await generateText({
        ...settings(turn),
        messages: turn.withDenialHints(messages),
        ...(turnOptions.abortSignal ? { abortSignal: turnOptions.abortSignal } : {}),
      });
      const approvals: PendingApproval[] = [];
      for (const step of result.steps) {
        for (const part of step.content) {
          if (part.type === 'tool-approval-request' && !part.isAutomatic) {
            approvals.push({
              approvalId: part.approvalId,
              toolCallId: part.toolCall.toolCallId,
              toolName: part.toolCall.toolName,
              input: part.toolCall.input,
              ...(part.reason !== undefined ? { reason: part.reason } : {}),
            });
          }
        }
      }
      // Read outcomes from the messages, as the model saw them: this includes calls the user
      // approved before this run, which the SDK executes before the first step.
      const { toolResults, toolErrors } = outcomesOf(messages, result.responseMessages);
      return {
        messages: result.responseMessages,
        text: result.text,
        usage: turnUsage(result.totalUsage),
        approvals,
        toolResults,
        toolErrors,
        activeTools: turn.activeTools(),
        steps: result.steps.length,
      };
    },

    async streamTurn(messages, turnOptions) {
      const { profileId, person, abortSignal, ...init } = turnOptions;
      const stream = await uiMessageStream(messages, {
        profileId,
        ...(person ? { person } : {}),
        ...(abortSignal ? { abortSignal } : {}),
      });
      return createUIMessageStreamResponse({ stream, ...init });
    },

    uiMessageStream,

    async acceptChip(chipOrOutput, turnOptions) {
      const chip: Chip | undefined = chipOf(chipOrOutput);
      if (!chip) {
        throw new Error(
          "acceptChip needs a propose tool's output (a chip naming a gated twin tool and its input); this value is not one.",
        );
      }
      return acceptChip(chip, deps, turnOptions);
    },
  };
}

function outcomesOf(history: readonly ModelMessage[], response: readonly ModelMessage[]) {
  const calls = new Map<string, { toolName: string; input: unknown }>();
  for (const message of [...history, ...response]) {
    if (message.role !== 'assistant' || typeof message.content === 'string') continue;
    for (const part of message.content) {
      if (part.type === 'tool-call')
        calls.set(part.toolCallId, { toolName: part.toolName, input: part.input });
    }
  }
  const toolResults: TurnResult['toolResults'] = [];
  const toolErrors: TurnResult['toolErrors'] = [];
  for (const message of response) {
    if (message.role !== 'tool') continue;
    for (const part of message.content) {
      if (part.type !== 'tool-result') continue;
      const call = {
        toolCallId: part.toolCallId,
        toolName: part.toolName,
        input: calls.get(part.toolCallId)?.input,
      };
      const output = part.output;
      if (output.type === 'json' || output.type === 'text')
        toolResults.push({ ...call, output: output.value });
      else if (output.type === 'error-text') toolErrors.push({ ...call, error: output.value });
      else if (output.type === 'error-json')
        toolErrors.push({ ...call, error: JSON.stringify(output.value) });
    }
  }
  return { toolResults, toolErrors };
}

/** The tool message that answers approval requests, to append to the history before the next runTurn. */
export function approvalResponse(
  answers: { approvalId: string; approved: boolean; reason?: string }[],
): ModelMessage {
  return {
    role: 'tool',
    content: answers.map((answer) => ({
      type: 'tool-approval-response' as const,
      approvalId: answer.approvalId,
      approved: answer.approved,
      ...(answer.reason !== undefined ? { reason: answer.reason } : {}),
    })),
  };
}
