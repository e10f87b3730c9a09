import {
  exampleOf,
  GATED_TOOLS,
  isServedBy,
  LOOP_TOOLS,
  notServedMessage,
  PROPOSE_TWINS,
  type ProposeToolName,
  SILENT_TOOLS,
  TOOL_NAMES,
  TOOL_NEEDS,
} from '@toolrow/catalog';
import { FILTER_OPS } from '@toolrow/datasource';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ToolContext } from './context.ts';
import { ToolError } from './errors.ts';
import {
  IMPLEMENTED_TOOLS,
  inputJsonSchema,
  invokeTool,
  parseToolInput,
  TOOL_IMPLEMENTATIONS,
} from './registry.ts';

/** An engine with none of the features rows need. */
const BARE = { engine: 'bare', features: [] as string[] };

// A context whose data source must never be reached: these tests stop at validation. Its engine
// (what the handle is, not the user's data) is read first, to refuse a tool the engine lacks.
const unreachable = new Proxy(
  {},
  {
    get(_target, property) {
      if (property === 'engine') return 'postgres';
      // Every feature a row needs: nothing is refused for its engine here.
      if (property === 'features') return [...new Set(Object.values(TOOL_NEEDS).flat())];
      throw new Error(
        `the data source was touched (${String(property)}) by a call that should have stopped earlier`,
      );
    },
  },
);
const ctx = { source: unreachable, profile: 'default', actor: 'user' } as unknown as ToolContext;

function invalid(name: string, input: unknown): ToolError {
  try {
    parseToolInput(name as never, input);
  } catch (error) {
    if (error instanceof ToolError) return error;
    throw error;
  }
  throw new Error(`${name} accepted ${JSON.stringify(input)}`);
}

describe("each row's example", () => {
  // The example is what every suite that runs each tool calls it with: a row with a required
  // input declares one, and it is an input the tool takes.
  it.each(IMPLEMENTED_TOOLS)("%s: the row's example (or {}) is an input it takes", (name) => {
    const example = exampleOf(name);
    try {
      parseToolInput(name, example);
    } catch (error) {
      throw new Error(
        `${name}: ${Object.keys(example).length === 0 ? 'its row has no example, and {} is not an input it takes' : "its row's example is not an input it takes"} (${(error as Error).message}). Give the row an example: an input on the sample shop, e.g. example: { table: 'orders' }.`,
      );
    }
  });
});

