// The chat behind /api/chat: @toolrow/agent over the real tools and the app state's gate store.
import {
  type AgentUIMessage,
  appStateGateStore,
  createAgent,
  resolveModel,
  type TurnOptions,
  toolsBackend,
} from '@toolrow/agent';
import type { DataSource } from '@toolrow/datasource';
import type { ToolrowState } from '@toolrow/state';
import type { LanguageModel, UIMessage, UIMessageChunk } from 'ai';

/** Runs one chat turn; createAgentChat below builds one from @toolrow/agent. */
export interface ChatHandler {
  /** The model's id for the status bar. */
  modelId: string;
  /**
   * The turn as a stream of UI message chunks (what useChat reads). The server streams it to the
   * browser and saves the conversation when it ends. Throwing before the stream starts (a bad
   * history) answers the request with a JSON error.
   */
  uiMessageStream(
    messages: UIMessage[],
    options: {
      profileId: string;
      person?: string;
      engine: NonNullable<TurnOptions['engine']>;
      abortSignal: AbortSignal;
    },
  ): Promise<ReadableStream<UIMessageChunk>>;
  /** Runs a clicked chip's tool as the user (audited as approved by the user). */
  acceptChip?(
    chip: { tool: string; input: unknown; label: string },
    options: { profileId: string; person?: string },
  ): Promise<unknown>;
}

export interface ChatContext {
  source: DataSource;
  state: ToolrowState;
  profile: string;
  env: Readonly<Record<string, string | undefined>>;
  /** How the model reads in the status bar (as TOOLROW_MODEL spells it). */
  modelId?: string;
}

/** The model TOOLROW_MODEL names (throws a ModelConfigError naming what to set). */
export async function resolveModelFromEnv(
  env: Readonly<Record<string, string | undefined>>,
): Promise<LanguageModel> {
  return resolveModel(env);
}

export function modelIdOf(
  model: LanguageModel,
  env: Readonly<Record<string, string | undefined>> = {},
): string {
  if (env.TOOLROW_MODEL) return env.TOOLROW_MODEL;
  if (typeof model === 'string') return model;
  return `${model.provider}:${model.modelId}`;
}

export function createAgentChat(model: LanguageModel, context: ChatContext): ChatHandler {
  const agent = createAgent({
    model,
    backend: toolsBackend(context),
    store: appStateGateStore(context.state),
    // A stable secret keeps approvals that were pending across a server restart answerable.
    ...(context.env.TOOLROW_APPROVAL_SECRET ? { approvalSecret: context.env.TOOLROW_APPROVAL_SECRET } : {}),
  });
  return {
    modelId: context.modelId ?? modelIdOf(model, context.env),
    uiMessageStream: (messages, options) => agent.uiMessageStream(messages as AgentUIMessage[], options),
    acceptChip: (chip, options) => agent.acceptChip(chip, options),
  };
}
