// Tokenizing for tool search, the same at generation time (the catalog's search terms) and at query
// time (searchTools): every script the rows carry words in. Words of scripts written with spaces
// (Latin, Cyrillic, Arabic, Devanagari …) are lowercased, folded (accents, Arabic letter forms) and
// lightly stemmed; scripts written without spaces between words (Chinese, Japanese, Korean, Thai,
// Lao, Khmer, Myanmar) become character bigrams (a one-character run stays a unigram), so
// "把结果导出为JSON" meets the keyword "导出". Full-width forms fold to their ASCII letters first
// (ＣＳＶ → csv).

/** Words that carry no meaning about which tool is wanted, in the languages the rows carry. */
const STOPWORDS: ReadonlySet<string> = new Set(
  [
    // English
    'a an the this that these those it its as to of for in on at by with from into and or but',
    'me my mine i we our us you your please can could would should will shall do does did be is are was were',
    'am been being have has had some any all each every one them they their there here than then so just',
    'want need like get give let make use using also now out up about via if not no nor only own same too very',
    // Spanish, Portuguese, French, German: articles, prepositions, pronouns
    'el la los las un una unos unas de del al en y o que por para con como mi mis su sus es son esta este estos',
    'o os as um uma uns umas do da dos das no na nos nas em e ou que por para com como meu minha meus minhas',
    'le les une des du au aux et ou que qui pour par avec comme mon ma mes son sa ses est sont ce cette ces',
    'der die das den dem des ein eine einen einem einer und oder von zu mit fur im ist sind mein meine wie',
    // Italian, Dutch, Polish, Turkish, Indonesian, Vietnamese (folded, as the tokenizer sees them)
    'il lo gli di da con su tra questo questa questi queste mio mia miei mie nel nella negli delle dei della',
    'het een van op voor en dat deze dit mijn naar zijn er bij ook',
    'w z do od dla te ten ta moje moj jest sa ze',
    'bu su ve icin bir mi ne',
    'di ke dari yang dan ini itu untuk dengan saya semua',
    'cac nay trong cua cho va la toi nhung voi mot',
    // Russian, Ukrainian, Arabic, Hindi (folded: е for ё, bare alef, ي for ى, ه for ة)
    'в во на и с со по из к у о об эти этот эта это все мои мой мне для как что же ли',
    'ці цей ця це всі мої мій мені для як що та і й',
    'في من على الى هذا هذه هذي ذلك و او مع عن كل',
    'का की के में से को है हैं और यह ये मेरे मेरी मेरा इस इन',
  ]
    .join(' ')
    .split(' '),
);

