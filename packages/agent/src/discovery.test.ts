import type { LanguageModelV4CallOptions, LanguageModelV4Prompt } from '@ai-sdk/provider';
import {
  alternativesOn,
  DISCOVERABLE_TOOLS,
  INLINE_TOOLS,
  inlineToolsOf,
  isServedBy,
  isToolName,
  notServedMessage,
  rowOf,
  TOOL_NAMES,
} from '@toolrow/catalog';
import type { ModelMessage, UIMessage } from 'ai';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createAgent } from './agent.ts';
import { namesInSearchOutput } from './history.ts';
import { notActiveMessage, refusalMessage, unknownToolMessage } from './refusal.ts';
import { searchCatalog } from './search/scorer.ts';
import {
  assembleUIMessage,
  memoryGateStore,
  readUIChunks,
  recordingBackend,
  type ScriptedPart,
  scriptedModel,
} from './testing.ts';
import { buildToolSet, Turn } from './turn.ts';

const RUNS = 25;
const EXACT_BUDGET_ERROR = '{"error":"search-budget-exhausted","budgetCap":3}';
const INLINE_LIST = INLINE_TOOLS.join(', ');

const sentTools = (call: LanguageModelV4CallOptions) => (call.tools ?? []).map((tool) => tool.name);
const user = (content: string): ModelMessage => ({ role: 'user', content });
const uiUser = (id: string, text: string): UIMessage => ({
  id,
  role: 'user',
  parts: [{ type: 'text', text }],
});

/** The tool results the model received in a prompt, by tool call id. */
function resultsIn(
  prompt: LanguageModelV4Prompt,
): Map<string, { toolName: string; output: { type: string; value?: unknown } }> {
  const results = new Map<string, { toolName: string; output: { type: string; value?: unknown } }>();
  for (const message of prompt) {
    if (message.role !== 'tool') continue;
    for (const part of message.content) {
      if (part.type === 'tool-result')
        results.set(part.toolCallId, { toolName: part.toolName, output: part.output as never });
    }
  }
  return results;
}

/** A model step that calls a tool only if the SDK actually offered it, as a real model would. */
const callIfOffered =
  (tool: string, input: unknown, id: string) =>
  (call: LanguageModelV4CallOptions): ScriptedPart[] =>
    sentTools(call).includes(tool) ? [{ tool, input, id }] : [{ text: `${tool} was not offered` }];

describe('the race: search in step 1, call the found tool in step 2', () => {
  it(`succeeds every time with generateText (${RUNS} runs)`, async () => {
    for (let run = 0; run < RUNS; run++) {
      const backend = recordingBackend();
      const model = scriptedModel([
        [{ tool: 'searchTools', input: { query: 'export this as CSV' }, id: 's1' }],
        callIfOffered('startExport', { table: 'orders', format: 'csv' }, 'x1'),
        [{ text: 'Export started.' }],
      ]);
      const agent = createAgent({ model, backend, store: memoryGateStore('full-auto') });
      const result = await agent.runTurn([user('export orders as csv')], { profileId: 'p' });
      expect(sentTools(model.doGenerateCalls[0]!)).toEqual([...INLINE_TOOLS]);
      expect(sentTools(model.doGenerateCalls[1]!)).toContain('startExport');
      expect(backend.calls.map((call) => call.name)).toEqual(['startExport']);
      expect(resultsIn(model.doGenerateCalls[2]!.prompt).get('x1')?.output).toEqual({
        type: 'json',
        value: { ok: true, tool: 'startExport' },
      });
      expect(result.text).toBe('Export started.');
      expect(result.activeTools).toContain('startExport');
    }
  });

  it(`succeeds every time with streamText and the UI message stream (${RUNS} runs)`, async () => {
    for (let run = 0; run < RUNS; run++) {
      const backend = recordingBackend();
      const model = scriptedModel([
        [{ tool: 'searchTools', input: { query: 'export this as CSV' }, id: 's1' }],
        callIfOffered('startExport', { table: 'orders', format: 'csv' }, 'x1'),
        [{ text: 'Export started.' }],
      ]);
      const agent = createAgent({ model, backend, store: memoryGateStore('full-auto') });
      const response = await agent.streamTurn([uiUser('u1', 'export orders as csv')], { profileId: 'p' });
      expect(response.headers.get('content-type')).toContain('text/event-stream');
      const chunks = await readUIChunks(response);
      expect(sentTools(model.doStreamCalls[1]!)).toContain('startExport');
      expect(chunks).toContainEqual(
        expect.objectContaining({
          type: 'tool-output-available',
          toolCallId: 'x1',
          output: { ok: true, tool: 'startExport' },
        }),
      );
      expect(chunks.some((chunk) => chunk.type === 'tool-output-error')).toBe(false);
      expect(backend.calls.map((call) => call.name)).toEqual(['startExport']);
    }
  });
});

