import { describe, expect, it } from 'vitest';
import {
  columnWidth,
  describeFilter,
  describeKey,
  dynamoText,
  effectiveFilter,
  formatAgo,
  formatCell,
  formatTimestamp,
  formatTyped,
  isFiltered,
  keyOf,
  keyString,
  parseDynamoText,
  parseEdit,
  parseFilterValue,
  readBadgeText,
  shortType,
} from './format.ts';

const column = (type: string, nullable = true) => ({ name: 'c', type, nullable });

describe('parseEdit', () => {
  it.each([
    ['integer', '42', { value: 42 }],
    ['numeric(10,2)', '12.5', { value: 12.5 }],
    // Digits a double would change travel as text: 12.50 keeps its scale, a long decimal its last digits.
    ['numeric(10,2)', '12.50', { value: '12.50' }],
    ['numeric(30,10)', '12345678901234567.123', { value: '12345678901234567.123' }],
    ['bigint', '9007199254740993', { value: '9007199254740993' }],
    ['integer', '-7', { value: -7 }],
    ['boolean', 'yes', { value: true }],
    ['boolean', 'F', { value: false }],
    ['jsonb', '{"a":1}', { value: { a: 1 } }],
    ['text', '  spaced  ', { value: '  spaced  ' }],
    ['text', '', { value: null }],
    ['date', 'NULL', { value: null }],
  ] as const)('%s %j → %j', (type, text, want) => {
    expect(parseEdit(text, column(type))).toEqual(want);
  });

  it.each([
    ['integer', '4x2', "is integer: '4x2' is not a number"],
    ['boolean', 'maybe', 'type true or false'],
    ['jsonb', '{a:1}', 'not valid JSON'],
    ['integer', '', 'cannot be empty (NOT NULL)'],
  ] as const)('refuses %s %j with a message that says what to type', (type, text, message) => {
    const result = parseEdit(text, column(type, type !== 'integer' || text !== ''));
    expect('error' in result ? result.error : '').toContain(message);
  });

  it('keeps an empty string for a NOT NULL text column, and refuses NULL there', () => {
    expect(parseEdit('', column('text', false))).toEqual({ value: '' });
    expect(parseEdit('NULL', column('text', false))).toHaveProperty('error');
  });
});

describe('parseFilterValue', () => {
  const col = (type: string) => ({ name: 'c', type });
  it.each([
    ['integer', ' 42 ', { value: 42 }],
    ['integer', '99999999999999999999', { value: '99999999999999999999' }],
    ['numeric(12,2)', '15255307.81', { value: 15255307.81 }],
    ['boolean', 'TRUE', { value: true }],
    ['text', ' paid ', { value: 'paid' }],
    ['N', '12', { value: 12 }],
  ] as const)('%s %j → %j', (type, text, want) => {
    expect(parseFilterValue(text, col(type))).toEqual(want);
  });

  it.each([
    ['integer', 'abc', "c is integer: 'abc' is not a number."],
    ['numeric(12,2)', '', 'Type a value for c, or pick "is empty" to match NULL.'],
    ['boolean', 'maybe', 'c is boolean: type true or false.'],
    ['N', '1,5', "c is a number attribute: '1,5' is not a number."],
  ] as const)('refuses %s %j: %s', (type, text, message) => {
    expect(parseFilterValue(text, col(type))).toEqual({ error: message });
  });
});

describe('parseEdit on DynamoDB attributes', () => {
  it.each([
    ['N', ' 12.50 ', { value: '12.50' }],
    ['N', '123456789012345678901234567890', { value: '123456789012345678901234567890' }],
    ['N', '', { value: null }],
    ['S', '', { value: '' }],
    ['S', '{"looks":"like json"}', { value: '{"looks":"like json"}' }],
    ['N|S', '42', { value: '42' }],
    ['BOOL', 'false', { value: false }],
    ['M', '{name: "Ada", total: 12.50}', { value: { name: 'Ada', total: { N: '12.50' } } }],
    ['M', '{"name":"Ada","total":12.50}', { value: { name: 'Ada', total: { N: '12.50' } } }],
    ['SS', '<<"a", \'b\'>>', { value: { SS: ['a', 'b'] } }],
    ['L', '[1,"x"]', { value: [{ N: '1' }, 'x'] }],
    // A map whose only key is a type name stays a map: it travels wrapped.
    ['M', '{N: "5"}', { value: { M: { N: '5' } } }],
  ] as const)('%s %j → %j', (type, text, want) => {
    expect(parseEdit(text, column(type))).toEqual(want);
  });

  it.each([
    ['N', '12,5', 'holds numbers'],
    ['N', '0x10', 'holds numbers'],
    ['BOOL', 'yes', 'type true or false'],
    ['M', '{name: Ada}', "'Ada}' is not a value (strings are quoted"],
    ['SS', '<<>>', 'DynamoDB has no empty sets'],
    ['NS', '<<1, "x">>', 'all of one kind'],
    ['M', '{a: 1', "expected ',' or '}'"],
  ] as const)('refuses %s %j saying what to type', (type, text, message) => {
    const result = parseEdit(text, column(type));
    expect('error' in result ? result.error : '').toContain(message);
  });

  it('refuses an empty key', () => {
    expect(parseEdit('', column('N', false))).toEqual({ error: 'c is a key: it needs a value.' });
  });
});