/** Splits camelCase and PascalCase identifiers into words: "getExportStatus" → "get Export Status". */
export function splitCamel(text: string): string {
  if (!UPPER.test(text)) return text;
  return text
    .replace(/\b([A-Z]{2,})s\b/g, '$1') // an acronym's plural is the acronym: GSIs, IDs, URLs
    .replace(/([a-z\d])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2');
}

/**
 * A light suffix stripper so that inflections meet: export/exports/exporting/exported → export,
 * index/indexes → index, query/queries → query, строки/строка → строк. Applied to both the query
 * and the catalog, so it only has to be consistent, not linguistically right.
 */
export function stem(word: string): string {
  if (word.length <= 3) return word;
  const known = STEMS.get(word);
  if (known !== undefined) return known;
  const stemmed = stemOnce(word);
  // The words people search with repeat; a bounded memo spares the suffix rules.
  if (STEMS.size >= 50_000) STEMS.clear();
  STEMS.set(word, stemmed);
  return stemmed;
}

const STEMS = new Map<string, string>();
const UPPER = /[A-Z]/;
const CYRILLIC = /^[\u0400-\u04ff]+$/;
const ARABIC = /^[\u0600-\u06ff]+$/;
const DEVANAGARI = /^[\u0900-\u097f]+$/;

/** Longest first: one of these goes, leaving a stem of three letters or more. */
const CYRILLIC_ENDINGS = [
  'ировать',
  'ируйте',
  'ирует',
  'овать',
  'уйте',
  'ения',
  'ение',
  'ання',
  'ення',
  'иями',
  'ями',
  'ами',
  'ого',
  'его',
  'ому',
  'ему',
  'ыми',
  'ими',
  'ать',
  'ять',
  'ить',
  'еть',
  'ати',
  'ити',
  'яти',
  'ьте',
  'йте',
  'ите',
  'ете',
  'ешь',
  'ишь',
  'ют',
  'ут',
  'ят',
  'ат',
  'ет',
  'ит',
  'ов',
  'ев',
  'ів',
  'ей',
  'ой',
  'ий',
  'ый',
  'ая',
  'яя',
  'ое',
  'ее',
  'ые',
  'ие',
  'ых',
  'их',
  'ым',
  'им',
  'ом',
  'ем',
  'ам',
  'ям',
  'ах',
  'ях',
  'ую',
  'юю',
  'ою',
  'ею',
  'ть',
  'ти',
  'а',
  'я',
  'о',
  'е',
  'ы',
  'и',
  'у',
  'ю',
  'ь',
  'й',
  'і',
  'ї',
  'є',
];
const ARABIC_PREFIXES = ['وال', 'بال', 'كال', 'فال', 'لل', 'ال'];
const ARABIC_SUFFIXES = ['ها', 'ان', 'ات', 'ون', 'ين', 'يه', 'ه', 'ي'];
const DEVANAGARI_ENDINGS = [
  'ियाँ',
  'ियां',
  'ियों',
  'ाएँ',
  'ाएं',
  'ाओं',
  'ाना',
  'ाने',
  'ाओ',
  'ों',
  'ें',
  'ाँ',
  'ां',
  'ी',
  'ा',
  'े',
  'ि',
  'ो',
  'ु',
  'ू',
];

function stripEnding(word: string, endings: readonly string[], keep: number): string {
  for (const ending of endings)
    if (word.endsWith(ending) && word.length - ending.length >= keep) return word.slice(0, -ending.length);
  return word;
}

function stemOnce(word: string): string {
  if (CYRILLIC.test(word)) {
    const stemmed = stripEnding(word.replace(/(?:ся|сь)$/, ''), CYRILLIC_ENDINGS, 3);
    return stemmed.replace(/[ьй]$/, '');
  }
  if (ARABIC.test(word)) {
    let stemmed = word;
    for (const prefix of ARABIC_PREFIXES)
      if (stemmed.startsWith(prefix) && stemmed.length - prefix.length >= 3) {
        stemmed = stemmed.slice(prefix.length);
        break;
      }
    return stripEnding(stemmed, ARABIC_SUFFIXES, 3);
  }
  if (DEVANAGARI.test(word)) return stripEnding(word, DEVANAGARI_ENDINGS, 2);
  let stemmed = word;
  if (/(?:ies|ied)$/.test(stemmed)) stemmed = `${stemmed.slice(0, -3)}y`;
  else if (stemmed.endsWith('ing') && stemmed.length > 5) stemmed = undouble(stemmed.slice(0, -3));
  else if (stemmed.endsWith('ed') && stemmed.length > 4) stemmed = undouble(stemmed.slice(0, -2));
  else if (/(?:ss|x|z|ch|sh)es$/.test(stemmed)) stemmed = stemmed.slice(0, -2);
  else if (stemmed.endsWith('s') && !/(?:ss|us|is)$/.test(stemmed)) stemmed = stemmed.slice(0, -1);
  // German inflections of long words: gespeicherten / gespeicherte, Tabellen / Tabelle.
  else if (stemmed.length >= 8 && stemmed.endsWith('en')) stemmed = stemmed.slice(0, -1);
  // A silent final e: stage/staged/staging and delete/deleted all meet.
  if (stemmed.length >= 4 && stemmed.endsWith('e')) stemmed = stemmed.slice(0, -1);
  // Other final vowels of longer words, where Italian, Polish and Portuguese inflect:
  // tabella/tabelle, wiersze/wierszy, linha/linhas.
  else if (stemmed.length >= 5 && /[aiouy]$/.test(stemmed)) stemmed = stemmed.slice(0, -1);
  return stemmed;
}

function undouble(word: string): string {
  return word.length > 3 && /([^aeiouls])\1$/.test(word) ? word.slice(0, -1) : word;
}

/** Nothing outside ASCII (no accent, full-width form or CJK): lowercasing is all it needs. */
const ASCII = /^[ -~\t\n\r]*$/;
const ASCII_RUNS = /[a-z0-9]+/g;
const DIGIT = /\d/;
const LETTERS = /^[a-z]+$/;

/**
 * Han, kana, Hangul, Thai, Lao, Khmer and Myanmar: scripts tokenized as character bigrams (all but
 * Hangul are written without spaces between words; Hangul's words inflect inside the word).
 */
const CJK_CLASS =
  '\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}\\p{Script=Hangul}\\p{Script=Thai}\\p{Script=Lao}\\p{Script=Khmer}\\p{Script=Myanmar}ー々〆';
const CJK = new RegExp(`[${CJK_CLASS}]`, 'u');
/**
 * A run of CJK characters, or a run of other letters, their marks (Devanagari's vowel signs) and
 * digits ("csvでエクスポート" is two runs).
 */
const RUNS = new RegExp(`[${CJK_CLASS}]+|(?:(?![${CJK_CLASS}])[\\p{L}\\p{M}\\p{N}])+`, 'gu');

/**
 * Full-width forms to ASCII (NFKC), lowercase, and the accents of Latin letters folded: "Exportación"
 * and "exportacion" are one word. Only Latin letters lose their marks: kana and Hangul keep theirs
 * (が is not か).
 */
export function foldText(text: string): string {
  // Most queries are plain ASCII: lowercasing is all they need.
  if (ASCII.test(text)) return text.toLowerCase();
  return text.normalize('NFKC').toLowerCase().replace(FOLDED, foldLetter);
}

/** Every character foldText changes, in one class so a text is scanned once. */
const FOLDED = /[\u0307\u064b-\u0652\u0670\u0640\u00c0-\u024f\u1e00-\u1effёأإآىة]/g;

function foldLetter(letter: string): string {
  const folded = LETTER_FOLDS[letter];
  if (folded !== undefined) return folded;
  // A Latin letter (U+00C0–U+024F, U+1E00–U+1EFF) loses its marks (é → e); a mark of its own
  // (İ's dot, Arabic vowels) and the tatweel are dropped.
  return letter <= '\u024f' || letter >= '\u1e00' ? letter.normalize('NFD').replace(MARKS, '') : '';
}

const MARKS = /\p{M}/gu;

/**
 * Letters that keep their own form under NFD, folded as people type them without the mark (a
 * Turkish ı, a Polish ł). Vietnamese đ stays: folded, đếm (count) would be the German article
 * "dem", a stopword. Arabic: the hamza forms of alef, alef maqsura and ta marbuta as their bare
 * letters.
 */
const LETTER_FOLDS: Readonly<Record<string, string>> = {
  ß: 'ss',
  æ: 'ae',
  œ: 'oe',
  ı: 'i',
  ł: 'l',
  ø: 'o',
  ё: 'е',
  أ: 'ا',
  إ: 'ا',
  آ: 'ا',
  ى: 'ي',
  ة: 'ه',
};

/** Whether a term is a CJK bigram or unigram (not fuzzy-matched, not stemmed). */
export function isCjkTerm(term: string): boolean {
  return CJK.test(term);
}

/**
 * Search terms of a text: Latin-script words lowercased, accent-folded, stemmed and without
 * stopwords (camelCase split first); runs of CJK characters as their bigrams, in order.
 */
export function terms(text: string): string[] {
  return termsWithWords(text).map(([term]) => term);
}

/** Each term with the word it came from (a CJK bigram: its run), for rules on the word as typed. */
export function termsWithWords(text: string): [term: string, word: string][] {
  const out: [string, string][] = [];
  for (const run of foldText(splitCamel(text)).match(RUNS) ?? []) {
    if (CJK.test(run[0]!)) {
      const characters = [...run];
      if (characters.length === 1) out.push([run, run]);
      else
        for (let at = 0; at + 1 < characters.length; at++)
          out.push([characters[at]! + characters[at + 1]!, run]);
    } else if (!STOPWORDS.has(run) && (run.length > 1 || /\d/.test(run))) out.push([stem(run), run]);
  }
  return out;
}

/**
 * A verb's terms: as `terms`, but each word as typed (folded, not stemmed), so the verb "change"
 * meets "change the price" and not the noun in "what changes are staged".
 */
export function verbTerms(text: string): string[] {
  return termsWithWords(text).map(([term, word]) => (CJK.test(word[0]!) ? term : word));
}

/**
 * A search query in one pass: its terms in order (for phrases), the same unstemmed (for verbs),
 * the CJK unigrams of its longer runs (for one-character keywords), and the terms of words long
 * enough to match at one edit.
 */
export function queryTerms(text: string): {
  ordered: string[];
  plain: string[];
  unigrams: string[];
  fuzzy: Set<string>;
} {
  const ordered: string[] = [];
  const plain: string[] = [];
  const unigrams: string[] = [];
  const fuzzy = new Set<string>();
  if (ASCII.test(text)) {
    // Plain ASCII (most queries): no accent, no CJK, so the Latin rules alone, on a cheaper split.
    for (const run of splitCamel(text).toLowerCase().match(ASCII_RUNS) ?? []) {
      if (STOPWORDS.has(run) || (run.length === 1 && !DIGIT.test(run))) continue;
      const term = stem(run);
      ordered.push(term);
      plain.push(run);
      if (run.length >= FUZZY_MIN_LENGTH && LETTERS.test(term)) fuzzy.add(term);
    }
    return { ordered, plain, unigrams, fuzzy };
  }
  for (const run of foldText(splitCamel(text)).match(RUNS) ?? []) {
    if (CJK.test(run[0]!)) {
      const characters = [...run];
      if (characters.length === 1) {
        ordered.push(run);
        plain.push(run);
      } else {
        for (let at = 0; at + 1 < characters.length; at++) {
          const bigram = characters[at]! + characters[at + 1]!;
          ordered.push(bigram);
          plain.push(bigram);
        }
        unigrams.push(...characters);
      }
    } else if (!STOPWORDS.has(run) && (run.length > 1 || /\d/.test(run))) {
      const term = stem(run);
      ordered.push(term);
      plain.push(run);
      if (isFuzzyCandidate(run) && isWordTerm(term)) fuzzy.add(term);
    }
  }
  return { ordered, plain, unigrams, fuzzy };
}

/**
 * The CJK unigrams of a text that are not already covered as bigrams: what a query adds so that a
 * one-character keyword (表, 行) still meets a longer run around it.
 */
export function cjkUnigrams(text: string): string[] {
  const out: string[] = [];
  for (const run of foldText(text).match(RUNS) ?? []) {
    const characters = [...run];
    if (CJK.test(run[0]!) && characters.length > 1) out.push(...characters);
  }
  return out;
}

/**
 * Whether two words are at most one edit apart: an insertion, a deletion, a substitution, or two
 * adjacent letters swapped (optimal string alignment distance ≤ 1).
 */
export function withinOneEdit(a: string, b: string): boolean {
  if (a === b) return true;
  const lengthDifference = a.length - b.length;
  if (lengthDifference > 1 || lengthDifference < -1) return false;
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const restA = endA - start;
  const restB = endB - start;
  if (restA <= 1 && restB <= 1) return true;
  // Two adjacent letters swapped: "expalin" / "explain".
  return restA === 2 && restB === 2 && a[start] === b[start + 1] && a[start + 1] === b[start];
}

/** The words of one edit away from `word` by one deletion: what a typo and the right word share. */
export function deletions(word: string): string[] {
  const out = new Set<string>();
  for (let at = 0; at < word.length; at++) out.add(word.slice(0, at) + word.slice(at + 1));
  return [...out];
}

/** Typos are matched only on words this long or longer: short words are too close to each other. */
export const FUZZY_MIN_LENGTH = 5;

/** A word of a script written with spaces, letters only (no digit, no CJK): typos and inflections apply. */
export function isWordTerm(term: string): boolean {
  return WORD_LETTERS.test(term) && !CJK.test(term);
}

const WORD_LETTERS = /^[\p{L}\p{M}]+$/u;

/** Whether a query word may match a row's at one edit: a word of five letters or more as typed. */
export function isFuzzyCandidate(word: string): boolean {
  return word.length >= FUZZY_MIN_LENGTH && isWordTerm(word);
}

/** What search reads of a row: the declaration's fields, whichever package holds the row. */
export interface SearchableRow {
  readonly name: string;
  readonly description: string;
  readonly keywords: readonly string[];
  readonly words?: Readonly<Record<string, readonly string[] | undefined>>;
  readonly engineWords?: Readonly<Record<string, readonly string[] | undefined>>;
  readonly verbs?: readonly string[];
}

/** A row's search fields as terms: each keyword (and word) its own list, so phrases stay whole. */
export interface SearchFields {
  name: string[];
  /** Keywords, words and verbs: every one the row is found by. */
  keywords: string[][];
  description: string[];
  /** The row's verbs, each as terms: a request that says one weighs this row above its nouns. */
  verbs: string[][];
}

/**
 * The terms search indexes for a row: its name, its keywords with its words in every language, its
 * description. `engine` adds that engine's words; without one, every engine's.
 */
export function searchFieldsOf(row: SearchableRow, engine?: string): SearchFields {
  const engineWords = Object.entries(row.engineWords ?? {})
    .filter(([name]) => engine === undefined || name === engine)
    .flatMap(([, words]) => words ?? []);
  const keywords = [
    ...row.keywords,
    ...Object.values(row.words ?? {}).flatMap((words) => words ?? []),
    ...(row.verbs ?? []),
    ...engineWords,
  ];
  return {
    name: terms(row.name),
    keywords: keywords.map((keyword) => terms(keyword)).filter((list) => list.length > 0),
    description: terms(row.description),
    verbs: (row.verbs ?? []).map((verb) => verbTerms(verb)).filter((list) => list.length > 0),
  };
}

/** A row's search terms as generated (packages/catalog/src/generated/search-terms.ts). */
export interface RowSearchTerms {
  readonly name: readonly string[];
  /** Its keywords and its words in every language, each as terms. */
  readonly keywords: readonly (readonly string[])[];
  readonly description: readonly string[];
  /** Its verbs, as terms (also among its keywords). */
  readonly verbs: readonly (readonly string[])[];
  /** Each engine's words, as terms: searched on a connection of that engine only. */
  readonly engineKeywords: Readonly<Record<string, readonly (readonly string[])[]>>;
}

/** The generated terms of a row, for one engine (every engine's words without one). */
export function fieldsFromTerms(generated: RowSearchTerms, engine?: string): SearchFields {
  const engineKeywords = Object.entries(generated.engineKeywords)
    .filter(([name]) => engine === undefined || name === engine)
    .flatMap(([, lists]) => lists);
  return {
    name: [...generated.name],
    keywords: [...generated.keywords, ...engineKeywords].map((list) => [...list]),
    description: [...generated.description],
    verbs: generated.verbs.map((list) => [...list]),
  };
}

/** What the generator writes for a row: its terms with the engine words kept apart. */
export function rowSearchTerms(row: SearchableRow): RowSearchTerms {
  const base = searchFieldsOf({ ...row, engineWords: {} });
  const engineKeywords: Record<string, string[][]> = {};
  for (const [engine, words] of Object.entries(row.engineWords ?? {}))
    engineKeywords[engine] = termLists(words ?? []);
  return { ...base, engineKeywords };
}

function termLists(words: readonly string[]): string[][] {
  return words.map((word) => terms(word)).filter((list) => list.length > 0);
}
