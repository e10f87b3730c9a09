import { describe, expect, it } from 'vitest';
import { TOOL_ROWS, WORD_LANGUAGES } from './tools.ts';

// The generator reads these rows from the syntax tree; these checks hold the runtime side to the
// same promise: the rows are plain data, identical whether imported or serialised.
describe('TOOL_ROWS', () => {
  it('is plain data that survives a JSON round trip unchanged', () => {
    expect(JSON.parse(JSON.stringify(TOOL_ROWS))).toEqual(TOOL_ROWS);
  });

  it('gives every discoverable row words in every language searchTools serves', () => {
    // searchTools is the only way a model finds a discoverable tool: the user's language must find it.
    for (const row of TOOL_ROWS.filter((each) => each.visibility === 'discoverable'))
      for (const language of WORD_LANGUAGES)
        expect(
          ((row as { words?: Partial<Record<string, readonly string[]>> }).words?.[language] ?? []).length,
          `${row.name} in ${language}`,
        ).toBeGreaterThan(0);
  });

  it('has no undefined fields, functions or class instances', () => {
    for (const row of TOOL_ROWS) {
      expect(Object.getPrototypeOf(row), row.name).toBe(Object.prototype);
      for (const [key, value] of Object.entries(row)) {
        expect(value, `${row.name}.${key}`).not.toBeUndefined();
        expect(typeof value, `${row.name}.${key}`).toMatch(/^(string|object)$/);
      }
    }
  });
});
