import { CATALOG_ROWS, type CatalogRow, isLoop, isPropose, type ToolName, twinOf } from '@toolrow/catalog';
import { isWordTerm, withinOneEdit } from '@toolrow/catalog/search';
import { applyIntent, type IntentRole, intentOf, intentRoles, verbPlace } from './intent.ts';
import {
  DEFAULT_SCORER_PARAMETERS,
  type Field,
  FUZZY_VOCABULARY_LENGTH,
  fieldsOfRow,
  keywordCounts,
  proposedTwin,
  queryTermsOf,
  rawWordsOf,
  type ScorerParameters,
  type SearchOptions,
  summaryLine,
  type ToolMatch,
} from './scorer.ts';

interface Document {
  row: CatalogRow;
  fields: Record<Field, Map<string, number>>;
  lengths: Record<Field, number>;
  phrases: string[][];
  verbs: string[][];
  /** Propose rows only: words of this row that its twin lacks. */
  ownTerms?: ReadonlySet<string>;
  twin?: ToolName;
  line: string;
}

const FIELDS: readonly Field[] = ['name', 'keywords', 'description'];

function counts(words: readonly string[]): Map<string, number> {
  const map = new Map<string, number>();
  for (const word of words) map.set(word, (map.get(word) ?? 0) + 1);
  return map;
}

function containsSequence(haystack: readonly string[], needle: readonly string[]): boolean {
  outer: for (let start = 0; start + needle.length <= haystack.length; start++) {
    for (let offset = 0; offset < needle.length; offset++) {
      if (haystack[start + offset] !== needle[offset]) continue outer;
    }
    return true;
  }
  return false;
}

/**
 * The scorer as it was before the inverted index: every document visited per query, every match
 * sorted. Kept as the reference the property test and the benchmark compare SearchIndex with;
 * nothing in production calls it.
 */
export class NaiveSearchIndex {
  readonly #documents: Document[];
  readonly #averageLengths: Record<Field, number>;
  readonly #documentFrequency = new Map<string, number>();
  readonly #parameters: ScorerParameters;
  readonly #roles: IntentRole[];

  constructor(
    rows: readonly CatalogRow[] = CATALOG_ROWS,
    parameters: ScorerParameters = DEFAULT_SCORER_PARAMETERS,
    engine?: string,
  ) {
    this.#parameters = parameters;
    // The loop tool is how you search; finding it again would only spend the budget.
    this.#documents = rows
      .filter((row) => !isLoop(row.name))
      .map((row) => {
        const searchFields = fieldsOfRow(row, engine);
        const words: Record<Field, string[]> = {
          name: searchFields.name,
          keywords: searchFields.keywords.flat(),
          description: searchFields.description,
        };
        return {
          row,
          fields: {
            name: counts(words.name),
            keywords: keywordCounts(searchFields.keywords),
            description: counts(words.description),
          },
          lengths: {
            name: words.name.length,
            keywords: sum(keywordCounts(searchFields.keywords).values()),
            description: words.description.length,
          },
          phrases: searchFields.keywords.filter((phrase) => phrase.length > 1),
          verbs: searchFields.verbs,
          line: summaryLine(row.description),
        };
      });
    this.#roles = intentRoles(
      this.#documents.map((doc) => doc.row),
      proposedTwin,
    );
    const byName = new Map(this.#documents.map((doc) => [doc.row.name as string, doc]));
    for (const doc of this.#documents) {
      if (!isPropose(doc.row.name)) continue;
      const twin = byName.get(twinOf(doc.row.name));
      if (!twin) continue;
      const twinTerms = new Set(FIELDS.flatMap((field) => [...twin.fields[field].keys()]));
      doc.twin = twin.row.name;
      doc.ownTerms = new Set(
        FIELDS.flatMap((field) => [...doc.fields[field].keys()]).filter((term) => !twinTerms.has(term)),
      );
    }
    const total = Math.max(1, this.#documents.length);
    this.#averageLengths = {
      name: this.#documents.reduce((sum, doc) => sum + doc.lengths.name, 0) / total,
      keywords: this.#documents.reduce((sum, doc) => sum + doc.lengths.keywords, 0) / total,
      description: this.#documents.reduce((sum, doc) => sum + doc.lengths.description, 0) / total,
    };
    for (const doc of this.#documents) {
      const seen = new Set(FIELDS.flatMap((field) => [...doc.fields[field].keys()]));
      for (const term of seen)
        this.#documentFrequency.set(term, (this.#documentFrequency.get(term) ?? 0) + 1);
    }
  }

