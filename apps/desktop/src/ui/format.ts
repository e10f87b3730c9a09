// Pure helpers for showing and editing values; tested in format.test.ts.
import { filterText } from '@toolrow/catalog';
import { isNumberText } from '@toolrow/datasource/numbers';
import type { ColumnInfo, Filter, FilterCondition, Row, RowKey, TableRead } from './api.ts';

const NUMERIC =
  /^(smallint|integer|bigint|int[248]?|numeric|decimal|real|double precision|float[48]?|money|smallserial|serial|bigserial)\b/i;
const BOOLEAN = /^bool(ean)?$/i;
const TEMPORAL = /^(timestamp|date|time)/i;
const JSONISH = /^jsonb?$/i;

// DynamoDB attribute types as the schema lists them: 'N', 'S', 'M', or 'N|S' for an attribute seen with both.
const DYNAMO_TYPE = /^(S|N|B|BOOL|NULL|M|L|SS|NS|BS)(\|(S|N|B|BOOL|NULL|M|L|SS|NS|BS))*$/;

/** Whether a column's type is a DynamoDB attribute type (its values keep DynamoDB's tagged form). */
export const isDynamoType = (type: string | undefined) => !!type && DYNAMO_TYPE.test(type);

export const isNumericType = (type: string | undefined) => !!type && (NUMERIC.test(type) || type === 'N');
export const isBooleanType = (type: string | undefined) => !!type && BOOLEAN.test(type);
export const isTemporalType = (type: string | undefined) => !!type && TEMPORAL.test(type);

/**
 * One line of text for a value. An attribute an item does not have (undefined) is empty, not
 * NULL: DynamoDB items are sparse. `dynamo` reads DynamoDB's tagged values: { N: "1.50" } is the
 * number 1.50, { SS: [...] } a set, { B: base64 } binary, and nested strings are quoted so a
 * string "12" never looks like the number 12.
 */
export function formatCell(value: unknown, dynamo = false): string {
  if (value === undefined) return '';
  if (value === null) return 'NULL';
  if (typeof value === 'string') return value.length > 500 ? `${value.slice(0, 500)}…` : value;
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean')
    return String(value);
  const text = dynamo ? dynamoText(value) : JSON.stringify(value);
  return text.length > 500 ? `${text.slice(0, 500)}…` : text;
}

/** DynamoDB's type names: a map whose only key is one of them travels wrapped as { M: {…} }. */
const DYNAMO_TAGS = new Set(['S', 'N', 'B', 'BOOL', 'NULL', 'M', 'L', 'SS', 'NS', 'BS']);
const BARE_KEY = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * A DynamoDB value as people read and type it, the same in the grid, the record form and the
 * workbench: {name: "Ada", total: 12.50, tags: <<"a", "b">>, photo: b64"AAEC"}. Numbers keep
 * their digits, strings are quoted, sets are PartiQL's << >>. parseDynamoText reads it back.
 */
export function dynamoText(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value !== 'object') return String(value);
  if (Array.isArray(value)) return `[${value.map(dynamoText).join(', ')}]`;
  const entries = Object.entries(value as Record<string, unknown>);
  const [only] = entries;
  if (entries.length === 1 && only) {
    const [tag, inner] = only;
    if (tag === 'N' && typeof inner === 'string') return inner;
    if (tag === 'B' && typeof inner === 'string') return `b64${JSON.stringify(inner)}`;
    if (tag === 'M' && inner !== null && typeof inner === 'object' && !Array.isArray(inner))
      return mapText(Object.entries(inner as Record<string, unknown>));
    if ((tag === 'SS' || tag === 'NS' || tag === 'BS') && Array.isArray(inner)) {
      const members = inner.map((each) =>
        tag === 'SS' ? JSON.stringify(each) : tag === 'NS' ? String(each) : `b64${JSON.stringify(each)}`,
      );
      return `<<${members.join(', ')}>>`;
    }
  }
  return mapText(entries);
}

function mapText(entries: [string, unknown][]): string {
  return `{${entries.map(([key, inner]) => `${BARE_KEY.test(key) ? key : JSON.stringify(key)}: ${dynamoText(inner)}`).join(', ')}}`;
}

