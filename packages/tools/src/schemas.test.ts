import { isInline, rowOf } from '@toolrow/catalog';
import { describe, expect, it } from 'vitest';
import { ToolError } from './errors.ts';
import { IMPLEMENTED_TOOLS, inputJsonSchema, parseToolInput } from './registry.ts';
import { FILTER_EXAMPLE, FILTER_GUIDE_TOOL, parseSortKeys } from './schemas.ts';

function invalid(name: string, input: unknown): ToolError {
  try {
    parseToolInput(name as never, input);
  } catch (error) {
    if (error instanceof ToolError) return error;
    throw error;
  }
  throw new Error(`${name} accepted ${JSON.stringify(input)}`);
}

const filterTools = IMPLEMENTED_TOOLS.filter((name) =>
  Object.hasOwn((inputJsonSchema(name).properties ?? {}) as object, 'filter'),
);

describe('the compact filter', () => {
  it('explains itself in one tool, which is listed wherever a filter tool is', () => {
    expect(filterTools.length).toBeGreaterThan(1);
    expect(filterTools).toContain(FILTER_GUIDE_TOOL);
    // Inline for the agent, and in the narrowest MCP scope (so in every scope).
    expect(isInline(FILTER_GUIDE_TOOL)).toBe(true);
    expect(rowOf(FILTER_GUIDE_TOOL).mcp).toBe('readonly');
    for (const name of filterTools) {
      const json = JSON.stringify(inputJsonSchema(name));
      const guided = JSON.stringify(FILTER_EXAMPLE).slice(1, -1);
      if (name === FILTER_GUIDE_TOOL) expect(json, name).toContain(guided);
      else {
        expect(json, name).not.toContain(guided);
        expect(json, name).toContain(`see ${FILTER_GUIDE_TOOL}`);
      }
    }
  });

  it.each([
    ['=', 'eq'],
    ['!=', 'neq'],
    ['<>', 'neq'],
    ['>=', 'gte'],
    ['NOT IN', 'not_in'],
    ['not_eq', 'neq'],
    ['not_gt', 'lte'],
    ['not_is_null', 'is_not_null'],
    ['is not null', 'is_not_null'],
    ['not_contains', 'not_contains'],
    ['not_not_in', 'in'],
  ])('reads the operator alias %s as %s', (alias, op) => {
    const parsed = parseToolInput('countRows', {
      table: 'orders',
      filter: [{ or: [{ column: 'status', op: alias, value: ['paid'] }] }],
    });
    expect(parsed.filter).toEqual([{ or: [{ column: 'status', op, value: ['paid'] }] }]);
  });

  it('still names an unknown operator and lists what is taken', () => {
    expect(
      invalid('countRows', { table: 'orders', filter: [{ column: 'a', op: 'equals' }] }).message,
    ).toMatch(/filter\[0\]\.op: expected one of "eq", "neq", .*"not_contains".*, got "equals"/);
  });

  it('holds an item to one form and says how to fix a mix', () => {
    const mixed = invalid('setFilter', {
      filter: [{ column: 'status', op: 'eq', value: 'paid', or: [{ column: 'total', op: 'gt', value: 1 }] }],
    });
    expect(mixed.message).toMatch(
      /filter\[0\]: an item is one condition .* not column with op with value with or; nest the condition inside the group/,
    );
    expect(invalid('openTable', { table: 'orders', filter: [{ or: [{}] }] }).message).toMatch(
      /filter\[0\]\.or\[0\]\.column: required \(a string\) but missing; filter\[0\]\.or\[0\]\.op: required/,
    );
    expect(invalid('countRows', { table: 'orders', filter: [{ column: 'status' }] }).message).toMatch(
      /filter\[0\]\.op: required \(a string\) but missing/,
    );
    expect(invalid('countRows', { table: 'orders', filter: [{ or: [], and: [] }] }).message).toMatch(
      /filter\[0\]\.or: expected at least 1 items/,
    );
  });
});

describe('the compact sort', () => {
  it('shows sort keys as text and takes text or objects', () => {
    const schema = inputJsonSchema('openTable') as { properties: { sort: unknown } };
    expect(schema.properties.sort).toMatchObject({ type: 'array', items: { type: 'string' } });
    expect(JSON.stringify(schema.properties.sort)).toContain('total desc');
    const parsed = parseToolInput('openTable', {
      table: 'orders',
      sort: [
        'total desc',
        'name',
        '-ordered_at',
        'shipped_at ASC NULLS LAST',
        '"Order Date" nulls first',
        { column: 'id' },
      ],
    });
    expect(parsed.sort).toEqual([
      { column: 'total', direction: 'desc' },
      { column: 'name' },
      { column: 'ordered_at', direction: 'desc' },
      { column: 'shipped_at', direction: 'asc', nulls: 'last' },
      { column: 'Order Date', nulls: 'first' },
      { column: 'id' },
    ]);
    expect(parseToolInput('setFilter', { sort: null }).sort).toBeNull();
    expect(parseToolInput('setFilter', { sort: ['total desc'] }).sort).toEqual([
      { column: 'total', direction: 'desc' },
    ]);
  });

  it('shows every sort field as text with its example, so no copy leaves the form unsaid', () => {
    const sortTools = IMPLEMENTED_TOOLS.filter((name) =>
      Object.hasOwn((inputJsonSchema(name).properties ?? {}) as object, 'sort'),
    );
    expect(sortTools.length).toBeGreaterThan(1);
    for (const name of sortTools) {
      const sort = JSON.stringify((inputJsonSchema(name).properties as { sort: unknown }).sort);
      expect(sort, name).toContain('{"type":"string"}');
      expect(sort, name).toContain('total desc');
    }
  });

  it('leaves what is not a list for validation to name', () => {
    expect(parseSortKeys('total desc')).toBe('total desc');
    expect(invalid('openTable', { table: 'orders', sort: 'total desc' }).message).toMatch(
      /^Invalid input for openTable: sort: expected an array, got "total desc"/,
    );
    expect(
      invalid('openTable', { table: 'orders', sort: [{ column: 'id', direction: 'down' }] }).message,
    ).toMatch(/sort\[0\]\.direction: expected one of "asc", "desc"/);
  });
});
