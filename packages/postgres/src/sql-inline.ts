// COPY is a utility statement: it takes no bind parameters. An export whose SELECT has $n
// parameters gets them written into the text as quoted literals — untyped, like a parameter sent
// without a type, so the server infers the same types — in the places the lexer below knows are
// code (not inside strings, quoted names, dollar quotes or comments).
import { DataSourceError } from '@toolrow/datasource';
import { quoteLiteral } from './sql.ts';

const IDENT_CHAR = /[A-Za-z0-9_$\u0080-\uffff]/u;
const TAG = /^\$([A-Za-z_\u0080-\uffff][A-Za-z0-9_\u0080-\uffff]*)?\$/u;

/** A parameter as the text pg would send for it (pg's prepareValue), for a quoted literal. */
function paramText(value: unknown): string {
  if (value instanceof Date) return value.toISOString();
  if (value instanceof Uint8Array) return `\\x${Buffer.from(value).toString('hex')}`;
  if (Array.isArray(value)) return arrayLiteral(value);
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

function arrayLiteral(values: readonly unknown[]): string {
  const items = values.map((item) => {
    if (item === null || item === undefined) return 'NULL';
    if (Array.isArray(item)) return arrayLiteral(item);
    return `"${paramText(item).replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`;
  });
  return `{${items.join(',')}}`;
}

function literal(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  return quoteLiteral(paramText(value));
}

/** Where the quoted thing that starts at `at` ends (one past its closing quote). */
function skipQuoted(sql: string, at: number, quote: string, backslashes: boolean): number {
  let index = at + 1;
  while (index < sql.length) {
    const char = sql[index]!;
    if (backslashes && char === '\\') index += 2;
    else if (char === quote) {
      if (sql[index + 1] === quote) index += 2;
      else return index + 1;
    } else index++;
  }
  return sql.length;
}

function skipBlockComment(sql: string, at: number): number {
  let depth = 0;
  let index = at;
  while (index < sql.length) {
    if (sql.startsWith('/*', index)) {
      depth++;
      index += 2;
    } else if (sql.startsWith('*/', index)) {
      depth--;
      index += 2;
      if (depth === 0) return index;
    } else index++;
  }
  return sql.length;
}

/**
 * `sql` with each `$n` replaced by params[n-1] as a literal. Refuses a `$n` past the parameters,
 * as the server would.
 */
export function inlineParams(sql: string, params: readonly unknown[]): string {
  if (params.length === 0) return sql;
  let out = '';
  let start = 0;
  let index = 0;
  while (index < sql.length) {
    const char = sql[index]!;
    const before = index > 0 ? sql[index - 1]! : ' ';
    if (char === "'") {
      const escaped = (before === 'e' || before === 'E') && !IDENT_CHAR.test(sql[index - 2] ?? ' ');
      index = skipQuoted(sql, index, "'", escaped);
    } else if (char === '"') index = skipQuoted(sql, index, '"', false);
    else if (char === '-' && sql[index + 1] === '-') {
      const end = sql.indexOf('\n', index);
      index = end < 0 ? sql.length : end + 1;
    } else if (char === '/' && sql[index + 1] === '*') index = skipBlockComment(sql, index);
    else if (char === '$' && !IDENT_CHAR.test(before)) {
      const digits = /^\$(\d+)/.exec(sql.slice(index, index + 12));
      if (digits) {
        const position = Number(digits[1]);
        if (position < 1 || position > params.length) {
          throw new DataSourceError(
            'misuse',
            `The statement uses $${position} but ${params.length} parameter${params.length === 1 ? ' was' : 's were'} given.`,
          );
        }
        out += sql.slice(start, index) + literal(params[position - 1]);
        index += digits[0].length;
        start = index;
        continue;
      }
      const tag = TAG.exec(sql.slice(index, index + 70));
      if (tag) {
        const end = sql.indexOf(tag[0], index + tag[0].length);
        index = end < 0 ? sql.length : end + tag[0].length;
      } else index++;
    } else index++;
  }
  return out + sql.slice(start);
}
