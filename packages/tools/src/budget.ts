// Every tool result fits one token budget, so a model with a small window survives any call on
// any schema. Lists are paged or narrowed to fit, never cut silently: what is left out is named,
// with the call that gets it.

/** Tokens one tool result may take (o200k, as `toolrow catalog --cost` counts definitions). */
export const RESULT_TOKEN_BUDGET = 4000;

// Pieces o200k never merges across: a run of letters (long runs split about every 6), a group of
// up to 3 digits, one other symbol. Counting them over-estimates o200k on JSON (quotes, colons
// and braces often share a token), which is the safe side of a budget; large-schema.test.ts checks it
// against the real tokenizer on the results that matter.
const PIECE = /[A-Za-z]{1,6}|\d{1,3}|[^\sA-Za-z\d]|\s+/gu;

/** An upper estimate of the o200k tokens of a text, cheap enough to run on every result. */
export function estimateTokens(text: string): number {
  let count = 0;
  PIECE.lastIndex = 0;
  while (PIECE.exec(text) !== null) count += 1;
  return count;
}

/** The estimate for a value as the model receives it (compact JSON). */
export function tokensOf(value: unknown): number {
  return estimateTokens(JSON.stringify(value) ?? '');
}

/**
 * Splits items into pages whose rendered items take at most `budget` tokens each (an item alone
 * over the budget gets a page of its own). Pages are stable for the same items.
 */
export function pagesOf<T>(items: readonly T[], budget: number, size: (item: T) => number): T[][] {
  const pages: T[][] = [];
  let current: T[] = [];
  let used = 0;
  for (const item of items) {
    const cost = size(item) + 1;
    if (current.length > 0 && used + cost > budget) {
      pages.push(current);
      current = [];
      used = 0;
    }
    current.push(item);
    used += cost;
  }
  if (current.length > 0 || pages.length === 0) pages.push(current);
  return pages;
}

/** "1–150" for a 1-based range. */
export function range(first: number, count: number): string {
  return count <= 1 ? String(first) : `${first}–${first + count - 1}`;
}

export interface FittedRows {
  rows: Record<string, unknown>[];
  /** Columns left out (in result order), when even a few rows of every column would not fit. */
  droppedColumns: string[];
  /** Rows left out from the end. */
  droppedRows: number;
}

/** How many leading items fit `budget` (the cost of `count` items, rising with count). */
function largestFitting(upTo: number, budget: number, cost: (count: number) => number): number {
  let low = 0;
  let high = upTo;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (cost(middle) <= budget) low = middle;
    else high = middle - 1;
  }
  return low;
}

/**
 * Rows of a result within `budget` tokens: whole rows while at least `minRows` of them fit (rows
 * dropped from the end); past that (a wide result) the leading columns that let `minRows` rows fit,
 * then as many rows of those as fit.
 */
export function fitRows(
  columns: readonly string[],
  rows: readonly Record<string, unknown>[],
  budget: number,
  minRows = 10,
): FittedRows {
  const costs = rows.map((row) => tokensOf(row) + 1);
  const prefix = [0];
  for (const cost of costs) prefix.push(prefix.at(-1)! + cost);
  const whole = largestFitting(rows.length, budget, (count) => prefix[count]!);
  if (whole === rows.length || whole >= Math.min(minRows, rows.length)) {
    return { rows: rows.slice(0, whole), droppedColumns: [], droppedRows: rows.length - whole };
  }
  const wanted = Math.min(minRows, rows.length);
  const project = (row: Record<string, unknown>, count: number) =>
    Object.fromEntries(columns.slice(0, count).map((name) => [name, row[name]]));
  const kept = largestFitting(columns.length, budget, (count) =>
    tokensOf(rows.slice(0, wanted).map((row) => project(row, count))),
  );
  const narrowed = rows.map((row) => project(row, kept));
  const narrowCosts = narrowed.map((row) => tokensOf(row) + 1);
  let used = 0;
  let count = 0;
  while (count < narrowed.length && used + narrowCosts[count]! <= budget) used += narrowCosts[count++]!;
  return {
    rows: narrowed.slice(0, count),
    droppedColumns: columns.slice(kept),
    droppedRows: rows.length - count,
  };
}
