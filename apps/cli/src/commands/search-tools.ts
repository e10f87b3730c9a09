import { parseArgs } from 'node:util';
import { isWeakMatch, searchAnswer } from '@toolrow/agent/search';
import { rowOf } from '@toolrow/catalog';
import { type Command, UsageError } from '../command.ts';
import { formatTable, toJson } from '../format.ts';

const USAGE = `Usage: toolrow search-tools "<query>" [--json] [--limit N]

Ranks the tool catalog for a query with the scorer behind the agent's searchTools (BM25F over
the tool's name, keywords and description, with light stemming). Nothing is activated: this only
shows what a search in a chat would find.

  --json      print {"query": "...", "results": [{"name": "...", "score": 1.23}, ...], "words": [...],
              "matched": [...]}: results best first, the query's words and those the catalog knows
  --limit N   at most N results (default 5)

Example: toolrow search-tools "export this as CSV"`;

/** Scores are shown to two decimals; the order is the scorer's, on the exact scores. */
const round = (score: number) => Math.round(score * 100) / 100;

export const searchToolsCommand: Command = {
  usage: USAGE,
  async run(args, io) {
    let parsed: ReturnType<typeof parse>;
    try {
      parsed = parse(args);
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
    const query = parsed.positionals.join(' ').trim();
    if (!query) throw new UsageError('Give a query, for example: toolrow search-tools "export this as CSV"');
    const limitText = parsed.values.limit;
    const limit = limitText === undefined ? 5 : Number(limitText);
    if (!Number.isInteger(limit) || limit < 1) {
      throw new UsageError(`--limit must be a whole number of at least 1, not '${limitText}'.`);
    }
    // The agent's own answer: the same ranking and the same way back when it finds little.
    const { answer, matches, coverage } = searchAnswer(query, { limit });
    if (parsed.values.json) {
      io.stdout(
        toJson({
          query,
          results: matches.map((match) => ({ name: match.name, score: round(match.score) })),
          ...coverage,
          note: answer.note,
        }),
      );
      return 0;
    }
    if (matches.length === 0) {
      io.stdout(`No tool matches "${query}". ${answer.note}\n`);
      return 0;
    }
    const table = formatTable(
      ['#', 'tool', 'score', 'visibility', 'what it does'],
      matches.map((match, index) => [
        String(index + 1),
        match.name,
        round(match.score).toFixed(2),
        rowOf(match.name).visibility,
        match.line,
      ]),
    );
    io.stdout(`${table}\n`);
    if (isWeakMatch({ results: matches.map((match) => match.name), coverage })) io.stdout(`${answer.note}\n`);
    return 0;
  },
};

function parse(args: string[]) {
  return parseArgs({
    args,
    options: { json: { type: 'boolean' }, limit: { type: 'string' } },
    allowPositionals: true,
  });
}
