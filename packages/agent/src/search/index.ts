// The tool search alone, for callers that rank the catalog without running an agent
// (`toolrow search-tools`): it loads @toolrow/catalog and nothing of the AI SDK or the data layer.

export { splitCamel, stem, terms } from '@toolrow/catalog/search';
export { SEARCH_BUDGET, type SearchAnswer, searchAnswer } from './answer.ts';
export { isWeakMatch, searchableWords, searchNote } from './recovery.ts';
export {
  catalogIndex,
  DEFAULT_SCORER_PARAMETERS,
  type ScorerParameters,
  type SearchCoverage,
  SearchIndex,
  type SearchOptions,
  searchCatalog,
  summaryLine,
  type ToolMatch,
} from './scorer.ts';