/**
 * Reads what dynamoText writes (and what a person types in that form) into the value the server
 * stores: a number inside a map or list as { N: "12.50" } (no digit lost to a double), a set as
 * { SS | NS | BS: […] }, binary as { B: base64 }, a map whose only key is a type name wrapped in
 * { M: … } so it is never read as that type. Strings take "double" or 'single' quotes; keys may be
 * bare. Throws an Error saying where the text stops making sense.
 */
export function parseDynamoText(text: string): unknown {
  let at = 0;
  const fail = (what: string): never => {
    throw new Error(`${what} at character ${at + 1}`);
  };
  const space = () => {
    while (at < text.length && /\s/.test(text[at]!)) at++;
  };
  const quoted = (): string => {
    const quote = text[at]!;
    if (quote === '"') {
      const end = /^"(?:[^"\\]|\\.)*"/.exec(text.slice(at));
      if (!end) fail('an unterminated string');
      at += end![0].length;
      return JSON.parse(end![0]) as string;
    }
    let out = '';
    at++;
    for (;;) {
      if (at >= text.length) fail('an unterminated string');
      if (text[at] === "'") {
        if (text[at + 1] === "'") {
          out += "'";
          at += 2;
          continue;
        }
        at++;
        return out;
      }
      out += text[at++];
    }
  };
  const list = (close: string): unknown[] => {
    const items: unknown[] = [];
    space();
    if (text.startsWith(close, at)) {
      at += close.length;
      return items;
    }
    for (;;) {
      items.push(value());
      space();
      if (text.startsWith(close, at)) {
        at += close.length;
        return items;
      }
      if (text[at] !== ',') fail(`expected ',' or '${close}'`);
      at++;
    }
  };
  const value = (): unknown => {
    space();
    const char = text[at];
    if (char === undefined) return fail('a value is missing');
    if (char === '"' || char === "'") return quoted();
    if (text.startsWith('<<', at)) {
      at += 2;
      const members = list('>>');
      if (members.length === 0) fail('DynamoDB has no empty sets: an empty set');
      if (members.every((each) => typeof each === 'string')) return { SS: members };
      if (members.every((each) => isTagged(each, 'N')))
        return { NS: members.map((each) => (each as { N: string }).N) };
      if (members.every((each) => isTagged(each, 'B')))
        return { BS: members.map((each) => (each as { B: string }).B) };
      return fail('a set holds strings, numbers or binary, all of one kind: this set');
    }
    if (char === '[') {
      at++;
      return list(']');
    }
    if (char === '{') {
      at++;
      const entries: [string, unknown][] = [];
      space();
      if (text[at] === '}') at++;
      else
        for (;;) {
          space();
          let key: string;
          if (text[at] === '"' || text[at] === "'") key = quoted();
          else {
            const bare = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(at));
            if (!bare) return fail('a map key (a name, or a quoted one) is missing');
            key = bare[0];
            at += key.length;
          }
          space();
          if (text[at] !== ':') fail(`expected ':' after ${key}`);
          at++;
          entries.push([key, value()]);
          space();
          if (text[at] === '}') {
            at++;
            break;
          }
          if (text[at] !== ',') fail("expected ',' or '}'");
          at++;
        }
      const map = Object.fromEntries(entries);
      return entries.length === 1 && DYNAMO_TAGS.has(entries[0]![0]) ? { M: map } : map;
    }
    const binary = /^b64("(?:[^"\\]|\\.)*")/.exec(text.slice(at));
    if (binary) {
      at += binary[0].length;
      return { B: JSON.parse(binary[1]!) as string };
    }
    const number = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?(?![\w.])/.exec(text.slice(at));
    if (number) {
      at += number[0].length;
      return { N: number[0] };
    }
    const word = /^(true|false|NULL|null)(?!\w)/.exec(text.slice(at));
    if (word) {
      at += word[0].length;
      return word[0] === 'true' ? true : word[0] === 'false' ? false : null;
    }
    return fail(`'${text.slice(at, at + 12)}' is not a value (strings are quoted: "text")`);
  };
  const result = value();
  space();
  if (at < text.length) fail('unexpected text after the value');
  return result;
}

const isTagged = (value: unknown, tag: 'N' | 'B') =>
  value !== null && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).join() === tag;

