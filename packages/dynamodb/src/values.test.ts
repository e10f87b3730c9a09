// Items as rows and back, without DynamoDB: every attribute value Toolrow reads, it writes back as
// the same value (so an item it can read is an item it can change), and exports get plain JSON.
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { attributeJson, fromAttribute, itemJson, itemToRow, toAttribute } from './values.ts';

const bytes = (...values: number[]) => Buffer.from(values);

describe('an attribute read is the same attribute written back', () => {
  it.each<[string, AttributeValue]>([
    ['a string', { S: 'Ada' }],
    ['a number of 38 digits', { N: '12345678901234567890123456789012345678' }],
    ['a boolean', { BOOL: false }],
    ['NULL', { NULL: true }],
    ['binary', { B: bytes(0, 1, 2) }],
    ['a string set', { SS: ['a', 'b'] }],
    ['a number set', { NS: ['1', '2.5'] }],
    ['a binary set', { BS: [bytes(1), bytes(2, 3)] }],
    ['a list of mixed values', { L: [{ N: '1' }, { S: '1' }, { NULL: true }, { L: [] }] }],
    ['a nested map', { M: { geo: { M: { lat: { N: '45.764' } } }, tags: { SS: ['x'] } } }],
    // A map whose only key is a type name must not come back as that type.
    ['a map {"N": "5"}', { M: { N: { S: '5' } } }],
    ['a map {"SS": […]}', { M: { SS: { L: [{ S: 'a' }] } } }],
    ['a map {"M": {}}', { M: { M: { M: {} } } }],
    ['a map {"S": 1} in a list', { L: [{ M: { S: { N: '1' } } }] }],
    ['a map {"B": "AAEC"}', { M: { B: { S: 'AAEC' } } }],
    ['an empty map', { M: {} }],
  ])('%s', (_name, value) => {
    const row = fromAttribute(value);
    // The row value travels as JSON (to the app, to MCP clients, into the staging area).
    const travelled = JSON.parse(JSON.stringify(row));
    expect(toAttribute(travelled, 'a', [Object.keys(value)[0]!])).toEqual(value);
  });
});

describe('exports get plain JSON', () => {
  it('numbers keep their digits, sets are arrays, binary is base64, nothing is tagged', () => {
    const item: Record<string, AttributeValue> = {
      id: { N: '7' },
      big: { N: '123456789012345678901234567890.5' },
      tags: { SS: ['a', 'b'] },
      sizes: { NS: ['1', '2.5'] },
      photo: { B: bytes(0, 1, 2) },
      geo: { M: { lat: { N: '45.764' }, label: { S: 'Lyon' } } },
      gone: { NULL: true },
    };
    const text = itemJson(item);
    expect(text).toBe(
      '{"id":7,"big":123456789012345678901234567890.5,"tags":["a","b"],"sizes":[1,2.5],"photo":"AAEC","geo":{"lat":45.764,"label":"Lyon"},"gone":null}',
    );
    expect(JSON.parse(text)).toMatchObject({ id: 7, geo: { lat: 45.764 } });
    expect(attributeJson({ L: [{ BOOL: true }, { S: 'x"y' }] })).toBe('[true,"x\\"y"]');
  });
});

describe('a top-level value writes back as the type it was read as', () => {
  const table = {
    columns: [
      { name: 'total', type: 'N' },
      { name: 'code', type: 'N|S' },
      { name: 'name', type: 'S' },
    ],
  };
  it.each<[string, AttributeValue]>([
    ['total', { N: '12.5' }],
    ['name', { S: '12' }],
    // One attribute, a number in one item and a string in another: both come back as they were.
    ['code', { N: '12' }],
    ['code', { S: '12' }],
    ['code', { S: 'A-7' }],
    // An attribute the schema's sample never saw: its number stays a number.
    ['unseen', { N: '3' }],
    ['unseen', { S: '3' }],
  ])('%s %j', (name, value) => {
    const row = JSON.parse(JSON.stringify(itemToRow({ [name]: value }, table)));
    const types = table.columns.find((column) => column.name === name)?.type.split('|') ?? [];
    expect(toAttribute(row[name], name, types)).toEqual(value);
  });
});
