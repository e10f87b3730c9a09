// Which engine a connection needs, decided on its URL by the installed engines: each loads its
// drivers only when a connection of its own opens.
import { type DataSource, type OpenEngineOptions, openChecked } from '@toolrow/datasource';
import { installedEngines } from '@toolrow/engines';
import { resolveDataDir } from './state.ts';

/** The id of the engine a connection URL names. */
export function engineOfUrl(url: string): string {
  return installedEngines.forUrl(url, 'DATABASE_URL').id;
}

/** Opens a connection on the engine its URL names (DATABASE_URL when `url` is not given; neither: the default engine). */
export async function openEngine(options: OpenEngineOptions): Promise<DataSource> {
  const env = options.env ?? process.env;
  const url = options.url ?? (env.DATABASE_URL?.trim() || undefined);
  const engine =
    url === undefined
      ? installedEngines.fallback
      : installedEngines.forUrl(
          url,
          options.url !== undefined ? (options.urlSource ?? 'url') : 'DATABASE_URL',
        );
  return openChecked(engine, {
    ...options,
    dataDir: resolveDataDir({
      env,
      ...(options.cwd ? { cwd: options.cwd } : {}),
      ...(options.dataDir ? { dataDir: options.dataDir } : {}),
    }),
  });
}
