// Items by structured filter and key: a Query where a key serves the filter, else a Scan; every
// page says which it was and how many items it read.
import {
  type AttributeValue,
  type DynamoDBClient,
  GetItemCommand,
  QueryCommand,
  ScanCommand,
} from '@aws-sdk/client-dynamodb';
import {
  DataSourceError,
  type Filter,
  type Row,
  type RowPage,
  type RowReader,
  type SchemaCache,
  type TableInfo,
} from '@toolrow/datasource';
import { deadlineOf, type ReadLimits } from './deadline.ts';
import { DYNAMO_FILTER_OPS, planRead, type ReadPlan } from './expressions.ts';
import { MAX_ITEMS_READ } from './read-bound.ts';
import type { KeyMap } from './schema.ts';
import { resolveWithin } from './table-schemas.ts';
import { itemToRow, toAttribute, valueText } from './values.ts';

export function keysFor(keys: KeyMap, table: TableInfo) {
  const found = keys.get(table.name);
  if (!found)
    throw new DataSourceError(
      'unknown-table',
      `The keys of '${table.name}' are not known; refresh the schema.`,
    );
  return found;
}

function request(table: TableInfo, plan: ReadPlan) {
  return {
    TableName: table.name,
    ...(plan.index ? { IndexName: plan.index } : {}),
    ...(plan.keyCondition ? { KeyConditionExpression: plan.keyCondition } : {}),
    ...(plan.filter ? { FilterExpression: plan.filter } : {}),
    ...(Object.keys(plan.names).length > 0 ? { ExpressionAttributeNames: plan.names } : {}),
    ...(Object.keys(plan.values).length > 0 ? { ExpressionAttributeValues: plan.values } : {}),
  };
}

/** Pages of items under a plan, in key order, until the caller stops, within its time limit. */
export async function* readItems(
  client: DynamoDBClient,
  table: TableInfo,
  plan: ReadPlan,
  options: ReadLimits & { descending?: boolean; select?: 'COUNT' } = {},
): AsyncGenerator<{ items: Record<string, AttributeValue>[]; scanned: number; count: number }> {
  const deadline = deadlineOf(options, `The read of ${table.name}`);
  let start: Record<string, AttributeValue> | undefined;
  do {
    let page: {
      Items?: Record<string, AttributeValue>[];
      ScannedCount?: number;
      Count?: number;
      LastEvaluatedKey?: Record<string, AttributeValue>;
    };
    try {
      if (deadline.signal?.aborted) throw deadline.signal.reason;
      const input = {
        ...request(table, plan),
        ...(start ? { ExclusiveStartKey: start } : {}),
        ...(options.select ? { Select: options.select } : {}),
      };
      page =
        plan.operation === 'Query'
          ? await client.send(
              new QueryCommand({ ...input, ...(options.descending ? { ScanIndexForward: false } : {}) }),
              { abortSignal: deadline.signal },
            )
          : await client.send(new ScanCommand(input), { abortSignal: deadline.signal });
    } catch (error) {
      throw deadline.explain(error);
    }
    yield { items: page.Items ?? [], scanned: page.ScannedCount ?? 0, count: page.Count ?? 0 };
    start = page.LastEvaluatedKey;
  } while (start);
}

