// A DynamoDB connection behind the engine-neutral DataSource: the schema from DescribeTable and a
// bounded sample, reads as Query or Scan, PartiQL SELECTs, staging's commits as transactions.

import { ListTablesCommand } from '@aws-sdk/client-dynamodb';
import {
  DataSourceError,
  type DataSourceWith,
  type EngineCache,
  type ReaderRoleStatus,
  type ReadLayer,
} from '@toolrow/datasource';
import { createDynamoChangeWriter } from './changes.ts';
import { type ClientLayerSwitches, createClients, signingKeyOf } from './clients.ts';
import { createDynamoExportEngine } from './exports.ts';
import { DYNAMODB_FEATURES } from './features.ts';
import { createPartiqlRunner } from './queries.ts';
import { MAX_ITEMS_READ } from './read-bound.ts';
import { createDynamoRowReader } from './rows.ts';
import type { KeyMap } from './schema.ts';
import { seedDynamoShop } from './seed.ts';
import { createSqlRunner, type SqlLayerSwitches } from './sql/runner.ts';
import { createDynamoSchemaCache } from './table-schemas.ts';
import { parseDynamoUrl } from './url.ts';

export interface OpenDynamoOptions {
  /** dynamodb://host:port?region=… or dynamodb://aws/<region>?profile=… */
  url: string;
  /** Where the URL came from, for errors ('DATABASE_URL', "the connection 'x'"). */
  urlSource?: string;
  /** The Toolrow data directory (absolute). */
  dataDir: string;
  /** Test switches: a read layer switched off, to test the others alone. */
  layers?: ClientLayerSwitches & SqlLayerSwitches;
  /** Where tables' schemas are kept across processes (Toolrow's state store). */
  cache?: EngineCache;
}

/** How long opening waits for DynamoDB to answer its first request. */
const OPEN_TIMEOUT_MS = 20_000;

/** An access key as a person recognises it without showing all of it: AKIA…WXYZ. */
function maskKey(key: string): string {
  return key.length <= 8 ? key : `${key.slice(0, 4)}…${key.slice(-4)}`;
}

export async function openDynamoDataSource(options: OpenDynamoOptions): Promise<DataSourceWith> {
  const target = parseDynamoUrl(options.url, options.urlSource ?? 'url');
  const clients = createClients(target, options.layers);
  const opening = AbortSignal.timeout(OPEN_TIMEOUT_MS);
  try {
    // Connect now: a wrong endpoint or missing credentials fail on open, saying which, and an
    // endpoint that never answers fails within the limit instead of holding the command.
    await clients.read.send(new ListTablesCommand({ Limit: 1 }), { abortSignal: opening });
  } catch (error) {
    clients.close();
    const message = opening.aborted
      ? `it did not answer within ${OPEN_TIMEOUT_MS / 1000} s`
      : (error as Error).message.replace(/\.$/, '');
    throw new DataSourceError(
      'connection',
      `Could not reach ${target.description} (${options.urlSource ?? 'url'}): ${message}. ${target.kind === 'local' ? 'Is DynamoDB Local running on that port?' : `Check the AWS profile${target.profile ? ` '${target.profile}'` : ''} (aws sts get-caller-identity${target.profile ? ` --profile ${target.profile}` : ''}) and the region.`}`,
      { cause: error },
    );
  }
  const keys: KeyMap = new Map();
  const schema = createDynamoSchemaCache(clients.read, keys, {
    ...(options.cache ? { cache: options.cache } : {}),
    // Another endpoint, region or key is another set of tables (DynamoDB Local keeps one per key).
    scope: async () =>
      `${target.endpoint ?? 'aws'} ${target.region} ${(await signingKeyOf(clients.read)).accessKeyId}`,
  });
  // SQL (DuckDB over what the read client fetches) is the query language; PartiQL is its second mode.
  const bound = target.maxItemsRead ?? MAX_ITEMS_READ;
  const sql = createSqlRunner(
    clients.read,
    schema,
    keys,
    createPartiqlRunner(clients.read, schema, keys, bound),
    options.layers ?? {},
    bound,
  );
  const readerRole: ReaderRoleStatus = {
    role: target.profile ?? '(the default AWS credentials)',
    state: target.commitProfile ? 'in-use' : 'missing',
    detail: target.commitProfile
      ? `reads use the AWS profile ${target.profile ?? '(default)'}, commits ${target.commitProfile}; give the read profile a read-only IAM policy (toolrow db setup-roles prints it)`
      : 'reads and commits use the same AWS credentials; name a read-only profile for reads and commitProfile= for commits',
  };
  let closed = false;
  const source: DataSourceWith = {
    engine: 'dynamodb',
    features: DYNAMODB_FEATURES,
    driver: 'dynamodb',
    description: target.description,
    schema,
    rows: createDynamoRowReader(clients.read, schema, keys, bound),
    queries: sql,
    changes: createDynamoChangeWriter(clients.read, () => clients.write(), schema, keys, target.description, {
      ...(target.versionAttribute ? { versionAttribute: target.versionAttribute } : {}),
    }),
    createExportEngine: (dir, jobs, exportOptions) =>
      createDynamoExportEngine(clients.read, schema, keys, dir, jobs, exportOptions, sql),
    async readLayers(): Promise<ReadLayer[]> {
      return [
        {
          layer: 'SQL statement check',
          active: options.layers?.statementCheck !== false,
          detail:
            "DuckDB's own parser: one SELECT, no file, table or system function (read_csv, glob, getenv …), no PartiQL index syntax",
        },
        {
          layer: 'SQL sandbox',
          active: options.layers?.sandbox !== false,
          detail:
            'DuckDB in this process with no file, network or extension access, its settings locked; it holds only what the read client fetched for the query',
        },
        {
          layer: 'PartiQL statement check',
          active: true,
          detail: 'one SELECT, no write word anywhere outside quotes, comments removed before it is sent',
        },
        {
          layer: 'read client allow-list',
          active: options.layers?.readAllowList !== false,
          detail:
            'the read client sends only ListTables, DescribeTable, DescribeTimeToLive, Scan, Query, GetItem, BatchGetItem and SELECT statements; anything else is refused before it leaves the process',
        },
        {
          layer: 'read-only AWS credentials',
          active: target.commitProfile !== undefined,
          detail: readerRole.detail,
        },
      ];
    },
    async connectionNotes() {
      const notes: string[] = [];
      const key = await signingKeyOf(clients.read).catch(() => undefined);
      if (key) {
        notes.push(
          key.standIn
            ? `Signs as DynamoDB Local's stand-in key ${key.accessKeyId}: there are no AWS credentials in the environment or ~/.aws${target.profile ? '' : ' (default profile)'}.`
            : `Signs as the access key ${maskKey(key.accessKeyId)}${target.profile ? ` of the AWS profile ${target.profile}` : ', from the AWS credentials of this environment'}.`,
        );
      }
      if (target.kind === 'local' && (await schema.get()).tables.length === 0) {
        notes.push(
          'DynamoDB Local keeps one database per access key unless it is started with -sharedDb: tables made with another key (another profile, NoSQL Workbench, an SDK with other credentials) are not seen here. Start it with -sharedDb, or sign in as the key that made them.',
        );
      }
      return notes;
    },
    async setUpReaderRole() {
      return readerRole;
    },
    dataDir: options.dataDir,
    async seed(seedOptions) {
      const result = await seedDynamoShop(clients.write(), seedOptions);
      if (!result.alreadySeeded) await schema.refresh();
      return result;
    },
    async close() {
      if (closed) return;
      closed = true;
      sql.close();
      clients.close();
    },
  };
  return source;
}
