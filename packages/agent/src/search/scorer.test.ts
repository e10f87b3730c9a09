import { CATALOG_ROWS, DISCOVERABLE_TOOLS, isLoop, LOOP_TOOLS, TOOL_NAMES } from '@toolrow/catalog';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TUNING_QUERIES } from './queries.ts';
import { DEFAULT_SCORER_PARAMETERS, SearchIndex, searchCatalog, summaryLine } from './scorer.ts';
import { splitCamel, stem, terms } from './text.ts';

describe('text', () => {
  it.each([
    ['export', 'exports', 'exporting', 'exported'],
    ['index', 'indexes'],
    ['query', 'queries'],
    ['stage', 'staged', 'staging', 'stages'],
    ['delete', 'deleted', 'deleting', 'deletes'],
    ['filter', 'filters', 'filtered', 'filtering'],
    ['change', 'changes', 'changed'],
    ['row', 'rows'],
  ])('%s and its inflections meet', (...words) => {
    const stems = new Set(words.map(stem));
    expect(stems.size).toBe(1);
  });

  it('keeps short words and words that only look inflected', () => {
    expect(stem('sql')).toBe('sql');
    expect(stem('status')).toBe('status');
    expect(stem('add')).toBe('add');
  });

  it('splits camelCase names into words', () => {
    expect(splitCamel('getExportStatus')).toBe('get Export Status');
    expect(splitCamel('listSQLHistory')).toBe('list SQL History');
    expect(terms('proposeOpenTable')).toEqual(['propos', 'open', 'tabl']);
  });

  it('drops words that say nothing about a tool', () => {
    expect(terms('export this as CSV')).toEqual(['export', 'csv']);
  });
});

describe('searchCatalog', () => {
  it.each(TUNING_QUERIES)('"%s" ranks %s first', (query, expected) => {
    expect(searchCatalog(query)[0]?.name).toBe(expected);
  });

  it('"export this as CSV" ranks startExport first and its propose twin right after', () => {
    expect(
      searchCatalog('export this as CSV')
        .map((match) => match.name)
        .slice(0, 2),
    ).toEqual(['startExport', 'proposeExport']);
  });

  it('finds every tool first by its exact name, as the refusal tells the model to search', () => {
    for (const name of TOOL_NAMES.filter((candidate) => !isLoop(candidate))) {
      expect(searchCatalog(name)[0]?.name, name).toBe(name);
    }
    expect(DISCOVERABLE_TOOLS.every((name) => searchCatalog(`call ${name}`)[0]?.name === name)).toBe(true);
  });

  it('finds a saved spec by name among the top two', () => {
    expect(
      searchCatalog('open the saved spec called churn')
        .slice(0, 2)
        .map((match) => match.name),
    ).toContain('getSavedSpec');
  });

  it('never returns the loop tool, even when asked for it', () => {
    for (const query of ['search tools', 'find more tools', 'discover a capability', ...LOOP_TOOLS]) {
      expect(searchCatalog(query).map((match) => match.name)).not.toContain(LOOP_TOOLS[0]);
    }
  });

  it('returns nothing for words no row has, and for stopwords only', () => {
    expect(searchCatalog('zebra quantum')).toEqual([]);
    expect(searchCatalog('this is the')).toEqual([]);
    expect(searchCatalog('')).toEqual([]);
  });

  it('gives each match a one-line summary from its row', () => {
    for (const match of searchCatalog('staged changes')) {
      const row = CATALOG_ROWS.find((candidate) => candidate.name === match.name)!;
      expect(match.line).toBe(summaryLine(row.description));
      expect(match.line).not.toContain('\n');
    }
  });

  it('honours limit and the relative cut-off', () => {
    const all = new SearchIndex().rank('table');
    expect(all.length).toBeGreaterThan(5);
    expect(searchCatalog('table', { limit: 2, minRelativeScore: 0 })).toHaveLength(2);
    const cut = searchCatalog('table', { limit: 50, minRelativeScore: 0.5 });
    expect(cut.every((match) => match.score >= all[0]!.score * 0.5)).toBe(true);
    expect(cut.length).toBeLessThan(all.length);
  });

  it('ranks best first, deterministically, and never throws (property)', () => {
    const index = new SearchIndex();
    const words = CATALOG_ROWS.flatMap((row) => [...row.keywords, ...row.description.split(' ')]);
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.array(fc.constantFrom(...words), { maxLength: 6 }).map((w) => w.join(' ')),
        ),
        (query) => {
          const first = index.rank(query);
          expect(index.rank(query)).toEqual(first);
          for (let i = 1; i < first.length; i++)
            expect(first[i - 1]!.score).toBeGreaterThanOrEqual(first[i]!.score);
          expect(first.every((match) => match.score > 0)).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('weights fields: a word in the name outranks the same word in prose only', () => {
    const rows = [
      { ...CATALOG_ROWS[1]!, name: 'listConnections', keywords: [], description: 'Shows the widget.' },
      { ...CATALOG_ROWS[2]!, name: 'listTables', keywords: [], description: 'Also lists connections.' },
    ] as typeof CATALOG_ROWS;
    const ranked = new SearchIndex(rows, DEFAULT_SCORER_PARAMETERS).rank('connections');
    expect(ranked.map((match) => match.name)).toEqual(['listConnections', 'listTables']);
  });
});
