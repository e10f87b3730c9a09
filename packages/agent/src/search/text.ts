// Tokenizing and light stemming shared by the scorer and the nearest-name suggestions.

/** Words that carry no meaning about which tool is wanted ("export this as CSV" → export, csv). */
const STOPWORDS: ReadonlySet<string> = new Set(
  (
    'a an the this that these those it its as to of for in on at by with from into and or but ' +
    'me my mine i we our us you your please can could would should will shall do does did be is are was were ' +
    'am been being have has had some any all each every one them they their there here than then so just ' +
    'want need like get give let make use using also now out up about via if not no nor only own same too very'
  ).split(' '),
);

/** Splits camelCase and PascalCase identifiers into words: "getExportStatus" → "get Export Status". */
export function splitCamel(text: string): string {
  return text.replace(/([a-z\d])([A-Z])/g, '$1 $2').replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2');
}

/**
 * A light suffix stripper so that inflections meet: export/exports/exporting/exported → export,
 * index/indexes → index, query/queries → query. Applied to both the query and the catalog, so it
 * only has to be consistent, not linguistically right.
 */
export function stem(word: string): string {
  if (word.length <= 3) return word;
  let stemmed = word;
  if (/(?:ies|ied)$/.test(stemmed)) stemmed = `${stemmed.slice(0, -3)}y`;
  else if (stemmed.endsWith('ing') && stemmed.length > 5) stemmed = undouble(stemmed.slice(0, -3));
  else if (stemmed.endsWith('ed') && stemmed.length > 4) stemmed = undouble(stemmed.slice(0, -2));
  else if (/(?:ss|x|z|ch|sh)es$/.test(stemmed)) stemmed = stemmed.slice(0, -2);
  else if (stemmed.endsWith('s') && !/(?:ss|us|is)$/.test(stemmed)) stemmed = stemmed.slice(0, -1);
  // A silent final e: stage/staged/staging and delete/deleted all meet.
  if (stemmed.length >= 4 && stemmed.endsWith('e')) stemmed = stemmed.slice(0, -1);
  return stemmed;
}

function undouble(word: string): string {
  return word.length > 3 && /([^aeiouls])\1$/.test(word) ? word.slice(0, -1) : word;
}

/** Lowercased, stemmed words of a text, camelCase split, without stopwords. */
export function terms(text: string): string[] {
  const words =
    splitCamel(text)
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? [];
  return words.filter((word) => !STOPWORDS.has(word)).map(stem);
}
