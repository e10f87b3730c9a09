import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConversationMessage } from './app-types.ts';
import { CONVERSATION_ID_PATTERN, conversationTitle } from './repositories/conversations.ts';
import type { ToolrowState } from './state.ts';
import { testStores } from './testing.ts';
import type { Toolrow } from './toolrow.ts';

const user = (id: string, text: string): ConversationMessage => ({
  id,
  role: 'user',
  parts: [{ type: 'text', text }],
});

/** An assistant message the way the chat holds one: a search, a tool that ran, an approval, a chip. */
const assistant = (id: string): ConversationMessage => ({
  id,
  role: 'assistant',
  metadata: { usage: { inputTokens: 300, outputTokens: 30, cachedInputTokens: 60 } },
  parts: [
    { type: 'step-start' },
    {
      type: 'tool-searchTools',
      toolCallId: 'c1',
      state: 'output-available',
      input: { query: 'query plan' },
      output: { results: [{ name: 'explainQuery', description: 'The plan of a SELECT' }] },
    },
    {
      type: 'tool-runQuery',
      toolCallId: 'c2',
      state: 'approval-requested',
      input: { sql: 'select 1' },
      approval: { id: 'a1', requestReason: 'Manual mode asks before reading table data.' },
    },
    {
      type: 'tool-proposeOpenTable',
      toolCallId: 'c3',
      state: 'output-available',
      input: { table: 'orders' },
      output: { chip: { label: 'Open orders', tool: 'openTable', input: { table: 'orders' } } },
    },
    // Key order, unicode, a NUL and large or fractional numbers survive as written (json, not jsonb).
    { type: 'text', text: 'Done — ✓ 🚀 a\u0000b', z: 1, a: 2, big: 1.5e300, tiny: 0.1 },
  ],
});

describe('conversationTitle', () => {
  it('is the first user words, whitespace collapsed, cut at a word with an ellipsis', () => {
    expect(conversationTitle([user('u', '  show me\n\nlast month’s   paid orders ')])).toBe(
      'show me last month’s paid orders',
    );
    const long =
      'which customers ordered the most in the last quarter of the year, by total spent and count of orders';
    const title = conversationTitle([user('u', long)]);
    expect(title.endsWith('…')).toBe(true);
    expect(title.length).toBeLessThanOrEqual(81);
    expect(long.startsWith(title.slice(0, -1))).toBe(true);
    // Cut at a word boundary: the character after the cut is a space.
    expect(long[title.length - 1]).toBe(' ');
    // A single 200-character word is cut hard.
    expect(conversationTitle([user('u', 'x'.repeat(200))])).toBe(`${'x'.repeat(80)}…`);
    // The first user message, not the assistant's, and not a later one.
    expect(
      conversationTitle([
        { id: 's', role: 'system', parts: [{ type: 'text', text: 'system words' }] },
        user('u1', 'first'),
        user('u2', 'second'),
      ]),
    ).toBe('first');
    expect(conversationTitle([])).toBe('New conversation');
    expect(conversationTitle([{ id: 'u', role: 'user', parts: [{ type: 'file', url: 'x' }] }])).toBe(
      'New conversation',
    );
  });
});

