// What a request asks for beyond its words: a question about an act ("is my export done", "what
// will my updates change") wants the rows that report on the act — its status, its list, its
// diff — not the act again; an act with an object and a value ("set stock to 0 for product 17")
// is the act. Which rows act and which report on them comes from the rows themselves: an act
// writes (staging or files, or proposes a row that does), a report writes nothing and needs the
// same engine feature as the act it reports on.
import type { CatalogRow } from '@toolrow/catalog';
import { isCjkTerm } from '@toolrow/catalog/search';

export interface RequestIntent {
  /** A question about how something stands, not a request to do it. */
  question: boolean;
  /** The request carries a value (a number, quoted text, "to …"): what an act sets. */
  valued: boolean;
}

/**
 * Words a question about a state opens with, per language (first word, case folded). Openers
 * that ask for an act ("can", "could", "please", "how do I") are not here, or are undone below.
 */
const QUESTION_OPENERS = new Set([
  // en
  'is',
  'are',
  'was',
  'were',
  'has',
  'have',
  'had',
  'did',
  'does',
  'what',
  "what's",
  'whats',
  'which',
  'when',
  'where',
  "where's",
  'whether',
  'why',
  'who',
  'how',
  "how's",
  'any',
  'status',
  // es, pt
  'está',
  'están',
  'esta',
  'ya',
  'cómo',
  'qué',
  'cuál',
  'cuáles',
  'cuándo',
  'dónde',
  'já',
  'qual',
  'quais',
  'quando',
  'onde',
  'como',
  // fr, it
  'est-ce',
  'est-il',
  'est-elle',
  'quel',
  'quelle',
  'quels',
  'quand',
  'où',
  'comment',
  'è',
  'sono',
  'quale',
  'dove',
  'come',
  // de, nl
  'ist',
  'sind',
  'hat',
  'haben',
  'wurde',
  'wie',
  'was',
  'welche',
  'welcher',
  'wann',
  'wo',
  'hoe',
  'wat',
  'welke',
  'wanneer',
  'waar',
  'zijn',
  'heeft',
  // ru, uk, pl
  'как',
  'что',
  'какие',
  'когда',
  'где',
  'ли',
  'уже',
  'готов',
  'готово',
  'як',
  'що',
  'які',
  'коли',
  'де',
  'чи',
  'вже',
  'jak',
  'co',
  'które',
  'który',
  'kiedy',
  'gdzie',
  'czy',
  // tr, id, vi
  'nasıl',
  'hangi',
  'ne',
  'bagaimana',
  'apa',
  'apakah',
  'kapan',
  'sudah',
  'đã',
  'bao',
  // ar, hi
  'هل',
  'كيف',
  'ما',
  'متى',
  'أين',
  'क्या',
  'कैसे',
  'कब',
  'कहाँ',
]);

/** Question particles of scripts without spaces (anywhere, or at the end). */
const QUESTION_PARTICLES = [
  '吗',
  '嗎',
  '了没',
  '沒有',
  '是否',
  'ですか',
  'ましたか',
  'か？',
  '나요',
  '습니까',
  '했어',
  'หรือยัง',
  'ไหม',
  'chưa',
];

/** A question opener followed by these asks how to do something: a request for the act. */
const HOW_TO = new Set([
  'do',
  'can',
  'could',
  'should',
  'would',
  'to',
  'i',
  'we',
  'kann',
  'puedo',
  'peux',
  'posso',
]);

