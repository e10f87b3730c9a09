// Saved chat conversations.
import { DataSourceError, DEFAULT_PROFILE, type Row } from '@toolrow/datasource';
import type { Conversation, ConversationMessage, ConversationSummary } from '../app-types.ts';
import { date, jsonValue, nextValue, type StateDb } from '../store/state-db.ts';

import { limitOf } from './checks.ts';

/** What the store keeps of conversations. */
export interface ConversationRepository {
  /** The profile's conversations (default profile when omitted), most recently saved first; default 50, at most 1000. */
  list(options?: { profile?: string; limit?: number; offset?: number }): Promise<ConversationSummary[]>;
  /** One conversation with its messages. Throws DataSourceError 'not-found'. */
  get(id: string, profile?: string): Promise<Conversation>;
  /**
   * Creates the conversation or replaces its messages (the whole list, as the chat holds it).
   * The title defaults to the first words of the first user message. Throws 'misuse' for an id
   * that is not 1–128 letters, digits, '_' or '-', or messages that are not UI messages.
   */
  save(conversation: {
    id: string;
    profile?: string;
    messages: readonly ConversationMessage[];
    title?: string;
  }): Promise<ConversationSummary>;
  /** False when there was no such conversation. */
  delete(id: string, profile?: string): Promise<boolean>;
}

/** What a conversation id may be: ids useChat generates and UUIDs fit; nothing needs escaping in a URL. */
export const CONVERSATION_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;

const TITLE_MAX = 80;

const UNTITLED = 'New conversation';

// A guard against a runaway history, far above what a chat holds (tool outputs are capped).
const CONVERSATION_MAX_CHARS = 64 * 1024 * 1024;

/** The first words of the first user message: what the user asked, cut at a word near 80 characters. */
export function conversationTitle(messages: readonly ConversationMessage[]): string {
  const first = messages.find((message) => message.role === 'user');
  const text = (first?.parts ?? [])
    .map((part) =>
      part && typeof part === 'object' && (part as { type?: unknown }).type === 'text'
        ? String((part as { text?: unknown }).text ?? '')
        : '',
    )
    .join(' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (!text) return UNTITLED;
  if (text.length <= TITLE_MAX) return text;
  const cut = text.slice(0, TITLE_MAX);
  const space = cut.lastIndexOf(' ');
  return `${(space > TITLE_MAX / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

function checkConversationId(id: unknown): string {
  if (typeof id !== 'string' || !CONVERSATION_ID_PATTERN.test(id)) {
    throw new DataSourceError(
      'misuse',
      `Conversation id ${JSON.stringify(id)} is not allowed: use 1–128 letters, digits, '_' or '-', starting with a letter or digit.`,
    );
  }
  return id;
}

function checkMessages(messages: unknown): ConversationMessage[] {
  if (!Array.isArray(messages)) {
    throw new DataSourceError('misuse', 'messages must be an array of UI messages ({ id, role, parts }).');
  }
  messages.forEach((message: unknown, index) => {
    const m = message as Partial<ConversationMessage> | null;
    if (
      !m ||
      typeof m !== 'object' ||
      typeof m.id !== 'string' ||
      !['system', 'user', 'assistant'].includes(m.role as string) ||
      !Array.isArray(m.parts)
    ) {
      throw new DataSourceError(
        'misuse',
        `messages[${index}] is not a UI message: it needs a string id, a role (system, user or assistant) and a parts array.`,
      );
    }
  });
  return messages as ConversationMessage[];
}

const toConversationSummary = (row: Row): ConversationSummary => ({
  id: row.id as string,
  profile: row.profile as string,
  title: row.title as string,
  messageCount: Number(row.message_count),
  createdAt: date(row.created_at),
  updatedAt: date(row.updated_at),
});

export function createConversations(db: StateDb): ConversationRepository {
  const { q, dialect } = db;
  return {
    async list(options) {
      const { limit, offset } = limitOf(options);
      const rows = await q
        .selectFrom('conversations')
        .select(['profile', 'id', 'title', 'message_count', 'created_at', 'updated_at'])
        .where('profile', '=', options?.profile ?? DEFAULT_PROFILE)
        .orderBy('touched', 'desc')
        .limit(limit)
        .offset(offset)
        .execute();
      return rows.map(toConversationSummary);
    },
    async get(id, profile = DEFAULT_PROFILE) {
      const row = await q
        .selectFrom('conversations')
        .select(['profile', 'id', 'title', 'message_count', 'created_at', 'updated_at', 'messages'])
        .where('profile', '=', profile)
        .where('id', '=', id)
        .executeTakeFirst();
      if (!row) {
        throw new DataSourceError(
          'not-found',
          `No conversation '${id}' in profile '${profile}'. It may have been deleted; list the conversations to see their ids.`,
        );
      }
      return { ...toConversationSummary(row), messages: jsonValue<ConversationMessage[]>(row.messages) };
    },
    async save(conversation) {
      const id = checkConversationId(conversation.id);
      const messages = checkMessages(conversation.messages);
      const profile = conversation.profile ?? DEFAULT_PROFILE;
      const title =
        typeof conversation.title === 'string' && conversation.title.trim()
          ? conversation.title.trim().slice(0, 200)
          : conversationTitle(messages);
      const json = JSON.stringify(messages);
      if (json.length > CONVERSATION_MAX_CHARS) {
        throw new DataSourceError(
          'misuse',
          `Conversation '${id}' is ${Math.round(json.length / 1024 / 1024)} MB of JSON, over the ${CONVERSATION_MAX_CHARS / 1024 / 1024} MB a conversation may hold. Start a new conversation.`,
        );
      }
      const now = new Date();
      const row = await q
        .insertInto('conversations')
        .values({
          profile,
          id,
          title,
          messages: json,
          message_count: messages.length,
          created_at: now,
          updated_at: now,
          touched: nextValue(dialect, 'conversations.touched'),
        })
        .onConflict((oc) =>
          oc.columns(['profile', 'id']).doUpdateSet({
            title: (eb) => eb.ref('excluded.title'),
            messages: (eb) => eb.ref('excluded.messages'),
            message_count: (eb) => eb.ref('excluded.message_count'),
            updated_at: now,
            touched: nextValue(dialect, 'conversations.touched'),
          }),
        )
        .returning(['profile', 'id', 'title', 'message_count', 'created_at', 'updated_at'])
        .executeTakeFirstOrThrow();
      return toConversationSummary(row);
    },
    async delete(id, profile = DEFAULT_PROFILE) {
      const result = await q
        .deleteFrom('conversations')
        .where('profile', '=', profile)
        .where('id', '=', id)
        .executeTakeFirst();
      return result.numDeletedRows > 0n;
    },
  };
}