// An instant as JSON carries it: JavaScript's ISO form, or PostgreSQL's to_jsonb ("+00:00", micros).
const ISO_INSTANT = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}:\d{2})(\.\d+)?(Z|[+-]\d{2}(:?\d{2})?)?$/;

/**
 * The one way the app writes a date and time, wherever it shows one (grid, record view, staging,
 * MCP clients, exports, audit): "2026-10-03 14:05:09 UTC". An instant with an offset is moved to
 * UTC; a timestamp without a zone keeps its wall time and gets no "UTC". Anything else is returned
 * as it came. CSV and JSON exports keep ISO 8601, which is for programs.
 */
export function formatTimestamp(value: string): string {
  const match = ISO_INSTANT.exec(value);
  if (!match) return value;
  const zone = match[4];
  if (!zone) return `${match[1]} ${match[2]}`;
  const ms = Date.parse(
    `${match[1]}T${match[2]}${zone === 'Z' ? 'Z' : zone.length === 3 ? `${zone}:00` : zone}`,
  );
  if (Number.isNaN(ms)) return value;
  const iso = new Date(ms).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`;
}

/** A cell's text by its column type: timestamps as "2026-10-03 14:05:09 UTC" rather than raw ISO. */
export function formatTyped(
  value: unknown,
  type: string | undefined,
  dynamo: boolean = isDynamoType(type),
): string {
  if (typeof value === 'string' && isTemporalType(type)) {
    const match = ISO_INSTANT.exec(value);
    if (match) {
      // The driver hands a zone-less timestamp over as JavaScript's ISO form with "Z": its wall time is what counts.
      return /with time zone|tz/i.test(type ?? '') ? formatTimestamp(value) : `${match[1]} ${match[2]}`;
    }
  }
  return formatCell(value, dynamo);
}

/** The text an editor starts from: NULL edits as an empty field; a DynamoDB value in its readable form. */
export function editText(value: unknown, type?: string): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  return isDynamoType(type) ? dynamoText(value) : formatCell(value);
}

/**
 * Turns what the user typed into the value to stage, by the column's type. Returns an error
 * message instead when the text cannot be that type, so the grid can say what to type.
 */
export function parseEdit(
  text: string,
  column: Pick<ColumnInfo, 'name' | 'type' | 'nullable'>,
): { value: unknown } | { error: string } {
  const trimmed = text.trim();
  if (isDynamoType(column.type)) return parseDynamoEdit(text, column);
  if (trimmed === '' || trimmed === 'NULL') {
    if (column.nullable) return { value: null };
    if (trimmed === 'NULL' || !isTextual(column.type)) {
      return { error: `${column.name} cannot be empty (NOT NULL): type a ${column.type} value.` };
    }
    return { value: '' };
  }
  if (isNumericType(column.type)) {
    if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(trimmed)) {
      return { error: `${column.name} is ${column.type}: '${text}' is not a number.` };
    }
    // A number a double would change (beyond 2^53, or more digits than it keeps) stays text so no
    // digit is lost; Postgres casts the text to the column type.
    return { value: String(Number(trimmed)) === trimmed ? Number(trimmed) : trimmed };
  }
  if (isBooleanType(column.type)) {
    const lower = trimmed.toLowerCase();
    if (['true', 't', 'yes', 'y', '1'].includes(lower)) return { value: true };
    if (['false', 'f', 'no', 'n', '0'].includes(lower)) return { value: false };
    return { error: `${column.name} is boolean: type true or false.` };
  }
  if (JSONISH.test(column.type)) {
    try {
      return { value: JSON.parse(trimmed) };
    } catch {
      return { error: `${column.name} is ${column.type}: '${text}' is not valid JSON.` };
    }
  }
  return { value: text };
}

/**
 * A filter value by its column's type, checked before the filter is applied (and saved): a
 * number for numeric columns (kept as text when a JavaScript number would change its digits),
 * true/false for booleans, the text as typed otherwise.
 */
export function parseFilterValue(
  text: string,
  column: Pick<ColumnInfo, 'name' | 'type'> | undefined,
): { value: unknown } | { error: string } {
  const trimmed = text.trim();
  const type = column?.type;
  if (!column || !(isNumericType(type) || isBooleanType(type))) return { value: trimmed };
  if (trimmed === '') return { error: `Type a value for ${column.name}, or pick "is empty" to match NULL.` };
  if (isNumericType(type)) {
    if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(trimmed))
      return {
        error: `${column.name} is ${type === 'N' ? 'a number attribute' : type}: '${trimmed}' is not a number.`,
      };
    return { value: String(Number(trimmed)) === trimmed ? Number(trimmed) : trimmed };
  }
  if (/^(true|false)$/i.test(trimmed)) return { value: trimmed.toLowerCase() === 'true' };
  return { error: `${column.name} is boolean: type true or false.` };
}

/**
 * A DynamoDB edit by the attribute's types: N stays a decimal string (no digit lost to a double),
 * maps, lists, sets and binary are typed in their tagged JSON form, as the editor shows them.
 */
function parseDynamoEdit(
  text: string,
  column: Pick<ColumnInfo, 'name' | 'type' | 'nullable'>,
): { value: unknown } | { error: string } {
  const trimmed = text.trim();
  const types = column.type.split('|');
  if (trimmed === 'NULL' || (trimmed === '' && !types.includes('S'))) {
    return column.nullable ? { value: null } : { error: `${column.name} is a key: it needs a value.` };
  }
  if (types.length === 1 && types[0] === 'N') {
    if (!isNumberText(trimmed))
      return { error: `${column.name} holds numbers: '${text}' is not one (type digits, e.g. 12.50).` };
    return { value: trimmed };
  }
  if (types.length === 1 && types[0] === 'BOOL') {
    if (trimmed === 'true' || trimmed === 'false') return { value: trimmed === 'true' };
    return { error: `${column.name} is a boolean: type true or false.` };
  }
  if (/^([[{]|<<|b64")/.test(trimmed) && types.some((type) => /^(M|L|SS|NS|BS|B)$/.test(type))) {
    try {
      return { value: parseDynamoText(trimmed) };
    } catch (error) {
      return {
        error: `${column.name} holds ${column.type}: ${(error as Error).message} (a map is {name: "Ada", total: 12.50}, a list [1, "x"], a set <<"a", "b">>).`,
      };
    }
  }
  return { value: text };
}

const isTextual = (type: string) => /^(text|character|varchar|char|citext|name)/i.test(type);

/** The primary key of a row, or null when the table has none (then rows cannot be edited). */
export function keyOf(row: Row, primaryKey: readonly string[]): RowKey | null {
  if (primaryKey.length === 0) return null;
  const key: RowKey = {};
  for (const column of primaryKey) key[column] = row[column];
  return key;
}

/** The header badge of a key column: on DynamoDB the partition key (PK) and sort key (SK). */
export function keyBadge(
  column: Pick<ColumnInfo, 'name' | 'type'>,
  primaryKey: readonly string[],
): { badge: string; title: string } | undefined {
  const at = primaryKey.indexOf(column.name);
  if (at < 0) return undefined;
  if (isDynamoType(column.type))
    return at === 0
      ? { badge: 'PK', title: 'Partition key: a filter on it reads by Query instead of a Scan' }
      : { badge: 'SK', title: 'Sort key' };
  return {
    badge: 'PK',
    title: primaryKey.length > 1 ? `Part of the primary key (${primaryKey.join(', ')})` : 'Primary key',
  };
}

/** A stable string for a key, for maps and React keys. */
export function keyString(key: RowKey | null): string {
  if (!key) return '';
  return JSON.stringify(
    Object.keys(key)
      .sort()
      .map((column) => [column, key[column]]),
  );
}

/** "id=42" or "order_id=7, product_id=3". */
export function describeKey(key: RowKey | null): string {
  if (!key) return '(new row)';
  return Object.entries(key)
    .map(([column, value]) => `${column}=${formatCell(value)}`)
    .join(', ');
}

const SHORT_TYPES: [RegExp, string][] = [
  [/^timestamp(\(\d\))? with time zone$/, 'timestamptz'],
  [/^timestamp(\(\d\))? without time zone$/, 'timestamp'],
  [/^time(\(\d\))? with time zone$/, 'timetz'],
  [/^character varying/, 'varchar'],
  [/^character\((\d+)\)$/, 'char($1)'],
  [/^double precision$/, 'float8'],
];

/** The type as a grid header shows it: "timestamptz" for "timestamp with time zone". */
export function shortType(type: string): string {
  for (const [pattern, short] of SHORT_TYPES) if (pattern.test(type)) return type.replace(pattern, short);
  return type;
}

/** A pixel width for a column by its type and name, so the grid is readable before any data arrives. */
export function columnWidth(column: Pick<ColumnInfo, 'name' | 'type'>): number {
  // The header shows the name and the short type.
  const header = column.name.length * 7.5 + shortType(column.type).length * 6 + 44;
  let body = 180;
  if (isNumericType(column.type)) body = 96;
  else if (isBooleanType(column.type)) body = 70;
  else if (/^date$/i.test(column.type)) body = 104;
  else if (isTemporalType(column.type)) body = 190;
  else if (/uuid/i.test(column.type)) body = 290;
  return Math.round(Math.min(360, Math.max(header, body)));
}

const ARITY: Record<FilterCondition['op'], number> = {
  eq: 1,
  neq: 1,
  lt: 1,
  lte: 1,
  gt: 1,
  gte: 1,
  contains: 1,
  starts_with: 1,
  ends_with: 1,
  like: 1,
  ilike: 1,
  in: 1,
  not_in: 1,
  between: 2,
  is_null: 0,
  is_not_null: 0,
};

/** A condition is complete when its operator has the values it needs. */
export function isComplete(condition: FilterCondition): boolean {
  const arity = ARITY[condition.op];
  if (arity === 0) return true;
  if (condition.op === 'between') {
    return (
      Array.isArray(condition.value) &&
      condition.value.length === 2 &&
      condition.value.every((v) => v !== '' && v != null)
    );
  }
  if (condition.op === 'in' || condition.op === 'not_in') {
    return Array.isArray(condition.value) && condition.value.length > 0;
  }
  return condition.value !== undefined && condition.value !== '';
}

/** The filter the server gets: incomplete conditions (still being typed) are left out. */
export function effectiveFilter(filter: Filter): Filter {
  const conditions = filter.conditions.filter(isComplete);
  return filter.raw !== undefined ? { ...filter, conditions } : { combine: filter.combine, conditions };
}

/** Whether a filter restricts anything. */
export function isFiltered(filter: Filter): boolean {
  return filter.raw !== undefined || effectiveFilter(filter).conditions.length > 0;
}

/** 'status = "paid" and total > 100', for tab titles: the catalog's one filter rendering. */
export function describeFilter(filter: Filter): string {
  if (filter.raw !== undefined) return filter.text ?? 'custom filter';
  const { conditions } = effectiveFilter(filter);
  return filterText(conditions.length === 1 ? conditions[0] : { [filter.combine]: conditions });
}

/** A table's name as people say it: "orders" for public.orders, the qualified name otherwise. */
export function displayTable(id: string): string {
  return id.startsWith('public.') ? id.slice('public.'.length) : id;
}

/** Thousands separators for counts. */
export function formatCount(value: number): string {
  return value.toLocaleString('en-US');
}

/** "3 s ago", "5 min ago", "4 h ago", or past a day the timestamp as formatTimestamp writes it. */
export function formatAgo(iso: string, now: number = Date.now()): string {
  const then = Date.parse(iso);
  if (Number.isNaN(then)) return iso;
  const seconds = Math.round((now - then) / 1000);
  if (seconds < 5) return 'just now';
  if (seconds < 60) return `${seconds} s ago`;
  if (seconds < 3600) return `${Math.round(seconds / 60)} min ago`;
  if (seconds < 86_400) return `${Math.round(seconds / 3600)} h ago`;
  return formatTimestamp(new Date(then).toISOString());
}

/** How one table was read, as a result's badge says it, with the read capacity where reported. */
export function readBadgeText(read: TableRead): string {
  const where = read.index ? `${read.table} index ${read.index}` : read.table;
  const capacity =
    read.capacity === undefined
      ? ''
      : ` · ${Number.isInteger(read.capacity) ? read.capacity : read.capacity.toFixed(1)} RCU`;
  return `${read.operation} ${read.operation === 'Scan' ? 'of' : 'on'} ${where} · ${formatCount(read.items)} ${read.items === 1 ? 'item' : 'items'}${capacity}`;
}
