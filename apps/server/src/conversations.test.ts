// Conversations over a real socket and a real database (PGlite, and PostgreSQL when
// TOOLROW_TEST_DATABASE_URL is set): saved when a chat turn ends, listed, loaded, deleted, and
// resumed with the tools an earlier search found. Only the model is scripted.
import {
  assembleUIMessage,
  readUIChunks,
  SCRIPTED_STEP_USAGE,
  type ScriptedStep,
  scriptedModel,
} from '@toolrow/agent/testing';
import type { DataSource } from '@toolrow/datasource';
import type { Conversation, ConversationSummary } from '@toolrow/desktop/wire';
import type { Toolrow, ToolrowState } from '@toolrow/state';
import { testStores } from '@toolrow/state/testing';
import type { UIMessage, UIMessageChunk } from 'ai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { withoutFailedTurns } from './conversations.ts';
import { api, bearer, startTestServer, type TestServer } from './test-support.ts';

const uiUser = (id: string, text: string): UIMessage => ({
  id,
  role: 'user',
  parts: [{ type: 'text', text }],
});

type ToolPart = {
  type: string;
  toolCallId: string;
  state: string;
  input?: unknown;
  output?: unknown;
  errorText?: string;
  approval?: { id: string; approved?: boolean; reason?: string };
};
const toolParts = (message: UIMessage) =>
  (message.parts as unknown as ToolPart[]).filter((part) => part.type.startsWith('tool-'));

/** What useChat's addToolApprovalResponse does to the assistant message. */
function answer(message: UIMessage, toolCallId: string, approved: boolean): UIMessage {
  const copy = structuredClone(message);
  for (const part of copy.parts as unknown as ToolPart[]) {
    if (part.toolCallId !== toolCallId || part.state !== 'approval-requested') continue;
    part.state = 'approval-responded';
    part.approval = { ...part.approval!, approved };
  }
  return copy;
}

