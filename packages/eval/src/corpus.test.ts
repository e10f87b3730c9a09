import {
  CATALOG_ROWS,
  type CatalogRow,
  DISCOVERABLE_TOOLS,
  isDiscoverable,
  PROPOSE_TWINS,
  type ProposeToolName,
} from '@toolrow/catalog';
import { describe, expect, it } from 'vitest';
import { askedRequests, CORPUS, selectRequests, toolsOf } from './corpus.ts';
import { needsSearch, unknownTools } from './grade.ts';

describe('the request corpus', () => {
  it('holds at least 150 requests with unique ids and non-empty tags', () => {
    expect(CORPUS.length).toBeGreaterThanOrEqual(150);
    expect(new Set(CORPUS.map((request) => request.id)).size).toBe(CORPUS.length);
    for (const request of CORPUS) {
      expect(request.text.trim(), request.id).not.toBe('');
      expect(request.expect.length, request.id).toBeGreaterThan(0);
    }
  });

  it('names only tools that exist', () => {
    const unknown = CORPUS.flatMap((request) =>
      unknownTools(request).map((name) => `${request.id}: ${name}`),
    );
    expect(unknown).toEqual([]);
  });

  it('has a request for every row of the catalog', () => {
    const covered = new Set(CORPUS.flatMap(toolsOf));
    const missing = CATALOG_ROWS.map((row) => row.name).filter((name) => !covered.has(name));
    expect(
      missing,
      'rows without a request: give the row `asks` (packages/declarations/src/tools.ts), or add one to packages/eval/src/corpus.ts',
    ).toEqual([]);
  });

  it('covers each propose pair both ways: a chip is right (twin forbidden), and the user asked to act now', () => {
    for (const [propose, twin] of Object.entries(PROPOSE_TWINS) as [ProposeToolName, string][]) {
      const chipRight = CORPUS.filter(
        (request) => toolsOf(request).includes(propose) && request.mustNot?.includes(twin as never),
      );
      const actNow = CORPUS.filter((request) => toolsOf(request).includes(twin as never));
      expect(chipRight.length, `${propose} requests that forbid ${twin}`).toBeGreaterThanOrEqual(2);
      expect(actNow.length, `${twin} requests`).toBeGreaterThanOrEqual(1);
    }
  });

  it('has multi-step requests, requests in the context of a tab, and unnamed wording', () => {
    expect(CORPUS.filter((request) => request.expect.length > 1).length).toBeGreaterThanOrEqual(15);
    expect(CORPUS.filter((request) => request.context).length).toBeGreaterThanOrEqual(30);
    expect(CORPUS.filter((request) => !request.namesCapability).length).toBeGreaterThanOrEqual(30);
  });

  it('has requests that need a search for every discoverable row', () => {
    const needing = CORPUS.filter(needsSearch);
    expect(needing.length).toBeGreaterThanOrEqual(40);
    const reached = new Set(needing.flatMap(toolsOf).filter((name) => isDiscoverable(name)));
    expect(DISCOVERABLE_TOOLS.filter((name) => !reached.has(name))).toEqual([]);
  });

  it("takes a row's asks as requests for that row: a read's never stages, a stage tool's may", () => {
    const row = (name: string, asks: string[]) => ({
      ...CATALOG_ROWS.find((each) => each.name === name)!,
      asks,
    });
    const asked = askedRequests([
      row('describeRelations', ['what points at orders?', 'which tables reference customers']),
      row('stageUpdateRows', ['set the price of product 3 to 9.50']),
      { ...row('listTables', ['x']), name: 'notARow' } as unknown as CatalogRow,
    ]);
    expect(asked).toEqual([
      expect.objectContaining({
        id: 'describeRelations-asks-1',
        text: 'what points at orders?',
        expect: ['describeRelations'],
        namesCapability: true,
      }),
      expect.objectContaining({ id: 'describeRelations-asks-2', expect: ['describeRelations'] }),
      {
        id: 'stageUpdateRows-asks-1',
        text: 'set the price of product 3 to 9.50',
        expect: ['stageUpdateRows'],
        namesCapability: true,
      },
    ]);
    expect(asked[0]!.mustNot).toContain('stageUpdateRows');
    // The committed rows' asks are in the corpus.
    const ids = new Set(CORPUS.map((request) => request.id));
    expect(askedRequests().filter((request) => !ids.has(request.id))).toEqual([]);
  });

  it('selects by id words and limit', () => {
    expect(selectRequests(CORPUS, 'audit-log').map((r) => r.id)).toEqual(['audit-log']);
    expect(selectRequests(CORPUS, 'export-csv, audit-who').map((r) => r.id)).toEqual([
      'audit-who',
      'export-csv',
    ]);
    expect(selectRequests(CORPUS, undefined, 5)).toHaveLength(5);
  });
});
