// Tables and items written with the AWS SDK alone, as another tool (the AWS CLI, NoSQL Workbench,
// an application) makes them: what a test then reads through Toolrow is data Toolrow did not write.
// It signs with the key Toolrow signs with on this machine (DynamoDB Local keeps a database per key).
import {
  type AttributeValue,
  BatchWriteItemCommand,
  CreateTableCommand,
  DynamoDBClient,
  waitUntilTableExists,
} from '@aws-sdk/client-dynamodb';
import { LOCAL_STAND_IN_KEY } from '../src/clients.ts';
import { parseDynamoUrl } from '../src/url.ts';

export function bareClient(url: string): DynamoDBClient {
  const target = parseDynamoUrl(url);
  return new DynamoDBClient({
    region: target.region,
    ...(target.endpoint ? { endpoint: target.endpoint } : {}),
    credentials: process.env.AWS_ACCESS_KEY_ID
      ? {
          accessKeyId: process.env.AWS_ACCESS_KEY_ID,
          secretAccessKey: process.env.AWS_SECRET_ACCESS_KEY ?? '',
        }
      : LOCAL_STAND_IN_KEY,
  });
}

export interface BareTable {
  name: string;
  /** Partition key, then the sort key if any: each with its DynamoDB type. */
  key: [string, 'S' | 'N'][];
  /** Global secondary indexes by name: their partition key and its type (projection ALL). */
  indexes?: Record<string, [string, 'S' | 'N']>;
  items?: Record<string, AttributeValue>[];
}

/** Creates each table, then writes its items with BatchWriteItem, 25 a request, 8 in flight. */
export async function writeTables(client: DynamoDBClient, tables: readonly BareTable[]): Promise<void> {
  for (const table of tables) {
    const definitions = new Map([...table.key, ...Object.values(table.indexes ?? {})]);
    await client.send(
      new CreateTableCommand({
        TableName: table.name,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [...definitions].map(([name, type]) => ({
          AttributeName: name,
          AttributeType: type,
        })),
        KeySchema: table.key.map(([name], index) => ({
          AttributeName: name,
          KeyType: index === 0 ? 'HASH' : 'RANGE',
        })),
        ...(table.indexes && Object.keys(table.indexes).length > 0
          ? {
              GlobalSecondaryIndexes: Object.entries(table.indexes).map(([name, [key]]) => ({
                IndexName: name,
                KeySchema: [{ AttributeName: key, KeyType: 'HASH' }],
                Projection: { ProjectionType: 'ALL' },
              })),
            }
          : {}),
      }),
    );
  }
  for (const table of tables)
    await waitUntilTableExists({ client, maxWaitTime: 60 }, { TableName: table.name });
  const batches = tables.flatMap((table) => {
    const items = table.items ?? [];
    return Array.from({ length: Math.ceil(items.length / 25) }, (_, at) => ({
      table: table.name,
      items: items.slice(at * 25, at * 25 + 25),
    }));
  });
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < batches.length) {
        const { table, items } = batches[next++]!;
        let requests = items.map((Item) => ({ PutRequest: { Item } }));
        while (requests.length > 0) {
          const answer = await client.send(
            new BatchWriteItemCommand({ RequestItems: { [table]: requests } }),
          );
          requests = (answer.UnprocessedItems?.[table] as typeof requests | undefined) ?? [];
        }
      }
    }),
  );
}

/** A plain row as DynamoDB items hold it: numbers as N, everything else as S. */
export function itemOf(row: Record<string, string | number>): Record<string, AttributeValue> {
  return Object.fromEntries(
    Object.entries(row).map(([name, value]) => [
      name,
      typeof value === 'number' ? { N: String(value) } : { S: value },
    ]),
  );
}
