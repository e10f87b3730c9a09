import { PROPOSE_TWINS, type ProposeToolName } from '@toolrow/catalog';
import { describe, expect, it } from 'vitest';
import { chipOf, formatUsage, summarizeInput, usageOf } from './chat-parts.ts';

const proposals = Object.entries(PROPOSE_TWINS) as [ProposeToolName, string][];

describe('chipOf', () => {
  it.each(proposals)("reads %s's chip, which runs its twin", (propose, twin) => {
    const output = {
      kind: 'chip',
      proposedBy: propose,
      tool: twin,
      label: 'Do it',
      input: { table: 'orders' },
      note: '…',
    };
    expect(chipOf(propose, output)).toEqual({ label: 'Do it', tool: twin, input: { table: 'orders' } });
  });

  it.each(proposals)('refuses a %s chip that names another tool than its twin', (propose, twin) => {
    const other = proposals.find(([, t]) => t !== twin)?.[1] ?? 'runQuery';
    expect(chipOf(propose, { kind: 'chip', tool: other, label: 'x', input: {} })).toBeNull();
    expect(chipOf(propose, { kind: 'chip', tool: 'stageDeleteRows', label: 'x', input: {} })).toBeNull();
  });

  it('finds no chip in outputs of other tools or without an input', () => {
    expect(chipOf('openTable', { kind: 'chip', tool: 'openTable', label: 'x', input: {} })).toBeNull();
    expect(chipOf('listTables', { tables: [] })).toBeNull();
    expect(chipOf('proposeOpenTable', { label: 'x' })).toBeNull();
    expect(chipOf('proposeOpenTable', 'text')).toBeNull();
    expect(chipOf('noSuchTool', { tool: 'openTable', input: {} })).toBeNull();
  });
});

describe('usage', () => {
  it('reads the token usage the agent puts in the message metadata', () => {
    expect(usageOf({ usage: { inputTokens: 1200, outputTokens: 34, cachedInputTokens: 800 } })).toEqual({
      inputTokens: 1200,
      outputTokens: 34,
      cachedInputTokens: 800,
    });
    expect(usageOf(undefined)).toBeNull();
    expect(usageOf({})).toBeNull();
    expect(formatUsage({ inputTokens: 1200, outputTokens: 34, cachedInputTokens: 800 })).toBe(
      '1.2k in · 34 out · 800 cached',
    );
    expect(formatUsage({ inputTokens: 25_000, outputTokens: 0, cachedInputTokens: 0 })).toBe(
      '25k in · 0 out',
    );
  });

  it('summarizes tool inputs on one line', () => {
    expect(summarizeInput({ table: 'orders', limit: 5 })).toBe('table: orders, limit: 5');
    expect(summarizeInput(undefined)).toBe('');
  });
});
