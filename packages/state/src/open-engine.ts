// Which engine a connection needs, decided on its URL: DynamoDB's loads only for a dynamodb:// URL,
// PostgreSQL's (PGlite or pg) otherwise.
import type { DataSource } from '@toolrow/datasource';
import { type OpenDataSourceOptions, openDataSource } from '@toolrow/postgres';
import { resolveDataDir } from './state-impl.ts';

const DYNAMODB = /^dynamodb:/i;

/** The engine a connection URL names: DynamoDB for dynamodb://, PostgreSQL (or PGlite) otherwise. */
export function engineOfUrl(url: string): DataSource['engine'] {
  return DYNAMODB.test(url.trim()) ? 'dynamodb' : 'postgres';
}

/** Opens a connection on the engine its URL names (DATABASE_URL when `url` is not given). */
export async function openEngine(options: OpenDataSourceOptions): Promise<DataSource> {
  const env = options.env ?? process.env;
  const url = options.url ?? (env.DATABASE_URL?.trim() || undefined);
  if (url !== undefined && engineOfUrl(url) === 'dynamodb') {
    const { openDynamoDataSource } = await import('@toolrow/dynamodb');
    return openDynamoDataSource({
      url,
      urlSource: options.url !== undefined ? (options.urlSource ?? 'the url option') : 'DATABASE_URL',
      dataDir: resolveDataDir({
        env,
        ...(options.cwd ? { cwd: options.cwd } : {}),
        ...(options.dataDir ? { dataDir: options.dataDir } : {}),
      }),
    });
  }
  return openDataSource(options);
}
