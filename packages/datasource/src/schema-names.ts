import { UnknownNameError } from './errors.ts';
import { didYouMean, nearestNames } from './names.ts';
import type { ColumnInfo, SchemaSnapshot, TableInfo } from './schema-types.ts';

/** Splits "schema.table" / "\"My Schema\".\"My Table\"" into parts; quotes keep dots and case. */
export function splitQualifiedName(input: string): { parts: string[]; quoted: boolean[] } {
  const parts: string[] = [];
  const quoted: boolean[] = [];
  let current = '';
  let inQuotes = false;
  let wasQuoted = false;
  for (let index = 0; index < input.length; index++) {
    const char = input[index]!;
    if (inQuotes) {
      if (char === '"') {
        if (input[index + 1] === '"') {
          current += '"';
          index++;
        } else inQuotes = false;
      } else current += char;
    } else if (char === '"') {
      inQuotes = true;
      wasQuoted = true;
    } else if (char === '.') {
      parts.push(current);
      quoted.push(wasQuoted);
      current = '';
      wasQuoted = false;
    } else current += char;
  }
  parts.push(current);
  quoted.push(wasQuoted);
  return {
    parts: parts.map((part, index) => (quoted[index] ? part : part.trim())),
    quoted,
  };
}

function pick(candidates: TableInfo[], name: string, quoted: boolean, field: 'name' | 'schema'): TableInfo[] {
  const exact = candidates.filter((table) => table[field] === name);
  if (exact.length > 0 || quoted) return exact;
  return candidates.filter((table) => table[field].toLowerCase() === name.toLowerCase());
}

/** Finds a table in a snapshot by the name a person types; throws UnknownNameError with the nearest names. */
export function resolveTableIn(snapshot: SchemaSnapshot, input: string): TableInfo {
  const verbatim = snapshot.tables.filter((table) => table.qualifiedName === input || table.name === input);
  if (verbatim.length === 1) return verbatim[0]!;
  const { parts, quoted } = splitQualifiedName(input);
  let matches: TableInfo[] = [];
  if (parts.length === 1) {
    matches = pick(snapshot.tables, parts[0]!, quoted[0]!, 'name');
    if (matches.length > 1) {
      const inPublic = matches.filter((table) => table.schema === 'public');
      if (inPublic.length === 1) matches = inPublic;
    }
  } else if (parts.length === 2) {
    matches = pick(pick(snapshot.tables, parts[0]!, quoted[0]!, 'schema'), parts[1]!, quoted[1]!, 'name');
  }
  if (matches.length === 1) return matches[0]!;
  if (matches.length > 1) {
    throw new UnknownNameError(
      'unknown-table',
      input,
      matches.map((table) => table.qualifiedName),
      `Table name '${input}' is ambiguous: it matches ${matches.map((table) => `'${table.qualifiedName}'`).join(', ')}. Qualify it with the schema.`,
    );
  }
  const known = snapshot.tables.map((table) => table.qualifiedName);
  const shortNames = snapshot.tables.map((table) => table.name);
  const wanted = parts[parts.length - 1] ?? input;
  const suggestions = [
    ...new Set(
      nearestNames(wanted, shortNames).flatMap((name) =>
        snapshot.tables.filter((table) => table.name === name).map((table) => table.qualifiedName),
      ),
    ),
  ].slice(0, 3);
  const listing =
    known.length === 0
      ? ' There are no user tables yet (run `toolrow db seed` for a sample shop).'
      : suggestions.length === 0 && known.length <= 20
        ? ` Known tables: ${known.join(', ')}.`
        : '';
  throw new UnknownNameError(
    'unknown-table',
    input,
    suggestions,
    `Unknown table '${input}'.${didYouMean(suggestions)}${listing}`,
  );
}

/** Finds a column of a table (exact, then case-insensitive); throws UnknownNameError with the nearest columns. */
export function resolveColumnIn(table: TableInfo, input: string): ColumnInfo {
  // The name exactly as stored wins over any reading of dots, quotes or blanks in it.
  const verbatim = table.columns.find((column) => column.name === input);
  if (verbatim) return verbatim;
  const { parts, quoted } = splitQualifiedName(input);
  // Accept "orders.status" when it names this table.
  const name =
    parts.length === 2 && parts[0]!.toLowerCase() === table.name.toLowerCase() ? parts[1]! : input.trim();
  const exact = table.columns.find((column) => column.name === name);
  if (exact) return exact;
  if (!(parts.length === 1 && quoted[0])) {
    const folded = table.columns.filter((column) => column.name.toLowerCase() === name.toLowerCase());
    if (folded.length === 1) return folded[0]!;
  }
  const known = table.columns.map((column) => column.name);
  const suggestions = nearestNames(name, known);
  throw new UnknownNameError(
    'unknown-column',
    input,
    suggestions,
    `Unknown column '${input}' in table '${table.qualifiedName}'.${didYouMean(suggestions)} Its columns: ${known.join(', ')}.`,
  );
}
