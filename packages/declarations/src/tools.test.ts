import { describe, expect, it } from 'vitest';
import { TOOL_ROWS } from './tools.ts';

// The generator reads these rows from the syntax tree; these checks hold the runtime side to the
// same promise: the rows are plain data, identical whether imported or serialised.
describe('TOOL_ROWS', () => {
  it('is plain data that survives a JSON round trip unchanged', () => {
    expect(JSON.parse(JSON.stringify(TOOL_ROWS))).toEqual(TOOL_ROWS);
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