  /** Every scored row, best first, ties in row order; rows that share no word with the query are left out. */
  rank(query: string): ToolMatch[] {
    const { ordered: queryTerms, plain, unique, fuzzy } = queryTermsOf(query);
    const rawWords = rawWordsOf(query);
    if (unique.length === 0) return [];
    const { weights, lengthNormalisation: b, saturation: k1, phraseBonus, fuzzyWeight } = this.#parameters;
    const n = this.#documents.length;
    const matches: ToolMatch[] = [];
    const documentOf = new Map<ToolMatch, Document>();
    // Each query term with the weight it counts at: itself when some row has it, else (a word of
    // five letters or more) every word of a row one edit away, at the typo weight.
    // A word counts as a row's when it sits in a field of non-zero weight (a zero weight adds nothing).
    const present = new Set(
      this.#documents.flatMap((doc) =>
        FIELDS.filter((field) => weights[field] !== 0).flatMap((field) => [...doc.fields[field].keys()]),
      ),
    );
    const vocabulary = [...present].sort();
    const weightedTerms: [term: string, weight: number][] = [];
    for (const term of unique) {
      if (present.has(term)) weightedTerms.push([term, 1]);
      else if (fuzzy.has(term))
        for (const word of vocabulary)
          if (word.length >= FUZZY_VOCABULARY_LENGTH && isWordTerm(word) && withinOneEdit(term, word))
            weightedTerms.push([word, fuzzyWeight]);
    }
    const matched = weightedTerms.map(([term]) => term);
    for (const doc of this.#documents) {
      let score = 0;
      for (const [term, weight] of weightedTerms) {
        let weighted = 0;
        for (const field of FIELDS) {
          const tf = doc.fields[field].get(term);
          if (!tf) continue;
          const average = this.#averageLengths[field] || 1;
          weighted += (weights[field] * tf) / (1 - b[field] + (b[field] * doc.lengths[field]) / average);
        }
        if (weighted === 0) continue;
        const df = this.#documentFrequency.get(term) ?? 0;
        const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
        const contribution = (idf * weighted * (k1 + 1)) / (k1 + weighted);
        score += weight === 1 ? contribution : contribution * weight;
      }
      if (score === 0) continue;
      for (const phrase of doc.phrases) if (containsSequence(queryTerms, phrase)) score += phraseBonus;
      if (doc.verbs.some((verb) => containsSequence(plain, verb))) score += this.#parameters.verbBonus;
      if (rawWords.has(doc.row.name.toLowerCase())) score += this.#parameters.exactNameBonus;
      const match = { name: doc.row.name, score, line: doc.line };
      matches.push(match);
      documentOf.set(match, doc);
    }
    const scoreOf = new Map(matches.map((match) => [match.name as string, match.score]));
    for (const match of matches) {
      const doc = documentOf.get(match)!;
      const twinScore = doc.twin ? scoreOf.get(doc.twin) : undefined;
      if (twinScore === undefined || rawWords.has(match.name.toLowerCase())) continue;
      if (matched.some((term) => doc.ownTerms?.has(term))) continue;
      match.score = Math.min(match.score, twinScore * this.#parameters.twinShare);
    }
    // The request's intent, over row positions (a report on a matched act may join).
    const position = new Map(this.#documents.map((doc, index) => [doc, index]));
    const byPosition = new Map(matches.map((match) => [position.get(documentOf.get(match)!)!, match.score]));
    applyIntent(
      intentOf(query),
      [...byPosition.keys()],
      { get: (index) => byPosition.get(index) ?? 0, set: (index, score) => byPosition.set(index, score) },
      this.#roles,
      (index) => verbPlace(plain, this.#documents[index]!.verbs),
    );
    const ranked = [...byPosition]
      .sort(([left], [right]) => left - right)
      .map(([index, score]) => ({
        name: this.#documents[index]!.row.name,
        score,
        line: this.#documents[index]!.line,
      }));
    // Array.prototype.sort is stable, so equal scores keep row order.
    return ranked.sort((left, right) => right.score - left.score);
  }

  /** The top matches for a query, as searchTools and `toolrow search-tools` return them. */
  search(query: string, options: SearchOptions = {}): ToolMatch[] {
    const limit = options.limit ?? 5;
    const minRelative = options.minRelativeScore ?? 0.25;
    const ranked = this.rank(query);
    const best = ranked[0]?.score ?? 0;
    return ranked.filter((match) => match.score >= best * minRelative).slice(0, limit);
  }
}

function sum(values: Iterable<number>): number {
  let total = 0;
  for (const value of values) total += value;
  return total;
}
