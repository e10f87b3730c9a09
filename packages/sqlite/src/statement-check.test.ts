import { describe, expect, it } from 'vitest';
import { checkSqliteText, tokensOf } from './statement-check.ts';

describe('the SQLite statement check', () => {
  it.each([
    ['select 1', 'select 1'],
    ['  SELECT * FROM books;  ', 'SELECT * FROM books'],
    ["select 'a;b' as x; -- done", "select 'a;b' as x"],
    ['with x as (select 1) select * from x', 'with x as (select 1) select * from x'],
    ['values (1), (2)', 'values (1), (2)'],
    ["select replace(title, 'a', 'b') from books", "select replace(title, 'a', 'b') from books"],
    ['select "update", [delete], `insert` from t', 'select "update", [delete], `insert` from t'],
    ["select 'drop table x; attach' /* vacuum */", "select 'drop table x; attach' /* vacuum */"],
  ])('lets %j through as %j', (text, statement) => {
    expect(checkSqliteText(text)).toBe(statement);
  });

  it.each([
    ['', /empty/],
    ['-- only a comment', /empty/],
    ['select 1; select 2', /one statement.*has 2/i],
    ['select 1; delete from t', /has 2/],
    ['delete from books', /DELETE is refused/],
    ["insert into books (isbn) values ('x')", /INSERT is refused/],
    ['update books set pages = 1', /UPDATE is refused/],
    ["replace into books (isbn) values ('x')", /REPLACE is refused/],
    ['with x as (select 1) delete from books', /DELETE is refused/],
    ["attach database '/tmp/x.db' as x", /ATTACH opens another database file/],
    ["vacuum into '/tmp/copy.db'", /VACUUM rewrites/],
    ['pragma query_only = off', /PRAGMA/],
    ["select load_extension('/tmp/x.so')", /load_extension loads native code/],
    ['explain select 1', /EXPLAIN is refused/],
    ['create table t (x)', /CREATE is refused/],
    ['begin', /BEGIN is refused/],
    ['select 1\u0000; drop table t', /NUL/],
    // A typo is a syntax error with the word it is near, never "a write".
    [
      'selec * from books',
      /^SQL syntax error: 'selec' begins no SQLite statement \(at character 1\)\. Did you mean SELECT\?/,
    ],
    [
      '  withh x as (select 1) select 1',
      /'withh' begins no SQLite statement \(at character 3\)\. Did you mean WITH\?/,
    ],
  ])('refuses %j', (text, message) => {
    expect(() => checkSqliteText(text)).toThrow(message);
  });

  it('reads quotes, identifiers and comments as SQLite does', () => {
    expect(tokensOf('select \'it\'\'s\', "a""b" -- x\n from t').words.map((token) => token.word)).toEqual([
      'SELECT',
      'FROM',
      'T',
    ]);
  });
});
