// The PostgreSQL engine as the apps see it: postgres:// servers and pglite:<directory> databases.
import { isAbsolute, resolve } from 'node:path';
import type { EngineDescriptor, OpenEngineOptions, ParsedConnectionUrl } from '@toolrow/datasource/engine';
import { DataSourceError } from '@toolrow/datasource/errors';
import { describeUrl, parsePostgresUrl } from './drivers/postgres-url.ts';
import { POSTGRES_FEATURES } from './features.ts';
import type { OpenDataSourceOptions } from './sql-source.ts';

const PGLITE = /^pglite:(?:\/\/)?/i;

function parseUrl(raw: string, { cwd, field }: { cwd: string; field: string }): ParsedConnectionUrl {
  const text = raw.trim();
  if (PGLITE.test(text)) {
    const rest = text.replace(PGLITE, '');
    if (rest === '')
      throw new DataSourceError('config', `${field}: pglite: needs a directory, as in pglite:./sample-db.`);
    const path = isAbsolute(rest) ? rest : resolve(cwd, rest);
    return { driver: 'pglite', url: `pglite:${path}`, description: `PGlite ${path}` };
  }
  const url = parsePostgresUrl(text, field);
  const password = url.password ? decodeURIComponent(url.password) : undefined;
  url.password = '';
  return {
    driver: 'postgres',
    url: url.href,
    description: `PostgreSQL ${describeUrl(url)}`,
    ...(password !== undefined ? { password } : {}),
  };
}

/** What openDataSource takes for the engine-neutral options: a pglite: URL is a data directory. */
function dataSourceOptions(options: OpenEngineOptions): OpenDataSourceOptions {
  const { password, url: given, urlSource, ...rest } = options as OpenEngineOptions & OpenDataSourceOptions;
  const env = options.env ?? process.env;
  const url = given ?? (env.DATABASE_URL?.trim() || undefined);
  const source = given !== undefined ? (urlSource ?? 'the url option') : 'DATABASE_URL';
  if (url === undefined) return rest;
  if (PGLITE.test(url)) {
    const { url: stored } = parseUrl(url, { cwd: options.cwd ?? process.cwd(), field: source });
    const pgdata = stored.slice('pglite:'.length);
    return {
      ...rest,
      env: { ...env, DATABASE_URL: undefined },
      pgdata,
      pgdataSource: `${source} (${pgdata})`,
    };
  }
  if (password === undefined) return { ...rest, url, urlSource: source };
  const withPassword = new URL(url);
  withPassword.password = encodeURIComponent(password);
  return { ...rest, url: withPassword.href, urlSource: source };
}

export const postgresEngine: EngineDescriptor = {
  id: 'postgres',
  label: 'PostgreSQL',
  drivers: [
    { id: 'pglite', label: 'PGlite', embedded: true },
    { id: 'postgres', label: 'PostgreSQL', credentials: 'env/.pgpass' },
  ],
  schemes: ['postgres', 'postgresql', 'pglite'],
  urlForms:
    'postgres://user@host:5432/database (or postgresql://), pglite:<directory> for an embedded database',
  opensWithoutUrl: true,
  features: POSTGRES_FEATURES,
  parseUrl,
  // The engine's code loads when a connection opens: listing the engines stays cheap.
  open: async (options) => (await import('./open-data-source.ts')).openDataSource(dataSourceOptions(options)),
  async readLayerSetup(options) {
    const { flags } = options;
    const { openDataSource } = await import('./open-data-source.ts');
    const { hardeningSql, READER_ROLE, readerRoleSql, userSchemas } = await import('./reader-role.ts');
    const open = dataSourceOptions(options);
    const named = options.url !== undefined;
    if (open.url === undefined) {
      const where = named
        ? `This connection is embedded PGlite (${open.pgdata})`
        : 'Your data is embedded PGlite';
      return {
        text: `${where}: Toolrow sets up the reader role (${READER_ROLE}, SELECT only, hardened) itself. Nothing to do.\n`,
      };
    }
    const env = options.env ?? process.env;
    const role = (flags.role as string | undefined) ?? (env.TOOLROW_READER_ROLE?.trim() || READER_ROLE);
    let grantee = flags.grantee as string | undefined;
    if (grantee === undefined) {
      try {
        grantee = decodeURIComponent(new URL(open.url).username) || undefined;
      } catch {
        grantee = undefined;
      }
    }
    // The unnamed connection's commits may go through another login; a named one has only its own.
    const commitUrl = named ? undefined : env.TOOLROW_COMMIT_URL?.trim();
    // The role may not exist yet: open without asking for it.
    const ds = await openDataSource({
      ...open,
      env: { ...env, TOOLROW_READER_ROLE: '' },
      ...(commitUrl ? { url: commitUrl, urlSource: 'TOOLROW_COMMIT_URL' } : {}),
    });
    try {
      const schemas = await userSchemas(ds.db);
      const sql =
        readerRoleSql({ role, schemas, ...(grantee ? { grantee } : {}) }) +
        (flags['no-harden'] ? '' : hardeningSql());
      if (!flags.apply) {
        return {
          text: sql,
          advice: `Run this as the owner of your tables (psql "$DATABASE_URL" -f …), or again with --apply. Then \`toolrow db info\` shows the reader role in use.`,
        };
      }
      try {
        await ds.db.exec(sql);
      } catch (error) {
        throw new DataSourceError(
          'permission',
          `Could not set up the reader role through ${ds.description}: ${(error as Error).message}. Run the SQL (toolrow db setup-roles, without --apply) as a user that may create roles and grant on your tables, or point TOOLROW_COMMIT_URL at one.`,
          { cause: error },
        );
      }
      return {
        text: `Set up ${role} on ${ds.description}: SELECT on ${schemas.join(', ') || 'no schema yet'}${grantee ? `, granted to ${grantee}` : ''}${flags['no-harden'] ? '' : ', hardened'}.\n`,
      };
    } finally {
      await ds.close();
    }
  },
};
