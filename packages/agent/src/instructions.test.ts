// The instructions a turn sends name the language its connection's queries take, from the
// connection itself: no engine's dialect is assumed.

import type { LanguageModelV4CallOptions } from '@ai-sdk/provider';
import type { QueryLanguage } from '@toolrow/datasource';
import { describe, expect, it } from 'vitest';
import { createAgent, DEFAULT_INSTRUCTIONS } from './agent.ts';
import { memoryGateStore, recordingBackend, scriptedModel } from './testing.ts';

async function systemOf(language: QueryLanguage | undefined): Promise<string> {
  let system = '';
  const model = scriptedModel([
    (call: LanguageModelV4CallOptions) => {
      const first = call.prompt[0];
      system = first?.role === 'system' ? first.content : '';
      return [{ text: 'ok' }];
    },
  ]);
  await createAgent({ model, backend: recordingBackend(), store: memoryGateStore('manual', []) }).runTurn(
    [{ role: 'user', content: 'how many orders?' }],
    {
      profileId: 'p1',
      ...(language ? { engine: { engine: 'x', features: ['cancel'], queries: { language } } } : {}),
    },
  );
  return system;
}

describe("the turn's instructions", () => {
  it.each([
    [{ name: 'SQL', dialect: 'PostgreSQL', example: '' }, 'Queries take SQL (PostgreSQL dialect).'],
    [{ name: 'SQL', dialect: 'SQLite', example: '' }, 'Queries take SQL (SQLite dialect).'],
    [{ name: 'SQL', dialect: 'DuckDB', example: '' }, 'Queries take SQL (DuckDB dialect).'],
  ])('on a connection of %j say: %s', async (language, said) => {
    const system = await systemOf(language);
    expect(system).toContain(said);
    expect(system.replace(said, '')).not.toMatch(/PostgreSQL|SQLite|DuckDB/);
  });

  it('with no connection, name no dialect', async () => {
    expect(await systemOf(undefined)).toBe(DEFAULT_INSTRUCTIONS);
    expect(DEFAULT_INSTRUCTIONS).not.toMatch(/PostgreSQL|SQLite|DuckDB/);
  });
});
