// Items as rows, keeping DynamoDB's types exactly: a number is its decimal string (never a JS
// double), a set is { SS | NS | BS: [...] }, binary is { B: base64 }, maps and lists nest. Going
// back, a value is written as the type the attribute holds.
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { DataSourceError, NUMBER_TEXT, type Row } from '@toolrow/datasource';

/** The DynamoDB type names, as the schema lists them per attribute. */
export type DynamoType = 'S' | 'N' | 'B' | 'BOOL' | 'NULL' | 'M' | 'L' | 'SS' | 'NS' | 'BS';

export function typeOf(value: AttributeValue): DynamoType {
  return Object.keys(value).find((key) => key !== '$unknown') as DynamoType;
}

const base64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');

/** One attribute value as a row value. */
export function fromAttribute(value: AttributeValue): unknown {
  if (value.S !== undefined) return value.S;
  if (value.N !== undefined) return value.N;
  if (value.BOOL !== undefined) return value.BOOL;
  if (value.NULL !== undefined) return null;
  if (value.B !== undefined) return { B: base64(value.B) };
  if (value.SS !== undefined) return { SS: [...value.SS] };
  if (value.NS !== undefined) return { NS: [...value.NS] };
  if (value.BS !== undefined) return { BS: value.BS.map(base64) };
  if (value.L !== undefined) return value.L.map(fromNested);
  if (value.M !== undefined) {
    const map = Object.fromEntries(Object.entries(value.M).map(([key, inner]) => [key, fromNested(inner)]));
    // A map whose only key is a type name ({"N": "5"} as data) would read as that type: it is wrapped.
    const keys = Object.keys(map);
    return keys.length === 1 && TYPE_NAMES.has(keys[0]!) ? { M: map } : map;
  }
  return null;
}

const TYPE_NAMES: ReadonlySet<string> = new Set(['S', 'N', 'B', 'BOOL', 'NULL', 'M', 'L', 'SS', 'NS', 'BS']);

/** Inside maps and lists a number keeps its type with it: { N: "12.50" }. */
function fromNested(value: AttributeValue): unknown {
  return value.N !== undefined ? { N: value.N } : fromAttribute(value);
}

/**
 * An item as a row. A top-level number or string is plain text where the attribute's types (as
 * the table's schema lists them) make it unambiguous; where an attribute holds both, or the
 * schema never saw it, the value travels tagged — { N: "12" }, { S: "12" } — so what is read
 * writes back as the same type (toAttribute reads the tags).
 */
export function itemToRow(
  item: Record<string, AttributeValue>,
  table?: { columns: readonly { name: string; type: string }[] },
): Row {
  const typesOf = (name: string) => table?.columns.find((column) => column.name === name)?.type.split('|');
  return Object.fromEntries(
    Object.entries(item).map(([key, value]) => {
      const types = typesOf(key);
      if (value.N !== undefined && (!types || types.includes('S'))) return [key, { N: value.N }];
      if (value.S !== undefined && types?.includes('N') && NUMBER_TEXT.test(value.S.trim()))
        return [key, { S: value.S }];
      return [key, fromAttribute(value)];
    }),
  );
}

/**
 * Why DynamoDB cannot hold this number, or null when it can: at most 38 significant digits, and a
 * magnitude from 1E-130 to 9.99…E+125 (or zero).
 */
export function numberRangeProblem(text: string): string | null {
  const match = /^-?([0-9]+)(?:\.([0-9]+))?(?:[eE]([+-]?[0-9]+))?$/.exec(text.trim());
  if (!match) return null;
  const significant = `${match[1]}${match[2] ?? ''}`.replace(/^0+/, '').replace(/0+$/, '');
  if (significant === '') return null;
  const exponent = match[3] === undefined ? 0 : Number(match[3]);
  // The power of ten of the leading digit: 12.5 is 1.25E1, 0.0012 is 1.2E-3.
  const whole = match[1]!.replace(/^0+/, '');
  const magnitude =
    (whole.length > 0 ? whole.length - 1 : -(/^0*/.exec(match[2] ?? '')![0].length + 1)) + exponent;
  if (significant.length <= 38 && magnitude <= 125 && magnitude >= -130) return null;
  const shown = text.length > 40 ? `${text.slice(0, 37)}…` : text;
  return `${shown} is not a number DynamoDB can hold: numbers have at most 38 significant digits and lie between 1E-130 and 9.99E+125 (or their negatives).`;
}

/**
 * A row value as an attribute value. `types` are the types the attribute was seen with: a string
 * of digits is a number where the attribute holds numbers. Throws naming the attribute otherwise.
 */
