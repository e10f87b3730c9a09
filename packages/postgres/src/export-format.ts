// What an export file holds, written by the database: each column becomes an SQL expression that
// gives the text Toolrow has always written for it (timestamps as JavaScript's ISO form, booleans
// as true/false, numerics as their exact text), so the rows never become JavaScript values. On
// PostgreSQL the result goes out through COPY; on PGlite each row comes back as one line of text.
// The transforms at the bottom turn the database's LF-terminated records into the file's layout.
// README "Export files" lists where the text differs from the exports before COPY.
import { quoteIdent } from './sql.ts';

/** A result column: its name, type OID and pg_type.typcategory ('A' for arrays). */
export interface ExportColumn {
  name: string;
  typeId: number;
  category: string;
}

const T = {
  bool: 16,
  bytea: 17,
  int8: 20,
  int2: 21,
  int4: 23,
  oid: 26,
  json: 114,
  json_array: 199,
  float4: 700,
  float8: 701,
  date: 1082,
  time: 1083,
  timestamp: 1114,
  timestamptz: 1184,
  interval: 1186,
  timetz: 1266,
  numeric: 1700,
  uuid: 2950,
  jsonb: 3802,
} as const;

/** Types whose text never holds a comma, quote, CR or LF: their CSV cells are never quoted. */
const PLAIN_TEXT = new Set<number>([
  T.bool,
  T.bytea,
  T.int8,
  T.int2,
  T.int4,
  T.oid,
  T.float4,
  T.float8,
  T.date,
  T.time,
  T.timestamp,
  T.timestamptz,
  T.timetz,
  T.numeric,
  T.uuid,
]);

// JavaScript's Date (what the driver made of a timestamp) holds years 1 to 9999 as Postgres
// writes them; the rest (infinity, BC, five-digit years) always stayed Postgres's text.
const ISO_MS = `'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`;

function timestampText(ref: string, zoned: boolean): string {
  const type = zoned ? 'timestamptz' : 'timestamp';
  const zone = zoned ? '+00' : '';
  const value = zoned ? `${ref} AT TIME ZONE 'UTC'` : ref;
  return `CASE WHEN ${ref} >= '0001-01-01 00:00:00${zone}'::${type} AND ${ref} < '10000-01-01 00:00:00${zone}'::${type} THEN to_char(${value}, ${ISO_MS}) ELSE ${ref}::text END`;
}

/** The column as the text of one CSV cell (NULL stays NULL). */
export function textCell(ref: string, column: ExportColumn): string {
  switch (column.typeId) {
    case T.timestamptz:
      return timestampText(ref, true);
    case T.timestamp:
      return timestampText(ref, false);
    case T.bytea:
      return `'\\x' || encode(${ref}, 'hex')`;
    default:
      // Arrays were JSON arrays (the driver parsed them); bool::text is true/false where COPY writes t/f.
      return column.category === 'A' ? `to_json(${ref})::text` : `${ref}::text`;
  }
}

const SAFE_INTEGER = 9_007_199_254_740_991;

/** The column as a value inside row_to_json: a JSON number, string, boolean, object or array. */
export function jsonCell(ref: string, column: ExportColumn): string {
  switch (column.typeId) {
    case T.timestamptz:
      return timestampText(ref, true);
    case T.timestamp:
      return timestampText(ref, false);
    case T.bytea:
      return `'\\x' || encode(${ref}, 'hex')`;
    case T.int8:
      // A number where JavaScript holds it exactly, else its digits as a string (as the driver read it).
      return `CASE WHEN ${ref} BETWEEN -${SAFE_INTEGER} AND ${SAFE_INTEGER} THEN to_json(${ref}) ELSE to_json(${ref}::text) END`;
    case T.bool:
    case T.int2:
    case T.int4:
    case T.oid:
    case T.float4:
    case T.float8:
    case T.json:
    case T.jsonb:
      return ref;
    default:
      return column.category === 'A' ? ref : `${ref}::text`;
  }
}

