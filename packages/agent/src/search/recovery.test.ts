import { DISCOVERABLE_TOOLS, rowOf } from '@toolrow/catalog';
import { dynamodbEngine } from '@toolrow/dynamodb/engine';
import { describe, expect, it } from 'vitest';
import { isWeakMatch, searchableWords, searchNote } from './recovery.ts';
import { catalogIndex } from './scorer.ts';

const DYNAMODB = { engine: dynamodbEngine.id, features: dynamodbEngine.features };
const POSTGRES = { engine: 'postgres', features: ['foreignKeys'] };

describe('how well a search matched', () => {
  it.each([
    ['export csv', ['export', 'csv'], ['export', 'csv']],
    ['把结果导出为JSON', ['把结果导出为', 'json'], ['把结果导出为', 'json']],
    ['exprot the orders', ['exprot', 'orders'], ['exprot', 'orders']],
    ['hamisha jedwali kama faili ya csv', ['hamisha', 'jedwali', 'kama', 'faili', 'ya', 'csv'], ['csv']],
    ['εξαγωγή πίνακα', ['εξαγωγή', 'πίνακα'], []],
  ])('%s: words %j, known %j', (query, words, matched) => {
    expect(catalogIndex().coverage(query)).toEqual({ words, matched });
  });

  it.each([
    [['startExport'], { words: ['export', 'csv'], matched: ['export', 'csv'] }, false],
    [['startExport'], { words: ['csv'], matched: ['csv'] }, false],
    [['startExport'], { words: ['hamisha', 'faili', 'csv'], matched: ['csv'] }, true],
    [['startExport'], { words: ['hamisha', 'csv'], matched: ['csv'] }, false],
    [[], { words: ['xyzzy'], matched: [] }, true],
  ] as const)('%j with %j is weak: %s', (results, coverage, weak) => {
    expect(
      isWeakMatch({
        results: [...results],
        coverage: { words: [...coverage.words], matched: [...coverage.matched] },
      }),
    ).toBe(weak);
  });
});

describe('the note', () => {
  it('names a retry in English and what the catalog can be searched for when nothing matched', () => {
    const note = searchNote({ results: [], coverage: { words: ['xyzzy'], matched: [] }, searchesLeft: 2 });
    expect(note).toMatch(/^No tool matched\./);
    expect(note).toContain("searchTools(query='export csv')");
    for (const word of searchableWords()) expect(note).toContain(word);
  });

  it('says when matches rest on no word the catalog knows well (a CJK unigram, say)', () => {
    const note = searchNote({
      results: ['listTables'],
      coverage: { words: ['x', 'y', 'z'], matched: [] },
      searchesLeft: 1,
    });
    expect(note).toMatch(/^None of your 3 words matched well, so these tools \(tables\)/);
  });

  it('with no searches left, says so instead of naming a retry', () => {
    const none = searchNote({ results: [], coverage: { words: ['xyzzy'], matched: [] }, searchesLeft: 0 });
    expect(none).not.toContain('searchTools(');
    const weak = searchNote({
      results: ['startExport'],
      coverage: { words: ['hamisha', 'faili', 'csv'], matched: ['csv'] },
      searchesLeft: 0,
    });
    expect(weak).toMatch(/^Only "csv" of your 3 words matched/);
    expect(weak).toContain('No searches are left this turn');
  });

  it("lists only what the connection's engine serves, one word per discoverable row", () => {
    const relations = rowOf('describeRelations').keywords[0];
    expect(searchableWords(POSTGRES)).toContain(relations);
    expect(searchableWords(DYNAMODB)).not.toContain(relations);
    expect(searchableWords().length).toBeLessThanOrEqual(DISCOVERABLE_TOOLS.length);
  });

  it('stays short: under 120 words whatever it says', () => {
    for (const note of [
      searchNote({ results: [], coverage: { words: ['a'], matched: [] }, searchesLeft: 1 }),
      searchNote({
        results: ['startExport', 'proposeExport', 'readAttachment', 'getExportStatus', 'listTables'],
        coverage: { words: ['a', 'b', 'c', 'csv'], matched: ['csv'] },
        searchesLeft: 1,
      }),
    ])
      expect(note.split(/\s+/).length).toBeLessThan(120);
  });
});
