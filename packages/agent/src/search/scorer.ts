import {
  CATALOG_ROWS,
  type CatalogRow,
  type EngineView,
  isLoop,
  isPropose,
  isServedBy,
  type ToolName,
  twinOf,
} from '@toolrow/catalog';
import {
  deletions,
  fieldsFromTerms,
  isCjkTerm,
  isFuzzyCandidate,
  isWordTerm,
  queryTerms,
  SEARCH_TERMS,
  type SearchFields,
  searchFieldsOf,
  termsWithWords,
  withinOneEdit,
} from '@toolrow/catalog/search';
import { applyIntent, type IntentRole, intentOf, intentRoles, verbPlace } from './intent.ts';

/** One ranked tool: its name, its BM25F score and a one-line summary for the model to read. */
export interface ToolMatch {
  name: ToolName;
  score: number;
  line: string;
}

export interface SearchOptions {
  /** At most this many matches (default 5). */
  limit?: number;
  /** Drop matches scoring below this fraction of the best one (default 0.25), so noise does not get activated. */
  minRelativeScore?: number;
  /** Search only the tools this connection's engine serves, with its users' words (default: every row). */
  engine?: EngineView;
}

export type Field = 'name' | 'keywords' | 'description';

/** A query's words as the tokenizer reads them, and those the catalog knows. */
export interface SearchCoverage {
  words: string[];
  matched: string[];
}

/**
 * Field weights and BM25 parameters. Keywords are curated synonyms and names are short, so both
 * count more than prose; length normalisation is light because a row's fields are short and a
 * longer keyword list means more synonyms, not a diluted topic. The defaults were chosen on the
 * realistic-query table in scorer.test.ts.
 */
export interface ScorerParameters {
  weights: Record<Field, number>;
  /** Length normalisation per field (BM25's b). */
  lengthNormalisation: Record<Field, number>;
  /** Term-frequency saturation (BM25's k1). */
  saturation: number;
  /** Added once per multi-word keyword whose words all appear, in order, in the query ("foreign key"). */
  phraseBonus: number;
  /**
   * A propose row shares its twin's topic words by design. Unless the query uses a word only the
   * propose row has ("offer", "button", "suggest"), it scores at most this fraction of its twin, so
   * "export this as CSV" names startExport first and proposeExport right after it.
   */
  twinShare: number;
  /**
   * Added when the query contains a tool's exact name: a refusal tells the model to search for
   * the name it tried ("searchTools(query='getSavedSpec')"), and that must find it first.
   */
  exactNameBonus: number;
  /**
   * A query word of five letters or more that no row has matches the rows' words one edit away
   * ("expalin" → explain, "auidt" → audit, "таблицу" → таблиц) at this fraction of an exact match.
   */
  fuzzyWeight: number;
  /**
   * Added once to a row when the query says one of its verbs: the act a request names weighs more
   * than the nouns around it, so "change the price" is stageUpdateRows, not listStagedChanges.
   */
  verbBonus: number;
}

export const DEFAULT_SCORER_PARAMETERS: ScorerParameters = {
  weights: { name: 2, keywords: 3, description: 1 },
  lengthNormalisation: { name: 0, keywords: 0.25, description: 0.25 },
  saturation: 1.2,
  phraseBonus: 1,
  twinShare: 0.9,
  exactNameBonus: 10,
  fuzzyWeight: 0.7,
  verbBonus: 2,
};

/**
 * A row's search fields for one engine: the generator's terms for a catalog row (tokenized once,
 * at generation time), tokenized here for any other row (tests, the benchmark's synthetic rows).
 */
export function fieldsOfRow(row: CatalogRow, engine?: string): SearchFields {
  const generated = (SEARCH_TERMS as Partial<Record<string, (typeof SEARCH_TERMS)[ToolName]>>)[row.name];
  return generated && CATALOG_ROWS.includes(row)
    ? fieldsFromTerms(generated, engine)
    : searchFieldsOf(row, engine);
}

/**
 * A query's terms: its words and bigrams in order (phrases), plus CJK unigrams for one-character
 * words; `fuzzy`: the terms of words long enough to match a row's word at one edit.
 */
