// What searchTools tells the model beside its results. A search that found nothing, or found tools
// for a word or two of a long request (a language the rows do not carry, a paraphrase far from
// the catalog's words), says so and names the way back, as every refusal names its recovery call:
// search again in English, with the catalog's own words for the acts it can search for.
import {
  CATALOG_ROWS,
  type EngineView,
  isDiscoverable,
  isLoop,
  isServedBy,
  rowOf,
  type ToolName,
} from '@toolrow/catalog';
import { WORD_LANGUAGES } from '@toolrow/declarations';
import type { SearchCoverage } from './scorer.ts';

/** Matches for fewer than this share of a request's words are a guess, and the note says so. */
export const WEAK_COVERAGE = 0.5;

/** Example queries, from the searchTools row's own description ("export csv", "foreign keys"). */
const EXAMPLES: readonly string[] = [
  ...(CATALOG_ROWS.find((row) => isLoop(row.name))?.description.matchAll(/"([^"]+)"/g) ?? []),
].map((match) => match[1]!);

/** The English word each discoverable row is first known by, for the tools this engine serves. */
export function searchableWords(engine?: EngineView): string[] {
  const words = CATALOG_ROWS.filter((row) => isDiscoverable(row.name) && isServedBy(engine, row.name)).map(
    (row) => row.keywords[0] ?? row.name,
  );
  return [...new Set(words)];
}

export interface SearchNoteInput {
  results: readonly ToolName[];
  coverage: SearchCoverage;
  searchesLeft: number;
  engine?: EngineView;
}

/** Whether a search's matches rest on too few of its words to be trusted. */
export function isWeakMatch({ results, coverage }: Pick<SearchNoteInput, 'results' | 'coverage'>): boolean {
  if (results.length === 0) return true;
  const { words, matched } = coverage;
  return words.length > 1 && matched.length / words.length < WEAK_COVERAGE;
}

/** The note searchTools returns with its results. */
export function searchNote(input: SearchNoteInput): string {
  const { results, coverage, searchesLeft, engine } = input;
  const retry = `search again with English words for the act and the thing, for example ${EXAMPLES.map((example) => `searchTools(query='${example}')`).join(' or ')}`;
  const rest = 'carry on with the tools you have, or ask the user';
  if (results.length > 0 && !isWeakMatch(input))
    return 'These tools are active now: call them directly from your next step.';
  if (results.length > 0) {
    const nearest = [...new Set(results.map((name) => rowOf(name).keywords[0] ?? name))].join(', ');
    const { words, matched } = coverage;
    const said =
      matched.length > 0
        ? `Only ${matched.map((word) => `"${word}"`).join(', ')} of your ${words.length} words matched`
        : `None of your ${words.length} words matched well`;
    return `${said}, so these tools (${nearest}) may not be what you need; they are active now. ${
      searchesLeft > 0 ? `If none fits, ${retry}; or ${rest}.` : `No searches are left this turn: ${rest}.`
    }`;
  }
  if (searchesLeft === 0) return `No tool matched, and no searches are left this turn: ${rest}.`;
  return `No tool matched. Tools are found by their words in English and ${WORD_LANGUAGES.length} other languages: ${retry}. It can search for: ${searchableWords(engine).join(', ')}. Or ${rest}.`;
}
