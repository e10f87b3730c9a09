// A synthetic catalog of any size for the search benchmark: variants of the real rows, with the
// real vocabulary, so term frequencies and posting lengths look like a large catalog of the same
// kind of tools rather than random noise. Deterministic (seeded), so runs compare.
import { CATALOG_ROWS, type CatalogRow, isLoop, type ToolName } from '@toolrow/catalog';

/** A small seeded PRNG (mulberry32): the same catalog every run. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * `count` rows: the real ones first (so every real query still has its answer), then variants,
 * each a real row with a numbered name, some of its keywords, a few keywords from other rows and
 * its description with some words swapped for words of other rows.
 */
export function syntheticRows(count: number, seed = 11): CatalogRow[] {
  const next = random(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  const real = CATALOG_ROWS.filter((row) => !isLoop(row.name));
  const keywords = real.flatMap((row) => row.keywords);
  const words = real.flatMap((row) => row.description.split(/\s+/));
  const rows: CatalogRow[] = real.slice(0, count);
  for (let i = rows.length; i < count; i++) {
    const base = real[i % real.length]!;
    const own = base.keywords.filter(() => next() < 0.6);
    const borrowed = Array.from({ length: Math.floor(next() * 4) }, () => pick(keywords));
    const description = base.description
      .split(/\s+/)
      .map((word) => (next() < 0.25 ? pick(words) : word))
      .join(' ');
    rows.push({
      ...base,
      // Not a tool name, so never a propose row or the loop tool: plain rows to rank.
      name: `${base.name}V${i}` as ToolName,
      keywords: [...own, ...borrowed],
      description,
    });
  }
  return rows;
}
