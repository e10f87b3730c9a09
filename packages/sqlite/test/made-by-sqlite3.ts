// A database file made by another tool: the sqlite3 shell (Debian's package), as a user's would be.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

/** A small library: authors, books (a foreign key), loans (a composite key), a view, a blob, a big integer. */
export const LIBRARY_SQL = `
PRAGMA foreign_keys = ON;
CREATE TABLE authors (id INTEGER PRIMARY KEY, name TEXT NOT NULL, country TEXT);
CREATE TABLE books (
  isbn TEXT PRIMARY KEY,
  title TEXT NOT NULL,
  author_id INTEGER NOT NULL REFERENCES authors (id) ON DELETE CASCADE,
  pages INTEGER,
  price NUMERIC,
  cover BLOB,
  views INTEGER
);
CREATE INDEX books_author ON books (author_id);
CREATE TABLE loans (book TEXT NOT NULL REFERENCES books (isbn), member INTEGER NOT NULL, since TEXT NOT NULL, PRIMARY KEY (book, member));
CREATE VIEW long_books AS SELECT isbn, title FROM books WHERE pages > 300;
INSERT INTO authors VALUES (1, 'Ursula K. Le Guin', 'US'), (2, 'Italo Calvino', 'IT'), (3, 'Stanisław Lem', 'PL');
INSERT INTO books VALUES
  ('978-0441478125', 'The Left Hand of Darkness', 1, 304, 9.99, X'CAFE', 9007199254740993),
  ('978-0156439619', 'Invisible Cities', 2, 165, 12.5, NULL, 42),
  ('978-0156001595', 'If on a winter''s night a traveler', 2, 260, 14, NULL, 7),
  ('978-0156027601', 'Solaris', 3, 204, 11.25, NULL, 0);
INSERT INTO loans VALUES ('978-0156439619', 7, '2026-11-02'), ('978-0156027601', 7, '2026-11-20'), ('978-0156027601', 9, '2026-12-01');
`;

/** Runs the sqlite3 shell on a new file in `dir` and returns its path. */
export function makeLibrary(dir: string, name = 'library.db'): string {
  const path = join(dir, name);
  execFileSync('sqlite3', [path], { input: LIBRARY_SQL });
  return path;
}