describe.each(testStores())('conversations on $name', ({ open }) => {
  let toolrow: Toolrow;
  let state: ToolrowState;
  beforeAll(async () => {
    toolrow = await open();
    ({ state } = toolrow);
  }, 60_000);
  afterAll(() => toolrow.close());

  it('save then get returns the messages verbatim; list shows the title and count without them', async () => {
    const messages = [user('u1', 'show me the paid orders'), assistant('a1')];
    const saved = await state.conversations.save({ id: 'conv-1', messages });
    expect(saved).toMatchObject({
      id: 'conv-1',
      profile: 'default',
      title: 'show me the paid orders',
      messageCount: 2,
    });
    expect(saved.createdAt).toBeInstanceOf(Date);
    const loaded = await state.conversations.get('conv-1');
    expect(loaded.messages).toEqual(messages);
    expect(JSON.stringify(loaded.messages)).toBe(JSON.stringify(messages));
    const [listed] = await state.conversations.list();
    expect(listed).toEqual(saved);
    expect(listed).not.toHaveProperty('messages');
  });

  it('save replaces the messages, keeps createdAt, and moves the conversation to the top', async () => {
    const profile = 'replace';
    const first = await state.conversations.save({ id: 'a', profile, messages: [user('1', 'alpha')] });
    await state.conversations.save({ id: 'b', profile, messages: [user('1', 'beta')] });
    await state.conversations.save({ id: 'c', profile, messages: [user('1', 'gamma')] });
    expect((await state.conversations.list({ profile })).map((c) => c.id)).toEqual(['c', 'b', 'a']);
    const longer = [user('1', 'alpha'), assistant('2'), user('3', 'and then?')];
    const again = await state.conversations.save({ id: 'a', profile, messages: longer });
    expect(again.createdAt).toEqual(first.createdAt);
    expect(again.updatedAt.getTime()).toBeGreaterThanOrEqual(first.updatedAt.getTime());
    expect(again.messageCount).toBe(3);
    expect((await state.conversations.get('a', profile)).messages).toEqual(longer);
    expect((await state.conversations.list({ profile })).map((c) => c.id)).toEqual(['a', 'c', 'b']);
    expect((await state.conversations.list({ profile, limit: 1, offset: 1 })).map((c) => c.id)).toEqual([
      'c',
    ]);
    // Saving the same list twice in a row still counts as the newest save.
    await state.conversations.save({ id: 'b', profile, messages: [user('1', 'beta')] });
    await state.conversations.save({ id: 'c', profile, messages: [user('1', 'gamma')] });
    expect((await state.conversations.list({ profile }))[0]?.id).toBe('c');
  });

  it('profiles are separate: the same id is two conversations; get and delete stay in their profile', async () => {
    await state.conversations.save({ id: 'shared', profile: 'p1', messages: [user('1', 'from p1')] });
    await state.conversations.save({ id: 'shared', profile: 'p2', messages: [user('1', 'from p2')] });
    expect((await state.conversations.get('shared', 'p1')).title).toBe('from p1');
    expect((await state.conversations.get('shared', 'p2')).title).toBe('from p2');
    await expect(state.conversations.get('shared', 'p3')).rejects.toThrow(
      /No conversation 'shared' in profile 'p3'\. It may have been deleted; list the conversations/,
    );
    expect(await state.conversations.delete('shared', 'p1')).toBe(true);
    expect(await state.conversations.delete('shared', 'p1')).toBe(false);
    expect((await state.conversations.get('shared', 'p2')).title).toBe('from p2');
    expect(await state.conversations.list({ profile: 'p1' })).toEqual([]);
  });

  it('an explicit title wins over the first words; an untitled one says so', async () => {
    const titled = await state.conversations.save({
      id: 'titled',
      profile: 'titles',
      title: '  Quarterly review  ',
      messages: [user('1', 'hello')],
    });
    expect(titled.title).toBe('Quarterly review');
    const empty = await state.conversations.save({ id: 'empty', profile: 'titles', messages: [] });
    expect(empty).toMatchObject({ title: 'New conversation', messageCount: 0 });
    expect((await state.conversations.get('empty', 'titles')).messages).toEqual([]);
  });

  it('ids: exactly the pattern is accepted (property), anything else is refused before touching the table', async () => {
    const profile = 'ids';
    const valid = fc.stringMatching(CONVERSATION_ID_PATTERN);
    await fc.assert(
      fc.asyncProperty(valid, async (id) => {
        await state.conversations.save({ id, profile, messages: [user('1', id)] });
        const loaded = await state.conversations.get(id, profile);
        expect([loaded.id, loaded.messages]).toEqual([id, [user('1', id)]]);
      }),
      { numRuns: 40 },
    );
    const before = (await state.conversations.list({ profile, limit: 1000 })).length;
    const invalid = fc.string({ maxLength: 140 }).filter((id) => !CONVERSATION_ID_PATTERN.test(id));
    await fc.assert(
      fc.asyncProperty(invalid, async (id) => {
        await expect(state.conversations.save({ id, profile, messages: [] })).rejects.toThrow(
          /is not allowed: use 1–128 letters, digits, '_' or '-'/,
        );
      }),
      { numRuns: 60 },
    );
    for (const id of ['', '-lead', '_lead', 'a/b', 'a b', '../x', 'x'.repeat(129), 'é', 'a\nb']) {
      await expect(state.conversations.save({ id, profile, messages: [] })).rejects.toThrow(/not allowed/);
    }
    expect((await state.conversations.list({ profile, limit: 1000 })).length).toBe(before);
  });

  it('messages that are not UI messages are refused, naming the first bad one', async () => {
    const bad: [unknown, RegExp][] = [
      ['text', /messages must be an array/],
      [[user('1', 'ok'), { id: 2, role: 'user', parts: [] }], /messages\[1\] is not a UI message/],
      [[{ id: '1', role: 'tool', parts: [] }], /messages\[0\] is not a UI message/],
      [[{ id: '1', role: 'user', content: 'hi' }], /messages\[0\].*a parts array/],
      [[null], /messages\[0\]/],
    ];
    for (const [messages, error] of bad) {
      await expect(
        state.conversations.save({ id: 'bad', messages: messages as ConversationMessage[] }),
      ).rejects.toThrow(error);
    }
    await expect(state.conversations.get('bad')).rejects.toThrow(/No conversation 'bad'/);
  });
});