export function queryTermsOf(query: string): {
  ordered: string[];
  plain: string[];
  unique: string[];
  fuzzy: Set<string>;
} {
  const { ordered, plain, unigrams, fuzzy } = queryTerms(query);
  return {
    ordered,
    plain,
    unique: unigrams.length > 0 ? [...new Set([...ordered, ...unigrams])] : [...new Set(ordered)],
    fuzzy,
  };
}

const PLAIN = /^[ -~]*$/;

/** The query's words as typed, lowercased (a tool's exact name among them earns its bonus). */
export function rawWordsOf(query: string): Set<string> {
  const lower = query.toLowerCase();
  return new Set((PLAIN.test(lower) ? lower.match(/[a-z0-9_]+/g) : lower.match(/[\p{L}\p{N}_]+/gu)) ?? []);
}

/**
 * A field's term counts. A CJK keyword is one word however many bigrams it splits into: each of
 * its k bigrams counts 1/k, so a long keyword does not outweigh a short one by its length alone.
 */
export function keywordCounts(keywords: readonly (readonly string[])[]): Map<string, number> {
  const map = new Map<string, number>();
  for (const keyword of keywords) {
    const cjk = keyword.filter((term) => isCjkTerm(term)).length;
    for (const term of keyword) {
      const count = cjk > 1 && isCjkTerm(term) ? 1 / cjk : 1;
      map.set(term, (map.get(term) ?? 0) + count);
    }
  }
  return map;
}

const FIELDS: readonly Field[] = ['name', 'keywords', 'description'];

/** The first sentence of a description: what the model reads in a search result. */
export function summaryLine(description: string): string {
  const match = /^(.+?[.!?])(?:\s|$)/.exec(description);
  return match ? match[1]! : description;
}

function counts(words: readonly string[]): Map<string, number> {
  const map = new Map<string, number>();
  for (const word of words) map.set(word, (map.get(word) ?? 0) + 1);
  return map;
}

/** A propose row's twin (the row it offers), for the intent roles. */
export function proposedTwin(name: string): string | undefined {
  return isPropose(name as ToolName) ? twinOf(name as never) : undefined;
}

/** A term's documents, ascending, and what the term adds to each one's score. */
interface Postings {
  documents: Int32Array;
  contributions: Float64Array;
}

/** Phrases are looked up by their words joined with a space, which no term contains. */
const PHRASE_SEPARATOR = ' ';

/**
 * A BM25F index over the tool rows: name (camelCase split), keywords and description.
 *
 * Inverted: a query touches only the postings of its own terms, so its cost grows with how many
 * rows share its words, not with the catalog. A term's BM25F contribution to a row depends on
 * nothing in the query, so it is computed once at build time, with the very expression (and
 * field order) the per-query scorer used, so scores are bit-for-bit those of NaiveSearchIndex
 * (naive.ts); scorer.test.ts holds it to that on random catalogs and queries.
 */
export class SearchIndex {
  readonly #parameters: ScorerParameters;
  readonly #names: ToolName[] = [];
  readonly #lowerNames: string[] = [];
  readonly #lines: string[] = [];
  readonly #postings = new Map<string, Postings>();
  /** Keyword phrases of two terms or more, by their first term (each listing of a row once). */
  readonly #phrases = new Map<string, Sequence[]>();
  /** Verbs as typed, by their first term (each row once per verb). */
  readonly #verbs = new Map<string, Sequence[]>();
  /** Per row: the generation of the query that last gave it its verb bonus. */
  readonly #verbMarks: Uint32Array;
  readonly #byLowerName = new Map<string, number[]>();
  /** A one-letter deletion of indexed words → those words (typo lookup). */
  readonly #deletions = new Map<string, string[]>();
  /** Propose rows only: the twin's document, and the words of this row that the twin lacks. */
  readonly #twin: Int32Array;
  readonly #ownTerms: (ReadonlySet<string> | undefined)[] = [];
  /** Per row: an act, a report on acts, or neither (what a question or a value moves). */
  readonly #roles: IntentRole[];
  /** Per row: its verbs' terms (where the request says one decides the imperative). */
  readonly #verbTerms: (readonly (readonly string[])[])[];
  // Per-query scratch, reused so that a query allocates only its results. A document's score is
  // valid while its mark equals the current generation, which spares clearing between queries.
  readonly #scores: Float64Array;
  readonly #marks: Uint32Array;
  readonly #touched: Int32Array;
  #generation = 0;

