// Quoting for MySQL and MariaDB: identifiers in backticks (a backtick inside doubled), never values
// (those are parameters). Every session pins sql_mode, so backticks and quotes mean what they say here.

export function quoteIdent(name: string): string {
  return `\`${name.replaceAll('`', '``')}\``;
}

/** `db`.`table`: every statement names its table with the connection's database. */
export function tableRef(table: { schema: string; name: string }): string {
  return `${quoteIdent(table.schema)}.${quoteIdent(table.name)}`;
}

/**
 * The session every Toolrow connection runs in, whatever the server's defaults say (they are hostile
 * input): quotes are strings and backslashes escape (the statement check and the driver read text
 * so; ANSI_QUOTES or NO_BACKSLASH_ESCAPES on the server would change what a quote ends), strict
 * types, UTC for TIMESTAMP, utf8mb4, no hidden row cap.
 */
export const SESSION_SQL_MODE =
  'STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION,NO_ZERO_IN_DATE,NO_ZERO_DATE';

export const PIN_SESSION = `SET SESSION sql_mode = '${SESSION_SQL_MODE}', SESSION time_zone = '+00:00', NAMES utf8mb4 COLLATE utf8mb4_unicode_ci, SESSION sql_select_limit = DEFAULT, SESSION autocommit = 1`;
