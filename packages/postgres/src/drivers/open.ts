import { isAbsolute, join, resolve } from 'node:path';
import { DataSourceError } from '@toolrow/datasource';
import { ensurePrivateDir, ownerOnlyTree } from '@toolrow/datasource-utils';
import type { ConnectionConfig, Database, OpenDatabaseOptions } from '../database.ts';
import { CoreDatabase } from './core.ts';
import { parsePostgresUrl } from './postgres-url.ts';

export const DEFAULT_DATA_DIR = '.toolrow';

function resolveDataDir(options: OpenDatabaseOptions): string {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const dir = options.dataDir ?? (env.TOOLROW_DATA_DIR?.trim() || DEFAULT_DATA_DIR);
  return isAbsolute(dir) ? dir : resolve(cwd, dir);
}

/** Decides the engine: url option, else DATABASE_URL (postgres:// or postgresql://), else PGlite in the data dir. */
export function resolveConnectionConfig(options: OpenDatabaseOptions = {}): ConnectionConfig {
  const env = options.env ?? process.env;
  const dataDir = resolveDataDir(options);
  if (options.url !== undefined) {
    parsePostgresUrl(options.url, options.urlSource ?? 'the url option');
    return { engine: 'postgres', url: options.url, dataDir, source: 'option' };
  }
  const fromEnv = env.DATABASE_URL?.trim();
  if (fromEnv) {
    parsePostgresUrl(fromEnv, 'DATABASE_URL');
    return { engine: 'postgres', url: fromEnv, dataDir, source: 'DATABASE_URL' };
  }
  return { engine: 'pglite', dataDir, memory: options.memory === true };
}

/** Opens the connection (no migrations: openDataSource runs those). */
export async function openDatabase(options: OpenDatabaseOptions = {}): Promise<Database> {
  const config = resolveConnectionConfig(options);
  if (config.engine === 'postgres') {
    // pg loads only when a server is opened: the embedded database never pays for it.
    const { openPostgres } = await import('./postgres.ts');
    const adapter = await openPostgres({
      url: config.url,
      source: config.source === 'option' ? (options.urlSource ?? 'the url option') : 'DATABASE_URL',
      ...(options.poolSize !== undefined ? { poolSize: options.poolSize } : {}),
    });
    return new CoreDatabase(adapter);
  }
  // PGlite's code loads only when it runs: a command over a server never pays for it.
  const { openPglite } = await import('./pglite.ts');
  if (config.memory) {
    const settings = options.embeddedSettings ? { settings: options.embeddedSettings } : {};
    if (options.loadDataDir)
      return new CoreDatabase(
        await openPglite({ dataDirSource: 'memory', loadDataDir: options.loadDataDir, ...settings }),
      );
    // From the cached empty cluster (made once): no initdb, and some 300 MB less resident.
    const { emptyCluster, forgetEmptyCluster } = await import('./empty-cluster.ts');
    const cluster = await emptyCluster(options.env ?? process.env);
    if (cluster) {
      try {
        return new CoreDatabase(
          await openPglite({ dataDirSource: 'memory', loadDataDir: cluster, ...settings }),
        );
      } catch {
        await forgetEmptyCluster(options.env ?? process.env);
      }
    }
    return new CoreDatabase(await openPglite({ dataDirSource: 'memory', ...settings }));
  }
  const dataDirSource =
    options.pgdataSource ?? (options.dataDir !== undefined ? 'the dataDir option' : 'TOOLROW_DATA_DIR');
  if (!config.dataDir) throw new DataSourceError('config', `${dataDirSource} is empty.`);
  await ensurePrivateDir(config.dataDir, 'The Toolrow data directory');
  const engineOptions = {
    pgdata: options.pgdata ?? join(config.dataDir, 'pgdata'),
    dataDirSource,
    ...(options.loadDataDir ? { loadDataDir: options.loadDataDir } : {}),
    ...(options.embeddedSettings ? { settings: options.embeddedSettings } : {}),
  };
  const adapter =
    options.worker === false
      ? await openPglite(engineOptions)
      : await (await import('./pglite-thread.ts')).openPgliteThread(engineOptions);
  // PGlite's file layer creates every file 0666 whatever the umask. The 0700 data dir already
  // keeps other accounts out; the cluster's own files are made owner-only too, at open and at close.
  await ownerOnlyTree(engineOptions.pgdata);
  const close = adapter.close.bind(adapter);
  adapter.close = async () => {
    await close();
    await ownerOnlyTree(engineOptions.pgdata).catch(() => {});
  };
  return new CoreDatabase(adapter);
}
