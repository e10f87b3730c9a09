// What a search answers, on every path that runs one: the agent's searchTools, `toolrow call
// searchTools` and `toolrow search-tools`. One function, so the way back a weak or empty search
// names (search again in English, the words the catalog knows) is the same wherever it is asked.
import { type EngineView, isServedBy, type ToolName } from '@toolrow/catalog';
import { searchNote } from './recovery.ts';
import { catalogIndex, type SearchCoverage, type ToolMatch } from './scorer.ts';

/** Searches a turn may make (the seed's budget): the fourth is refused. */
export const SEARCH_BUDGET = 3;

export interface SearchAnswer {
  query: string;
  results: { name: ToolName; summary: string }[];
  searchesLeft: number;
  note: string;
}

export interface SearchAnswerOptions {
  engine?: EngineView;
  /** Searches left after this one (default: as the first search of a turn). */
  searchesLeft?: number;
  /** The ranking to use instead of the catalog's (a test's scripted search). */
  rank?: (query: string) => ToolMatch[];
  limit?: number;
}

/** Ranks the catalog for `query` (only what the engine serves) and says what to do next. */
export function searchAnswer(
  query: string,
  options: SearchAnswerOptions = {},
): { answer: SearchAnswer; matches: ToolMatch[]; coverage: SearchCoverage } {
  const { engine } = options;
  const index = catalogIndex(engine);
  const ranked = options.rank
    ? options.rank(query)
    : index.search(query, options.limit ? { limit: options.limit } : {});
  const matches = ranked.filter((match) => isServedBy(engine, match.name));
  const searchesLeft = options.searchesLeft ?? SEARCH_BUDGET - 1;
  const coverage = index.coverage(query);
  return {
    matches,
    coverage,
    answer: {
      query,
      results: matches.map((match) => ({ name: match.name, summary: match.line })),
      searchesLeft,
      note: searchNote({
        results: matches.map((match) => match.name),
        coverage,
        searchesLeft,
        ...(engine ? { engine } : {}),
      }),
    },
  };
}