  constructor(
    rows: readonly CatalogRow[] = CATALOG_ROWS,
    parameters: ScorerParameters = DEFAULT_SCORER_PARAMETERS,
    engine?: string,
  ) {
    this.#parameters = parameters;
    // The loop tool is how you search; finding it again would only spend the budget.
    const kept = rows.filter((row) => !isLoop(row.name));
    const n = kept.length;
    this.#twin = new Int32Array(n).fill(-1);
    this.#scores = new Float64Array(n);
    this.#marks = new Uint32Array(n);
    this.#verbMarks = new Uint32Array(n);
    this.#touched = new Int32Array(n);

    this.#roles = intentRoles(kept, proposedTwin);
    const searchFields = kept.map((row) => fieldsOfRow(row, engine));
    this.#verbTerms = searchFields.map((each) => each.verbs);
    const fields = searchFields.map((each) => ({
      name: counts(each.name),
      keywords: keywordCounts(each.keywords),
      description: counts(each.description),
    }));
    const lengths = fields.map((doc) => ({
      name: sum(doc.name.values()),
      keywords: sum(doc.keywords.values()),
      description: sum(doc.description.values()),
    }));
    const total = Math.max(1, n);
    const averageLengths = {
      name: lengths.reduce((acc, doc) => acc + doc.name, 0) / total,
      keywords: lengths.reduce((acc, doc) => acc + doc.keywords, 0) / total,
      description: lengths.reduce((acc, doc) => acc + doc.description, 0) / total,
    };
    const termsOf = fields.map((doc) => new Set(FIELDS.flatMap((field) => [...doc[field].keys()])));
    const documentsOf = new Map<string, number[]>();
    termsOf.forEach((seen, document) => {
      for (const term of seen) {
        append(documentsOf, term, document);
      }
    });

    const { weights, lengthNormalisation: b, saturation: k1 } = parameters;
    for (const [term, documents] of documentsOf) {
      const df = documents.length;
      const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
      const kept: number[] = [];
      const contributions: number[] = [];
      for (const document of documents) {
        let weighted = 0;
        for (const field of FIELDS) {
          const tf = fields[document]![field].get(term);
          if (!tf) continue;
          const average = averageLengths[field] || 1;
          weighted +=
            (weights[field] * tf) / (1 - b[field] + (b[field] * lengths[document]![field]) / average);
        }
        // A zero weight contributes nothing, and the scorer skipped such terms, not added zero.
        if (weighted === 0) continue;
        kept.push(document);
        contributions.push((idf * weighted * (k1 + 1)) / (k1 + weighted));
      }
      if (kept.length > 0)
        this.#postings.set(term, {
          documents: Int32Array.from(kept),
          contributions: Float64Array.from(contributions),
        });
    }

    // Typos: each word that may be one edit from a query word, under each of its one-letter
    // deletions (a typo and its word share one unless they differ in length by one).
    for (const term of this.#postings.keys()) {
      if (term.length < FUZZY_VOCABULARY_LENGTH || !isWordTerm(term)) continue;
      for (const deleted of deletions(term)) append(this.#deletions, deleted, term);
    }

    const phrases = new Map<string, Sequence>();
    const verbs = new Map<string, Sequence>();
    const sequence = (byKey: Map<string, Sequence>, byFirst: Map<string, Sequence[]>, terms: string[]) => {
      const key = terms.join(PHRASE_SEPARATOR);
      let found = byKey.get(key);
      if (!found) {
        found = { terms, documents: [], counted: 0 };
        byKey.set(key, found);
        append(byFirst, terms[0]!, found);
      }
      return found;
    };
    kept.forEach((row, document) => {
      this.#names.push(row.name);
      this.#lowerNames.push(row.name.toLowerCase());
      this.#lines.push(summaryLine(row.description));
      append(this.#byLowerName, row.name.toLowerCase(), document);
      for (const phrase of searchFields[document]!.keywords) {
        // Once per listing: a phrase a row lists twice earns its bonus twice.
        if (phrase.length > 1) sequence(phrases, this.#phrases, phrase).documents.push(document);
      }
      for (const verb of searchFields[document]!.verbs) {
        const { documents } = sequence(verbs, this.#verbs, verb);
        if (documents.at(-1) !== document) documents.push(document);
      }
    });

    // A later row of the same name wins, as a Map built from the rows would have it.
    const byName = new Map<string, number>(kept.map((row, document) => [row.name, document]));
    kept.forEach((row, document) => {
      if (!isPropose(row.name)) return;
      const twin = byName.get(twinOf(row.name));
      if (twin === undefined) return;
      this.#twin[document] = twin;
      const twinTerms = termsOf[twin]!;
      this.#ownTerms[document] = new Set([...termsOf[document]!].filter((term) => !twinTerms.has(term)));
    });
  }

  /**
   * Scores every row that shares a word with the query into #scores and returns how many there
   * are; their documents are the first that many entries of #touched.
   */
  #score(query: string): { count: number; unique: string[]; rawWords: Set<string> } {
    const { ordered: queryTerms, plain, unique, fuzzy } = queryTermsOf(query);
    const rawWords = rawWordsOf(query);
    if (unique.length === 0) return { count: 0, unique, rawWords };
    if (this.#generation === 0xffffffff) {
      this.#marks.fill(0);
      this.#verbMarks.fill(0);
      for (const sequences of [...this.#phrases.values(), ...this.#verbs.values()])
        for (const sequence of sequences) sequence.counted = 0;
      this.#generation = 0;
    }
    const generation = ++this.#generation;
    const scores = this.#scores;
    const marks = this.#marks;
    const touched = this.#touched;
    let count = 0;
    const matched: string[] = [];
    const add = (postings: Postings, weight: number) => {
      const { documents, contributions } = postings;
      for (let i = 0; i < documents.length; i++) {
        const document = documents[i]!;
        if (marks[document] !== generation) {
          marks[document] = generation;
          scores[document] = 0;
          touched[count++] = document;
        }
        scores[document] =
          scores[document]! + (weight === 1 ? contributions[i]! : contributions[i]! * weight);
      }
    };
    // Terms in query order, so each row's sum adds the same numbers in the same order as before.
    for (const term of unique) {
      const postings = this.#postings.get(term);
      if (postings) {
        matched.push(term);
        add(postings, 1);
        continue;
      }
      if (!fuzzy.has(term)) continue;
      for (const near of this.#nearWords(term)) {
        matched.push(near);
        add(this.#postings.get(near)!, this.#parameters.fuzzyWeight);
      }
    }
    // A row whose words sum to zero is no match, and gets no bonus either.
    let live = 0;
    for (let i = 0; i < count; i++) {
      const document = touched[i]!;
      if (scores[document] === 0) marks[document] = 0;
      else touched[live++] = document;
    }
    if (live === 0) return { count: 0, unique, rawWords };

    const { phraseBonus, exactNameBonus, twinShare, verbBonus } = this.#parameters;
    if (queryTerms.length > 1)
      for (const phrase of sequencesIn(this.#phrases, queryTerms, generation))
        for (const document of phrase.documents)
          if (marks[document] === generation) scores[document] = scores[document]! + phraseBonus;
    // Once per row, whichever of its verbs the query says and however often.
    const verbMarks = this.#verbMarks;
    for (const verb of sequencesIn(this.#verbs, plain, generation))
      for (const document of verb.documents)
        if (marks[document] === generation && verbMarks[document] !== generation) {
          verbMarks[document] = generation;
          scores[document] = scores[document]! + verbBonus;
        }
    for (const word of rawWords) {
      const documents = this.#byLowerName.get(word);
      if (!documents) continue;
      for (const document of documents)
        if (marks[document] === generation) scores[document] = scores[document]! + exactNameBonus;
    }
    for (let i = 0; i < live; i++) {
      const document = touched[i]!;
      const twin = this.#twin[document]!;
      if (twin < 0 || marks[twin] !== generation || rawWords.has(this.#lowerNames[document]!)) continue;
      const own = this.#ownTerms[document];
      if (matched.some((term) => own?.has(term))) continue;
      // Twins are never propose rows themselves, so the twin's score here is its uncapped one.
      scores[document] = Math.min(scores[document]!, scores[twin]! * twinShare);
    }
    {
      const intent = intentOf(query);
      applyIntent(
        intent,
        Array.from(touched.subarray(0, live)),
        {
          get: (document) => (marks[document] === generation ? scores[document]! : 0),
          set: (document, score) => {
            if (marks[document] !== generation) {
              marks[document] = generation;
              touched[live++] = document;
            }
            scores[document] = score;
          },
        },
        this.#roles,
        (document) =>
          verbMarks[document] === generation ? verbPlace(plain, this.#verbTerms[document]!) : undefined,
      );
    }
    return { count: live, unique, rawWords };
  }

  /** The indexed words one edit from `term` (which no row has), in sorted order. */
  #nearWords(term: string): string[] {
    const found = new Set<string>();
    const consider = (candidate: string) => {
      if (
        candidate !== term &&
        candidate.length >= FUZZY_VOCABULARY_LENGTH &&
        this.#postings.has(candidate) &&
        withinOneEdit(term, candidate)
      )
        found.add(candidate);
    };
    // A word that is the query word with one more letter.
    for (const word of this.#deletions.get(term) ?? []) consider(word);
    for (const deleted of deletions(term)) {
      // A word that is the query word with one letter less.
      consider(deleted);
      // One letter changed, or two swapped: both lose a letter to the same word.
      for (const word of this.#deletions.get(deleted) ?? []) consider(word);
    }
    return [...found].sort();
  }

  #match(document: number): ToolMatch {
    return { name: this.#names[document]!, score: this.#scores[document]!, line: this.#lines[document]! };
  }

  /**
   * The query's words (stopwords aside) and those some row has, exactly or one typo away: how much
   * of a request the catalog understood. A CJK run counts as one word, understood when any of its
   * bigrams (or characters) is a row's.
   */
  coverage(query: string): SearchCoverage {
    const words = new Map<string, boolean>();
    for (const [term, word] of termsWithWords(query)) {
      if (words.get(word)) continue;
      const known =
        this.#postings.has(term) ||
        (isCjkTerm(term)
          ? [...word].some((character) => this.#postings.has(character))
          : isFuzzyCandidate(word) && isWordTerm(term) && this.#nearWords(term).length > 0);
      words.set(word, known);
    }
    return {
      words: [...words.keys()],
      matched: [...words].filter(([, known]) => known).map(([word]) => word),
    };
  }

  /** Every scored row, best first, ties in row order; rows that share no word with the query are left out. */
  rank(query: string): ToolMatch[] {
    const { count } = this.#score(query);
    const documents = Array.from(this.#touched.subarray(0, count));
    const scores = this.#scores;
    documents.sort((left, right) => scores[right]! - scores[left]! || left - right);
    return documents.map((document) => this.#match(document));
  }

  /** The top matches for a query, as searchTools and `toolrow search-tools` return them. */
  search(query: string, options: SearchOptions = {}): ToolMatch[] {
    const limit = options.limit ?? 5;
    const minRelative = options.minRelativeScore ?? 0.25;
    if (!Number.isInteger(limit) || limit < 0) {
      const ranked = this.rank(query);
      const best = ranked[0]?.score ?? 0;
      return ranked.filter((match) => match.score >= best * minRelative).slice(0, limit);
    }
    const { count } = this.#score(query);
    const top = topDocuments(this.#touched, count, this.#scores, limit);
    const best = top.length > 0 ? this.#scores[top[0]!]! : 0;
    // The cut keeps a prefix of the ranking, so cutting the top `limit` equals cutting it all first.
    const matches: ToolMatch[] = [];
    for (const document of top) {
      if (this.#scores[document]! < best * minRelative) break;
      matches.push(this.#match(document));
    }
    return matches;
  }
}

/** A phrase or verb: its terms in order, the rows that list it, and the query that last counted it. */
interface Sequence {
  readonly terms: readonly string[];
  readonly documents: number[];
  counted: number;
}

/**
 * The sequences found in the query's terms, each once per query (marked with its generation):
 * looked up by each query term as a first term, so a query pays for the sequences it could start,
 * not for every span of its terms.
 */
function* sequencesIn(
  byFirst: ReadonlyMap<string, readonly Sequence[]>,
  terms: readonly string[],
  generation: number,
): Generator<Sequence> {
  for (let start = 0; start < terms.length; start++) {
    const candidates = byFirst.get(terms[start]!);
    if (!candidates) continue;
    for (const sequence of candidates) {
      if (sequence.counted === generation || start + sequence.terms.length > terms.length) continue;
      let at = 1;
      while (at < sequence.terms.length && sequence.terms[at] === terms[start + at]) at++;
      if (at < sequence.terms.length) continue;
      sequence.counted = generation;
      yield sequence;
    }
  }
}

/** Indexed words this long or longer take part in typo matching (a five-letter typo minus a letter). */
export const FUZZY_VOCABULARY_LENGTH = 4;

function append<T>(map: Map<string, T[]>, key: string, value: T): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

function sum(values: Iterable<number>): number {
  let total = 0;
  for (const value of values) total += value;
  return total;
}

/** Whether document a ranks before b: higher score, then earlier row. */
function before(scores: Float64Array, a: number, b: number): boolean {
  const left = scores[a]!;
  const right = scores[b]!;
  return left > right || (left === right && a < b);
}

/**
 * The best `limit` of the first `count` documents, best first: a heap whose root is the worst one
 * kept, so the rest cost one comparison each and nothing is allocated per match.
 */
function topDocuments(documents: Int32Array, count: number, scores: Float64Array, limit: number): number[] {
  const heap: number[] = [];
  if (limit === 0) return heap;
  for (let i = 0; i < count; i++) {
    const document = documents[i]!;
    if (heap.length < limit) {
      heap.push(document);
      let child = heap.length - 1;
      while (child > 0) {
        const parent = (child - 1) >> 1;
        if (!before(scores, heap[parent]!, heap[child]!)) break;
        [heap[parent], heap[child]] = [heap[child]!, heap[parent]!];
        child = parent;
      }
    } else if (before(scores, document, heap[0]!)) {
      heap[0] = document;
      let parent = 0;
      for (;;) {
        const left = 2 * parent + 1;
        const right = left + 1;
        let worst = parent;
        if (left < heap.length && before(scores, heap[worst]!, heap[left]!)) worst = left;
        if (right < heap.length && before(scores, heap[worst]!, heap[right]!)) worst = right;
        if (worst === parent) break;
        [heap[parent], heap[worst]] = [heap[worst]!, heap[parent]!];
        parent = worst;
      }
    }
  }
  return heap.sort((a, b) => (before(scores, a, b) ? -1 : 1));
}

let defaultIndex: SearchIndex | undefined;
const engineIndexes = new Map<string, SearchIndex>();

/**
 * The catalog's index (each built once). With an engine, only the rows that engine serves are in
 * it, with that engine's words, so a search never returns a tool the connection lacks.
 */
export function catalogIndex(engine?: EngineView): SearchIndex {
  if (engine === undefined) {
    defaultIndex ??= new SearchIndex();
    return defaultIndex;
  }
  const key = `${engine.engine}|${[...engine.features].sort().join(',')}`;
  let index = engineIndexes.get(key);
  if (!index) {
    index = new SearchIndex(
      CATALOG_ROWS.filter((row) => isServedBy(engine, row.name)),
      DEFAULT_SCORER_PARAMETERS,
      engine.engine,
    );
    engineIndexes.set(key, index);
  }
  return index;
}

/** Searches the catalog's rows with the default parameters (on the engine's index, given one). */
export function searchCatalog(query: string, options?: SearchOptions): ToolMatch[] {
  return catalogIndex(options?.engine).search(query, options);
}