describe('the same step is too early', () => {
  it('a tool called in the same step as the search that finds it is refused; the next step can call it', async () => {
    const backend = recordingBackend();
    const model = scriptedModel([
      [
        { tool: 'searchTools', input: { query: 'export csv' }, id: 's1' },
        { tool: 'startExport', input: { table: 'orders' }, id: 'x1' },
      ],
      callIfOffered('startExport', { table: 'orders' }, 'x2'),
      [{ text: 'ok' }],
    ]);
    await createAgent({ model, backend, store: memoryGateStore('full-auto') }).runTurn([user('export')], {
      profileId: 'p',
    });
    const results = resultsIn(model.doGenerateCalls[2]!.prompt);
    expect(results.get('x1')?.output.type).toBe('error-text');
    expect(results.get('x1')?.output.value).toMatch(/^Tool 'startExport' not in active set\./);
    expect(results.get('x2')?.output.type).toBe('json');
    expect(backend.calls.map((call) => call.context.toolCallId)).toEqual(['x2']);
  });
});

describe('a way back from no match', () => {
  /** What a model reads in a search result's note and acts on: the first searchTools call it names. */
  const retryNamedIn = (call: LanguageModelV4CallOptions, id: string): ScriptedPart[] => {
    const output = resultsIn(call.prompt).get(id)?.output.value as { note?: string } | undefined;
    const query = /searchTools\(query='([^']+)'\)/.exec(output?.note ?? '')?.[1];
    return query ? [{ tool: 'searchTools', input: { query }, id: `${id}-retry` }] : [{ text: 'stuck' }];
  };

  it.each([
    ['Greek, which no row carries', 'εξαγωγή του πίνακα σε αρχείο csv', 'weak'],
    ['Swahili, matching only "csv"', 'hamisha jedwali hili kama faili la csv', 'weak'],
    ['Hebrew, matching nothing', 'ייצא את הטבלה לקובץ', 'none'],
  ])(
    'a request in %s gets a note the model acts on: the retry it names finds the tool',
    async (_, query, kind) => {
      const backend = recordingBackend();
      const model = scriptedModel([
        [{ tool: 'searchTools', input: { query }, id: 's1' }],
        (call) => retryNamedIn(call, 's1'),
        callIfOffered('startExport', { table: 'orders', format: 'csv' }, 'x1'),
        [{ text: 'Export started.' }],
      ]);
      const agent = createAgent({ model, backend, store: memoryGateStore('full-auto') });
      const result = await agent.runTurn([user(query)], { profileId: 'p' });
      const first = resultsIn(model.doGenerateCalls[1]!.prompt).get('s1')!.output.value as {
        results: unknown[];
        note: string;
      };
      if (kind === 'none') {
        expect(first.results).toEqual([]);
        expect(first.note).toMatch(/^No tool matched\. .*English/);
      } else expect(first.note).toMatch(/^Only "csv" of your \d+ words matched/);
      expect(first.note).toContain("searchTools(query='export csv')");
      expect(backend.calls.map((call) => call.name)).toEqual(['startExport']);
      expect(result.text).toBe('Export started.');
    },
  );

  it('a request the catalog understands gets no warning', async () => {
    const model = scriptedModel([
      [{ tool: 'searchTools', input: { query: 'export csv' }, id: 's1' }],
      [{ text: 'ok' }],
    ]);
    const agent = createAgent({ model, backend: recordingBackend(), store: memoryGateStore() });
    await agent.runTurn([user('export csv')], { profileId: 'p' });
    const output = resultsIn(model.doGenerateCalls[1]!.prompt).get('s1')!.output.value as { note: string };
    expect(output.note).toBe('These tools are active now: call them directly from your next step.');
  });
});