describe('keys', () => {
  it('reads the primary key of a row and makes an order-independent string of it', () => {
    expect(keyOf({ id: 3, name: 'x' }, ['id'])).toEqual({ id: 3 });
    expect(keyOf({ id: 3 }, [])).toBeNull();
    expect(keyString({ a: 1, b: 2 })).toBe(keyString({ b: 2, a: 1 }));
    expect(keyString({ a: 1 })).not.toBe(keyString({ a: '1' }));
    expect(describeKey({ order_id: 7, line: 2 })).toBe('order_id=7, line=2');
  });
});

describe('filters', () => {
  it('leaves out conditions still being typed', () => {
    const filter = {
      combine: 'and' as const,
      conditions: [
        { column: 'a', op: 'eq' as const, value: '' },
        { column: 'b', op: 'is_null' as const },
        { column: 'c', op: 'between' as const, value: [1, ''] },
        { column: 'd', op: 'in' as const, value: [] },
        { column: 'e', op: 'gt' as const, value: 5 },
      ],
    };
    expect(effectiveFilter(filter).conditions.map((c) => c.column)).toEqual(['b', 'e']);
    expect(describeFilter(filter)).toBe('b is empty and e > 5');
    expect(isFiltered({ combine: 'and', conditions: [] })).toBe(false);
    expect(isFiltered({ combine: 'and', conditions: [], raw: { not: {} }, text: 'not x' })).toBe(true);
    expect(describeFilter({ combine: 'and', conditions: [], raw: {}, text: 'not x' })).toBe('not x');
  });
});