const ALIAS = 'toolrow_q';
const ROW = 'toolrow_r';

function aliases(columns: readonly ExportColumn[]): string {
  return columns.map((_, index) => `c${index + 1}`).join(', ');
}

function from(statement: string, columns: readonly ExportColumn[]): string {
  return columns.length === 0
    ? `FROM (${statement}\n) AS ${ALIAS}`
    : `FROM (${statement}\n) AS ${ALIAS}(${aliases(columns)})`;
}

/** The statement's rows with every column as CSV cell text, named as the statement named them: for COPY … CSV. */
export function csvSelect(statement: string, columns: readonly ExportColumn[]): string {
  if (columns.length === 0) return `SELECT ${from(statement, columns)}`;
  const cells = columns.map(
    (column, index) => `${textCell(`${ALIAS}.c${index + 1}`, column)} AS ${quoteIdent(column.name)}`,
  );
  return `SELECT ${cells.join(', ')} ${from(statement, columns)}`;
}

/**
 * One text column holding each row as a CSV record (without its line end), quoted exactly as
 * COPY … CSV quotes: a cell is quoted when it holds a comma, quote, CR or LF, or is empty but not
 * NULL (NULL is the empty cell); quotes inside are doubled. For engines without COPY.
 */
export function csvLineSelect(statement: string, columns: readonly ExportColumn[]): string {
  if (columns.length === 0) return `SELECT ''::text ${from(statement, columns)}`;
  const cells = columns.map((column, index) => {
    const text = textCell(`${ALIAS}.c${index + 1}`, column);
    if (PLAIN_TEXT.has(column.typeId)) return `coalesce(${text}, '')`;
    // COPY also quotes a lone column whose value is \. (the old end-of-data marker).
    const marker = columns.length === 1 ? ` OR v = '\\.'` : '';
    // The expression repeats rather than sitting in a sub-select: a sub-select runs as a sub-plan per cell.
    // strpos, not a regular expression: on PGlite a regex match costs several times the four scans.
    const special = `strpos(${text}, '"') + strpos(${text}, ',') + strpos(${text}, E'\\n') + strpos(${text}, E'\\r') > 0`;
    return `CASE WHEN ${text} IS NULL THEN '' WHEN ${text} = '' OR ${special}${marker.replace('v =', `${text} =`)} THEN '"' || replace(${text}, '"', '""') || '"' ELSE ${text} END`;
  });
  return `SELECT ${cells.join(` || ',' || `)} ${from(statement, columns)}`;
}

/**
 * One text column holding each row as a JSON object. Raw CR and LF in PostgreSQL's JSON text can
 * only be whitespace between tokens (inside strings they are escaped), from `json` values kept as
 * they were typed: they become spaces, so every object is one line.
 */
export function jsonLineSelect(statement: string, columns: readonly ExportColumn[]): string {
  if (columns.length === 0) return `SELECT '{}'::text ${from(statement, columns)}`;
  const cells = columns.map(
    (column, index) => `${jsonCell(`${ALIAS}.c${index + 1}`, column)} AS ${quoteIdent(column.name)}`,
  );
  const raw = columns.some((column) => column.typeId === T.json || column.typeId === T.json_array);
  const object = `row_to_json(${ROW})::text`;
  return `SELECT ${raw ? `translate(${object}, E'\\r\\n', '  ')` : object} FROM (SELECT ${cells.join(', ')} ${from(statement, columns)}) AS ${ROW}`;
}

/**
 * COPY options that write a one-column text result unchanged, one row a line: CSV mode quotes only
 * values holding its quote or delimiter character, CR or LF, or an empty value — and a JSON line
 * holds neither control character, nor a line break, and is never empty (text mode would double
 * every backslash instead).
 */
export const COPY_LINES = "(FORMAT csv, QUOTE E'\\x01', DELIMITER E'\\x02')";

