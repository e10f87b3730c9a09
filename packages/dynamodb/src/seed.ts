// The sample shop in DynamoDB: the same generator as on PostgreSQL, written as items (a null is an
// absent attribute), with the keys and indexes a DynamoDB shop would have.
import {
  type AttributeValue,
  BatchWriteItemCommand,
  CreateTableCommand,
  type CreateTableCommandInput,
  DeleteTableCommand,
  DescribeTableCommand,
  type DynamoDBClient,
  ScanCommand,
  waitUntilTableExists,
  waitUntilTableNotExists,
} from '@aws-sdk/client-dynamodb';
import {
  DataSourceError,
  SAMPLE_TABLES,
  type SampleTable,
  type SeedOptions,
  type SeedResult,
} from '@toolrow/datasource';
import {
  checkSeedOrders,
  generateSampleShop,
  type SampleColumns,
  sampleCounts,
  sampleShopAsFound,
} from '@toolrow/datasource-utils';
import { listTableNames } from './schema.ts';

const DAY_MS = 86_400_000;

const string = (name: string) => ({ AttributeName: name, AttributeType: 'S' as const });
const number = (name: string) => ({ AttributeName: name, AttributeType: 'N' as const });
const hash = (name: string) => ({ AttributeName: name, KeyType: 'HASH' as const });
const range = (name: string) => ({ AttributeName: name, KeyType: 'RANGE' as const });
const all = { ProjectionType: 'ALL' as const };

/** The shop's tables: orders are found by customer and by status, items by order. */
const TABLES: Record<SampleTable, Omit<CreateTableCommandInput, 'TableName' | 'BillingMode'>> = {
  customers: { AttributeDefinitions: [number('id')], KeySchema: [hash('id')] },
  products: {
    AttributeDefinitions: [number('id'), string('category')],
    KeySchema: [hash('id')],
    GlobalSecondaryIndexes: [{ IndexName: 'by_category', KeySchema: [hash('category')], Projection: all }],
  },
  orders: {
    AttributeDefinitions: [number('id'), number('customer_id'), string('status'), string('ordered_at')],
    KeySchema: [hash('id')],
    GlobalSecondaryIndexes: [
      { IndexName: 'by_customer', KeySchema: [hash('customer_id'), range('ordered_at')], Projection: all },
      { IndexName: 'by_status', KeySchema: [hash('status'), range('ordered_at')], Projection: all },
    ],
  },
  order_items: {
    AttributeDefinitions: [number('order_id'), number('id')],
    KeySchema: [hash('order_id'), range('id')],
  },
};

function toItems(columns: SampleColumns): Record<string, AttributeValue>[] {
  const names = Object.keys(columns);
  const length = columns[names[0]!]!.values.length;
  const items: Record<string, AttributeValue>[] = [];
  for (let index = 0; index < length; index++) {
    const item: Record<string, AttributeValue> = {};
    for (const name of names) {
      const { type, values } = columns[name]!;
      const value = values[index];
      if (value === null || value === undefined) continue;
      item[name] =
        type === 'int4' || type === 'numeric'
          ? { N: String(value) }
          : type === 'bool'
            ? { BOOL: Boolean(value) }
            : { S: String(value) };
    }
    items.push(item);
  }
  return items;
}

async function writeAll(
  client: DynamoDBClient,
  table: string,
  items: Record<string, AttributeValue>[],
): Promise<void> {
  for (let start = 0; start < items.length; start += 25) {
    let requests: Record<string, { PutRequest: { Item: Record<string, AttributeValue> } }[]> = {
      [table]: items.slice(start, start + 25).map((Item) => ({ PutRequest: { Item } })),
    };
    for (let attempt = 0; Object.keys(requests).length > 0; attempt++) {
      if (attempt > 8)
        throw new DataSourceError('seed', `DynamoDB kept ${table}'s writes unprocessed; try again later.`);
      const result = await client.send(new BatchWriteItemCommand({ RequestItems: requests }));
      requests = (result.UnprocessedItems ?? {}) as typeof requests;
      if (Object.keys(requests).length > 0)
        await new Promise((resolve) => setTimeout(resolve, 50 * 2 ** attempt));
    }
  }
}

async function count(client: DynamoDBClient, table: string): Promise<number> {
  let total = 0;
  let start: Record<string, AttributeValue> | undefined;
  do {
    const page = await client.send(
      new ScanCommand({ TableName: table, Select: 'COUNT', ...(start ? { ExclusiveStartKey: start } : {}) }),
    );
    total += page.Count ?? 0;
    start = page.LastEvaluatedKey;
  } while (start);
  return total;
}

async function existingTables(client: DynamoDBClient): Promise<string[]> {
  const names = await listTableNames(client);
  return names.filter((name) => (SAMPLE_TABLES as readonly string[]).includes(name));
}

/** Seeds the sample shop through `client` (the write client: a read client refuses every write). */
export async function seedDynamoShop(client: DynamoDBClient, options: SeedOptions = {}): Promise<SeedResult> {
  const started = performance.now();
  const orders = checkSeedOrders(options.orders);
  const _target = sampleCounts(orders);
  const existing = await existingTables(client);
  if (existing.length > 0 && !options.reset) {
    const found = Object.fromEntries(
      await Promise.all(existing.map(async (name) => [name, await count(client, name)] as const)),
    );
    return {
      counts: sampleShopAsFound(found, orders, 'items'),
      alreadySeeded: true,
      durationMs: Math.round(performance.now() - started),
    };
  }
  for (const name of existing) {
    await client.send(new DeleteTableCommand({ TableName: name }));
    await waitUntilTableNotExists({ client, maxWaitTime: 120 }, { TableName: name });
  }
  for (const name of SAMPLE_TABLES) {
    await client.send(
      new CreateTableCommand({ TableName: name, BillingMode: 'PAY_PER_REQUEST', ...TABLES[name] }),
    );
    await waitUntilTableExists({ client, maxWaitTime: 120 }, { TableName: name });
    await client.send(new DescribeTableCommand({ TableName: name }));
  }
  const now = options.now ?? new Date(Math.floor(Date.now() / DAY_MS) * DAY_MS);
  const counts = await generateSampleShop(
    { orders, seed: options.seed ?? 42, now, report: (progress) => options.onProgress?.(progress) },
    (table, columns) => writeAll(client, table, toItems(columns)),
  );
  return { counts, alreadySeeded: false, durationMs: Math.round(performance.now() - started) };
}
