// The MySQL engine as the apps see it: mysql:// and mariadb:// servers (either server behind either
// scheme: the flavor is read from the server). mysql2 loads when a connection opens, not when the
// apps list the engines.
import type { EngineDescriptor, OpenEngineOptions } from '@toolrow/datasource/engine';
import { DataSourceError } from '@toolrow/datasource/errors';
import { MYSQL_FEATURES } from './features.ts';
import { MYSQL_URL_FORMS, type MysqlAddress, mysqlAddressOf, parseMysqlUrl } from './url.ts';

interface Resolved {
  address: MysqlAddress;
  field: string;
  commitUrl?: string;
}

/** The URL an open names (its own, else DATABASE_URL), with its password and the commit account. */
function resolve(options: OpenEngineOptions): Resolved {
  const env = options.env ?? process.env;
  const url = options.url ?? env.DATABASE_URL?.trim();
  const field = options.url !== undefined ? (options.urlSource ?? 'url') : 'DATABASE_URL';
  if (!url) throw new DataSourceError('config', `A MySQL connection needs its URL: ${MYSQL_URL_FORMS}.`);
  const address = mysqlAddressOf(url, field);
  const password = options.password ?? address.password ?? (env.MYSQL_PWD || undefined);
  // The unnamed connection's commits may go through another account; a named one has only its own.
  const commitUrl =
    (options.commitUrl as string | undefined) ??
    (options.url === undefined ? env.TOOLROW_COMMIT_URL?.trim() || undefined : undefined);
  return {
    address: { ...address, ...(password !== undefined ? { password } : {}) },
    field,
    ...(commitUrl ? { commitUrl } : {}),
  };
}

export const mysqlEngine: EngineDescriptor = {
  id: 'mysql',
  label: 'MySQL',
  drivers: [{ id: 'mysql', label: 'MySQL/MariaDB', credentials: 'env MYSQL_PWD' }],
  schemes: ['mysql', 'mariadb'],
  urlForms: MYSQL_URL_FORMS,
  features: MYSQL_FEATURES,
  parseUrl: parseMysqlUrl,
  async open(options) {
    const { address, field, commitUrl } = resolve(options);
    const { openMysqlDataSource } = await import('./source.ts');
    return openMysqlDataSource({
      address,
      field,
      ...(commitUrl ? { commitUrl } : {}),
      ...(options.dataDir ? { dataDir: options.dataDir } : {}),
      ...(options.mysqlLayers ? { layers: options.mysqlLayers as never } : {}),
    });
  },
  async readLayerSetup(options) {
    const { address, field, commitUrl } = resolve(options);
    const { openServer, ALL_LAYERS } = await import('./server.ts');
    const { READER_ACCOUNT, readerAccountSql } = await import('./reader-account.ts');
    const { randomBytes } = await import('node:crypto');
    const account = (options.flags.role as string | undefined) ?? READER_ACCOUNT;
    const host = (options.flags.grantee as string | undefined) ?? '%';
    const through = commitUrl ? { ...mysqlAddressOf(commitUrl, 'TOOLROW_COMMIT_URL') } : address;
    const server = await openServer({
      address: through,
      layers: ALL_LAYERS,
      field: commitUrl ? 'TOOLROW_COMMIT_URL' : field,
    });
    try {
      const apply = Boolean(options.flags.apply);
      const password = apply ? randomBytes(18).toString('base64url') : '<choose a password>';
      const sql = readerAccountSql({
        account,
        host,
        database: address.database,
        password,
        flavor: server.flavor,
      });
      const readerUrl = `${address.scheme}://${encodeURIComponent(account)}:${apply ? password : '<password>'}@${address.host.includes(':') ? `[${address.host}]` : address.host}:${address.port}/${encodeURIComponent(address.database)}`;
      if (!apply)
        return {
          text: sql,
          advice: `Run this as an account that may create users and grant on ${address.database} (mariadb/mysql client), or again with --apply. Then read through it (DATABASE_URL=${readerUrl}) and commit through your own (TOOLROW_COMMIT_URL); \`toolrow db info\` shows the layer on.`,
        };
      try {
        await server.withSession(async (connection) => {
          for (const statement of sql.split(';\n').filter((each) => each.trim() !== ''))
            await connection.query(statement);
        });
      } catch (error) {
        throw new DataSourceError(
          'permission',
          `Could not set up ${account} through ${through.user}@${through.host}: ${(error as Error).message}. Run the SQL (toolrow db setup-roles, without --apply) as an account that may create users, or point TOOLROW_COMMIT_URL at one.`,
          { cause: error },
        );
      }
      return {
        text: `Set up ${account}@${host}: SELECT on ${address.database} only. Read through it with DATABASE_URL=${readerUrl} and commit through your own account in TOOLROW_COMMIT_URL (the password is shown this once).\n`,
      };
    } finally {
      await server.close();
    }
  },
};