describe('display', () => {
  it('formats cells, widths and times', () => {
    expect(formatCell(null)).toBe('NULL');
    expect(shortType('timestamp with time zone')).toBe('timestamptz');
    expect(shortType('character varying(120)')).toBe('varchar(120)');
    expect(shortType('character(2)')).toBe('char(2)');
    expect(shortType('integer')).toBe('integer');
    expect(formatTyped('2026-10-03T14:05:09.000Z', 'timestamp with time zone')).toBe(
      '2026-10-03 14:05:09 UTC',
    );
    expect(formatTyped('2026-10-03T14:05:09.000Z', 'text')).toBe('2026-10-03T14:05:09.000Z');
    expect(formatCell({ a: 1 })).toBe('{"a":1}');
    expect(formatCell(undefined)).toBe('');
    // DynamoDB's tagged values read as values; a PostgreSQL jsonb of the same shape stays JSON.
    expect(formatTyped({ name: 'Ada', total: { N: '12.50' }, tags: { SS: ['a', 'b'] } }, 'M')).toBe(
      '{name: "Ada", total: 12.50, tags: <<"a", "b">>}',
    );
    expect(formatTyped({ N: '12.50' }, 'jsonb')).toBe('{"N":"12.50"}');
    expect(formatTyped([{ N: '1' }, 'x', null, true], 'L')).toBe('[1, "x", NULL, true]');
    expect(formatTyped({ NS: ['1', '2.5'] }, 'NS')).toBe('<<1, 2.5>>');
    expect(formatTyped({ B: 'AAEC' }, 'B')).toBe('b64"AAEC"');
    expect(formatTyped('00012.50', 'N')).toBe('00012.50');
    expect(formatCell('x'.repeat(600))).toHaveLength(501);
    expect(columnWidth({ name: 'id', type: 'integer' })).toBeLessThan(
      columnWidth({ name: 'id', type: 'text' }),
    );
    expect(columnWidth({ name: 'x'.repeat(100), type: 'text' })).toBe(360);
    const now = Date.parse('2026-01-01T12:00:00Z');
    expect(formatAgo('2026-01-01T11:59:58Z', now)).toBe('just now');
    expect(formatAgo('2026-01-01T11:55:00Z', now)).toBe('5 min ago');
    expect(formatAgo('2025-12-01T12:00:00Z', now)).toBe('2025-12-01 12:00:00 UTC');
  });

  // One format for every date the app shows, whatever form the value arrived in.
  it.each([
    ['2026-10-03T14:05:09.000Z', '2026-10-03 14:05:09 UTC'],
    ['2026-10-03T14:05:09Z', '2026-10-03 14:05:09 UTC'],
    ['2026-10-03T16:05:09.123456+02:00', '2026-10-03 14:05:09 UTC'], // PostgreSQL's to_jsonb of a timestamptz
    ['2026-10-03T09:05:09-05', '2026-10-03 14:05:09 UTC'],
    ['2026-10-03 14:05:09+00', '2026-10-03 14:05:09 UTC'], // PostgreSQL's text form
    ['2026-10-03T14:05:09.5', '2026-10-03 14:05:09'], // no zone: wall time, no UTC
    ['2026-10-03', '2026-10-03'],
    ['next tuesday', 'next tuesday'],
  ])('formatTimestamp(%j) is %j', (input, expected) => {
    expect(formatTimestamp(input)).toBe(expected);
  });

  it('shows a zone-less timestamp column by its wall time and a zoned one in UTC', () => {
    expect(formatTyped('2026-10-03T14:05:09.000Z', 'timestamp without time zone')).toBe(
      '2026-10-03 14:05:09',
    );
    expect(formatTyped('2026-10-03T16:05:09+02:00', 'timestamptz')).toBe('2026-10-03 14:05:09 UTC');
    expect(formatTyped('2026-10-03', 'date')).toBe('2026-10-03');
  });
});

describe('the readable form of DynamoDB values', () => {
  // What the grid, the record form and the workbench show, and what the editor reads back.
  it.each([
    [
      { name: 'Ada', total: { N: '12.50' }, tags: { SS: ['a', 'b'] } },
      '{name: "Ada", total: 12.50, tags: <<"a", "b">>}',
    ],
    [{ geo: { lat: { N: '45.764' }, lon: { N: '4.8357' } } }, '{geo: {lat: 45.764, lon: 4.8357}}'],
    [[{ N: '1' }, 'x', null, true, [{ N: '-2e5' }]], '[1, "x", NULL, true, [-2e5]]'],
    [{ NS: ['1', '123456789012345678901234567890'] }, '<<1, 123456789012345678901234567890>>'],
    [{ BS: ['AAEC'] }, '<<b64"AAEC">>'],
    [{ photo: { B: 'AAEC' } }, '{photo: b64"AAEC"}'],
    [{ 'with space': 'x', 'quote"d': 'y' }, '{"with space": "x", "quote\\"d": "y"}'],
    [{ M: { N: '5' } }, '{N: "5"}'],
    [{ M: { SS: { N: '1' } } }, '{SS: 1}'],
    [{}, '{}'],
    [[], '[]'],
  ])('%j reads as %s, and reads back', (value, text) => {
    expect(dynamoText(value)).toBe(text);
    expect(parseDynamoText(text)).toEqual(value);
  });

  it("takes PartiQL's single quotes and JSON's quoted keys too", () => {
    expect(parseDynamoText(`{'it''s': 'Ada''s', "n": 1}`)).toEqual({ "it's": "Ada's", n: { N: '1' } });
  });
});

describe('read badges', () => {
  it.each([
    [{ table: 'orders', operation: 'Scan', items: 120 }, 'Scan of orders · 120 items'],
    [
      { table: 'orders', operation: 'Query', index: 'by_customer', items: 1, capacity: 0.5 },
      'Query on orders index by_customer · 1 item · 0.5 RCU',
    ],
    [
      { table: 'customers', operation: 'BatchGetItem', items: 2500, capacity: 13 },
      'BatchGetItem on customers · 2,500 items · 13 RCU',
    ],
  ] as const)('%j → %s', (read, text) => {
    expect(readBadgeText(read)).toBe(text);
  });
});
