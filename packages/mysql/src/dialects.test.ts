// What differs between MySQL and MariaDB, as Toolrow writes it for each (MySQL 8 is not in Debian, so
// these are checked on the text sent, and the MariaDB half again against a server in engine.test.ts).
import { describe, expect, it } from 'vitest';
import { readerAccountSql } from './reader-account.ts';
import { timeLimitSql } from './server.ts';
import { PIN_SESSION } from './sql.ts';

describe('MySQL and MariaDB differences', () => {
  it.each([
    ['MariaDB', 1500, 'SET SESSION max_statement_time = 1.5'],
    ['MySQL', 1500, 'SET SESSION max_execution_time = 1500'],
    ['MariaDB', 0, 'SET SESSION max_statement_time = 0'],
    ['MySQL', 0, 'SET SESSION max_execution_time = 0'],
    ['MySQL', -5, 'SET SESSION max_execution_time = 0'],
  ] as const)('%s limits a read of %i ms with %s', (flavor, ms, sql) => {
    expect(timeLimitSql(flavor, ms)).toBe(sql);
  });

  it('the reader account is created with the server’s own password plugin, SELECT on one database', () => {
    const options = { account: 'toolrow_reader', host: '%', database: 'shop`x', password: "p'w\\" };
    expect(readerAccountSql({ ...options, flavor: 'MySQL' })).toBe(
      "CREATE USER IF NOT EXISTS 'toolrow_reader'@'%' IDENTIFIED WITH caching_sha2_password BY 'p''w\\\\';\nGRANT SELECT ON `shop``x`.* TO 'toolrow_reader'@'%';\n",
    );
    expect(readerAccountSql({ ...options, flavor: 'MariaDB' })).toContain("IDENTIFIED BY 'p''w\\\\';");
  });

  it('every session is pinned: quotes and backslashes as the check reads them, UTC, utf8mb4, no row cap', () => {
    expect(PIN_SESSION).toMatch(/sql_mode = '[A-Z_,]+'/);
    expect(PIN_SESSION).not.toMatch(/ANSI_QUOTES|NO_BACKSLASH_ESCAPES|PIPES_AS_CONCAT/);
    expect(PIN_SESSION).toMatch(/time_zone = '\+00:00'/);
    expect(PIN_SESSION).toMatch(/NAMES utf8mb4/);
    expect(PIN_SESSION).toMatch(/sql_select_limit = DEFAULT/);
  });
});