describe.each(testStores())('conversations on $name', ({ open }) => {
  let toolrow: Toolrow;
  let source: DataSource;
  let state: ToolrowState;
  let app: TestServer | undefined;
  let logs: string[];

  beforeAll(async () => {
    toolrow = await open({ seed: { orders: 300 } });
    ({ source, state } = toolrow);
  }, 180_000);

  afterAll(async () => {
    await app?.close();
    await toolrow?.close();
  });

  beforeEach(async () => {
    await app?.close();
    app = undefined;
    logs = [];
    await state.profiles.setMode('default', 'manual');
    for (const conversation of await state.conversations.list({ limit: 1000 }))
      await state.conversations.delete(conversation.id);
  });

  async function serve(steps: readonly ScriptedStep[]) {
    app = await startTestServer(toolrow, {
      model: scriptedModel(steps),
      desktopDir: null,
      log: (message) => logs.push(message),
    });
    return app;
  }

  /** One chat request as useChat sends it; the whole UI stream, read to its end. */
  async function turn(server: TestServer, id: string | undefined, messages: UIMessage[]) {
    const response = await fetch(`${server.url}/api/chat`, {
      method: 'POST',
      headers: bearer(server.token, { 'content-type': 'application/json' }),
      body: JSON.stringify({ ...(id ? { id } : {}), messages, trigger: 'submit-message' }),
    });
    expect(response.status).toBe(200);
    const chunks = await readUIChunks(response);
    return { chunks, assistant: await assembleUIMessage(chunks) };
  }

  const finished = (chunks: UIMessageChunk[]) => chunks.some((chunk) => chunk.type === 'finish');

  it('saves the turn when it ends: loading returns the sent messages and the assistant message, chip included', async () => {
    const server = await serve([
      [{ tool: 'proposeOpenTable', input: { table: 'customers' } }],
      [{ text: 'Here is a button that opens the customers table.' }],
    ]);
    const u1 = uiUser('u1', 'show me the customers');
    const { assistant } = await turn(server, 'conv-chip', [u1]);
    const chip = toolParts(assistant).find((part) => part.type === 'tool-proposeOpenTable');
    expect(chip?.state).toBe('output-available');
    expect(JSON.stringify(chip?.output)).toContain('openTable');

    const loaded = await api<Conversation>(server, '/api/conversations/conv-chip');
    expect(loaded.messages).toEqual([u1, assistant]);
    expect(loaded).toMatchObject({ id: 'conv-chip', title: 'show me the customers', messageCount: 2 });
    // The token pill survives too: the usage is in the stored message's metadata.
    expect(loaded.messages[1]?.metadata).toMatchObject({
      usage: { inputTokens: 2 * SCRIPTED_STEP_USAGE.input },
    });
    expect(logs).toEqual([]);
  });

  it('saves an approval while it waits, and the approved continuation over it', async () => {
    const server = await serve([
      [{ tool: 'countRows', input: { table: 'orders' }, id: 'count-1' }],
      [{ text: 'Counted.' }],
    ]);
    const u1 = uiUser('u1', 'how many orders are there?');
    const first = await turn(server, 'conv-approval', [u1]);
    const waiting = await api<Conversation>(server, '/api/conversations/conv-approval');
    expect(waiting.messages).toEqual([u1, first.assistant]);
    expect(toolParts(waiting.messages[1]!).map((part) => part.state)).toEqual(['approval-requested']);

    // The browser answers from the stored message (as after a reload) and sends again.
    const approved = answer(waiting.messages[1]!, 'count-1', true);
    await turn(server, 'conv-approval', [u1, approved]);
    const done = await api<Conversation>(server, '/api/conversations/conv-approval');
    expect(done.messages).toHaveLength(2);
    expect(done.messages[1]?.id).toBe(first.assistant.id);
    const [count] = toolParts(done.messages[1]!);
    expect(count).toMatchObject({ state: 'output-available', approval: { approved: true } });
    expect(count?.output).toMatchObject({ count: await source.rows.count('orders') });
    expect(done.messages[1]?.parts.some((part) => part.type === 'text' && part.text === 'Counted.')).toBe(
      true,
    );
  });

  it('a resumed conversation keeps the tool a search found: the next turn calls it without searching', async () => {
    const toolsSeen: string[][] = [];
    const server = await serve([
      [{ tool: 'searchTools', input: { query: 'explain the query plan' } }],
      [{ text: 'I can explain query plans now.' }],
      (call) => {
        toolsSeen.push((call.tools ?? []).map((tool) => tool.name));
        return [{ tool: 'explainQuery', input: { sql: 'SELECT * FROM orders WHERE id = 1' } }];
      },
      [{ text: 'That is an index scan.' }],
    ]);
    const u1 = uiUser('u1', 'can you show query plans?');
    await turn(server, 'conv-resume', [u1]);

    // A reload: the browser has nothing but what the server stored.
    const stored = await api<Conversation>(server, '/api/conversations/conv-resume');
    const u2 = uiUser('u2', 'explain the lookup of order 1');
    const { assistant } = await turn(server, 'conv-resume', [...stored.messages, u2]);
    expect(toolsSeen[0]).toContain('explainQuery');
    const parts = toolParts(assistant);
    expect(parts.map((part) => part.type)).toEqual(['tool-explainQuery']);
    expect(parts[0]?.state).toBe('output-available');
    expect(JSON.stringify(parts[0]?.output)).toMatch(/Scan/);

    const saved = await api<Conversation>(server, '/api/conversations/conv-resume');
    expect(saved.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(saved.messages[3]).toEqual(assistant);
  });

  it('without that history the same call is refused (what the resumed test relies on)', async () => {
    const server = await serve([
      [{ tool: 'explainQuery', input: { sql: 'SELECT * FROM orders WHERE id = 1' } }],
      [{ text: 'I need to search first.' }],
    ]);
    const { assistant } = await turn(server, 'conv-fresh', [uiUser('u1', 'explain the lookup of order 1')]);
    const [call] = toolParts(assistant);
    expect(call?.state).toBe('output-error');
    expect(call?.errorText).toMatch(/not in active set/);
  });

  it('a failed save is logged and the turn still completes', async () => {
    const server = await serve([[{ text: 'Hello there.' }]]);
    await state.db.q.schema.alterTable('conversations').renameTo('conversations_away').execute();
    try {
      const { chunks, assistant } = await turn(server, 'conv-lost', [uiUser('u1', 'hi')]);
      expect(finished(chunks)).toBe(true);
      expect(chunks.some((chunk) => chunk.type === 'error')).toBe(false);
      expect(assistant.parts).toContainEqual(expect.objectContaining({ type: 'text', text: 'Hello there.' }));
    } finally {
      await state.db.q.schema.alterTable('conversations_away').renameTo('conversations').execute();
    }
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatch(
      /could not save conversation conv-lost \(the turn itself completed\): .*conversations/,
    );
    const missing = await fetch(`${server.url}/api/conversations/conv-lost`, {
      headers: bearer(server.token),
    });
    expect(missing.status).toBe(404);
  });

  it('lists newest first, loads, deletes; refuses bad ids and limits with what to do', async () => {
    const server = await serve([
      [{ text: 'one' }],
      [{ text: 'two' }],
      [{ text: 'three' }],
      [{ text: 'four' }],
    ]);
    await turn(server, 'conv-1', [uiUser('u', 'first question')]);
    await turn(server, 'conv-2', [uiUser('u', 'second question')]);
    // A chat without an id runs unsaved.
    const unsaved = await turn(server, undefined, [uiUser('u', 'not kept')]);
    expect(finished(unsaved.chunks)).toBe(true);
    const stored = await api<Conversation>(server, '/api/conversations/conv-1');
    await turn(server, 'conv-1', [...stored.messages, uiUser('u2', 'follow-up')]);

    const list = async (query = '') =>
      (await api<{ conversations: ConversationSummary[] }>(server, `/api/conversations${query}`))
        .conversations;
    expect((await list()).map((c) => [c.id, c.title, c.messageCount])).toEqual([
      ['conv-1', 'first question', 4],
      ['conv-2', 'second question', 2],
    ]);
    expect((await list('?limit=1')).map((c) => c.id)).toEqual(['conv-1']);
    for (const limit of ['0', '201', 'x', '1.5']) {
      const response = await fetch(`${server.url}/api/conversations?limit=${limit}`, {
        headers: bearer(server.token),
      });
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(
        /^Invalid query for GET \/api\/conversations: limit: expected (at least 1|at most 200|a number|an integer)/,
      );
    }

    const del = (id: string, headers: Record<string, string> = { 'content-type': 'application/json' }) =>
      fetch(`${server.url}/api/conversations/${encodeURIComponent(id)}`, {
        method: 'DELETE',
        headers: bearer(server.token, headers),
        body: '{}',
      });
    // The guard: a delete without the JSON content type is refused and deletes nothing.
    expect((await del('conv-2', { 'content-type': 'text/plain' })).status).toBe(415);
    expect(await del('conv-2').then((response) => response.json())).toEqual({ deleted: 'conv-2' });
    const gone = await fetch(`${server.url}/api/conversations/conv-2`, { headers: bearer(server.token) });
    expect(gone.status).toBe(404);
    expect(await gone.json()).toMatchObject({
      error: {
        code: 'not-found',
        message: "There is no conversation 'conv-2' (it may have been deleted).",
        hint: expect.stringContaining('GET /api/conversations'),
      },
    });
    expect((await del('conv-2')).status).toBe(404);
    expect((await list()).map((c) => c.id)).toEqual(['conv-1']);

    for (const bad of ['-x', 'a b', 'é', 'x'.repeat(129)]) {
      const response = await fetch(`${server.url}/api/conversations/${encodeURIComponent(bad)}`, {
        headers: bearer(server.token),
      });
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(
        /is not valid: use 1–128 letters, digits/,
      );
    }
    // A chat turn with a bad id is refused before the model runs (the script has no step left).
    const refused = await fetch(`${server.url}/api/chat`, {
      method: 'POST',
      headers: bearer(server.token, { 'content-type': 'application/json' }),
      body: JSON.stringify({ id: '../etc', messages: [uiUser('u', 'hi')] }),
    });
    expect(refused.status).toBe(400);
    expect(logs).toEqual([]);
  });
});

describe('withoutFailedTurns: what the model reads of a conversation with a failed turn', () => {
  const note = { type: 'data-turn-error', data: { message: 'HTTP 500' } } as UIMessage['parts'][number];
  it.each([
    [
      'an answer that is only the note is left out',
      [uiUser('u1', 'hi'), { id: 'a1', role: 'assistant', parts: [note] }, uiUser('u2', 'again')],
      ['u1', 'u2'],
    ],
    [
      'an answer with text keeps the text, not the note',
      [uiUser('u1', 'hi'), { id: 'a1', role: 'assistant', parts: [{ type: 'text', text: 'Half' }, note] }],
      ['u1', 'a1'],
    ],
    ['a conversation without failures is unchanged', [uiUser('u1', 'hi')], ['u1']],
  ] as [string, UIMessage[], string[]][])('%s', (_label, messages, ids) => {
    const seen = withoutFailedTurns(messages);
    expect(seen.map((message) => message.id)).toEqual(ids);
    expect(JSON.stringify(seen)).not.toContain('data-turn-error');
  });
});