describe('the registry', () => {
  it('implements every row but the loop tool, and nothing that is no row', () => {
    const expected = TOOL_NAMES.filter((name) => !(LOOP_TOOLS as readonly string[]).includes(name)).sort();
    expect(Object.keys(TOOL_IMPLEMENTATIONS).sort()).toEqual(expected);
    expect([...IMPLEMENTED_TOOLS].sort()).toEqual(expected);
    expect(IMPLEMENTED_TOOLS).toHaveLength(SILENT_TOOLS.length + GATED_TOOLS.length);
    for (const loop of LOOP_TOOLS) expect(Object.hasOwn(TOOL_IMPLEMENTATIONS, loop)).toBe(false);
  });

  it("gives each propose tool exactly its twin's input schema", () => {
    for (const [propose, twin] of Object.entries(PROPOSE_TWINS) as [
      ProposeToolName,
      keyof typeof TOOL_IMPLEMENTATIONS,
    ][]) {
      expect(TOOL_IMPLEMENTATIONS[propose].inputSchema).toBe(TOOL_IMPLEMENTATIONS[twin].inputSchema);
    }
  });

  it.each(IMPLEMENTED_TOOLS)(
    '%s has an object JSON Schema with every field described, at every depth',
    (name) => {
      const schema = inputJsonSchema(name);
      expect(schema.type).toBe('object');
      expect(schema.additionalProperties).toBe(false);
      const undescribed: string[] = [];
      const walk = (node: unknown, path: string): void => {
        if (Array.isArray(node)) {
          for (const [index, item] of node.entries()) walk(item, `${path}[${index}]`);
          return;
        }
        if (node === null || typeof node !== 'object') return;
        const record = node as Record<string, unknown>;
        if (record.properties && typeof record.properties === 'object') {
          for (const [field, property] of Object.entries(
            record.properties as Record<string, Record<string, unknown>>,
          )) {
            if (typeof property.description !== 'string' && typeof property.$ref !== 'string')
              undescribed.push(`${path}.${field}`);
          }
        }
        for (const [key, value] of Object.entries(record)) walk(value, `${path}/${key}`);
      };
      walk(schema, name);
      expect(undescribed).toEqual([]);
      // Small enough to send to a model on every step (the filter tools were 2,600–3,600 before the list form).
      expect(JSON.stringify(schema).length).toBeLessThan(2600);
      const definitions = (schema as { $defs?: Record<string, unknown> }).$defs;
      if (definitions) expect(JSON.stringify(definitions).length).toBeLessThan(1200);
    },
  );

  it('describes the filter as a list of one compact item (condition or group), defined once', () => {
    const schema = inputJsonSchema('countRows') as {
      properties: { filter: { type: string; items: { $ref: string } } };
      $defs?: Record<
        string,
        { type?: string; anyOf?: unknown; properties?: Record<string, { enum?: string[] }> }
      >;
    };
    expect(schema.properties.filter.type).toBe('array');
    const definitions = Object.values(schema.$defs ?? {});
    expect(definitions).toHaveLength(1);
    // One object, not a union of three: the check in schemas.ts holds an item to one form.
    expect(definitions[0]?.anyOf).toBeUndefined();
    expect(Object.keys(definitions[0]?.properties ?? {})).toEqual(['column', 'op', 'value', 'or', 'and']);
    // No {not: …} node, and only the data source's operators shown: negations are not_<op>.
    expect(JSON.stringify(schema)).not.toContain('"not"');
    expect(definitions[0]?.properties?.op?.enum).toEqual([...FILTER_OPS]);
    expect(JSON.stringify(schema)).toContain('not_ before an op negates it');
  });

  it('advertises no length bounds a model would never reach (they are still enforced)', () => {
    for (const name of IMPLEMENTED_TOOLS) {
      const json = JSON.stringify(inputJsonSchema(name));
      expect(json, name).not.toMatch(/"(minLength|maxLength|minItems|maxItems)"/);
      expect(json, name).not.toContain(String(Number.MAX_SAFE_INTEGER));
    }
    expect(invalid('describeTable', { table: 'x'.repeat(201) }).message).toMatch(
      /table: expected at most 200 characters/,
    );
    expect(invalid('startExport', { table: 'orders', format: 'csv', columns: [] }).message).toMatch(
      /columns: expected at least 1 items/,
    );
  });
});