/** A header cell or any CSV cell quoted as COPY … CSV quotes (see csvLineSelect). */
export function csvCell(text: string, lone = false): string {
  return text === '' || /[",\r\n]/.test(text) || (lone && text === '\\.')
    ? `"${text.replaceAll('"', '""')}"`
    : text;
}

export function csvHeader(columns: readonly ExportColumn[]): string {
  return `${columns.map((column) => csvCell(column.name, columns.length === 1)).join(',')}\r\n`;
}

const LF = 0x0a;
const CR = 0x0d;
const QUOTE = 0x22;

function countLf(chunk: Uint8Array): number {
  let count = 0;
  for (let at = chunk.indexOf(LF); at >= 0; at = chunk.indexOf(LF, at + 1)) count++;
  return count;
}

/** A chunk the writer takes, and how many records ended in it. */
export interface Piece {
  bytes: Uint8Array;
  rows: number;
}

/**
 * The records of COPY … CSV (or csvLineSelect's lines), LF-terminated, as RFC 4180 records
 * ending in CRLF. A LF inside a quoted cell stays as it is; the quote state carries across chunks.
 */
export function csvRecords(): (chunk: Uint8Array) => Piece {
  let quoted = false;
  return (chunk) => {
    const out = Buffer.allocUnsafe(chunk.length + countLf(chunk));
    let written = 0;
    let start = 0;
    let rows = 0;
    let nextQuote = chunk.indexOf(QUOTE);
    let nextLf = chunk.indexOf(LF);
    let at = 0;
    while (true) {
      if (quoted) {
        if (nextQuote < 0) break;
        quoted = false;
        at = nextQuote + 1;
        nextQuote = chunk.indexOf(QUOTE, at);
        if (nextLf >= 0 && nextLf < at) nextLf = chunk.indexOf(LF, at);
        continue;
      }
      if (nextLf >= 0 && (nextQuote < 0 || nextLf < nextQuote)) {
        out.set(chunk.subarray(start, nextLf), written);
        written += nextLf - start;
        out[written++] = CR;
        out[written++] = LF;
        rows++;
        start = nextLf + 1;
        at = start;
        nextLf = chunk.indexOf(LF, at);
      } else if (nextQuote >= 0) {
        quoted = true;
        at = nextQuote + 1;
        nextQuote = chunk.indexOf(QUOTE, at);
      } else break;
    }
    out.set(chunk.subarray(start), written);
    written += chunk.length - start;
    return { bytes: out.subarray(0, written), rows };
  };
}

/** JSON lines as they come: one object a line. */
export function ndjsonRecords(): (chunk: Uint8Array) => Piece {
  return (chunk) => ({ bytes: chunk, rows: countLf(chunk) });
}

/**
 * JSON lines as the body of one array, laid out as before: `[`, then each object on its own line
 * with a comma after all but the last, then `]`. The last line end is held back until the next
 * chunk shows whether another object follows. `header` and `footer` give the brackets.
 */
export function jsonArrayRecords(): {
  take: (chunk: Uint8Array) => Piece;
  header: string;
  footer: () => string;
} {
  let started = false;
  let held = false;
  return {
    header: '[',
    take(chunk) {
      const lines = countLf(chunk);
      if (chunk.length === 0) return { bytes: chunk, rows: 0 };
      const out = Buffer.allocUnsafe(chunk.length + lines + 2);
      let written = 0;
      if (held) {
        out[written++] = 0x2c; // ','
        out[written++] = LF;
      } else if (!started) out[written++] = LF;
      started = true;
      let start = 0;
      for (let at = chunk.indexOf(LF); at >= 0; at = chunk.indexOf(LF, at + 1)) {
        out.set(chunk.subarray(start, at), written);
        written += at - start;
        start = at + 1;
        if (start < chunk.length) {
          out[written++] = 0x2c;
          out[written++] = LF;
        }
      }
      out.set(chunk.subarray(start), written);
      written += chunk.length - start;
      held = chunk[chunk.length - 1] === LF;
      return { bytes: out.subarray(0, written), rows: lines };
    },
    footer: () => (started ? '\n]\n' : ']\n'),
  };
}