export function createDynamoRowReader(
  client: DynamoDBClient,
  schema: SchemaCache,
  keys: KeyMap,
  maxItemsRead = MAX_ITEMS_READ,
): RowReader {
  return {
    filterOps: DYNAMO_FILTER_OPS,
    async select(tableName, options = {}): Promise<RowPage> {
      const table = await resolveWithin(schema, tableName, options);
      const tableKeys = keysFor(keys, table);
      const plan = planRead(table, tableKeys, options.filter);
      const [sort] = options.sort ?? [];
      const sortKey = plan.operation === 'Query' ? sortKeyOf(plan, tableKeys) : undefined;
      const sortable = sortKey ? [sortKey] : [];
      if ((options.sort?.length ?? 0) > 1 || (sort && sort.column !== sortKey)) {
        const asked = (options.sort ?? []).map((key) => `${key.column} ${key.direction}`).join(', ');
        throw new DataSourceError(
          'invalid-sort',
          `sort by ${asked}: DynamoDB returns items in key order only, ${sortKey ? `and this read (a Query on ${plan.index ?? 'the table key'}) is in ${sortKey} order: sort by ${sortKey} alone` : `and this read is a Scan, in no order${sortableHint(table, tableKeys, sort?.column)}`}. Leave the sort out to see the rows.`,
        );
      }
      const limit = Math.min(options.limit ?? 100, 10_000);
      const offset = options.offset ?? 0;
      const maxBytes = options.maxBytes ?? 16 * 1024 * 1024;
      const rows: Row[] = [];
      let skipped = 0;
      let itemsRead = 0;
      let bytes = 0;
      let hasMore = false;
      let truncated = false;
      outer: for await (const page of readItems(client, table, plan, {
        ...(options.signal ? { signal: options.signal } : {}),
        ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
        descending: sort?.direction === 'desc',
      })) {
        itemsRead += page.scanned;
        for (const item of page.items) {
          if (skipped < offset) {
            skipped++;
            continue;
          }
          if (rows.length === limit) {
            hasMore = true;
            break outer;
          }
          const row = itemToRow(item, table);
          bytes += valueText(row).length;
          if (bytes > maxBytes && rows.length > 0) {
            truncated = true;
            hasMore = true;
            break outer;
          }
          rows.push(row);
        }
        if (itemsRead >= maxItemsRead) {
          hasMore = true;
          truncated = true;
          break;
        }
      }
      const wanted = options.columns?.map((name) => schema.resolveColumn(table, name));
      const columns = wanted ?? table.columns;
      return {
        sortable,
        access: {
          operation: plan.operation,
          ...(plan.index ? { index: plan.index } : {}),
          ...(plan.keyCondition ? { keyCondition: plan.describe } : {}),
          itemsRead,
        },
        table,
        columns,
        rows: wanted
          ? rows.map((row) => Object.fromEntries(wanted.map((column) => [column.name, row[column.name]])))
          : rows,
        hasMore,
        truncated,
      };
    },

    async count(tableName, filter?: Filter, options = {}) {
      const table = await resolveWithin(schema, tableName, options);
      const plan = planRead(table, keysFor(keys, table), filter);
      let count = 0;
      for await (const page of readItems(client, table, plan, {
        select: 'COUNT',
        ...(options.signal ? { signal: options.signal } : {}),
        ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
      })) {
        count += page.count;
      }
      return count;
    },

    async get(tableName, key, options = {}) {
      const table = await resolveWithin(schema, tableName, options);
      const deadline = deadlineOf(options, `The read of an item of ${table.name}`);
      const result = await client
        .send(new GetItemCommand({ TableName: table.name, Key: keyOf(table, keysFor(keys, table), key) }), {
          abortSignal: deadline.signal,
        })
        .catch((error: unknown) => {
          throw deadline.explain(error);
        });
      return result.Item ? itemToRow(result.Item, table) : undefined;
    },
  };
}

/** How to read in `column` order: filter on the partition key of the key or index it sorts. */
function sortableHint(
  table: TableInfo,
  keys: ReturnType<typeof keysFor>,
  column: string | undefined,
): string {
  const orders = [
    ...(keys.sortKey ? [{ by: keys.sortKey, partition: keys.partitionKey, where: 'the table key' }] : []),
    ...keys.indexes
      .filter((index) => index.sortKey)
      .map((index) => ({
        by: index.sortKey!,
        partition: index.partitionKey,
        where: `the index ${index.name}`,
      })),
  ];
  const serving = orders.find((order) => order.by === column);
  if (serving)
    return `: filter on ${serving.partition} (= a value) to read ${table.name} in ${serving.by} order through ${serving.where}`;
  return orders.length > 0
    ? `: ${column ?? 'that column'} is no sort key; ${table.name} can be read in ${orders.map((order) => `${order.by} order (filter on ${order.partition})`).join(' or ')}`
    : `: ${table.name} has no sort key to read in order`;
}

function sortKeyOf(plan: ReadPlan, keys: ReturnType<typeof keysFor>): string | undefined {
  return plan.index ? keys.indexes.find((index) => index.name === plan.index)?.sortKey : keys.sortKey;
}

/** An item's key from `{ pk: …, sk: … }` (or a bare value for a table with a partition key alone). */
export function keyOf(
  table: TableInfo,
  keys: ReturnType<typeof keysFor>,
  key: unknown,
): Record<string, AttributeValue> {
  const names = [keys.partitionKey, keys.sortKey].filter((each): each is string => Boolean(each));
  const given: Record<string, unknown> =
    key !== null && typeof key === 'object' && !Array.isArray(key)
      ? (key as Record<string, unknown>)
      : names.length === 1
        ? { [names[0]!]: key }
        : {};
  const extra = Object.keys(given).filter((name) => !names.includes(name));
  const missing = names.filter((name) => given[name] === undefined);
  if (extra.length > 0 || missing.length > 0) {
    throw new DataSourceError(
      'invalid-key',
      `key: the key of ${table.name} is ${names.join(' + ')}${missing.length > 0 ? `; missing ${missing.join(', ')}` : ''}${extra.length > 0 ? `; not key attributes: ${extra.join(', ')}` : ''}. Give { ${names.map((name) => `"${name}": …`).join(', ')} }.`,
    );
  }
  return Object.fromEntries(
    names.map((name) => {
      const types = table.columns.find((column) => column.name === name)?.type.split('|') ?? [];
      return [name, toAttribute(given[name], `key ${name}`, types)];
    }),
  );
}