describe('search budget', () => {
  it('the 4th search returns exactly the budget error without running the scorer', async () => {
    let scored = 0;
    const search = (query: string) => {
      scored++;
      return searchCatalog(query);
    };
    const model = scriptedModel([
      [{ tool: 'searchTools', input: { query: 'export' }, id: 's1' }],
      [{ tool: 'searchTools', input: { query: 'foreign keys' }, id: 's2' }],
      [{ tool: 'searchTools', input: { query: 'saved specs' }, id: 's3' }],
      [{ tool: 'searchTools', input: { query: 'audit log' }, id: 's4' }],
      [{ text: 'ok' }],
    ]);
    const agent = createAgent({ model, backend: recordingBackend(), store: memoryGateStore(), search });
    const result = await agent.runTurn([user('look around')], { profileId: 'p' });
    expect(scored).toBe(3);
    const fourth = resultsIn(model.doGenerateCalls[4]!.prompt).get('s4')!;
    expect(fourth.output.type).toBe('json');
    expect(JSON.stringify(fourth.output.value)).toBe(EXACT_BUDGET_ERROR);
    const third = resultsIn(model.doGenerateCalls[4]!.prompt).get('s3')!;
    expect((third.output.value as { searchesLeft: number }).searchesLeft).toBe(0);
    // The refused search activated nothing.
    expect(result.activeTools).not.toContain('listAuditLog');
  });

  it('four searches in one step: three run, one gets the budget error', async () => {
    let scored = 0;
    const model = scriptedModel([
      ['export', 'plan', 'index', 'audit'].map((query, index) => ({
        tool: 'searchTools',
        input: { query },
        id: `s${index}`,
      })),
      [{ text: 'ok' }],
    ]);
    const agent = createAgent({
      model,
      backend: recordingBackend(),
      store: memoryGateStore(),
      search: (query) => {
        scored++;
        return searchCatalog(query);
      },
    });
    await agent.runTurn([user('look around')], { profileId: 'p' });
    const outputs = [...resultsIn(model.doGenerateCalls[1]!.prompt).values()].map((result) =>
      JSON.stringify(result.output.value),
    );
    expect(outputs.filter((output) => output === EXACT_BUDGET_ERROR)).toHaveLength(1);
    expect(scored).toBe(3);
  });

  it('counts across an approval pause in the same turn and starts again with the next user message', async () => {
    const store = memoryGateStore('manual');
    const backend = recordingBackend();
    const first = scriptedModel([
      [{ tool: 'searchTools', input: { query: 'export' }, id: 's1' }],
      [{ tool: 'searchTools', input: { query: 'plan' }, id: 's2' }],
      [{ tool: 'runQuery', input: { sql: 'select 1' }, id: 'q1' }],
    ]);
    const history: ModelMessage[] = [user('do things')];
    const approvalSecret = 'test-secret';
    const paused = await createAgent({ model: first, backend, store, approvalSecret }).runTurn(history, {
      profileId: 'p',
    });
    expect(paused.approvals.map((approval) => approval.toolName)).toEqual(['runQuery']);
    history.push(...paused.messages, {
      role: 'tool',
      content: [
        { type: 'tool-approval-response', approvalId: paused.approvals[0]!.approvalId, approved: true },
      ],
    });
    const resumed = scriptedModel([
      [{ tool: 'searchTools', input: { query: 'audit' }, id: 's3' }],
      [{ tool: 'searchTools', input: { query: 'specs' }, id: 's4' }],
      [{ text: 'done' }],
    ]);
    const second = await createAgent({ model: resumed, backend, store, approvalSecret }).runTurn(history, {
      profileId: 'p',
    });
    const results = resultsIn(resumed.doGenerateCalls[2]!.prompt);
    expect(JSON.stringify(results.get('s3')!.output.value)).not.toBe(EXACT_BUDGET_ERROR);
    expect(JSON.stringify(results.get('s4')!.output.value)).toBe(EXACT_BUDGET_ERROR);

    history.push(...second.messages, user('and now?'));
    const next = scriptedModel([
      [{ tool: 'searchTools', input: { query: 'specs' }, id: 's5' }],
      [{ text: 'ok' }],
    ]);
    await createAgent({ model: next, backend, store }).runTurn(history, { profileId: 'p' });
    const fresh = resultsIn(next.doGenerateCalls[1]!.prompt).get('s5')!;
    expect((fresh.output.value as { searchesLeft: number }).searchesLeft).toBe(2);
  });
});

