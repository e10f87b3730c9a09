// The agent over the real tools and the real app state, on both engines (PGlite always,
// PostgreSQL when TOOLROW_TEST_DATABASE_URL is set). Only the model is scripted.
import type { LanguageModelV4Prompt } from '@ai-sdk/provider';
import type { DataSource } from '@toolrow/datasource';
import type { Toolrow } from '@toolrow/state';
import { testStores } from '@toolrow/state/testing';
import type { ModelMessage } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Agent, approvalResponse, createAgent } from './agent.ts';
import { appStateGateStore, toolsBackend } from './backends.ts';
import type { PermissionMode } from './ladder.ts';
import { type ScriptedStep, scriptedModel } from './testing.ts';

const SECRET = 'db-test-secret';
const user = (content: string): ModelMessage => ({ role: 'user', content });

function toolOutputs(prompt: LanguageModelV4Prompt): Map<string, { type: string; value?: unknown }> {
  const outputs = new Map<string, { type: string; value?: unknown }>();
  for (const message of prompt) {
    if (message.role !== 'tool') continue;
    for (const part of message.content)
      if (part.type === 'tool-result') outputs.set(part.toolCallId, part.output as never);
  }
  return outputs;
}

describe.each(testStores())('agent on $name', ({ open }) => {
  let ds: Toolrow;
  let profile = 0;

  beforeAll(async () => {
    ds = await open({ seed: { orders: 200 } });
  }, 120_000);
  afterAll(async () => {
    await ds?.close();
  });

  /** A fresh profile in the given mode, and an agent over the real backend and app state. */
  async function setup(mode: PermissionMode, steps: readonly ScriptedStep[]) {
    const name = `agent-${++profile}`;
    await ds.state.profiles.ensure(name);
    await ds.state.profiles.setMode(name, mode);
    const model = scriptedModel(steps);
    const agent: Agent = createAgent({
      model,
      backend: toolsBackend(ds),
      store: appStateGateStore(ds.state),
      approvalSecret: SECRET,
    });
    return { name, model, agent };
  }

  async function audit(name: string) {
    return (await ds.state.audit.list({ profile: name })).reverse().map((entry) => ({
      tool: entry.tool,
      decision: entry.decision,
      decidedBy: entry.decidedBy,
      table: entry.table,
    }));
  }

  it('Manual: a read asks, is audited, and runs the real query once the user approves', async () => {
    const { name, agent } = await setup('manual', [
      [{ tool: 'runQuery', input: { sql: 'select count(*)::int as n from orders' }, id: 'q1' }],
    ]);
    const history: ModelMessage[] = [user('how many orders?')];
    const first = await agent.runTurn(history, { profileId: name });
    expect(first.approvals.map((approval) => approval.toolName)).toEqual(['runQuery']);
    expect(await audit(name)).toEqual([
      { tool: 'runQuery', decision: 'asked', decidedBy: 'agent', table: 'public.orders' },
    ]);

    const resumed = await setup('manual', [[{ text: '200 orders' }]]);
    history.push(
      ...first.messages,
      approvalResponse([{ approvalId: first.approvals[0]!.approvalId, approved: true }]),
    );
    const second = await resumed.agent.runTurn(history, { profileId: name });
    expect(second.text).toBe('200 orders');
    const output = toolOutputs(resumed.model.doGenerateCalls[0]!.prompt).get('q1');
    expect(output?.type).toBe('json');
    expect(JSON.stringify(output?.value)).toContain('200');
    expect(await audit(name)).toEqual([
      { tool: 'runQuery', decision: 'asked', decidedBy: 'agent', table: 'public.orders' },
      { tool: 'runQuery', decision: 'approved', decidedBy: 'user', table: 'public.orders' },
    ]);
  });

  it('Auto: approving a read remembers the table; the next read of it runs without asking', async () => {
    const { name, agent } = await setup('auto', [
      [{ tool: 'countRows', input: { table: 'orders' }, id: 'c1' }],
    ]);
    const history: ModelMessage[] = [user('count orders')];
    const first = await agent.runTurn(history, { profileId: name });
    expect(first.approvals).toHaveLength(1);
    history.push(
      ...first.messages,
      approvalResponse([{ approvalId: first.approvals[0]!.approvalId, approved: true }]),
    );
    const again = await setup('auto', [[{ text: 'counted' }]]);
    const second = await again.agent.runTurn(history, { profileId: name });
    expect((await ds.state.profiles.grants(name)).map((grant) => [grant.tool, grant.table])).toEqual([
      ['countRows', 'public.orders'],
    ]);

    history.push(...second.messages, user('and by status?'));
    const third = await setup('auto', [
      [{ tool: 'runQuery', input: { sql: 'select status, count(*) from orders group by 1' }, id: 'q2' }],
      [{ text: 'by status' }],
    ]);
    const result = await third.agent.runTurn(history, { profileId: name });
    expect(result.approvals).toEqual([]);
    expect(result.toolResults.map((entry) => entry.toolName)).toEqual(['runQuery']);
    expect((await audit(name)).map((entry) => [entry.tool, entry.decision])).toEqual([
      ['countRows', 'asked'],
      ['countRows', 'approved'],
      ['runQuery', 'auto'],
    ]);
  });

  it('Full Auto: a stage tool only stages; the table is untouched and nothing can commit', async () => {
    const before = await ds.source.rows.get('orders', { id: 1 });
    const { name, agent } = await setup('full-auto', [
      [
        {
          tool: 'stageUpdateRows',
          input: { table: 'orders', updates: [{ key: { id: 1 }, values: { status: 'cancelled' } }] },
          id: 'u1',
        },
      ],
      [{ text: 'staged' }],
    ]);
    const result = await agent.runTurn([user('cancel order 1')], { profileId: name });
    expect(result.toolResults.map((entry) => entry.toolName)).toEqual(['stageUpdateRows']);
    expect(await ds.source.rows.get('orders', { id: 1 })).toEqual(before);
    const staged = await ds.state.staging.list();
    expect(staged.some((change) => change.table.endsWith('orders') && change.kind === 'update')).toBe(true);
    expect(Object.keys(agent.tools).some((tool) => /commit|discard/i.test(tool))).toBe(false);
    expect(await audit(name)).toEqual([
      { tool: 'stageUpdateRows', decision: 'auto', decidedBy: 'agent', table: 'public.orders' },
    ]);
    await ds.state.staging.discard();
  });

  it('Manual: a denied stage tool stages nothing and the denial is audited', async () => {
    const { name, agent } = await setup('manual', [
      [{ tool: 'stageDeleteRows', input: { table: 'orders', keys: [{ id: 2 }] }, id: 'd1' }],
    ]);
    const history: ModelMessage[] = [user('delete order 2')];
    const first = await agent.runTurn(history, { profileId: name });
    history.push(
      ...first.messages,
      approvalResponse([{ approvalId: first.approvals[0]!.approvalId, approved: false }]),
    );
    const after = await setup('manual', [[{ text: 'not deleted' }]]);
    await after.agent.runTurn(history, { profileId: name });
    expect(await ds.state.staging.list()).toEqual([]);
    expect((await audit(name)).map((entry) => [entry.tool, entry.decision, entry.decidedBy])).toEqual([
      ['stageDeleteRows', 'asked', 'agent'],
      ['stageDeleteRows', 'denied', 'user'],
    ]);
  });

  it('Manual: a propose tool emits a real chip and changes nothing until the user accepts it', async () => {
    const { name, agent } = await setup('manual', [
      [{ tool: 'proposeOpenTable', input: { table: 'orders' }, id: 'p1' }],
      [{ text: 'Click to open.' }],
    ]);
    const result = await agent.runTurn([user('show me orders')], { profileId: name });
    const chip = result.toolResults.find((entry) => entry.toolCallId === 'p1')?.output as {
      kind: string;
      tool: string;
    };
    expect(chip).toMatchObject({ kind: 'chip', tool: 'openTable' });
    expect((await ds.state.ui.get(name)).tabs).toEqual([]);

    await agent.acceptChip(chip, { profileId: name });
    expect((await ds.state.ui.get(name)).tabs.map((tab) => tab.kind)).toEqual(['table']);
    expect((await audit(name)).map((entry) => [entry.tool, entry.decision, entry.decidedBy])).toEqual([
      ['proposeOpenTable', 'auto', 'agent'],
      ['openTable', 'approved', 'user'],
    ]);
  });

  it('Full Auto: discovery then a real export in the next step', async () => {
    const { name, agent, model } = await setup('full-auto', [
      [{ tool: 'searchTools', input: { query: 'export this as CSV' } }],
      [{ tool: 'startExport', input: { table: 'orders', format: 'csv' }, id: 'x1' }],
      [{ text: 'exporting' }],
    ]);
    const result = await agent.runTurn([user('export orders as csv')], { profileId: name });
    expect(toolOutputs(model.doGenerateCalls[2]!.prompt).get('x1')?.type).toBe('json');
    expect(result.toolResults.map((entry) => entry.toolName)).toEqual(['searchTools', 'startExport']);
    const jobs = await ds.state.exportJobs.list({ profile: name });
    expect(jobs.map((job) => job.format)).toEqual(['csv']);
  });

  it('a bad input is refused with the tools’ field-naming message and never runs', async () => {
    const { name, agent, model } = await setup('full-auto', [
      [{ tool: 'countRows', input: { table: 5 }, id: 'c1' }],
      [{ text: 'oops' }],
    ]);
    await agent.runTurn([user('count')], { profileId: name });
    const output = toolOutputs(model.doGenerateCalls[1]!.prompt).get('c1');
    expect(output?.type).toBe('error-text');
    expect(output?.value).toMatch(
      /^Invalid input for countRows: table: expected a string, got the integer 5/,
    );
    expect(await audit(name)).toEqual([]);
  });
});
