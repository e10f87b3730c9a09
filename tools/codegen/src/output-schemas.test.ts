// The type → JSON Schema reading, table-driven over small registries in memory, and over the real
// one: each tool's schema is what its execute resolves to.
import { fileURLToPath } from 'node:url';
import { Project } from 'ts-morph';
import { describe, expect, it } from 'vitest';
import {
  IMPLEMENTATIONS_TYPE,
  OutputTypeError,
  outputSchemasOf,
  readOutputSchemas,
} from './output-schemas.ts';

/** The schema of one tool whose execute resolves to `type`, after `declarations`. */
function schemaOf(type: string, declarations = ''): unknown {
  const project = new Project({ useInMemoryFileSystem: true, compilerOptions: { strict: true } });
  const registry = project.createSourceFile(
    '/registry.ts',
    `${declarations}\nexport type ${IMPLEMENTATIONS_TYPE} = { tool: { execute(input: unknown): Promise<${type}> } };`,
  );
  return outputSchemasOf(registry)?.tool;
}

const CASES: readonly { what: string; type: string; declarations?: string; schema: unknown }[] = [
  {
    what: 'primitives and null',
    type: '{ s: string; n: number; b: boolean; z: null }',
    schema: {
      type: 'object',
      properties: {
        s: { type: 'string' },
        n: { type: 'number' },
        b: { type: 'boolean' },
        z: { type: 'null' },
      },
      required: ['s', 'n', 'b', 'z'],
    },
  },
  {
    what: 'optional keys, and keys that may be undefined, are not required',
    type: '{ a?: string; b: number | undefined; c: string }',
    schema: {
      type: 'object',
      properties: { a: { type: 'string' }, b: { type: 'number' }, c: { type: 'string' } },
      required: ['c'],
    },
  },
  {
    what: 'a key typed undefined is never there',
    type: '{ ok: true; problems?: undefined }',
    schema: {
      type: 'object',
      properties: { ok: { const: true } },
      required: ['ok'],
    },
  },
  {
    what: 'string literals are one enum; true | false is boolean',
    type: "{ k: 'a' | 'b' | 'c'; f: boolean | 'x' }",
    schema: {
      type: 'object',
      properties: { k: { enum: ['a', 'b', 'c'] }, f: { anyOf: [{ type: 'boolean' }, { const: 'x' }] } },
      required: ['k', 'f'],
    },
  },
  {
    what: 'nullable values',
    type: '{ v: number | null }',
    schema: {
      type: 'object',
      properties: { v: { anyOf: [{ type: 'null' }, { type: 'number' }] } },
      required: ['v'],
    },
  },
  {
    what: 'arrays, readonly arrays, and an empty one',
    type: '{ a: string[]; r: readonly number[]; e: never[] }',
    schema: {
      type: 'object',
      properties: {
        a: { type: 'array', items: { type: 'string' } },
        r: { type: 'array', items: { type: 'number' } },
        e: { type: 'array', maxItems: 0 },
      },
      required: ['a', 'r', 'e'],
    },
  },
  {
    what: 'a tuple, without 2020-12-only keywords',
    type: '{ t: [string, number] }',
    schema: {
      type: 'object',
      properties: {
        t: {
          type: 'array',
          items: { anyOf: [{ type: 'string' }, { type: 'number' }] },
          minItems: 2,
          maxItems: 2,
        },
      },
      required: ['t'],
    },
  },
  {
    what: 'records and index signatures',
    type: '{ row: Record<string, unknown>; counts: { [k: string]: number } }',
    schema: {
      type: 'object',
      properties: {
        row: {
          type: 'object',
          additionalProperties: { description: 'Any JSON value: as the data holds it.' },
        },
        counts: { type: 'object', additionalProperties: { type: 'number' } },
      },
      required: ['row', 'counts'],
    },
  },
  {
    what: 'a union of objects is an object',
    type: '{ a: 1 } | { b: 2 }',
    schema: {
      type: 'object',
      anyOf: [
        { type: 'object', properties: { a: { const: 1 } }, required: ['a'] },
        { type: 'object', properties: { b: { const: 2 } }, required: ['b'] },
      ],
    },
  },
  {
    what: 'intersections and named interfaces',
    type: 'Base & { extra: string }',
    declarations: 'interface Base { id: string }',
    schema: {
      type: 'object',
      properties: { id: { type: 'string' }, extra: { type: 'string' } },
      required: ['id', 'extra'],
    },
  },
  {
    what: 'a date is a date-time string',
    type: '{ at: Date }',
    schema: {
      type: 'object',
      properties: { at: { type: 'string', format: 'date-time' } },
      required: ['at'],
    },
  },
  {
    what: 'a recursive type is one $def',
    type: '{ filter: Node }',
    declarations: 'type Node = { column: string } | { or: Node[] };',
    schema: {
      type: 'object',
      properties: { filter: { $ref: '#/$defs/Node' } },
      required: ['filter'],
      $defs: {
        Node: {
          type: 'object',
          anyOf: [
            { type: 'object', properties: { column: { type: 'string' } }, required: ['column'] },
            {
              type: 'object',
              properties: { or: { type: 'array', items: { $ref: '#/$defs/Node' } } },
              required: ['or'],
            },
          ],
        },
      },
    },
  },
  {
    what: 'unknown is any JSON value, and says so',
    type: '{ value: unknown }',
    schema: {
      type: 'object',
      properties: { value: { description: 'Any JSON value: as the data holds it.' } },
      required: ['value'],
    },
  },
];

