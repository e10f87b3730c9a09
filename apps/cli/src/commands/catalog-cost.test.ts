import { INLINE_TOOLS, TOOL_NAMES } from '@toolrow/catalog';
import { describe, expect, it } from 'vitest';
import { runCli, spawnCli } from '../testing.ts';

interface CostJson {
  tokenizer: string;
  inline: { tools: number; tokens: number; bytes: number };
  all: { tools: number; tokens: number; bytes: number };
  ratio: number;
  perTool: { name: string; visibility: string; tokens: number }[];
}

describe('toolrow catalog --cost', () => {
  it('--cost --json: inline core vs all rows, per tool, tokenizer named (a real process)', async () => {
    const result = await spawnCli(['catalog', '--cost', '--json']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const cost = JSON.parse(result.stdout) as CostJson;
    expect(cost.inline.tools).toBe(INLINE_TOOLS.length);
    expect(cost.all.tools).toBe(TOOL_NAMES.length);
    expect(cost.all.tokens).toBeGreaterThan(cost.inline.tokens);
    expect(cost.ratio).toBeCloseTo(cost.all.tokens / cost.inline.tokens, 6);
    expect(cost.perTool.map((tool) => tool.name).sort()).toEqual([...TOOL_NAMES].sort());
    expect(cost.tokenizer).toMatch(/gpt-tokenizer .*approximation/);
  });

  it('--cost prints the comparison as text', async () => {
    const result = await runCli(['catalog', '--cost']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(new RegExp(`inline core\\s+${INLINE_TOOLS.length} tools`));
    expect(result.stdout).toMatch(
      new RegExp(`all rows\\s+${TOOL_NAMES.length} tools .*\\(\\d+\\.\\d\\d× the inline core\\)`),
    );
    expect(result.stdout).toMatch(/Counted with gpt-tokenizer/);
  });
});
