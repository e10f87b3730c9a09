// Which engine a connection needs, decided on its URL: DynamoDB's loads only for a dynamodb:// URL,
// PostgreSQL's (PGlite or pg) otherwise.
import { type DataSource, type OpenDataSourceOptions, openDataSource } from '@toolrow/datasource';
import { resolveDataDir } from './state-impl.ts';

const DYNAMODB = /^dynamodb:/i;

export async function openEngine(options: OpenDataSourceOptions): Promise<DataSource> {
  const env = options.env ?? process.env;
  const url = options.url ?? (env.DATABASE_URL?.trim() || undefined);
  if (url !== undefined && DYNAMODB.test(url)) {
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
