// Test helper: a fresh database of its own on the server an admin URL names (the MariaDB server
// scripts/ci-mariadb.sh starts), dropped on drop(), and SQL run as that admin, as another tool would.
import { randomInt } from 'node:crypto';
import mysql from 'mysql2/promise';
import { mysqlAddressOf } from './url.ts';

export interface MysqlTestDatabase {
  /** The database's URL, with the admin's password (mariadb://…/toolrow_m_…). */
  url: string;
  name: string;
  /** Runs statements as the admin, in the database (several per call; no results). */
  admin(sql: string, values?: unknown[]): Promise<unknown>;
  drop(): Promise<void>;
}

export async function createMysqlTestDatabase(
  adminUrl: string,
  prefix = 'toolrow_m_',
): Promise<MysqlTestDatabase> {
  const address = mysqlAddressOf(adminUrl, 'TOOLROW_TEST_MARIADB_URL');
  const name = `${prefix}${randomInt(1_000_000_000)}`;
  const connection = await mysql.createConnection({
    host: address.host,
    port: address.port,
    user: address.user,
    ...(address.password !== undefined ? { password: address.password } : {}),
    multipleStatements: true,
    supportBigNumbers: true,
    dateStrings: true,
  });
  await connection.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
  await connection.query(`USE \`${name}\``);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  let dropped = false;
  return {
    url: url.href,
    name,
    async admin(sql, values) {
      const [result] = await connection.query(sql, values);
      return result;
    },
    async drop() {
      if (dropped) return;
      dropped = true;
      await connection.query(`DROP DATABASE IF EXISTS \`${name}\``).catch(() => {});
      await connection.end().catch(() => {});
    },
  };
}
