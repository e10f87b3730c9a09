// Conversations: the chat's history per profile, saved when a turn ends and reopened by the desktop.
import { isDataSourceError } from '@toolrow/datasource';
import type { Conversation, ConversationSummary as WireSummary } from '@toolrow/desktop/wire';
import { CONVERSATION_ID_PATTERN, type ConversationSummary, type ToolrowState } from '@toolrow/state';
import { createUIMessageStream, type UIMessage, type UIMessageChunk } from 'ai';
import type { Context, Hono } from 'hono';
import { z } from 'zod';
import { queryInteger, readQuery } from './body.ts';
import { badRequest, HttpError } from './errors.ts';
import type { ServerEnv } from './request-connection.ts';

const LIST_DEFAULT = 20;
const LIST_MAX = 200;

/** A conversation id from a request: absent is null (an unsaved chat); a bad one is a 400. */
export function conversationIdOf(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || !CONVERSATION_ID_PATTERN.test(value)) {
    throw badRequest(
      `Conversation id ${JSON.stringify(value)} is not valid: use 1–128 letters, digits, '_' or '-', starting with a letter or digit.`,
      "useChat's generated ids and crypto.randomUUID() fit; leave 'id' out to chat without saving.",
    );
  }
  return value;
}

const toWireSummary = (summary: ConversationSummary): WireSummary => ({
  id: summary.id,
  title: summary.title,
  messageCount: summary.messageCount,
  createdAt: summary.createdAt.toISOString(),
  updatedAt: summary.updatedAt.toISOString(),
});

/** GET /api/conversations, GET and DELETE /api/conversations/:id, for the server's profile. */
export function mountConversationRoutes(app: Hono<ServerEnv>): void {
  const active = (c: Context<ServerEnv>) => c.var.connection;
  app.get('/api/conversations', async (c) => {
    const { state, profile } = active(c);
    const { limit } = readQuery(c, z.object({ limit: queryInteger(1, LIST_MAX, LIST_DEFAULT) }));
    const conversations = await state.conversations.list({ profile, limit });
    return c.json({ conversations: conversations.map(toWireSummary) });
  });

  app.get('/api/conversations/:id', async (c) => {
    const id = conversationIdOf(c.req.param('id'))!;
    const { state, profile } = active(c);
    try {
      const conversation = await state.conversations.get(id, profile);
      const body: Conversation = {
        ...toWireSummary(conversation),
        messages: conversation.messages as UIMessage[],
      };
      return c.json(body);
    } catch (error) {
      if (isDataSourceError(error) && error.code === 'not-found') throw notFound(id);
      throw error;
    }
  });

  app.delete('/api/conversations/:id', async (c) => {
    const id = conversationIdOf(c.req.param('id'))!;
    const { state, profile } = active(c);
    if (!(await state.conversations.delete(id, profile))) throw notFound(id);
    return c.json({ deleted: id });
  });
}

const notFound = (id: string) =>
  new HttpError(
    404,
    'not-found',
    `There is no conversation '${id}' (it may have been deleted).`,
    'GET /api/conversations lists the saved ones; a chat turn sent with a new id starts one.',
  );

/** The part a saved turn that failed ends with: what failed, so a reload still shows it (and Retry). */
export const TURN_ERROR_PART = 'data-turn-error';

/**
 * A conversation as the model should see it: the notes of failed turns are the user's, not the
 * model's, and an answer that is nothing but such a note is left out.
 */
export function withoutFailedTurns(messages: UIMessage[]): UIMessage[] {
  return messages.flatMap((message) => {
    if (!message.parts.some((part) => part.type === TURN_ERROR_PART)) return [message];
    const parts = message.parts.filter((part) => part.type !== TURN_ERROR_PART);
    return parts.length > 0 ? [{ ...message, parts }] : [];
  });
}

/**
 * The turn's stream, saved as the conversation when it ends (with an id; without one it is
 * passed through). A turn that fails is saved too: its answer ends with a TURN_ERROR_PART that
 * says what failed, so the failure survives a reload.
 */
export function savingStream(
  turn: ReadableStream<UIMessageChunk>,
  options: {
    state: ToolrowState;
    profile: string;
    conversationId: string | null;
    messages: UIMessage[];
    log: (message: string) => void;
  },
): ReadableStream<UIMessageChunk> {
  const { conversationId } = options;
  if (conversationId === null) return turn;
  let failure: string | undefined;
  const watched = turn.pipeThrough(
    new TransformStream<UIMessageChunk, UIMessageChunk>({
      transform(chunk, controller) {
        if (chunk.type === 'error') failure = chunk.errorText;
        controller.enqueue(chunk);
      },
    }),
  );
  return createUIMessageStream<UIMessage>({
    originalMessages: options.messages,
    execute: ({ writer }) => writer.merge(watched),
    onError: (error) => {
      const message = error instanceof Error ? error.message : String(error);
      failure = `The turn failed: ${message}`;
      options.log(`toolrow server: the chat stream of conversation ${conversationId} failed: ${message}`);
      return failure;
    },
    onEnd: async ({ messages }) => {
      let saved = messages;
      if (failure !== undefined) {
        const note = { type: TURN_ERROR_PART, data: { message: failure } } as UIMessage['parts'][number];
        const last = messages.at(-1);
        saved =
          last?.role === 'assistant'
            ? [...messages.slice(0, -1), { ...last, parts: [...last.parts, note] }]
            : [...messages, { id: `failed-${Date.now().toString(36)}`, role: 'assistant', parts: [note] }];
      }
      try {
        await options.state.conversations.save({
          id: conversationId,
          profile: options.profile,
          messages: saved,
        });
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        options.log(
          `toolrow server: could not save conversation ${conversationId} (the turn itself completed): ${message}`,
        );
      }
    },
  });
}
