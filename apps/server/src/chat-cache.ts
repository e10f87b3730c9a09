// The chat of each connection: a fixed model (tests), else the profile's (Settings, else
// TOOLROW_MODEL). Resolved when a turn starts, so a model saved in Settings answers the next
// message; the chat is rebuilt only when the connection, the profile or its model changed.
import type { DataSource } from '@toolrow/datasource';
import type { ChatHandler } from './chat.ts';
import type { RequestConnection } from './request-connection.ts';
import type { ToolrowServerOptions } from './server-types.ts';

export function chatOfConnection(
  options: ToolrowServerOptions,
  env: Readonly<Record<string, string | undefined>>,
): (connection: RequestConnection) => Promise<{ chat: ChatHandler | null; problem: string | null }> {
  const fixedModel = options.model;
  // One chat per connection, kept until its model changes.
  const chatCache = new Map<DataSource, { key: string; chat: ChatHandler | null; problem: string | null }>();
  async function currentChat({
    source,
    state,
    profile,
  }: RequestConnection): Promise<{ chat: ChatHandler | null; problem: string | null }> {
    const saved = fixedModel ? null : await state.models.get(profile);
    // null: no model unless one is saved in Settings (TOOLROW_MODEL is not read).
    const modelEnv = fixedModel === undefined ? env : { ...env, TOOLROW_MODEL: undefined };
    const key = JSON.stringify([profile, saved?.setting, saved?.updatedAt, modelEnv.TOOLROW_MODEL]);
    const cached = chatCache.get(source);
    if (cached?.key === key) return cached;
    const context = { source, state, profile, env };
    let chat: ChatHandler | null = null;
    let problem: string | null = null;
    try {
      const createChat = options.createChat ?? (await import('./chat.ts')).createAgentChat;
      if (fixedModel) chat = await createChat(fixedModel, context);
      else {
        const { resolveProfileModel } = await import('@toolrow/agent');
        const resolved = await resolveProfileModel({ state, dataDir: state.dataDir, profile, env: modelEnv });
        if (resolved) chat = await createChat(resolved.model, { ...context, modelId: resolved.label });
      }
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      problem = saved
        ? `The model saved in Settings for ${profile} could not be used: ${reason}`
        : `TOOLROW_MODEL=${modelEnv.TOOLROW_MODEL} could not be used: ${reason}`;
    }
    const entry = { key, chat, problem };
    chatCache.set(source, entry);
    return entry;
  }
  return currentChat;
}
