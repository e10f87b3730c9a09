import { INLINE_TOOLS, TOOL_NAMES } from '@toolrow/catalog';
import { TOOL_IMPLEMENTATIONS } from '@toolrow/tools';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { toolSchemas } from './backends.ts';
import { COST_TOKENIZER, definitionsSent, toolCostReport, toolDefinitionCost } from './cost.ts';

describe('tool definition cost', () => {
  it('measures what the SDK hands the provider: the active tools, with zod 4 JSON Schemas of the real inputs', async () => {
    const inline = await definitionsSent(toolSchemas, INLINE_TOOLS);
    expect(inline.map((tool) => tool.name)).toEqual([...INLINE_TOOLS]);
    const countRows = inline.find((tool) => tool.name === 'countRows')!;
    const native = z.toJSONSchema(TOOL_IMPLEMENTATIONS.countRows.inputSchema, {
      target: 'draft-7',
      io: 'input',
    }) as {
      properties: Record<string, unknown>;
      required: string[];
    };
    const sent = countRows.inputSchema as {
      properties: Record<string, { description?: string }>;
      required: string[];
    };
    expect(Object.keys(sent.properties)).toEqual(Object.keys(native.properties));
    expect(sent.required).toEqual(native.required);
    expect(sent.properties.table?.description).toMatch(/public\.orders/);
    expect(countRows.description).toMatch(/^Count the rows/);
  });

  it('counts the inline core against all the rows', async () => {
    const cost = await toolDefinitionCost(toolSchemas);
    expect(cost.tokenizer).toBe(COST_TOKENIZER);
    expect(cost.tokenizer).toMatch(/gpt-tokenizer.*approximation/);
    expect(cost.inline.tools).toBe(INLINE_TOOLS.length);
    expect(cost.all.tools).toBe(TOOL_NAMES.length);
    expect(cost.perTool.map((tool) => tool.name)).toEqual([...TOOL_NAMES]);
    expect(cost.inline.tokens).toBeGreaterThan(0);
    expect(cost.all.tokens).toBeGreaterThan(cost.inline.tokens);
    expect(cost.ratio).toBeCloseTo(cost.all.tokens / cost.inline.tokens, 10);
    // The whole is the parts plus the array's punctuation.
    const parts = cost.perTool.reduce((sum, tool) => sum + tool.tokens, 0);
    expect(Math.abs(cost.all.tokens - parts)).toBeLessThan(TOOL_NAMES.length * 2 + 2);
    const inlineParts = cost.perTool
      .filter((tool) => tool.visibility === 'inline')
      .reduce((s, t) => s + t.tokens, 0);
    expect(Math.abs(cost.inline.tokens - inlineParts)).toBeLessThan(INLINE_TOOLS.length * 2 + 2);
    expect(countTokens('{"a":1}')).toBeGreaterThan(0);
  });

  it('prints a report that names the tokenizer as an approximation', async () => {
    const text = await toolCostReport();
    expect(text).toMatch(new RegExp(`inline core\\s+${INLINE_TOOLS.length} tools\\s+[\\d,]+ tokens`));
    expect(text).toMatch(
      new RegExp(`all rows\\s+${TOOL_NAMES.length} tools\\s+[\\d,]+ tokens .*× the inline core`),
    );
    expect(text).toContain('an approximation');
    const json = JSON.parse(await toolCostReport({ json: true })) as { inline: { tools: number } };
    expect(json.inline.tools).toBe(INLINE_TOOLS.length);
  });

  it('splits each definition into its fields, which add up to the whole', async () => {
    const cost = await toolDefinitionCost(toolSchemas);
    const inline = await definitionsSent(toolSchemas, INLINE_TOOLS);
    for (const tool of cost.perTool) {
      expect(
        tool.fields.reduce((sum, part) => sum + part.tokens, 0),
        tool.name,
      ).toBe(tool.tokens);
      const framing = tool.fields.find((part) => part.field === 'framing')!;
      // The framing is the name and the JSON around the parts: never negative, never most of it.
      expect(framing.tokens, tool.name).toBeGreaterThan(0);
      expect(framing.tokens, tool.name).toBeLessThan(tool.tokens);
    }
    const countRows = cost.perTool.find((tool) => tool.name === 'countRows')!;
    const sent = inline.find((tool) => tool.name === 'countRows')!.inputSchema as {
      properties: Record<string, unknown>;
    };
    expect(countRows.fields.map((part) => part.field)).toEqual([
      'description',
      ...Object.keys(sent.properties).map((name) => `input.${name}`),
      'definitions.filterItem',
      'framing',
    ]);
    const text = await toolCostReport();
    expect(text).toMatch(/Per field across the inline core/);
    expect(text).toMatch(/definitions\.filterItem\s+[\d,]+\s+in\s+5 tools/);
  });

  it('keeps the inline core within 4,000 tokens', async () => {
    // The goal of issue 11 (5,081 before the compact filter and sort); raise it only on purpose.
    expect((await toolDefinitionCost(toolSchemas)).inline.tokens).toBeLessThanOrEqual(4000);
  });
});
