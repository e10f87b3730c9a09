import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { csvCell, csvRecords, jsonArrayRecords, ndjsonRecords } from './export-format.ts';
import { inlineParams } from './sql-inline.ts';

/** Feeds `text` in pieces cut at `cuts` and joins what comes out. */
function feed(
  take: (chunk: Uint8Array) => { bytes: Uint8Array; rows: number },
  text: string,
  cuts: number[],
) {
  const bytes = Buffer.from(text);
  const points = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b);
  const out: Buffer[] = [];
  let rows = 0;
  let start = 0;
  for (const point of [...points, bytes.length]) {
    const piece = take(bytes.subarray(start, point));
    out.push(Buffer.from(piece.bytes));
    rows += piece.rows;
    start = point;
  }
  return { text: Buffer.concat(out).toString(), rows };
}

const cell = fc.oneof(
  fc.string(),
  fc.constantFrom('', '"', '""', ',', '\n', '\r\n', 'a"b\nc', 'ünï 😀', '\\N', '\\.'),
);

describe('csvRecords', () => {
  it('property: LF record ends become CRLF, LFs inside quoted cells stay, wherever the chunks are cut', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(cell, { minLength: 1, maxLength: 4 }), { maxLength: 6 }),
        fc.array(fc.nat(), { maxLength: 8 }),
        (records, cuts) => {
          const lf = records.map((record) => `${record.map((value) => csvCell(value)).join(',')}\n`).join('');
          const crlf = records
            .map((record) => `${record.map((value) => csvCell(value)).join(',')}\r\n`)
            .join('');
          expect(feed(csvRecords(), lf, cuts)).toEqual({ text: crlf, rows: records.length });
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('jsonArrayRecords and ndjsonRecords', () => {
  it('property: JSON lines become one array laid out as before, wherever the chunks are cut', () => {
    fc.assert(
      fc.property(
        fc.array(fc.dictionary(fc.string({ maxLength: 3 }), fc.oneof(fc.string(), fc.integer())), {
          maxLength: 5,
        }),
        fc.array(fc.nat(), { maxLength: 8 }),
        (objects, cuts) => {
          const lines = objects.map((object) => `${JSON.stringify(object)}\n`).join('');
          const array = jsonArrayRecords();
          const body = feed(array.take, lines, cuts);
          const text = array.header + body.text + array.footer();
          expect(JSON.parse(text)).toEqual(objects);
          expect(text).toBe(
            objects.length === 0
              ? '[]\n'
              : `[\n${objects.map((object) => JSON.stringify(object)).join(',\n')}\n]\n`,
          );
          expect(body.rows).toBe(objects.length);
          expect(feed(ndjsonRecords(), lines, cuts)).toEqual({ text: lines, rows: objects.length });
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('inlineParams', () => {
  it('replaces $n in code only, as literals the server reads back as the values', () => {
    expect(
      inlineParams(
        `SELECT '$1', E'\\'$1', "$1", $$ $1 $$, $tag$ $2 $tag$, a$1, $1, $2 -- $1\n/* $2 /* $1 */ */ $10`,
        ["it's", null, 3, 4, 5, 6, 7, 8, 9, 'ten\\'],
      ),
    ).toBe(
      `SELECT '$1', E'\\'$1', "$1", $$ $1 $$, $tag$ $2 $tag$, a$1, 'it''s', NULL -- $1\n/* $2 /* $1 */ */ E'ten\\\\'`,
    );
    expect(inlineParams('SELECT $1::int[]', [[1, null, 3]])).toBe(`SELECT '{"1",NULL,"3"}'::int[]`);
    expect(() => inlineParams('SELECT $2', [1])).toThrow(/uses \$2 but 1 parameter was given/);
    expect(inlineParams('SELECT $1', [])).toBe('SELECT $1');
  });
});