const QUESTION_MARK = /[?？؟]\s*$/;
// A number, quoted text, or "to <something>" / "= <something>": the value an act sets.
const VALUE = /\d|["'“”«»„「『].+["'“”«»」』]|\b(?:to|auf|à|a|na|в|на|op|para)\s+\S|=\s*\S/iu;

/** What `query` asks for, from its shape alone (its words are the scorer's). */
export function intentOf(query: string): RequestIntent {
  const text = query.trim().toLowerCase().replace(/^[¿¡]/, '');
  const words = text.split(/\s+/).filter(Boolean);
  const [first, second] = words;
  const opener = first !== undefined && QUESTION_OPENERS.has(first) && !(second && HOW_TO.has(second));
  const question =
    opener ||
    (QUESTION_MARK.test(text) && !(first && HOW_TO.has(first))) ||
    QUESTION_PARTICLES.some((particle) => text.includes(particle));
  return { question, valued: VALUE.test(text) };
}

/** How a row stands to the acts of the catalog: an act, a report on acts, or neither. */
export interface IntentRole {
  act: boolean;
  /** The engine features a report shares with the acts it reports on. */
  reports: readonly string[];
  needs: readonly string[];
}

/** Each row's role, from what it writes and needs (a propose row acts as its twin does). */
export function intentRoles(
  rows: readonly CatalogRow[],
  twinOf: (name: string) => string | undefined,
): IntentRole[] {
  const byName = new Map(rows.map((row) => [row.name, row]));
  const writes = (row: CatalogRow | undefined) => row?.writes === 'staging' || row?.writes === 'files';
  return rows.map((row) => {
    const twin = twinOf(row.name);
    const act = writes(row) || (twin !== undefined && writes(byName.get(twin as CatalogRow['name'])));
    const needs = row.needs ?? [];
    return { act, needs, reports: !act && row.writes === 'none' ? needs : [] };
  });
}

export interface IntentParameters {
  /** A question keeps this share of an act's score… */
  questionShare: number;
  /** …and the reports on it gain this share of the act's full score. */
  questionCarry: number;
  /** An act whose verb the request says, with a value to set, gains this. */
  valueBonus: number;
  /** An act whose verb opens the request (the imperative: "change the price") gains this. */
  imperativeBonus: number;
}

export const DEFAULT_INTENT_PARAMETERS: IntentParameters = {
  questionShare: 0.5,
  questionCarry: 0.6,
  valueBonus: 3,
  imperativeBonus: 3,
};

/** Where the request says a row's verb: first (an imperative), elsewhere, or not at all. */
export type VerbPlace = 'first' | 'later' | undefined;

/** Where in `plain` (the query's terms in order) one of `verbs` (each its terms) stands. */
export function verbPlace(plain: readonly string[], verbs: readonly (readonly string[])[]): VerbPlace {
  let place: VerbPlace;
  for (const verb of verbs)
    for (let start = 0; start + verb.length <= plain.length; start++) {
      if (!verb.every((term, offset) => plain[start + offset] === term)) continue;
      // Chinese, Japanese and Korean say the verb where they please (the last, mostly): their first
      // word is no imperative, and 変更 opens "変更の差分を見せて" as a noun.
      if (start === 0 && !isCjkTerm(verb[0]!)) return 'first';
      place = 'later';
    }
  return place;
}

/**
 * Applies the request's intent to the scores of the rows it matched (`live`), in place, so the
 * index and the naive scorer give the same numbers. A report on a matched act gains even when
 * the request shares no word with it ("where is the csv I asked for" is the export's status):
 * `scores.set` on a row outside `live` adds it.
 */
export function applyIntent(
  intent: RequestIntent,
  live: readonly number[],
  scores: { get(document: number): number; set(document: number, score: number): void },
  roles: readonly IntentRole[],
  verbOf: (document: number) => VerbPlace,
  parameters: IntentParameters = DEFAULT_INTENT_PARAMETERS,
): void {
  if (intent.question) {
    const acts = live.filter((document) => roles[document]!.act);
    const carried = new Map<number, number>();
    for (const act of acts) {
      const score = scores.get(act);
      const needs = roles[act]!.needs;
      for (let report = 0; report < roles.length; report++) {
        const { reports } = roles[report]!;
        if (reports.length > 0 && reports.some((need) => needs.includes(need)))
          carried.set(report, Math.max(carried.get(report) ?? 0, score * parameters.questionCarry));
      }
      scores.set(act, score * parameters.questionShare);
    }
    for (const [report, gain] of carried) scores.set(report, scores.get(report) + gain);
    return;
  }
  for (const document of live) {
    if (!roles[document]!.act) continue;
    const place = verbOf(document);
    if (place === undefined) continue;
    const bonus =
      (place === 'first' ? parameters.imperativeBonus : 0) + (intent.valued ? parameters.valueBonus : 0);
    if (bonus > 0) scores.set(document, scores.get(document) + bonus);
  }
}
