// SQLite's statement check (QueryRunner.check, the first read layer): the text read as SQLite's
// tokenizer reads it (quotes, identifiers, comments), one statement that begins as a read, and no
// word anywhere that writes, attaches, vacuums, sets a pragma or loads an extension. The tables it
// reads are SQLite's own answer (the authorizer, as the statement is prepared in a read worker).
import {
  DataSourceError,
  nearestNames,
  PLAIN_STATEMENT_ADVICE,
  type StatementAdvice,
} from '@toolrow/datasource';

/** Words that write or change the connection, refused wherever they stand outside quotes. */
const WRITE_WORDS = new Set([
  'INSERT',
  'UPDATE',
  'DELETE',
  'UPSERT',
  'CREATE',
  'DROP',
  'ALTER',
  'REINDEX',
  'ANALYZE',
  'BEGIN',
  'COMMIT',
  'ROLLBACK',
  'SAVEPOINT',
  'RELEASE',
  'RETURNING',
]);
/** Words that reach past the file or the connection's settings, each with what it would do. */
const OUTSIDE_WORDS: Record<string, string> = {
  ATTACH: 'ATTACH opens another database file',
  DETACH: 'DETACH changes the connection',
  VACUUM: 'VACUUM rewrites the database (VACUUM INTO writes a new file)',
  PRAGMA: "PRAGMA reads or changes the connection's settings",
  LOAD_EXTENSION: 'load_extension loads native code',
  READFILE: 'readfile reads a file of the server',
  WRITEFILE: 'writefile writes a file of the server',
};
const FIRST_WORDS = new Set(['SELECT', 'WITH', 'VALUES']);
/** Every word a SQLite statement may begin with (https://sqlite.org/lang.html). */
const STATEMENT_WORDS = new Set([
  ...FIRST_WORDS,
  'ALTER',
  'ANALYZE',
  'ATTACH',
  'BEGIN',
  'COMMIT',
  'CREATE',
  'DELETE',
  'DETACH',
  'DROP',
  'END',
  'EXPLAIN',
  'INSERT',
  'PRAGMA',
  'REINDEX',
  'RELEASE',
  'REPLACE',
  'ROLLBACK',
  'SAVEPOINT',
  'UPDATE',
  'UPSERT',
  'VACUUM',
]);

interface Token {
  word: string;
  at: number;
}

/** The words outside quotes and comments, upper-cased, and whether anything follows a semicolon. */
export function tokensOf(text: string): { words: Token[]; statements: number; nul: number; cut?: number } {
  const words: Token[] = [];
  let statements = 0;
  let cut: number | undefined;
  let pending = false;
  let i = 0;
  const n = text.length;
  while (i < n) {
    const char = text[i]!;
    const next = text[i + 1];
    if (char === '-' && next === '-') {
      const end = text.indexOf('\n', i);
      i = end === -1 ? n : end + 1;
    } else if (char === '/' && next === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end === -1 ? n : end + 2;
    } else if (char === "'" || char === '"' || char === '`') {
      // '' (or "", ``) inside is the quote itself; an unclosed quote runs to the end, as SQLite reads it.
      let j = i + 1;
      for (;;) {
        const close = text.indexOf(char, j);
        if (close === -1) {
          j = n;
          break;
        }
        if (text[close + 1] === char) j = close + 2;
        else {
          j = close + 1;
          break;
        }
      }
      if (!pending) statements++;
      pending = true;
      i = j;
    } else if (char === '[') {
      const end = text.indexOf(']', i);
      i = end === -1 ? n : end + 1;
      if (!pending) statements++;
      pending = true;
    } else if (char === ';') {
      if (pending && cut === undefined) cut = i;
      pending = false;
      i++;
    } else if (/[A-Za-z_\u0080-\uffff]/.test(char)) {
      let j = i + 1;
      while (j < n && /[A-Za-z0-9_$\u0080-\uffff]/.test(text[j]!)) j++;
      if (!pending) statements++;
      pending = true;
      words.push({ word: text.slice(i, j).toUpperCase(), at: i });
      i = j;
    } else {
      if (!/\s/.test(char)) {
        if (!pending) statements++;
        pending = true;
      }
      i++;
    }
  }
  return { words, statements, nul: text.indexOf('\u0000'), ...(cut === undefined ? {} : { cut }) };
}

function refused(message: string): DataSourceError {
  return new DataSourceError('permission', message);
}

/**
 * Checks `text` is one read: throws a DataSourceError ('permission') saying what to write instead.
 * Returns the statement without a trailing semicolon.
 */
export function checkSqliteText(text: string, advice: StatementAdvice = PLAIN_STATEMENT_ADVICE): string {
  const { words, statements, nul, cut } = tokensOf(text);
  if (nul !== -1)
    throw refused(
      `The query contains a NUL character (at character ${nul + 1}); remove it and send it again.`,
    );
  if (statements === 0) throw refused('The query is empty: send one SELECT statement.');
  if (statements > 1)
    throw refused(
      `Exactly one statement is accepted and this has ${statements}. Send them one at a time (each a read-only SELECT).`,
    );
  const first = words[0]?.word;
  if (first === 'EXPLAIN') throw refused(`EXPLAIN is refused here: ${advice.explain}.`);
  for (const { word, at } of words) {
    const outside = OUTSIDE_WORDS[word];
    if (outside) throw refused(`${outside}, and is refused (at character ${at + 1}). ${advice.write}`);
    if (WRITE_WORDS.has(word))
      throw refused(
        `${word} is refused (at character ${at + 1}): only one read-only SELECT (or WITH … SELECT, VALUES) is accepted. ${advice.write} A column named ${word.toLowerCase()} is written "${word.toLowerCase()}".`,
      );
  }
  // REPLACE is a write (INSERT OR REPLACE, REPLACE INTO) unless it is the function replace(…).
  for (const [index, { word, at }] of words.entries()) {
    if (word !== 'REPLACE') continue;
    const rest = text.slice(at + word.length).trimStart();
    if (!rest.startsWith('(') || words[index + 1]?.word === 'INTO')
      throw refused(`REPLACE is refused (at character ${at + 1}): it writes. ${advice.write}`);
  }
  // A first word that begins no statement at all is a typo, not a write: say what it is near.
  if (first && !STATEMENT_WORDS.has(first)) {
    const near = nearestNames(first, [...FIRST_WORDS], 1);
    throw refused(
      `SQL syntax error: '${text.slice(words[0]!.at, words[0]!.at + first.length)}' begins no SQLite statement (at character ${words[0]!.at + 1}).${near.length > 0 ? ` Did you mean ${near[0]}?` : ''} Send one read-only SELECT (or WITH … SELECT, VALUES).`,
    );
  }
  if (!first || !FIRST_WORDS.has(first))
    throw refused(
      `${first ?? 'This'} is refused: only one read-only SELECT (or WITH … SELECT, VALUES) is accepted. ${advice.write}`,
    );
  return (cut === undefined ? text : text.slice(0, cut)).trim();
}
