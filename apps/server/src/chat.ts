// The chat behind /api/chat: @toolrow/agent over the real tools and the app state's gate store.
import {
  type AgentUIMessage,
  appStateGateStore,
  createAgent,
  resolveModel,
  toolsBackend,
} from '@toolrow/agent';
import type { LanguageModel } from 'ai';
import type { ChatContext, ChatHandler } from './server.ts';

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
