// Near-miss names for error messages ("Did you mean 'orders'?"), whatever the engine.

/** Levenshtein distance: the one edit distance of the project (callers fold case first). */
export function editDistance(a: string, b: string): number {
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

/** The words of a name, lower case: 'listTables' → list, tables; 'order_items' → order, items. */
function wordsOf(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
}

/**
 * The known names nearest to `wanted`, at most `limit`, for every "did you mean" in the project
 * (tables, columns, tools, commands, rows' fields): a name containing it (or contained in it)
 * first, then the fewest edits, then the most words shared; ties alphabetical. Only near ones:
 * contained, sharing a word, or within max(2, a third of the name's length) edits.
 */
export function nearestNames(wanted: string, known: Iterable<string>, limit = 3): string[] {
  const target = wanted.toLowerCase();
  const words = new Set(wordsOf(wanted));
  return [...new Set(known)]
    .map((name) => {
      const lower = name.toLowerCase();
      return {
        name,
        contains: target.length > 0 && (lower.includes(target) || target.includes(lower)),
        shared: wordsOf(name).filter((word) => words.has(word)).length,
        distance: editDistance(target, lower),
      };
    })
    .filter(
      ({ name, contains, shared, distance }) =>
        contains || shared > 0 || distance <= Math.max(2, Math.floor(name.length / 3)),
    )
    .sort(
      (a, b) =>
        Number(b.contains) - Number(a.contains) ||
        a.distance - b.distance ||
        b.shared - a.shared ||
        a.name.localeCompare(b.name),
    )
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
