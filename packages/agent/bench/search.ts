// Benchmark of the agent's discovery: what the inline split saves per request, what the scorer
// costs against a naive baseline, and how its ranking compares with ai@7's own toolSearch().
// Every number is a ratio against a baseline measured in this same run.
//
//   npm run bench -w @toolrow/agent     (or: node --conditions=@toolrow/source bench/search.ts)
import { performance } from 'node:perf_hooks';
import { CATALOG_ROWS, isLoop, type ToolName } from '@toolrow/catalog';
import { generateText, type Tool, tool, toolSearch } from 'ai';
import { z } from 'zod';
import { toolSchemas } from '../src/backends.ts';
import { toolDefinitionCost } from '../src/cost.ts';
import { HELD_OUT_QUERIES as HELD_OUT, TUNING_QUERIES as QUERIES } from '../src/search/queries.ts';
import { SearchIndex } from '../src/search/scorer.ts';
import { scriptedModel } from '../src/testing.ts';

const ROWS = CATALOG_ROWS.filter((row) => !isLoop(row.name));

/** The baseline: count the query's words found as substrings of the row's text. */
function substringRank(query: string): string[] {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  return ROWS.map((row) => {
    const text = `${row.name} ${row.description} ${row.keywords.join(' ')}`.toLowerCase();
    return { name: row.name, score: words.filter((word) => text.includes(word)).length };
  })
    .filter((entry) => entry.score > 0)
    .sort((a, b) => b.score - a.score)
    .map((entry) => entry.name);
}

/** ai@7's toolSearch() over the same rows, run offline: a scripted model calls it once per query. */
async function aiToolSearchRank(query: string): Promise<string[]> {
  const tools: Record<string, Tool> = { toolSearch: toolSearch({ maxResults: 5 }) };
  for (const row of ROWS) {
    tools[row.name] = {
      ...tool({ description: row.description, inputSchema: z.object({}) }),
      deferLoading: true,
    };
  }
  const result = await generateText({
    model: scriptedModel([[{ tool: 'toolSearch', input: { query } }], [{ text: 'done' }]]),
    tools,
    stopWhen: () => false,
    prompt: query,
  });
  const output = result.steps[0]?.toolResults[0]?.output as { tools?: { name: string }[] } | undefined;
  return (output?.tools ?? []).map((entry) => entry.name);
}

function quality(rank: (query: string) => string[], queries: readonly [string, ToolName][] = QUERIES) {
  let top1 = 0;
  let reciprocal = 0;
  for (const [query, expected] of queries) {
    const names = rank(query).slice(0, 5);
    if (names[0] === expected) top1++;
    const position = names.indexOf(expected);
    if (position >= 0) reciprocal += 1 / (position + 1);
  }
  return { top1: top1 / queries.length, mrr5: reciprocal / queries.length };
}

function timePerQuery(run: (query: string) => unknown, rounds: number): number {
  for (const [query] of QUERIES) run(query); // warm up
  const start = performance.now();
  for (let round = 0; round < rounds; round++) for (const [query] of QUERIES) run(query);
  return ((performance.now() - start) * 1000) / (rounds * QUERIES.length);
}

const fmt = (value: number, digits = 2) => value.toFixed(digits);

// 1. Tokens per request.
const cost = await toolDefinitionCost(toolSchemas);
console.log('Tool definitions per request (gpt-tokenizer o200k_base, an approximation)');
console.log(`  inline core: ${cost.inline.tools} tools, ${cost.inline.tokens} tokens`);
console.log(`  all rows:    ${cost.all.tools} tools, ${cost.all.tokens} tokens`);
console.log(
  `  all / inline = ${fmt(cost.ratio)}×  (the inline split saves ${fmt(1 - 1 / cost.ratio, 3)} of it)`,
);

// 2. Latency against the substring baseline, same queries, same run.
const buildStart = performance.now();
const index = new SearchIndex();
const buildMs = performance.now() - buildStart;
const rounds = 2000;
const baselineUs = timePerQuery(substringRank, rounds);
const scorerUs = timePerQuery((query) => index.rank(query), rounds);
console.log('\nScorer latency per query (µs), baseline = naive substring match over the same rows');
console.log(`  substring baseline: ${fmt(baselineUs)} µs`);
console.log(`  BM25F scorer:       ${fmt(scorerUs)} µs  → ${fmt(scorerUs / baselineUs)}× the baseline`);
console.log(`  index build (once): ${fmt(buildMs * 1000, 0)} µs`);

// 3. Ranking quality on the query table: ours, the baseline, ai@7's toolSearch().
const ours = quality((query) => index.rank(query).map((match) => match.name));
const baseline = quality(substringRank);
const aiRanks = new Map<string, string[]>();
for (const [query] of [...QUERIES, ...HELD_OUT]) aiRanks.set(query, await aiToolSearchRank(query));
const ai = quality((query) => aiRanks.get(query) ?? []);
console.log(`\nRanking on ${QUERIES.length} realistic queries (top-1 accuracy, MRR@5)`);
console.log(`  BM25F scorer:          top-1 ${fmt(ours.top1)}, MRR@5 ${fmt(ours.mrr5)}`);
console.log(`  substring baseline:    top-1 ${fmt(baseline.top1)}, MRR@5 ${fmt(baseline.mrr5)}`);
console.log(
  `  ai@7 toolSearch():     top-1 ${fmt(ai.top1)}, MRR@5 ${fmt(ai.mrr5)}  (name ×2 + description, no keywords)`,
);
console.log(
  `  ratios vs ai@7 toolSearch(): top-1 ${fmt(ours.top1 / Math.max(ai.top1, 1e-9))}×, MRR@5 ${fmt(ours.mrr5 / Math.max(ai.mrr5, 1e-9))}×`,
);

const heldOurs = quality((query) => index.rank(query).map((match) => match.name), HELD_OUT);
const heldBaseline = quality(substringRank, HELD_OUT);
const heldAi = quality((query) => aiRanks.get(query) ?? [], HELD_OUT);
console.log(
  `\nHeld-out queries (${HELD_OUT.length}, not used to tune the weights; they did inform one keyword edit)`,
);
console.log(`  BM25F scorer:          top-1 ${fmt(heldOurs.top1)}, MRR@5 ${fmt(heldOurs.mrr5)}`);
console.log(`  substring baseline:    top-1 ${fmt(heldBaseline.top1)}, MRR@5 ${fmt(heldBaseline.mrr5)}`);
console.log(`  ai@7 toolSearch():     top-1 ${fmt(heldAi.top1)}, MRR@5 ${fmt(heldAi.mrr5)}`);
for (const [query, expected] of HELD_OUT) {
  const got = index.rank(query)[0]?.name ?? '(none)';
  if (got !== expected) console.log(`  miss: "${query}" → ${got} (expected ${expected})`);
}
