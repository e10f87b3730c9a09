import type { LanguageModelV4CallOptions } from '@ai-sdk/provider';
import { INLINE_TOOLS } from '@toolrow/catalog';
import { describe, expect, it } from 'vitest';
import { createAgent } from './agent.ts';
import { memoryGateStore, recordingBackend, scriptedModel } from './testing.ts';

const sentTools = (call: LanguageModelV4CallOptions) => (call.tools ?? []).map((tool) => tool.name);

describe('discovery with generateText', () => {
  it('a tool found in step 1 is called in step 2', async () => {
    const backend = recordingBackend();
    const store = memoryGateStore('full-auto');
    const model = scriptedModel([
      [{ tool: 'searchTools', input: { query: 'export this as CSV' } }],
      [{ tool: 'startExport', input: { table: 'orders', format: 'csv' } }],
      [{ text: 'Export started.' }],
    ]);
    const agent = createAgent({ model, backend, store });
    const result = await agent.runTurn([{ role: 'user', content: 'export orders as csv' }], {
      profileId: 'p1',
    });
    expect(backend.calls.map((call) => call.name)).toEqual(['startExport']);
    expect(sentTools(model.doGenerateCalls[0]!)).toEqual([...INLINE_TOOLS]);
    expect(sentTools(model.doGenerateCalls[1]!)).toContain('startExport');
    expect(result.text).toBe('Export started.');
    console.log(JSON.stringify(model.doGenerateCalls[1]!.prompt.at(-1), null, 1));
  });
});
