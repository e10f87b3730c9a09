/** Quotes an identifier for Postgres: always double-quoted, embedded quotes doubled. */
export function quoteIdent(name: string): string {
  if (name.length === 0) throw new Error('an SQL identifier cannot be empty');
  if (name.includes('\u0000')) throw new Error('an SQL identifier cannot contain a NUL character');
  return `"${name.replaceAll('"', '""')}"`;
}

/** "schema"."table", both parts quoted. */
export function quoteQualified(schema: string, name: string): string {
  return `${quoteIdent(schema)}.${quoteIdent(name)}`;
}

/**
 * Quotes a string literal (for the few places that cannot take a parameter, like SET). A value
 * with a backslash becomes an E'' string, which reads the same whatever standard_conforming_strings
 * the server has.
 */
export function quoteLiteral(value: string): string {
  if (value.includes('\u0000')) throw new Error('an SQL string cannot contain a NUL character');
  const body = value.replaceAll("'", "''");
  return value.includes('\\') ? `E'${body.replaceAll('\\', '\\\\')}'` : `'${body}'`;
}
