// The DynamoDB engine as the apps see it: dynamodb:// URLs, a local endpoint or AWS in a region.
// The AWS SDK loads when a connection opens, not when the apps list the engines.
import { isAbsolute, resolve } from 'node:path';
import type { EngineDescriptor } from '@toolrow/datasource/engine';
import { DataSourceError } from '@toolrow/datasource/errors';
import { DYNAMODB_FEATURES } from './features.ts';
import { MAX_ITEMS_READ } from './read-bound.ts';
import { parseDynamoUrl } from './url.ts';

export const dynamodbEngine: EngineDescriptor = {
  id: 'dynamodb',
  label: 'DynamoDB',
  drivers: [{ id: 'dynamodb', label: 'DynamoDB' }],
  schemes: ['dynamodb'],
  urlForms: 'dynamodb://127.0.0.1:8000?region=us-east-1 / dynamodb://aws/<region>?profile=<aws profile>',
  features: DYNAMODB_FEATURES,
  readBound: { setting: 'maxItemsRead', default: MAX_ITEMS_READ },
  parseUrl(url, { field }) {
    // A DynamoDB URL holds no secret: its credentials are the AWS profile's.
    const target = parseDynamoUrl(url, field);
    return { driver: 'dynamodb', url: target.url, description: target.description };
  },
  async open(options) {
    const env = options.env ?? process.env;
    const url = options.url ?? env.DATABASE_URL?.trim();
    if (!url)
      throw new DataSourceError('config', `A DynamoDB connection needs its URL: ${dynamodbEngine.urlForms}.`);
    const dir = options.dataDir ?? (env.TOOLROW_DATA_DIR?.trim() || '.toolrow');
    const { openDynamoDataSource } = await import('./source.ts');
    return openDynamoDataSource({
      url,
      urlSource: options.url !== undefined ? (options.urlSource ?? 'the url option') : 'DATABASE_URL',
      dataDir: isAbsolute(dir) ? dir : resolve(options.cwd ?? process.cwd(), dir),
      ...(options.layers ? { layers: options.layers as never } : {}),
      ...(options.cache ? { cache: options.cache } : {}),
    });
  },
  async readLayerSetup(options) {
    const env = options.env ?? process.env;
    const { iamPolicies } = await import('./iam.ts');
    const target = parseDynamoUrl(options.url ?? env.DATABASE_URL ?? '', options.urlSource ?? 'DATABASE_URL');
    const policies = iamPolicies(target);
    return {
      text: `# Read profile${target.profile ? ` (${target.profile})` : ''}: reads only. Attach to the IAM user or role of that profile.\n${JSON.stringify(policies.read, null, 2)}\n\n# Commit profile${target.commitProfile ? ` (${target.commitProfile})` : ' (name it with commitProfile= in the URL)'}: the conditional writes of a commit.\n${JSON.stringify(policies.commit, null, 2)}\n`,
      advice:
        'Narrow Resource to your tables. Toolrow cannot see IAM: `toolrow connections test` reports this layer on once the URL names both profiles.',
    };
  },
};