describe('output schemas from types', () => {
  it.each(CASES)('$what', ({ type, declarations, schema }) => {
    expect(schemaOf(type, declarations)).toEqual(schema);
  });

  it.each([
    ['a bigint', '{ n: bigint }', /tool\.n is bigint, which JSON cannot carry/],
    ['a function', '{ run: () => void }', /tool\.run is a function/],
    ['undefined alone', 'undefined', /tool is undefined, which JSON cannot carry/],
    ['a nested bigint', '{ rows: { id: bigint }[] }', /tool\.rows\[\]\.id is bigint/],
  ])('refuses %s, naming where it is', (_, type, message) => {
    expect(() => schemaOf(type)).toThrow(OutputTypeError);
    expect(() => schemaOf(type)).toThrow(message);
  });

  it('reads nothing from a registry without the implementations type', () => {
    const project = new Project({ useInMemoryFileSystem: true });
    expect(outputSchemasOf(project.createSourceFile('/registry.ts', 'export const x = 1;'))).toBeUndefined();
  });

  it('reads every implemented tool of the real registry, each rooted in an object', () => {
    const root = fileURLToPath(new URL('../../..', import.meta.url));
    const schemas = readOutputSchemas(root)!;
    expect(Object.keys(schemas).length).toBeGreaterThan(30);
    for (const [name, schema] of Object.entries(schemas)) expect(schema.type, name).toBe('object');
    expect(schemas.countRows).toMatchObject({
      properties: { table: { type: 'string' }, count: { type: 'number' } },
      required: expect.arrayContaining(['table', 'count']),
    });
  }, 60_000);
});

describe('what it cannot type', () => {
  it('an unknown is any JSON value, said so in the schema; an any is {} and a warning naming where', () => {
    const project = new Project({ useInMemoryFileSystem: true, compilerOptions: { strict: true } });
    const registry = project.createSourceFile(
      '/registry.ts',
      `export type ${IMPLEMENTATIONS_TYPE} = { tool: { execute(input: unknown): Promise<{ min: unknown; lost: any }> } };`,
    );
    const warnings: string[] = [];
    const schema = outputSchemasOf(registry, (message) => warnings.push(message))?.tool as {
      properties: Record<string, unknown>;
    };
    expect(schema.properties.min).toEqual({ description: 'Any JSON value: as the data holds it.' });
    expect(schema.properties.lost).toEqual({});
    expect(warnings).toEqual([
      "tool.lost is any: its output schema there is {} (anything). Give it a type in the implementation's return value (unknown, if any JSON value is meant).",
    ]);
  });
});
