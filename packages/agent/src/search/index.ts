// The tool search alone, for callers that rank the catalog without running an agent
// (`toolrow search-tools`): it loads @toolrow/catalog and nothing of the AI SDK or the data layer.

export {
  DEFAULT_SCORER_PARAMETERS,
  type ScorerParameters,
  SearchIndex,
  type SearchOptions,
  searchCatalog,
  summaryLine,
  type ToolMatch,
} from './scorer.ts';
export { splitCamel, stem, terms } from './text.ts';
