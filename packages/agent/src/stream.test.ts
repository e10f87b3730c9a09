// The browser path: streamTurn's UI message stream, answered the way useChat answers it.
import type { UIMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { createAgent } from './agent.ts';
import {
  assembleUIMessage,
  memoryGateStore,
  readUIChunks,
  recordingBackend,
  SCRIPTED_STEP_USAGE,
  scriptedModel,
} from './testing.ts';

const SECRET = 'stream-test-secret';
const uiUser = (id: string, text: string): UIMessage => ({
  id,
  role: 'user',
  parts: [{ type: 'text', text }],
});

type ToolPart = {
  type: string;
  toolCallId: string;
  state: string;
  approval?: { id: string; approved?: boolean; reason?: string; requestReason?: string };
  output?: unknown;
};

/** What useChat's addToolApprovalResponse does to the assistant message. */
function answer(message: UIMessage, toolCallId: string, approved: boolean, reason?: string): UIMessage {
  const copy = structuredClone(message);
  for (const part of copy.parts as unknown as ToolPart[]) {
    if (part.toolCallId !== toolCallId || part.state !== 'approval-requested') continue;
    part.state = 'approval-responded';
    part.approval = { ...part.approval!, approved, ...(reason ? { reason } : {}) };
  }
  return copy;
}

describe('streamTurn: approvals over the UI message stream', () => {
  async function askFirst() {
    const backend = recordingBackend();
    const store = memoryGateStore('manual');
    const u1 = uiUser('u1', 'how many orders?');
    const first = createAgent({
      model: scriptedModel([[{ tool: 'runQuery', input: { sql: 'select count(*) from orders' }, id: 'q1' }]]),
      backend,
      store,
      approvalSecret: SECRET,
    });
    const chunks = await readUIChunks(await first.streamTurn([u1], { profileId: 'p' }));
    const assistant = { ...(await assembleUIMessage(chunks)), id: 'a1' };
    return { backend, store, u1, chunks, assistant };
  }

  it('a gated call arrives as an approval request with the ladder’s reason; nothing runs', async () => {
    const { backend, store, chunks, assistant } = await askFirst();
    expect(chunks).toContainEqual(
      expect.objectContaining({ type: 'tool-approval-request', toolCallId: 'q1' }),
    );
    const part = (assistant.parts as unknown as ToolPart[]).find(
      (candidate) => candidate.toolCallId === 'q1',
    )!;
    expect(part.type).toBe('tool-runQuery');
    expect(part.state).toBe('approval-requested');
    expect(part.approval?.requestReason).toBe('Manual mode asks before every gated action.');
    expect(backend.calls).toEqual([]);
    expect(store.audit.map((entry) => entry.decision)).toEqual(['asked']);
  });

  it('approved in the browser: the next request runs it and audits the approval', async () => {
    const { backend, store, u1, assistant } = await askFirst();
    const second = createAgent({
      model: scriptedModel([[{ text: 'There are 200 orders.' }]]),
      backend,
      store,
      approvalSecret: SECRET,
    });
    const chunks = await readUIChunks(
      await second.streamTurn([u1, answer(assistant, 'q1', true)], { profileId: 'p' }),
    );
    expect(chunks).toContainEqual(
      expect.objectContaining({ type: 'tool-output-available', toolCallId: 'q1' }),
    );
    expect(backend.calls.map((call) => call.name)).toEqual(['runQuery']);
    expect(store.audit.map((entry) => [entry.decision, entry.decidedBy])).toEqual([
      ['asked', 'agent'],
      ['approved', 'user'],
    ]);
  });

  it('denied in the browser: nothing runs, the UI shows the denial, the model is told', async () => {
    const { backend, store, u1, assistant } = await askFirst();
    const model = scriptedModel([[{ text: 'Understood, I will not run it.' }]]);
    const second = createAgent({ model, backend, store, approvalSecret: SECRET });
    const chunks = await readUIChunks(
      await second.streamTurn([u1, answer(assistant, 'q1', false, 'too slow')], { profileId: 'p' }),
    );
    expect(chunks).toContainEqual(expect.objectContaining({ type: 'tool-output-denied', toolCallId: 'q1' }));
    expect(backend.calls).toEqual([]);
    const denied = model.doStreamCalls[0]!.prompt.flatMap((message) =>
      message.role === 'tool' ? message.content.filter((part) => part.type === 'tool-result') : [],
    );
    expect(denied).toContainEqual(
      expect.objectContaining({
        toolCallId: 'q1',
        output: expect.objectContaining({ type: 'execution-denied' }),
      }),
    );
    expect(store.audit.map((entry) => [entry.decision, entry.reason])).toEqual([
      ['asked', 'Manual mode asks before every gated action.'],
      ['denied', 'too slow'],
    ]);
  });

  it('a propose tool streams its chip as the tool output, and usage arrives in the metadata', async () => {
    const chip = {
      kind: 'chip',
      proposedBy: 'proposeOpenTable',
      tool: 'openTable',
      label: 'Open orders',
      input: { table: 'orders' },
    };
    const backend = recordingBackend({ results: { proposeOpenTable: () => chip } });
    const agent = createAgent({
      model: scriptedModel([
        [{ tool: 'proposeOpenTable', input: { table: 'orders' }, id: 'p1' }],
        [{ text: 'Click it.' }],
      ]),
      backend,
      store: memoryGateStore('manual'),
    });
    const chunks = await readUIChunks(
      await agent.streamTurn([uiUser('u1', 'show orders')], { profileId: 'p' }),
    );
    expect(chunks).toContainEqual({ type: 'tool-output-available', toolCallId: 'p1', output: chip });
    expect(chunks.at(-1)).toEqual({
      type: 'finish',
      finishReason: 'stop',
      messageMetadata: {
        usage: {
          inputTokens: SCRIPTED_STEP_USAGE.input * 2,
          outputTokens: SCRIPTED_STEP_USAGE.output * 2,
          cachedInputTokens: SCRIPTED_STEP_USAGE.cacheRead * 2,
        },
      },
    });
    const message = await assembleUIMessage(chunks);
    expect(message.metadata).toEqual({ usage: expect.objectContaining({ inputTokens: 200 }) });
  });
});

describe('streamTurn: stored conversations with refusals', () => {
  it('a history holding a refused unknown tool converts back and the model still reads the refusal', async () => {
    const backend = recordingBackend();
    const store = memoryGateStore('full-auto');
    const u1 = uiUser('u1', 'export');
    const first = scriptedModel([
      [{ tool: 'exportCsv', input: { table: 'orders' }, id: 'e1' }],
      [{ text: 'Let me search.' }],
    ]);
    const chunks = await readUIChunks(
      await createAgent({ model: first, backend, store }).streamTurn([u1], { profileId: 'p' }),
    );
    const assistant = { ...(await assembleUIMessage(chunks)), id: 'a1' };
    const stored = JSON.parse(JSON.stringify([u1, assistant, uiUser('u2', 'go on')])) as UIMessage[];
    const second = scriptedModel([[{ text: 'ok' }]]);
    const out = await readUIChunks(
      await createAgent({ model: second, backend, store }).streamTurn(stored, { profileId: 'p' }),
    );
    expect(out.some((chunk) => chunk.type === 'error')).toBe(false);
    const refusal = second.doStreamCalls[0]!.prompt.flatMap((message) =>
      message.role === 'tool' ? message.content : [],
    ).find((part) => part.type === 'tool-result' && part.toolCallId === 'e1');
    expect(refusal?.type === 'tool-result' && refusal.output).toEqual({
      type: 'error-text',
      value: expect.stringMatching(
        /^Tool 'exportCsv' not in active set\. Call searchTools\(query='exportCsv'\)/,
      ),
    });
    expect(backend.calls).toEqual([]);
  });
});
