import { describe, expect, it } from 'vitest';
import { TOOL_NEEDS } from './generated/needs.ts';
import { INLINE_TOOLS } from './generated/tiers.ts';
import { TOOL_NAMES } from './generated/tool-names.ts';
import {
  alternativesOn,
  backgroundJobOf,
  CATALOG_ROWS,
  inlineToolsOf,
  isServedBy,
  notServedMessage,
  toolsServedBy,
} from './helpers.ts';

describe('what a tool needs of an engine', () => {
  const needing = CATALOG_ROWS.filter((row) => row.needs !== undefined);
  // Engines as the rows see them: none of the features, every one, and each alone.
  const FEATURES = [...new Set(needing.flatMap((row) => row.needs ?? []))];
  const views = [
    { engine: 'bare', features: [] },
    { engine: 'full', features: FEATURES },
    ...FEATURES.map((feature) => ({ engine: `only-${feature}`, features: [feature] })),
  ];

  it.each(views)('$engine serves exactly the rows whose needs it has', (view) => {
    expect(toolsServedBy(view)).toEqual(
      CATALOG_ROWS.filter((row) => (row.needs ?? []).every((need) => view.features.includes(need))).map(
        (row) => row.name,
      ),
    );
    for (const row of CATALOG_ROWS)
      expect(isServedBy(view, row.name)).toBe(toolsServedBy(view).includes(row.name));
    expect(inlineToolsOf(view)).toEqual(INLINE_TOOLS.filter((name) => isServedBy(view, name)));
  });

  it('an engine with every feature serves every row, and so does no engine at all', () => {
    expect(toolsServedBy({ engine: 'full', features: FEATURES })).toEqual(TOOL_NAMES);
    expect(toolsServedBy(undefined)).toEqual(TOOL_NAMES);
    expect(inlineToolsOf(undefined)).toEqual(INLINE_TOOLS);
    expect(TOOL_NEEDS).toEqual(Object.fromEntries(needing.map((row) => [row.name, row.needs])));
  });

  it('the refusal for an unserved tool names what is missing and only tools the engine serves', () => {
    expect(needing.length).toBeGreaterThan(0);
    const bare = { engine: 'dynamodb', features: [] };
    for (const row of needing) {
      const message = notServedMessage(row.name, bare);
      expect(message).toMatch(
        new RegExp(
          `^Tool '${row.name}' is not served on this connection: it needs ${row.needs!.join(', ')}, which the dynamodb engine does not have`,
        ),
      );
      expect(message).toContain('nothing ran');
      const offered = message.slice(message.indexOf('Use one of: ') + 'Use one of: '.length).split(', ');
      expect(offered).toHaveLength(3);
      for (const name of offered) expect(isServedBy(bare, name)).toBe(true);
    }
    // Foreign keys are in describeTable's output too: it is one way on where relations are not served.
    expect(alternativesOn(bare, 'describeRelations')).toContain('describeTable');
  });
});

describe('backgroundJobOf', () => {
  it.each([
    ['startExport', { id: 'job-1', state: 'queued' }, 'job-1'],
    ['startExport', { state: 'queued' }, undefined],
    ['runQuery', { id: 'not-a-job', rows: [] }, undefined],
    ['getExportStatus', { id: 'job-1', state: 'done' }, undefined],
  ] as const)('%s %j → %s', (name, output, expected) => {
    expect(backgroundJobOf(name, output)).toBe(expected);
  });
});
