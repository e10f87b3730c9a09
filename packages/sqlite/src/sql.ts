// Quoting for SQLite: identifiers in double quotes (a quote inside doubled), never values (those are parameters).

export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** A JSON path to one member, for json_extract: `$."name"`. */
export function memberPath(name: string): string {
  return `$."${name.replaceAll('"', '\\"')}"`;
}
