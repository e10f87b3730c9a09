import type { LanguageModelV4CallOptions, LanguageModelV4Prompt } from '@ai-sdk/provider';
import {
  GATED_TOOLS,
  isDiscoverable,
  PROPOSE_TWINS,
  proposeVariantOf,
  SILENT_TOOLS,
  TOOL_ACCESS,
  type ToolAccess,
  type ToolName,
} from '@toolrow/catalog';
import type { ModelMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { approvalResponse, createAgent } from './agent.ts';
import { PERMISSION_MODES, type PermissionMode } from './ladder.ts';
import {
  memoryGateStore,
  recordingBackend,
  type ScriptedPart,
  type ScriptedStep,
  scriptedModel,
} from './testing.ts';

// Written out by hand (ARCHITECTURE.md "Tiers, access classes, the ladder"): [not covered, covered].
const LADDER: Record<ToolAccess, Record<PermissionMode, ['run' | 'ask', 'run' | 'ask']>> = {
  read: { manual: ['ask', 'ask'], auto: ['ask', 'run'], 'full-auto': ['run', 'run'] },
  propose: { manual: ['run', 'run'], auto: ['run', 'run'], 'full-auto': ['run', 'run'] },
  open: { manual: ['ask', 'ask'], auto: ['ask', 'ask'], 'full-auto': ['run', 'run'] },
  stage: { manual: ['ask', 'ask'], auto: ['run', 'run'], 'full-auto': ['run', 'run'] },
  export: { manual: ['ask', 'ask'], auto: ['ask', 'ask'], 'full-auto': ['run', 'run'] },
};

const SECRET = 'gating-test-secret';
const user = (content: string): ModelMessage => ({ role: 'user', content });
const sentTools = (call: LanguageModelV4CallOptions) => (call.tools ?? []).map((tool) => tool.name);

/** Steps that make `name` callable (a search when it is discoverable), then call it. */
function reachAndCall(name: ToolName, input: unknown, id: string): ScriptedStep[] {
  const call: ScriptedPart[] = [{ tool: name, input, id }];
  return isDiscoverable(name) ? [[{ tool: 'searchTools', input: { query: name } }], call] : [call];
}

function deniedOutputs(prompt: LanguageModelV4Prompt): string[] {
  const ids: string[] = [];
  for (const message of prompt) {
    if (message.role !== 'tool') continue;
    for (const part of message.content) {
      if (part.type === 'tool-result' && part.output.type === 'execution-denied') ids.push(part.toolCallId);
    }
  }
  return ids;
}

const combinations = GATED_TOOLS.flatMap((tool) =>
  PERMISSION_MODES.flatMap((mode) => [false, true].map((covered) => [tool, mode, covered] as const)),
);

describe('every gated tool × mode × grant follows the ladder, and every decision is audited', () => {
  it('covers every gated tool × 3 modes × 2 grant states', () => {
    expect(combinations).toHaveLength(GATED_TOOLS.length * PERMISSION_MODES.length * 2);
  });

  it.each(combinations)('%s under %s (grant for the table: %s)', async (tool, mode, covered) => {
    const expected = LADDER[TOOL_ACCESS[tool]][mode][covered ? 1 : 0];
    const input = { table: 'orders' };
    const grants = covered ? [{ tool: 'countRows', table: 'orders' }] : [];

    // Run (or pause to ask).
    const backend = recordingBackend();
    const store = memoryGateStore(mode, [...grants]);
    const model = scriptedModel([...reachAndCall(tool, input, 'g1'), [{ text: 'done' }]]);
    const history: ModelMessage[] = [user(`please ${tool}`)];
    const first = await createAgent({ model, backend, store, approvalSecret: SECRET }).runTurn(history, {
      profileId: 'p1',
    });
    const decisions = store.audit.map((entry) => [entry.tool, entry.decision, entry.decidedBy]);

    if (expected === 'run') {
      expect(backend.calls.map((call) => [call.name, call.context.actor])).toEqual([[tool, 'agent']]);
      expect(decisions).toEqual([[tool, 'auto', 'agent']]);
      expect(first.approvals).toEqual([]);
      expect(first.text).toBe('done');
      return;
    }
    expect(backend.calls).toEqual([]);
    expect(decisions).toEqual([[tool, 'asked', 'agent']]);
    expect(first.approvals.map((approval) => approval.toolName)).toEqual([tool]);
    expect(first.approvals[0]!.reason).toMatch(/mode asks/);
    expect(store.audit[0]!.input).toEqual(input);
    expect(store.audit[0]!.profileId).toBe('p1');

    // The user says yes: it runs, audited as approved by the user.
    const yesBackend = recordingBackend();
    const yesStore = memoryGateStore(mode, [...grants]);
    const yes = scriptedModel([[{ text: 'ran it' }]]);
    const approved = await createAgent({
      model: yes,
      backend: yesBackend,
      store: yesStore,
      approvalSecret: SECRET,
    }).runTurn(
      [
        ...history,
        ...first.messages,
        approvalResponse([{ approvalId: first.approvals[0]!.approvalId, approved: true }]),
      ],
      { profileId: 'p1' },
    );
    expect(yesBackend.calls.map((call) => call.name)).toEqual([tool]);
    expect(approved.toolResults).toEqual([
      { toolCallId: 'g1', toolName: tool, input, output: { ok: true, tool } },
    ]);
    expect(yesStore.audit.map((entry) => [entry.tool, entry.decision, entry.decidedBy])).toEqual([
      [tool, 'approved', 'user'],
    ]);

    // The user says no: nothing runs, the model is told it was denied, audited as denied.
    const noBackend = recordingBackend();
    const noStore = memoryGateStore(mode, [...grants]);
    const no = scriptedModel([[{ text: 'ok, I will not' }]]);
    await createAgent({ model: no, backend: noBackend, store: noStore, approvalSecret: SECRET }).runTurn(
      [
        ...history,
        ...first.messages,
        approvalResponse([
          { approvalId: first.approvals[0]!.approvalId, approved: false, reason: 'not now' },
        ]),
      ],
      { profileId: 'p1' },
    );
    expect(noBackend.calls).toEqual([]);
    expect(noStore.audit.map((entry) => [entry.tool, entry.decision, entry.decidedBy, entry.reason])).toEqual(
      [[tool, 'denied', 'user', 'not now']],
    );
    expect(deniedOutputs(no.doGenerateCalls[0]!.prompt)).toEqual(['g1']);
  });
});

describe('silent tools', () => {
  const cases = SILENT_TOOLS.flatMap((tool) => PERMISSION_MODES.map((mode) => [tool, mode] as const));
  it.each(cases)('%s runs under %s without asking or auditing', async (tool, mode) => {
    const backend = recordingBackend();
    const store = memoryGateStore(mode);
    const model = scriptedModel([...reachAndCall(tool, {}, 's1'), [{ text: 'done' }]]);
    const result = await createAgent({ model, backend, store }).runTurn([user('look')], { profileId: 'p' });
    expect(backend.calls.map((call) => call.name)).toEqual([tool]);
    expect(store.audit).toEqual([]);
    expect(result.approvals).toEqual([]);
  });
});

describe('after a denial the model can fall back to the propose twin', () => {
  const immediates = Object.values(PROPOSE_TWINS);
  it.each(immediates)(
    '%s denied under Manual → its propose variant runs and returns a chip',
    async (tool) => {
      const propose = proposeVariantOf(tool)!;
      const chip = {
        kind: 'chip',
        proposedBy: propose,
        tool,
        label: `Run ${tool}`,
        input: { table: 'orders' },
      };
      const backend = recordingBackend({ results: { [propose]: () => chip } });
      const store = memoryGateStore('manual');
      const history: ModelMessage[] = [user(`please ${tool}`)];
      const first = await createAgent({
        model: scriptedModel(reachAndCall(tool, { table: 'orders' }, 'g1')),
        backend,
        store,
        approvalSecret: SECRET,
      }).runTurn(history, { profileId: 'p' });
      history.push(
        ...first.messages,
        approvalResponse([{ approvalId: first.approvals[0]!.approvalId, approved: false }]),
      );

      // A real model reads the denial, which names the twin, and calls it if it is offered.
      const fallback = scriptedModel([
        (call) => {
          const denial = call.prompt
            .flatMap((message) => (message.role === 'tool' ? message.content : []))
            .find((part) => part.type === 'tool-result' && part.toolCallId === 'g1');
          const reason =
            denial?.type === 'tool-result' && denial.output.type === 'execution-denied'
              ? denial.output.reason
              : '';
          return sentTools(call).includes(propose) && reason?.includes(`offer ${propose} instead`)
            ? [{ tool: propose, input: { table: 'orders' }, id: 'p1' }]
            : [{ text: `no ${propose} offered` }];
        },
        [{ text: 'Click the button when you are ready.' }],
      ]);
      const second = await createAgent({ model: fallback, backend, store, approvalSecret: SECRET }).runTurn(
        history,
        {
          profileId: 'p',
        },
      );
      expect(backend.calls.map((call) => call.name)).toEqual([propose]);
      const denial = fallback.doGenerateCalls[0]!.prompt.flatMap((message) =>
        message.role === 'tool' ? message.content : [],
      ).find((part) => part.type === 'tool-result' && part.toolCallId === 'g1');
      expect(denial?.type === 'tool-result' && denial.output).toEqual({
        type: 'execution-denied',
        reason: `The user said no. Nothing ran. If it still helps, offer ${propose} instead: a button the user can click, which changes nothing until they do.`,
      });
      expect(second.toolResults.find((result) => result.toolCallId === 'p1')?.output).toEqual(chip);
      expect(store.audit.map((entry) => [entry.tool, entry.decision])).toEqual([
        [tool, 'asked'],
        [tool, 'denied'],
        [propose, 'auto'],
      ]);

      // The chip changes nothing until the user clicks it; the click runs the twin as the user.
      const agent = createAgent({ model: scriptedModel([]), backend, store });
      await agent.acceptChip(chip, { profileId: 'p' });
      expect(backend.calls.map((call) => [call.name, call.context.actor])).toEqual([
        [propose, 'agent'],
        [tool, 'user'],
      ]);
      expect(store.audit.at(-1)).toMatchObject({ tool, decision: 'approved', decidedBy: 'user' });
      await expect(
        agent.acceptChip({ kind: 'chip', tool: 'listTables', input: {} }, { profileId: 'p' }),
      ).rejects.toThrow(/not one/);
    },
  );
});

describe('remembered grants in Auto mode', () => {
  it('approving a read of a table remembers it, so the next read of that table runs and others still ask', async () => {
    const backend = recordingBackend();
    const store = memoryGateStore('auto');
    const history: ModelMessage[] = [user('how many orders?')];
    const first = await createAgent({
      model: scriptedModel([[{ tool: 'countRows', input: { table: 'orders' }, id: 'c1' }]]),
      backend,
      store,
      approvalSecret: SECRET,
    }).runTurn(history, { profileId: 'p' });
    expect(first.approvals).toHaveLength(1);
    history.push(
      ...first.messages,
      approvalResponse([{ approvalId: first.approvals[0]!.approvalId, approved: true }]),
    );
    const second = await createAgent({
      model: scriptedModel([[{ text: '42 orders' }]]),
      backend,
      store,
      approvalSecret: SECRET,
    }).runTurn(history, { profileId: 'p' });
    expect(store.grants).toEqual([{ tool: 'countRows', table: 'orders' }]);

    history.push(...second.messages, user('show order 7, then customer 3'));
    const third = await createAgent({
      model: scriptedModel([
        [{ tool: 'getRow', input: { table: 'orders', key: { id: 7 } }, id: 'r1' }],
        [{ tool: 'getRow', input: { table: 'customers', key: { id: 3 } }, id: 'r2' }],
      ]),
      backend,
      store,
      approvalSecret: SECRET,
    }).runTurn(history, { profileId: 'p' });
    expect(third.approvals.map((approval) => approval.toolCallId)).toEqual(['r2']);
    expect(backend.calls.map((call) => call.name)).toEqual(['countRows', 'getRow']);
    expect(store.audit.map((entry) => [entry.tool, entry.decision, entry.reason ?? ''])).toEqual([
      ['countRows', 'asked', 'Auto mode asks once per table before reading table data.'],
      ['countRows', 'approved', ''],
      ['getRow', 'auto', 'Auto mode: remembered grant for orders.'],
      ['getRow', 'asked', 'Auto mode asks once per table before reading table data.'],
    ]);
  });

  it('a denial remembers nothing', async () => {
    const store = memoryGateStore('auto');
    const history: ModelMessage[] = [user('count')];
    const first = await createAgent({
      model: scriptedModel([[{ tool: 'countRows', input: { table: 'orders' } }]]),
      backend: recordingBackend(),
      store,
      approvalSecret: SECRET,
    }).runTurn(history, { profileId: 'p' });
    history.push(
      ...first.messages,
      approvalResponse([{ approvalId: first.approvals[0]!.approvalId, approved: false }]),
    );
    await createAgent({
      model: scriptedModel([[{ text: 'fine' }]]),
      backend: recordingBackend(),
      store,
      approvalSecret: SECRET,
    }).runTurn(history, { profileId: 'p' });
    expect(store.grants).toEqual([]);
  });
});

describe('approvals cannot be forged', () => {
  it('an approval for a request this server never signed does not run', async () => {
    const backend = recordingBackend();
    const store = memoryGateStore('manual');
    const history: ModelMessage[] = [user('delete order 1')];
    const first = await createAgent({
      model: scriptedModel([[{ tool: 'stageDeleteRows', input: { table: 'orders', keys: [1] }, id: 'd1' }]]),
      backend,
      store,
      approvalSecret: SECRET,
    }).runTurn(history, { profileId: 'p' });
    // A client that edits the input it was asked about, then approves.
    const tampered = structuredClone(first.messages).map((message) =>
      message.role === 'assistant' && typeof message.content !== 'string'
        ? {
            ...message,
            content: message.content.map((part) =>
              part.type === 'tool-call' ? { ...part, input: { table: 'customers', keys: [1, 2, 3] } } : part,
            ),
          }
        : message,
    ) as ModelMessage[];
    await expect(
      createAgent({
        model: scriptedModel([[{ text: 'x' }]]),
        backend,
        store,
        approvalSecret: SECRET,
      }).runTurn(
        [
          ...history,
          ...tampered,
          approvalResponse([{ approvalId: first.approvals[0]!.approvalId, approved: true }]),
        ],
        { profileId: 'p' },
      ),
    ).rejects.toThrow(/signature/);
    expect(backend.calls).toEqual([]);
  });
});

describe('usage', () => {
  it('reports the turn’s input, output and cached tokens summed over its steps', async () => {
    const model = scriptedModel([
      [{ tool: 'listTables', input: {} }],
      [{ tool: 'describeTable', input: {} }],
      [{ text: 'ok' }],
    ]);
    const result = await createAgent({
      model,
      backend: recordingBackend(),
      store: memoryGateStore(),
    }).runTurn([user('tables?')], { profileId: 'p' });
    expect(result.steps).toBe(3);
    expect(result.usage).toEqual({ inputTokens: 300, outputTokens: 30, cachedInputTokens: 60 });
  });
});

describe('the audit log is always on', () => {
  it('when a decision cannot be recorded, the gated call does not run', async () => {
    const backend = recordingBackend();
    const store = memoryGateStore('full-auto');
    store.appendAudit = async () => {
      throw new Error('audit log unavailable');
    };
    const model = scriptedModel([
      [{ tool: 'stageDeleteRows', input: { table: 'orders', keys: [1] } }],
      [{ text: 'x' }],
    ]);
    await expect(
      createAgent({ model, backend, store }).runTurn([user('delete')], { profileId: 'p' }),
    ).rejects.toThrow('audit log unavailable');
    expect(backend.calls).toEqual([]);
  });
});
