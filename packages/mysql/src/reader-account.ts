// The SELECT-only account reads run through, the third read layer: Toolrow cannot make a server's
// session read-only by a role (MySQL's and MariaDB's roles add rights, never remove them), so reads
// go through DATABASE_URL's own account, which holds this layer when it may only SELECT, and
// commits through TOOLROW_COMMIT_URL's. `toolrow db setup-roles` prints (or, with --apply, runs) the GRANTs.
import type { PoolConnection } from 'mysql2/promise';
import type { Flavor } from './server.ts';
import { quoteIdent } from './sql.ts';

export const READER_ACCOUNT = 'toolrow_reader';

/** Privileges that read and nothing else. */
const READ_PRIVILEGES = new Set(['SELECT', 'USAGE', 'SHOW VIEW']);

export interface AccountCheck {
  readOnly: boolean;
  /** What it may do beyond SELECT, when it may. */
  beyond: string[];
}

/** Whether the session's account may only read, from SHOW GRANTS (a granted role counts as unknown rights). */
export async function checkAccount(connection: PoolConnection): Promise<AccountCheck> {
  const [rows] = await connection.query({ sql: 'SHOW GRANTS', rowsAsArray: true });
  const beyond = new Set<string>();
  for (const [grant] of rows as string[][]) {
    const text = String(grant);
    const privileges = /^GRANT (.+?) ON /i.exec(text);
    if (!privileges) {
      if (/^GRANT /i.test(text)) beyond.add(`a role (${text.replace(/ TO .*/i, '').slice(6)})`);
      continue;
    }
    for (const privilege of privileges[1]!.split(/,\s*/)) {
      const name = privilege
        .replace(/\s*\(.*\)$/, '')
        .trim()
        .toUpperCase();
      if (!READ_PRIVILEGES.has(name)) beyond.add(name);
    }
    if (/WITH GRANT OPTION/i.test(text)) beyond.add('GRANT OPTION');
  }
  return { readOnly: beyond.size === 0, beyond: [...beyond] };
}

const literal = (text: string) => `'${text.replaceAll('\\', '\\\\').replaceAll("'", "''")}'`;

/** The SQL that makes the reader account: SELECT on the database alone. */
export function readerAccountSql(options: {
  account: string;
  host: string;
  database: string;
  password: string;
  flavor: Flavor;
}): string {
  const user = `${literal(options.account)}@${literal(options.host)}`;
  const identified =
    options.flavor === 'MySQL'
      ? `IDENTIFIED WITH caching_sha2_password BY ${literal(options.password)}`
      : `IDENTIFIED BY ${literal(options.password)}`;
  return [
    `CREATE USER IF NOT EXISTS ${user} ${identified};`,
    // Only SELECT, on this database only: no FILE, PROCESS, EXECUTE or any write.
    `GRANT SELECT ON ${quoteIdent(options.database)}.* TO ${user};`,
    '',
  ].join('\n');
}
