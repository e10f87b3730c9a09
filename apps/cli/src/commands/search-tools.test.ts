import { searchAnswer } from '@toolrow/agent/search';
import { describe, expect, it } from 'vitest';
import { runCli, spawnCli } from '../testing.ts';

interface SearchJson {
  query: string;
  results: { name: string; score: number }[];
}

// Realistic requests and the tool the agent must find first for each.
const QUERIES: readonly [string, string][] = [
  ['export this as CSV', 'startExport'],
  ['dump the table to ndjson', 'startExport'],
  ['is my export done', 'getExportStatus'],
  ['why is this query slow', 'explainQuery'],
  ['how do these tables relate', 'describeRelations'],
  ['unused indexes', 'getIndexStats'],
  ['my saved specs', 'listSavedSpecs'],
  ['diff of the staged changes', 'diffStagedChanges'],
  ['who approved that', 'listAuditLog'],
  ['offer an export button', 'proposeExport'],
];

describe('toolrow search-tools', () => {
  it('"export this as CSV" ranks startExport first (a real process)', async () => {
    const result = await spawnCli(['search-tools', 'export this as CSV', '--json']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const json = JSON.parse(result.stdout) as SearchJson;
    expect(json.query).toBe('export this as CSV');
    expect(json.results[0]).toEqual({ name: 'startExport', score: expect.any(Number) });
    expect(Object.keys(json)).toEqual(['query', 'results', 'words', 'matched', 'note']);
    for (const entry of json.results) expect(Object.keys(entry)).toEqual(['name', 'score']);
  });

  it.each(QUERIES)('"%s" → %s first', async (query, expected) => {
    const result = await runCli(['search-tools', query, '--json']);
    expect(result.code).toBe(0);
    const json = JSON.parse(result.stdout) as SearchJson;
    expect(json.results[0]?.name).toBe(expected);
  });

  it('lists results best first with two-decimal scores', async () => {
    const json = JSON.parse(
      (await runCli(['search-tools', 'staged changes', '--json', '--limit', '4'])).stdout,
    ) as SearchJson;
    expect(json.results.length).toBeGreaterThan(1);
    expect(json.results.length).toBeLessThanOrEqual(4);
    for (let i = 1; i < json.results.length; i++) {
      expect(json.results[i - 1]!.score).toBeGreaterThanOrEqual(json.results[i]!.score);
    }
    for (const { score } of json.results) expect(Math.round(score * 100) / 100).toBe(score);
  });

  it('joins unquoted words into one query and prints a table by default', async () => {
    const result = await runCli(['search-tools', 'foreign', 'keys']);
    expect(result.code).toBe(0);
    expect(result.stdout.split('\n')[0]).toMatch(/^#\s+tool\s+score\s+visibility\s+what it does$/);
    expect(result.stdout.split('\n')[2]).toMatch(
      /^1\s+describeRelations\s+\d+\.\d\d\s+discoverable\s+List the foreign keys/,
    );
  });

  it('says so when nothing matches, with the way back the agent’s searchTools names', async () => {
    const result = await runCli(['search-tools', 'zebra']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('No tool matches "zebra". No tool matched.');
    expect(result.stdout).toContain(
      "search again with English words for the act and the thing, for example searchTools(query='",
    );
    expect(result.stdout).toContain('export, audit');
    expect(JSON.parse((await runCli(['search-tools', 'zebra', '--json'])).stdout)).toEqual({
      query: 'zebra',
      results: [],
      words: ['zebra'],
      matched: [],
      note: searchAnswer('zebra').answer.note,
    });
  });

  // Every entry point that runs a search answers with the agent's own note: an empty or weak
  // search names the way back (search again in English, the words the catalog knows) on each.
  it.each(['πόσες γραμμές έχει ο πίνακας', 'zebra', 'hamisha jedwali kama faili ya csv'])(
    'the same way back on every path: %s',
    async (query) => {
      const { answer } = searchAnswer(query);
      expect(answer.note).toMatch(/search again with English words|None of your|Only/);
      const called = JSON.parse(
        (await runCli(['call', 'searchTools', JSON.stringify({ query })])).stdout,
      ) as {
        note: string;
        results: unknown[];
        cli: string;
      };
      expect(called.note).toBe(answer.note);
      expect(called.results).toEqual(answer.results);
      expect(called.cli).toMatch(/only ranks the catalog/);
      const json = JSON.parse((await runCli(['search-tools', query, '--json'])).stdout) as { note: string };
      expect(json.note).toBe(answer.note);
      const text = (await runCli(['search-tools', query])).stdout;
      expect(text).toContain(answer.note);
    },
  );

  it('finds a request in Russian, and warns when only a word of a request in another language matched', async () => {
    const russian = await runCli(['search-tools', 'удалить эти строки']);
    expect(russian.stdout.split('\n')[2]).toMatch(/^1\s+stageDeleteRows\s/);
    expect(russian.stdout).not.toContain('Only');
    const swahili = await runCli(['search-tools', 'hamisha jedwali kama faili ya csv']);
    expect(swahili.stdout).toContain('Only "csv" of your 6 words matched, so these tools');
  });

  it.each([
    [[], /Give a query/],
    [['x', '--limit', '0'], /--limit must be a whole number/],
    [['x', '--bogus'], /Unknown option '--bogus'/],
  ])('usage errors exit 2: %j', async (args, message) => {
    const result = await runCli(['search-tools', ...args]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).toContain('Usage: toolrow search-tools');
  });
});
