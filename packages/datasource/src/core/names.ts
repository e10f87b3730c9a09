// Near-miss names for error messages ("Did you mean 'orders'?"), whatever the engine.

function distance(a: string, b: string): number {
  const previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = previous[0]!;
    previous[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = previous[j]!;
      previous[j] = Math.min(above + 1, previous[j - 1]! + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return previous[b.length]!;
}

/** The known names closest to `wanted` (edit distance, substring matches first), at most `limit`. */
export function nearestNames(wanted: string, known: readonly string[], limit = 3): string[] {
  const target = wanted.toLowerCase();
  return known
    .map((name) => {
      const lower = name.toLowerCase();
      const contains = lower.includes(target) || target.includes(lower);
      return { name, score: distance(target, lower) - (contains ? 100 : 0) };
    })
    .filter(({ name, score }) => score < 0 || score <= Math.max(2, Math.ceil(name.length / 2)))
    .sort((a, b) => a.score - b.score || a.name.localeCompare(b.name))
    .slice(0, limit)
    .map(({ name }) => name);
}

/** "Did you mean …?" text for an error, or '' when nothing is close. */
export function didYouMean(suggestions: readonly string[]): string {
  if (suggestions.length === 0) return '';
  return ` Did you mean ${suggestions.map((name) => `'${name}'`).join(' or ')}?`;
}
