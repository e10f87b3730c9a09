import { GATED_TOOLS, TOOL_ACCESS, type ToolAccess } from '@toolrow/catalog';
import { describe, expect, it } from 'vitest';
import {
  coveredByGrants,
  type LadderOutcome,
  ladder,
  PERMISSION_MODES,
  type PermissionMode,
} from './ladder.ts';

const ACCESS: readonly ToolAccess[] = ['read', 'propose', 'open', 'stage', 'export'];

// The ladder from ARCHITECTURE.md, written out by hand: [access][mode] → [not covered, covered].
const EXPECTED: Record<ToolAccess, Record<PermissionMode, [LadderOutcome, LadderOutcome]>> = {
  read: { manual: ['ask', 'ask'], auto: ['ask', 'run'], 'full-auto': ['run', 'run'] },
  propose: { manual: ['run', 'run'], auto: ['run', 'run'], 'full-auto': ['run', 'run'] },
  open: { manual: ['ask', 'ask'], auto: ['ask', 'ask'], 'full-auto': ['run', 'run'] },
  stage: { manual: ['ask', 'ask'], auto: ['run', 'run'], 'full-auto': ['run', 'run'] },
  export: { manual: ['ask', 'ask'], auto: ['ask', 'ask'], 'full-auto': ['run', 'run'] },
};

describe('ladder', () => {
  const combinations = ACCESS.flatMap((access) =>
    PERMISSION_MODES.flatMap((mode) => [false, true].map((covered) => [access, mode, covered] as const)),
  );

  it('covers every (access, mode, grant) combination: 5 × 3 × 2', () => {
    expect(combinations).toHaveLength(30);
  });

  it.each(combinations)('%s under %s (covered by a grant: %s)', (access, mode, covered) => {
    expect(ladder(access, mode, covered)).toBe(EXPECTED[access][mode][covered ? 1 : 0]);
  });

  it('every access class the catalog uses is one the ladder knows', () => {
    for (const name of GATED_TOOLS) expect(ACCESS).toContain(TOOL_ACCESS[name]);
  });

  it('Manual never runs anything but propose; Full Auto never asks', () => {
    for (const access of ACCESS) {
      for (const covered of [false, true]) {
        expect(ladder(access, 'full-auto', covered)).toBe('run');
        expect(ladder(access, 'manual', covered)).toBe(access === 'propose' ? 'run' : 'ask');
      }
    }
  });
});

describe('coveredByGrants', () => {
  const grants = [
    { tool: 'runQuery', table: 'public.orders' },
    { tool: 'countRows', table: 'customers' },
  ];
  it.each([
    [['orders'], true],
    [['public.orders'], true],
    [['"Orders"'], true],
    [['customers', 'public.orders'], true],
    [['orders', 'products'], false],
    [['products'], false],
    [[], false],
    [undefined, false],
  ] as const)('tables %j → %s', (tables, expected) => {
    expect(coveredByGrants(grants, tables)).toBe(expected);
  });
});