describe('input validation', () => {
  const cases: readonly (readonly [string, unknown, RegExp])[] = [
    ['describeTable', { table: 5 }, /^table: expected a string, got the integer 5$/],
    ['describeTable', {}, /^table: required \(a string\) but missing$/],
    ['describeTable', { table: 'orders', tabel: 'x' }, /^tabel: unknown field/],
    ['runQuery', { sql: 'select 1', limit: 0 }, /^limit: expected at least 1, got the integer 0$/],
    ['runQuery', { sql: 'select 1', limit: 2.5 }, /^limit: expected an integer, got the number 2.5$/],
    ['runQuery', { sql: 'select 1', limit: 100_000 }, /^limit: expected at most 500/],
    ['runQuery', { sql: '' }, /^sql: expected at least 1 characters/],
    ['runQuery', 'select 1', /^\(input\): expected an object, got "select 1"$/],
    [
      'countRows',
      { table: 'orders', filter: [{ column: 'status', op: 'equals', value: 'paid' }] },
      /^filter\[0\]\.op: expected one of "eq", "neq", .*, got "equals"$/,
    ],
    [
      'countRows',
      {
        table: 'orders',
        filter: [
          { column: 'status', op: 'eq', value: 'paid' },
          {
            or: [
              { column: 'a', op: 'eq' },
              { column: 1, op: 'eq' },
            ],
          },
        ],
      },
      /^filter\[1\]\.or\[1\]\.column: expected a string, got the integer 1$/,
    ],
    ['countRows', { table: 'orders', filter: [{ or: [] }] }, /^filter\[0\]\.or: expected at least 1 items/],
    [
      'countRows',
      { table: 'orders', filter: 'status = paid' },
      /^filter: expected an array, got "status = paid"$/,
    ],
    [
      'countRows',
      { table: 'orders', filter: [{ column: 'status', op: 'eq', value: { paid: true } }] },
      /^filter\[0\]\.value: /,
    ],
    // The old forms are read as the list they stand for, and errors name the list's paths.
    [
      'countRows',
      { table: 'orders', filter: { column: 'status', op: 'equals', value: 'paid' } },
      /^filter\[0\]\.op: expected one of "eq"/,
    ],
    [
      'countRows',
      {
        table: 'orders',
        filter: {
          and: [
            { column: 'a', op: 'eq' },
            { column: 1, op: 'eq' },
          ],
        },
      },
      /^filter\[1\]\.column: expected a string, got the integer 1$/,
    ],
    [
      'countRows',
      { table: 'orders', filter: { or: [] } },
      /^filter\[0\]\.or: expected at least 1 items, got an array$/,
    ],
    [
      'setFilter',
      { filter: { not: { column: 'status', op: 'contains', value: 'x' }, extra: 1 } },
      /^filter\[0\]\.(not|extra): unknown field/,
    ],
    [
      'stageUpdateRows',
      { table: 'orders', updates: [{ key: { id: 1 } }] },
      /^updates\[0\]\.values: required/,
    ],
    ['stageInsertRows', { table: 'orders', rows: [] }, /^rows: expected at least 1 items/],
    [
      'startExport',
      { table: 'orders', format: 'xlsx' },
      /^format: expected one of "csv", "json", "ndjson", got "xlsx"$/,
    ],
    [
      'listAuditLog',
      { decision: 'maybe' },
      /^decision: expected one of "asked", "approved", "denied", "auto"/,
    ],
    ['proposeOpenTable', { table: ['orders'] }, /^table: expected a string, got an array$/],
  ];

  it.each(cases.map(([tool, input, message]) => ({ tool, input, message })))(
    '$tool rejects $input',
    ({ tool, input, message }) => {
      const error = invalid(tool, input);
      expect(error.code).toBe('invalid-input');
      expect(error.tool).toBe(tool);
      expect(error.issues.map((issue) => issue.message)).toContainEqual(expect.stringMatching(message));
      expect(error.message).toContain(`Invalid input for ${tool}:`);
    },
  );

  it('treats a missing input as {} for tools without fields', () => {
    expect(parseToolInput('listOpenTabs', undefined)).toEqual({});
    expect(parseToolInput('listTables', null)).toEqual({});
  });

  it('rejects a bad input before touching the data source', async () => {
    await expect(invokeTool('runQuery', { sql: 42 }, ctx)).rejects.toMatchObject({ code: 'invalid-input' });
  });

  it('names the nearest tools for an unknown name, and sends the loop tool to the agent', async () => {
    await expect(invokeTool('runQeury', { sql: 'select 1' }, ctx)).rejects.toThrow(/Did you mean 'runQuery'/);
    await expect(invokeTool('searchTools', { query: 'x' }, ctx)).rejects.toThrow(/agent loop/);
    await expect(invokeTool('toString', {}, ctx)).rejects.toMatchObject({ code: 'unknown-tool' });
  });

  it('stops an aborted call before it runs', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(invokeTool('listTables', {}, { ...ctx, signal: controller.signal })).rejects.toMatchObject({
      code: 'aborted',
    });
  });

  it.each(
    // An engine with none of the features rows need: every row that needs one is refused.
    TOOL_NAMES.filter((name) => !isServedBy(BARE, name)).map((name) => ['bare', name] as const),
  )(
    'on a %s connection, %s is refused before anything is read, naming what to use',
    async (_engine, name) => {
      const onEngine = new Proxy(
        {},
        {
          get(_target, property) {
            if (property === 'engine') return BARE.engine;
            if (property === 'features') return BARE.features;
            throw new Error(`the data source was touched (${String(property)})`);
          },
        },
      );
      const call = invokeTool(name, {}, { ...ctx, source: onEngine } as unknown as ToolContext);
      await expect(call).rejects.toMatchObject({ code: 'refused', message: notServedMessage(name, BARE) });
    },
  );

  it('keeps every input schema a zod 4 schema the MCP SDK can take', () => {
    for (const name of IMPLEMENTED_TOOLS)
      expect(TOOL_IMPLEMENTATIONS[name].inputSchema).toBeInstanceOf(z.ZodType);
  });
});
