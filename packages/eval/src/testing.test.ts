import { resolveModel } from '@toolrow/agent';
import { generateText, jsonSchema, streamText, tool } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CORPUS } from './corpus.ts';
import { type ChatServer, floorModel, searchingModel, startChatServer } from './testing.ts';

const tools = {
  listTables: tool({
    description: 'List tables',
    inputSchema: jsonSchema({ type: 'object', properties: {} }),
  }),
  searchTools: tool({
    description: 'Find tools',
    inputSchema: jsonSchema<{ query: string }>({
      type: 'object',
      properties: { query: { type: 'string' } },
      required: ['query'],
    }),
  }),
};

describe('the OpenAI-compatible test server, through @ai-sdk/openai-compatible', () => {
  let server: ChatServer;
  beforeAll(async () => {
    server = await startChatServer((chat) =>
      chat.messages.some((m) => m.role === 'tool')
        ? { text: 'Here are the tables: customers, orders and more, in several pieces of text.' }
        : { toolCalls: [{ name: 'searchTools', arguments: { query: 'export "csv" files' } }] },
    );
  });
  afterAll(() => server.close());

  const model = () => resolveModel({ TOOLROW_MODEL: `openai-compatible:${server.baseURL}#scripted` });

  it('streams a tool call in pieces that the provider joins into one parsed input, with usage', async () => {
    const result = streamText({ model: await model(), tools, prompt: 'find an export tool' });
    const calls: unknown[] = [];
    for await (const part of result.fullStream)
      if (part.type === 'tool-call') calls.push([part.toolName, part.input]);
    expect(calls).toEqual([['searchTools', { query: 'export "csv" files' }]]);
    expect((await result.usage).inputTokens).toBeGreaterThan(10);
    const sent = server.requests.at(-1);
    expect(sent).toMatchObject({ model: 'scripted', stream: true, tools: ['listTables', 'searchTools'] });
  });

  it('answers without streaming too, and the script sees the tool results', async () => {
    const result = await generateText({
      model: await model(),
      tools: {
        ...tools,
        searchTools: tool({ ...tools.searchTools, execute: async () => ({ results: [] }) }),
      },
      prompt: 'find an export tool',
      stopWhen: ({ steps }) => steps.length >= 2,
    });
    expect(result.steps.map((step) => step.toolCalls.map((call) => call.toolName))).toEqual([
      ['searchTools'],
      [],
    ]);
    expect(result.text).toBe('Here are the tables: customers, orders and more, in several pieces of text.');
    expect(server.requests.at(-1)?.stream).toBe(false);
  });

  it('the floor model answers in text where the searching model searches, when the tool is missing', async () => {
    const request = CORPUS.find((r) => r.id === 'audit-log')!;
    const chat = {
      model: 'm',
      stream: false,
      tools: ['searchTools', 'listTables'],
      messages: [{ role: 'user' as const, content: request.text }],
    };
    expect(floorModel()(chat)).toEqual({ text: 'I cannot do that with the tools I have.' });
    expect(searchingModel()(chat)).toEqual({
      toolCalls: [{ name: 'searchTools', arguments: { query: 'audit log' } }],
    });
    // Never, even where searchTools itself is what the request asks for.
    const meta = CORPUS.find((r) => r.id === 'search-what-else')!;
    expect(floorModel()({ ...chat, messages: [{ role: 'user', content: meta.text }] })).toEqual({
      text: 'I cannot do that with the tools I have.',
    });
    expect(floorModel()({ ...chat, tools: ['listAuditLog'] })).toEqual({
      toolCalls: [{ name: 'listAuditLog', arguments: {} }],
    });
  });
});
