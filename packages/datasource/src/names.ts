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

/**
 * "Did you mean 'orders'?" for a database error about a name it does not know (PostgreSQL's
 * `relation "order" does not exist`, `column "totl" does not exist`, `column o.totl does not
 * exist`), from the tables the schema cache holds; '' for any other error or when nothing is close.
 */
export function unknownNameHint(
  message: string,
  tables: readonly { schema: string; name: string; columns: readonly { name: string }[] }[],
): string {
  if (/Perhaps you meant/i.test(message)) return ''; // PostgreSQL's own hint already names it
  const relation = /relation "([^"]+)" does not exist/.exec(message);
  if (relation) {
    const wanted = relation[1]!.split('.').pop()!;
    return didYouMean(nearestNames(wanted, [...new Set(tables.map((table) => table.name))], 2));
  }
  const column = /column (?:"([^"]+)"|([\w$]+(?:\.[\w$]+)*)) does not exist/.exec(message);
  if (column) {
    const wanted = (column[1] ?? column[2]!).split('.').pop()!;
    const names = [...new Set(tables.flatMap((table) => table.columns.map((each) => each.name)))];
    return didYouMean(nearestNames(wanted, names, 2));
  }
  return '';
}
