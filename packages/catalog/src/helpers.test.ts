import { describe, expect, it } from 'vitest';
import {
  ENGINE_INLINE_TOOLS,
  ENGINE_TOOLS,
  ENGINE_UNSERVED_TOOLS,
  TOOL_ENGINES,
} from './generated/engines.ts';
import { INLINE_TOOLS } from './generated/tiers.ts';
import { TOOL_NAMES } from './generated/tool-names.ts';
import {
  alternativesOn,
  CATALOG_ROWS,
  ENGINE_LABELS,
  isServedBy,
  nearestNames,
  notServedMessage,
} from './helpers.ts';

describe('nearestNames', () => {
  it.each([
    ['startExprot', ['startExport']],
    ['StartExport', ['startExport']],
    ['runquery', ['runQuery']],
    ['getRows', ['getRow']],
    ['dropDatabase', []],
  ])('%s → %j', (name, want) => {
    expect(nearestNames(name, undefined, 1)).toEqual(want);
  });

  it('returns at most `limit` names, nearest first', () => {
    expect(nearestNames('cat', ['dog', 'car', 'cat', 'bat'], 2)).toEqual(['cat', 'bat']);
  });
});

describe('engines', () => {
  const narrowed = CATALOG_ROWS.filter((row) => row.engines !== undefined);

  it.each(TOOL_ENGINES)('%s serves exactly the rows that list it or list no engine', (engine) => {
    expect(ENGINE_TOOLS[engine]).toEqual(
      CATALOG_ROWS.filter((row) => !row.engines || row.engines.includes(engine)).map((row) => row.name),
    );
    for (const row of CATALOG_ROWS)
      expect(isServedBy(engine, row.name)).toBe(
        (ENGINE_TOOLS[engine] as readonly string[]).includes(row.name),
      );
    expect(ENGINE_UNSERVED_TOOLS[engine]).toEqual(
      CATALOG_ROWS.filter((row) => !isServedBy(engine, row.name)).map((row) => row.name),
    );
  });

  it('postgres serves every row (the catalog before engines existed)', () => {
    expect(ENGINE_TOOLS.postgres).toEqual(TOOL_NAMES);
    expect(ENGINE_INLINE_TOOLS.postgres).toEqual(INLINE_TOOLS);
  });

  it('the refusal for an unserved tool names only tools the engine serves', () => {
    expect(narrowed.length).toBeGreaterThan(0);
    for (const row of narrowed) {
      for (const engine of TOOL_ENGINES.filter((candidate) => !isServedBy(candidate, row.name))) {
        const message = notServedMessage(row.name, engine);
        expect(message).toMatch(
          new RegExp(`^Tool '${row.name}' is not served on ${ENGINE_LABELS[engine]} connections`),
        );
        expect(message).toContain('nothing ran');
        const offered = message.slice(message.indexOf('Use one of: ') + 'Use one of: '.length).split(', ');
        expect(offered).toHaveLength(3);
        for (const name of offered) expect(isServedBy(engine, name)).toBe(true);
      }
    }
    // Foreign keys are in describeTable's output too: it is one way on where relations are not served.
    expect(alternativesOn('dynamodb', 'describeRelations')).toContain('describeTable');
  });
});