describe('refusals', () => {
  const exportRefusal = `Tool 'startExport' not in active set. Call searchTools(query='startExport') to discover it, or use one of: ${INLINE_LIST}`;
  const unknownRefusal = unknownToolMessage('exportCsv', INLINE_TOOLS);

  it.each([
    ['startExport', exportRefusal],
    ['exportCsv', unknownRefusal],
  ])(
    'generateText: a call to %s never executes and the model reads the exact refusal',
    async (name, text) => {
      const backend = recordingBackend();
      const store = memoryGateStore('full-auto');
      const model = scriptedModel([[{ tool: name, input: { table: 'orders' }, id: 'c1' }], [{ text: 'ok' }]]);
      await createAgent({ model, backend, store }).runTurn([user('export orders')], { profileId: 'p' });
      expect(resultsIn(model.doGenerateCalls[1]!.prompt).get('c1')?.output).toEqual({
        type: 'error-text',
        value: text,
      });
      expect(backend.calls).toEqual([]);
      expect(store.audit).toEqual([]);
    },
  );

  it.each([
    ['startExport', exportRefusal],
    ['exportCsv', unknownRefusal],
  ])(
    'streamText: a call to %s never executes; the UI and the model get the exact refusal',
    async (name, text) => {
      const backend = recordingBackend();
      const model = scriptedModel([[{ tool: name, input: { table: 'orders' }, id: 'c1' }], [{ text: 'ok' }]]);
      const agent = createAgent({ model, backend, store: memoryGateStore('full-auto') });
      const chunks = await readUIChunks(
        await agent.streamTurn([uiUser('u1', 'export orders')], { profileId: 'p' }),
      );
      // The SDK reports a call it could not accept as a tool input error.
      expect(chunks).toContainEqual(
        expect.objectContaining({ type: 'tool-input-error', toolCallId: 'c1', errorText: text }),
      );
      expect(resultsIn(model.doStreamCalls[1]!.prompt).get('c1')?.output).toEqual({
        type: 'error-text',
        value: text,
      });
      expect(backend.calls).toEqual([]);
    },
  );

  it('pins the unknown-name suggestion for a common invented name', () => {
    expect(unknownRefusal).toBe(
      "Tool 'exportCsv' not in active set. Call searchTools(query='exportCsv') to discover it, or use one of: readAttachment, listConnections, listTables",
    );
  });

  it('the execute wrapper itself refuses an inactive tool, whatever the SDK does', async () => {
    const backend = recordingBackend();
    const turn = await Turn.open(
      { backend, store: memoryGateStore('full-auto'), now: () => new Date() },
      [user('hi')],
      { profileId: 'p' },
    );
    const tools = buildToolSet(backend, turn);
    await expect(
      tools.startExport!.execute!(
        { table: 'orders' },
        { toolCallId: 'c1', messages: [], context: undefined },
      ),
    ).rejects.toThrow(exportRefusal);
    expect(backend.calls).toEqual([]);
  });

  it('the execute wrapper refuses a gated call that nothing cleared', async () => {
    const backend = recordingBackend();
    const turn = await Turn.open(
      { backend, store: memoryGateStore('manual'), now: () => new Date() },
      [user('hi')],
      { profileId: 'p' },
    );
    const tools = buildToolSet(backend, turn);
    await expect(
      tools.runQuery!.execute!({ sql: 'select 1' }, { toolCallId: 'c1', messages: [], context: undefined }),
    ).rejects.toThrow(
      "Tool 'runQuery' needs the user's approval under Manual mode and did not get it; nothing ran.",
    );
    expect(backend.calls).toEqual([]);
  });

  it('a bad input gets a message naming the field, and does not execute', async () => {
    const backend = {
      ...recordingBackend(),
      describeInvalidInput: () => 'table: expected a string, got the integer 5',
    };
    const model = scriptedModel([[{ tool: 'searchTools', input: { query: 5 }, id: 'c1' }], [{ text: 'ok' }]]);
    await createAgent({ model, backend, store: memoryGateStore() }).runTurn([user('x')], { profileId: 'p' });
    const output = resultsIn(model.doGenerateCalls[1]!.prompt).get('c1')!.output;
    expect(output.type).toBe('error-text');
    expect(output.value).toMatch(
      /^Invalid input for searchTools: query: .+\. Call searchTools again with input that matches its schema\.$/,
    );
  });
});

