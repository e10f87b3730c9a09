import { CATALOG_ROWS, DISCOVERABLE_TOOLS, isLoop, LOOP_TOOLS, TOOL_NAMES } from '@toolrow/catalog';
import { splitCamel, stem, terms } from '@toolrow/catalog/search';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { NaiveSearchIndex } from './naive.ts';
import { HELD_OUT_QUERIES, TUNING_QUERIES } from './queries.ts';
import { DEFAULT_SCORER_PARAMETERS, SearchIndex, searchCatalog, summaryLine } from './scorer.ts';

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

describe('SearchIndex (inverted) against NaiveSearchIndex (every row per query)', () => {
  const vocabulary = [
    ...new Set(
      CATALOG_ROWS.flatMap((row) => [
        ...row.keywords,
        ...Object.values(row.words ?? {}).flat(),
        ...(row.verbs ?? []),
        ...row.description.split(/\s+/),
        row.name,
      ]),
    ),
  ];
  // A word as users mistype it: two neighbouring letters swapped, one dropped, or one doubled.
  const typo = fc
    .tuple(
      fc.constantFrom(...vocabulary.filter((each) => /^(?:[a-z]{5,}|[\u0400-\u04ff]{5,})$/.test(each))),
      fc.nat(),
      fc.nat(2),
    )
    .map(([each, at, kind]) => {
      const i = at % (each.length - 1);
      if (kind === 0) return each.slice(0, i) + each[i + 1] + each[i] + each.slice(i + 2);
      if (kind === 1) return each.slice(0, i) + each.slice(i + 1);
      return each.slice(0, i) + each[i] + each.slice(i);
    });
  const word = fc.oneof(fc.constantFrom(...vocabulary), typo);
  const text = fc.array(word, { maxLength: 12 }).map((words) => words.join(' '));
  // Rows keep real names (so propose twins and the loop tool take part) with random text, in a random order.
  const catalog = fc.shuffledSubarray([...CATALOG_ROWS], { minLength: 0 }).chain((rows) =>
    fc.tuple(
      ...rows.map((row) =>
        fc
          .record({
            keep: fc.boolean(),
            keywords: fc.array(fc.oneof(word, text), { maxLength: 6 }),
            verbs: fc.array(fc.oneof(word, text), { maxLength: 3 }),
            description: text,
          })
          .map(({ keep, keywords, verbs, description }) =>
            keep ? row : { ...row, keywords, verbs, description },
          ),
      ),
    ),
  ) as fc.Arbitrary<typeof CATALOG_ROWS>;
  const weight = fc.oneof(fc.constant(0), fc.double({ min: 0.1, max: 5, noNaN: true }));
  const parameters = fc.oneof(
    fc.constant(DEFAULT_SCORER_PARAMETERS),
    fc.record({
      weights: fc.record({ name: weight, keywords: weight, description: weight }),
      lengthNormalisation: fc.record({
        name: fc.double({ min: 0, max: 1, noNaN: true }),
        keywords: fc.double({ min: 0, max: 1, noNaN: true }),
        description: fc.double({ min: 0, max: 1, noNaN: true }),
      }),
      saturation: fc.double({ min: 0.1, max: 3, noNaN: true }),
      phraseBonus: fc.double({ min: 0, max: 3, noNaN: true }),
      twinShare: fc.double({ min: 0, max: 1, noNaN: true }),
      exactNameBonus: fc.double({ min: 0, max: 20, noNaN: true }),
      fuzzyWeight: fc.double({ min: 0, max: 1, noNaN: true }),
      verbBonus: fc.double({ min: 0, max: 5, noNaN: true }),
    }),
  );
  const query = fc.oneof(
    text,
    fc.string(),
    fc.constantFrom(...TOOL_NAMES, ...TUNING_QUERIES.map(([q]) => q)),
  );
  const options = fc.record(
    {
      limit: fc.integer({ min: 0, max: 60 }),
      minRelativeScore: fc.double({ min: 0, max: 1, noNaN: true }),
    },
    { requiredKeys: [] },
  );

  it('ranks and searches random catalogs exactly as the naive scorer does, score for score (property)', () => {
    fc.assert(
      fc.property(
        catalog,
        parameters,
        fc.array(fc.tuple(query, options), { minLength: 1, maxLength: 8 }),
        fc.constantFrom(undefined, 'postgres' as const, 'dynamodb' as const),
        (rows, params, queries, engine) => {
          const inverted = new SearchIndex(rows, params, engine);
          const naive = new NaiveSearchIndex(rows, params, engine);
          // Several queries per index: scratch state left by one query must not leak into the next.
          for (const [q, opts] of queries) {
            expect(inverted.rank(q)).toEqual(naive.rank(q));
            expect(inverted.search(q, opts)).toEqual(naive.search(q, opts));
          }
        },
      ),
      { numRuns: 400 },
    );
  });

  it('agrees with the naive scorer on the real catalog for every tuning and held-out query', () => {
    const inverted = new SearchIndex();
    const naive = new NaiveSearchIndex();
    for (const [q] of [...TUNING_QUERIES, ...HELD_OUT_QUERIES]) {
      expect(inverted.rank(q)).toEqual(naive.rank(q));
      expect(inverted.search(q)).toEqual(naive.search(q));
    }
  });
});