export function toAttribute(
  value: unknown,
  attribute: string,
  types: readonly string[] = [],
): AttributeValue {
  if (value === null) return { NULL: true };
  if (typeof value === 'boolean') return { BOOL: value };
  if (typeof value === 'number' || typeof value === 'bigint') {
    if (typeof value === 'number' && !Number.isFinite(value))
      throw new DataSourceError(
        'invalid-change',
        `${attribute}: ${value} is not a number DynamoDB can store.`,
      );
    return { N: checkedNumber(String(value), attribute) };
  }
  if (typeof value === 'string') {
    const wantsNumber = types.includes('N') && !types.includes('S');
    if (wantsNumber) {
      if (!NUMBER_TEXT.test(value.trim()))
        throw new DataSourceError(
          'invalid-change',
          `${attribute}: holds numbers, and '${value}' is not one (write it as digits, e.g. "12.50").`,
        );
      return { N: checkedNumber(value.trim(), attribute) };
    }
    return { S: value };
  }
  if (Array.isArray(value))
    return { L: value.map((inner, index) => toAttribute(inner, `${attribute}[${index}]`)) };
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>);
    const [only] = entries;
    if (entries.length === 1 && only) {
      const [tag, inner] = only;
      if (tag === 'N' && typeof inner === 'string' && NUMBER_TEXT.test(inner))
        return { N: checkedNumber(inner, attribute) };
      if (tag === 'B' && typeof inner === 'string') return { B: Buffer.from(inner, 'base64') };
      if (
        (tag === 'SS' || tag === 'NS') &&
        Array.isArray(inner) &&
        inner.every((each) => typeof each === 'string')
      )
        return tag === 'SS' ? { SS: inner as string[] } : { NS: inner as string[] };
      if (tag === 'BS' && Array.isArray(inner) && inner.every((each) => typeof each === 'string'))
        return { BS: (inner as string[]).map((each) => Buffer.from(each, 'base64')) };
      // The explicit forms: a map that would otherwise read as a type, a string that must stay one.
      if (tag === 'M' && inner !== null && typeof inner === 'object' && !Array.isArray(inner))
        return {
          M: Object.fromEntries(
            Object.entries(inner as Record<string, unknown>).map(([key, each]) => [
              key,
              toAttribute(each, `${attribute}.${key}`),
            ]),
          ),
        };
      if (tag === 'S' && typeof inner === 'string') return { S: inner };
      if (tag === 'BOOL' && typeof inner === 'boolean') return { BOOL: inner };
      if (tag === 'NULL' && inner === true) return { NULL: true };
      if (tag === 'L' && Array.isArray(inner))
        return { L: inner.map((each, index) => toAttribute(each, `${attribute}[${index}]`)) };
    }
    return {
      M: Object.fromEntries(entries.map(([key, inner]) => [key, toAttribute(inner, `${attribute}.${key}`)])),
    };
  }
  throw new DataSourceError(
    'invalid-change',
    `${attribute}: a ${typeof value} cannot be stored in DynamoDB.`,
  );
}

/**
 * An attribute as plain JSON, for files other programs read (JSON, NDJSON and CSV exports): a
 * number is a JSON number with DynamoDB's exact digits (never through a double), a set is an
 * array, binary is base64 text, maps and lists nest with no type tags.
 */
export function attributeJson(value: AttributeValue): string {
  if (value.S !== undefined) return JSON.stringify(value.S);
  if (value.N !== undefined) return value.N;
  if (value.BOOL !== undefined) return value.BOOL ? 'true' : 'false';
  if (value.NULL !== undefined) return 'null';
  if (value.B !== undefined) return JSON.stringify(base64(value.B));
  if (value.SS !== undefined) return JSON.stringify(value.SS);
  if (value.NS !== undefined) return `[${value.NS.join(',')}]`;
  if (value.BS !== undefined) return JSON.stringify(value.BS.map(base64));
  if (value.L !== undefined) return `[${value.L.map(attributeJson).join(',')}]`;
  if (value.M !== undefined) return itemJson(value.M);
  return 'null';
}

/** An item as one plain JSON object (see attributeJson). */
export function itemJson(item: Record<string, AttributeValue>): string {
  return `{${Object.entries(item)
    .map(([key, inner]) => `${JSON.stringify(key)}:${attributeJson(inner)}`)
    .join(',')}}`;
}

function checkedNumber(text: string, attribute: string): string {
  const problem = numberRangeProblem(text);
  if (problem) throw new DataSourceError('invalid-change', `${attribute}: ${problem}`);
  return text;
}

/** A value as text, for sample values and sizes. */
export function valueText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}