describe('the active-set boundary, exhaustively', () => {
  it.each([...DISCOVERABLE_TOOLS])(
    '%s before any search: refused word for word, never executed',
    async (name) => {
      const backend = recordingBackend();
      const store = memoryGateStore('full-auto');
      const model = scriptedModel([[{ tool: name, input: {}, id: 'c1' }], [{ text: 'ok' }]]);
      await createAgent({ model, backend, store }).runTurn([user('go')], { profileId: 'p' });
      expect(resultsIn(model.doGenerateCalls[1]!.prompt).get('c1')?.output).toEqual({
        type: 'error-text',
        value: notActiveMessage(name),
      });
      expect(backend.calls).toEqual([]);
      expect(store.audit).toEqual([]);
    },
  );

  it.each([...DISCOVERABLE_TOOLS])('%s: the execute wrapper refuses it too', async (name) => {
    const backend = recordingBackend();
    const turn = await Turn.open(
      { backend, store: memoryGateStore('full-auto'), now: () => new Date() },
      [user('hi')],
      {
        profileId: 'p',
      },
    );
    const tools = buildToolSet(backend, turn);
    await expect(
      tools[name]!.execute!({}, { toolCallId: 'c1', messages: [], context: undefined }),
    ).rejects.toThrow(notActiveMessage(name));
    expect(backend.calls).toEqual([]);
  });

  it('any name that is not active never executes (property, generateText)', async () => {
    const names = fc.oneof(
      fc.constantFrom(...DISCOVERABLE_TOOLS),
      fc.stringMatching(/^[a-zA-Z][a-zA-Z0-9_]{0,30}$/).filter((name) => !isToolName(name)),
    );
    await fc.assert(
      fc.asyncProperty(names, async (name) => {
        const backend = recordingBackend();
        const model = scriptedModel([[{ tool: name, input: {}, id: 'c1' }], [{ text: 'ok' }]]);
        await createAgent({ model, backend, store: memoryGateStore('full-auto') }).runTurn([user('go')], {
          profileId: 'p',
        });
        const output = resultsIn(model.doGenerateCalls[1]!.prompt).get('c1')?.output;
        expect(output?.type).toBe('error-text');
        expect(output?.value).toMatch(
          new RegExp(
            `^Tool '${name}' not in active set\\. Call searchTools\\(query='${name}'\\) to discover it, or use one of: \\w+`,
          ),
        );
        expect(backend.calls).toEqual([]);
      }),
      { numRuns: 60 },
    );
  });
});

describe('discovery persists for the conversation', () => {
  it('a tool found in turn 1 is active from the first step of turn 2; a new conversation starts from the inline core', async () => {
    const backend = recordingBackend();
    const store = memoryGateStore('full-auto');
    const first = scriptedModel([
      [{ tool: 'searchTools', input: { query: 'export csv' } }],
      [{ text: 'found it' }],
    ]);
    const history: ModelMessage[] = [user('can you export?')];
    const turn1 = await createAgent({ model: first, backend, store }).runTurn(history, { profileId: 'p' });
    history.push(...turn1.messages, user('export orders as csv'));

    const second = scriptedModel([
      callIfOffered('startExport', { table: 'orders' }, 'x1'),
      [{ text: 'done' }],
    ]);
    await createAgent({ model: second, backend, store }).runTurn(history, { profileId: 'p' });
    expect(sentTools(second.doGenerateCalls[0]!)).toContain('startExport');
    expect(backend.calls.map((call) => call.name)).toEqual(['startExport']);

    const fresh = scriptedModel([[{ text: 'hello' }]]);
    await createAgent({ model: fresh, backend, store }).runTurn([user('export orders as csv')], {
      profileId: 'p',
    });
    expect(sentTools(fresh.doGenerateCalls[0]!)).toEqual([...INLINE_TOOLS]);
  });

  it('a conversation resumed from UI messages keeps what it found', async () => {
    const backend = recordingBackend();
    const store = memoryGateStore('full-auto');
    const first = scriptedModel([
      [{ tool: 'searchTools', input: { query: 'foreign keys' } }],
      [{ text: 'found' }],
    ]);
    const u1 = uiUser('u1', 'how do tables relate?');
    const chunks = await readUIChunks(
      await createAgent({ model: first, backend, store }).streamTurn([u1], { profileId: 'p' }),
    );
    const assistant = await assembleUIMessage(chunks);
    // As if stored and loaded again: plain JSON.
    const stored = JSON.parse(
      JSON.stringify([u1, { ...assistant, id: 'a1' }, uiUser('u2', 'for orders')]),
    ) as UIMessage[];

    const second = scriptedModel([
      callIfOffered('describeRelations', { table: 'orders' }, 'r1'),
      [{ text: 'done' }],
    ]);
    const out = await readUIChunks(
      await createAgent({ model: second, backend, store }).streamTurn(stored, { profileId: 'p' }),
    );
    expect(sentTools(second.doStreamCalls[0]!)).toContain('describeRelations');
    expect(out).toContainEqual(expect.objectContaining({ type: 'tool-output-available', toolCallId: 'r1' }));
  });
});

