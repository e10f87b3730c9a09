// The chat: one turn streamed to the browser and saved when it ends; the saved conversations.
import { createUIMessageStream, createUIMessageStreamResponse, type UIMessage } from 'ai';
import { Hono } from 'hono';
import { z } from 'zod';
import { readBody } from '../body.ts';
import {
  conversationIdOf,
  mountConversationRoutes,
  savingStream,
  withoutFailedTurns,
} from '../conversations.ts';
import type { ServerEnv } from '../request-connection.ts';

import { NO_MODEL_HINT } from '../server-types.ts';
import type { RouteContext } from './context.ts';

export function chatRoutes(ctx: RouteContext): Hono<ServerEnv> {
  const { log, currentChat } = ctx;
  const app = new Hono<ServerEnv>();

  // useChat's body: { id, messages, trigger, messageId }. With an id the conversation is saved
  // when the turn ends (see conversations.ts); without one the turn runs unsaved.
  app.post('/api/chat', async (c) => {
    const { source, state, profile } = c.var.connection;
    // useChat sends more (trigger, messageId, …); the messages are checked by the AI SDK's own schema.
    const body = await readBody(c, z.object({ id: z.unknown().optional(), messages: z.array(z.unknown()) }));
    const conversationId = conversationIdOf(body.id);
    const { chat, problem } = await currentChat(c.var.connection);
    if (!chat) return noModelResponse(problem);
    // The notes of earlier failed turns stay in the saved conversation, not in what the model reads.
    const messages = withoutFailedTurns(body.messages as UIMessage[]);
    const turn = await chat.uiMessageStream(messages, {
      profileId: profile,
      ...(c.var.connection.person ? { person: c.var.connection.person } : {}),
      engine: source,
      abortSignal: c.req.raw.signal,
    });
    return createUIMessageStreamResponse({
      stream: savingStream(turn, { state, profile, conversationId, messages, log }),
    });
  });

  mountConversationRoutes(app);
  return app;
}

/** A chat answer that explains how to configure a model, as a normal UI message stream. */
function noModelResponse(problem: string | null): Response {
  const text = `${problem ? `${problem}.\n\n` : 'No language model is configured, so I cannot answer yet.\n\n'}${NO_MODEL_HINT}\n\nEverything else — tables, the SQL workbench, staging, exports, the audit log — works without a model.`;
  const stream = createUIMessageStream({
    execute({ writer }) {
      writer.write({ type: 'text-start', id: 'no-model' });
      writer.write({ type: 'text-delta', id: 'no-model', delta: text });
      writer.write({ type: 'text-end', id: 'no-model' });
    },
  });
  return createUIMessageStreamResponse({ stream });
}