describe('the connection engine decides the sets', () => {
  // An engine with none of the features rows need; which tools it lacks comes from the rows.
  const engine = { engine: 'bare', features: [] };
  const unserved = TOOL_NAMES.find((name) => !isServedBy(engine, name))!;
  const open = (history: ModelMessage[]) =>
    Turn.open(
      { backend: recordingBackend(), store: memoryGateStore('full-auto'), now: () => new Date() },
      history,
      {
        profileId: 'p',
        engine,
      },
    );

  it("the first step sends the engine's inline core; a search never finds a tool the engine lacks", async () => {
    expect(unserved).toBeDefined();
    const model = scriptedModel([
      [{ tool: 'searchTools', input: { query: rowOf(unserved).keywords.join(' ') }, id: 's1' }],
      [{ text: 'done' }],
    ]);
    const agent = createAgent({ model, backend: recordingBackend(), store: memoryGateStore('full-auto') });
    const result = await agent.runTurn([user('how do my tables relate?')], { profileId: 'p', engine });
    expect(sentTools(model.doGenerateCalls[0]!)).toEqual([...inlineToolsOf(engine)]);
    const found = namesInSearchOutput(resultsIn(model.doGenerateCalls[1]!.prompt).get('s1')?.output.value);
    expect(found.length).toBeGreaterThan(0);
    for (const name of found) expect(isServedBy(engine, name)).toBe(true);
    expect(found).not.toContain(unserved);
    expect(result.activeTools).not.toContain(unserved);
    // The same words on a connection that serves it do find it.
    expect(searchCatalog(rowOf(unserved).keywords.join(' ')).map((match) => match.name)).toContain(unserved);
  });

  it('calling a tool the engine lacks runs nothing and the refusal names what to use instead', async () => {
    const backend = recordingBackend();
    const turn = await Turn.open(
      { backend, store: memoryGateStore('full-auto'), now: () => new Date() },
      [user('hi')],
      {
        profileId: 'p',
        engine,
      },
    );
    const tools = buildToolSet(backend, turn);
    await expect(
      tools[unserved]!.execute!({ table: 'orders' }, { toolCallId: 'c1', messages: [], context: undefined }),
    ).rejects.toThrow(notServedMessage(unserved, engine));
    expect(backend.calls).toEqual([]);
    expect(refusalMessage(unserved, turn.activeTools(), engine)).toBe(notServedMessage(unserved, engine));
    // Its advice is followable: every tool it names is one the engine serves.
    for (const name of alternativesOn(engine, unserved)) expect(isServedBy(engine, name)).toBe(true);
  });

  it('a tool found on another connection earlier in the conversation is not active here', async () => {
    const history: ModelMessage[] = [
      user('relations?'),
      {
        role: 'assistant',
        content: [
          { type: 'tool-call', toolCallId: 's0', toolName: 'searchTools', input: { query: 'foreign keys' } },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 's0',
            toolName: 'searchTools',
            output: {
              type: 'json',
              value: { query: 'foreign keys', results: [{ name: unserved, summary: '' }], searchesLeft: 2 },
            },
          },
        ],
      },
      user('and now?'),
    ];
    const onPostgres = await Turn.open(
      { backend: recordingBackend(), store: memoryGateStore('full-auto'), now: () => new Date() },
      history,
      { profileId: 'p' },
    );
    expect(onPostgres.activeTools()).toContain(unserved);
    expect((await open(history)).activeTools()).not.toContain(unserved);
  });
});
