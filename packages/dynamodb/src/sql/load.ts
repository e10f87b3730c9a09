// Reads each table of a SQL statement from DynamoDB as planned (gets, Queries, a parallel Scan),
// only the attributes the statement uses, through the read client, and builds a DuckDB table of
// the same name from what came back: each page goes into the sandbox as it arrives (text first),
// then one typed copy. Attribute types are what the items hold: whole numbers as BIGINT, decimals
// as DECIMAL(38, the largest scale seen) so sums and comparisons stay exact, ISO timestamps as
// TIMESTAMPTZ, sets as lists, maps and lists as JSON; an attribute of mixed types as text. An
// absent attribute is NULL.
import {
  type AttributeValue,
  BatchGetItemCommand,
  type DynamoDBClient,
  GetItemCommand,
  QueryCommand,
} from '@aws-sdk/client-dynamodb';
import type { DuckDBConnection } from '@duckdb/node-api';
import { type ColumnInfo, DataSourceError, type TableInfo } from '@toolrow/datasource';
import { merge, type Pages, parallelScan } from '../pages.ts';
import type { DynamoKeys } from '../schema.ts';
import { attributeJson, toAttribute } from '../values.ts';
import type { Constant, Pin } from './analyze.ts';
import { MAX_LOOKUP_KEYS, pinAdvice, type TableAccess } from './plan.ts';

/** What one table's read cost, for the result to say. */
export interface TableRead {
  table: string;
  operation: TableAccess['operation'];
  index?: string;
  /** Items DynamoDB read (a Scan's and a Query's ScannedCount; a get's items). */
  items: number;
  /** Read capacity units, where DynamoDB reports them (AWS does; DynamoDB Local does not). */
  capacity?: number;
  /** Why the plan changed while reading (a lookup with too many keys became a Scan). */
  note?: string;
}

export interface LoadOptions {
  signal?: AbortSignal;
  /** Items all reads together may read before the statement stops (default 100,000). */
  maxItemsRead: number;
}

/** Queries of one lookup in flight at once. */
const LOOKUP_CONCURRENCY = 8;
const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}(:?\d{2})?)$/;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

export const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** What the values of one attribute were, to type its column. */
class ColumnStats {
  kinds = new Set<string>();
  wholeDigits = 1;
  scale = 0;
  timestamps = true;
  dates = true;
  see(value: AttributeValue): void {
    const kind = Object.keys(value).find((key) => key !== '$unknown')!;
    if (kind === 'NULL') return;
    this.kinds.add(kind);
    const numbers = value.N !== undefined ? [value.N] : (value.NS ?? []);
    for (const number of numbers) {
      const [whole = '', fraction = ''] = number.replace(/^-/, '').toLowerCase().split('e')[0]!.split('.');
      const exponent = Number(number.toLowerCase().split('e')[1] ?? 0);
      this.wholeDigits = Math.max(this.wholeDigits, whole.replace(/^0+/, '').length + Math.max(0, exponent));
      this.scale = Math.max(this.scale, Math.max(0, fraction.replace(/0+$/, '').length - exponent));
    }
    if (value.S !== undefined) {
      if (!ISO_TIMESTAMP.test(value.S)) this.timestamps = false;
      if (!ISO_DATE.test(value.S)) this.dates = false;
    }
  }
  /**
   * The column's SQL type, and how its text becomes that type. With no value read (every item
   * lacked it, or none matched), the schema's sampled type decides, so `price BETWEEN 10 AND 60`
   * binds whether or not an item came back.
   */
  type(sampled?: ColumnInfo): { sql: string; cast: (column: string) => string } {
    if (this.kinds.size === 0 && sampled) {
      if (sampled.type === 'N') return { sql: 'DOUBLE', cast: (column) => `CAST(${column} AS DOUBLE)` };
      if (sampled.type === 'BOOL') return { sql: 'BOOLEAN', cast: (column) => `CAST(${column} AS BOOLEAN)` };
      const common = sampled.commonValues ?? [];
      if (
        sampled.type === 'S' &&
        common.length > 0 &&
        common.every((each) => ISO_TIMESTAMP.test(String(each.value)))
      )
        return { sql: 'TIMESTAMPTZ', cast: (column) => `CAST(${column} AS TIMESTAMPTZ)` };
    }
    const only = this.kinds.size === 1 ? [...this.kinds][0] : undefined;
    const numeric = (): string =>
      this.scale === 0 && this.wholeDigits <= 18
        ? 'BIGINT'
        : this.wholeDigits + this.scale <= 38
          ? `DECIMAL(38, ${this.scale})`
          : 'DOUBLE';
    switch (only) {
      case 'N':
        return { sql: numeric(), cast: (column) => `CAST(${column} AS ${numeric()})` };
      case 'S':
        if (this.timestamps)
          return { sql: 'TIMESTAMPTZ', cast: (column) => `CAST(${column} AS TIMESTAMPTZ)` };
        if (this.dates) return { sql: 'DATE', cast: (column) => `CAST(${column} AS DATE)` };
        return { sql: 'VARCHAR', cast: (column) => column };
      case 'BOOL':
        return { sql: 'BOOLEAN', cast: (column) => `CAST(${column} AS BOOLEAN)` };
      case 'B':
        return { sql: 'BLOB', cast: (column) => `from_base64(${column})` };
      case 'SS':
        return { sql: 'VARCHAR[]', cast: (column) => `CAST(${column}::JSON AS VARCHAR[])` };
      case 'NS':
        return { sql: `${numeric()}[]`, cast: (column) => `CAST(${column}::JSON AS ${numeric()}[])` };
      case 'BS':
        return {
          sql: 'BLOB[]',
          cast: (column) => `list_transform(CAST(${column}::JSON AS VARCHAR[]), b -> from_base64(b))`,
        };
      case 'M':
      case 'L':
        return { sql: 'JSON', cast: (column) => `${column}::JSON` };
      default:
        if (this.kinds.size > 0 && [...this.kinds].every((kind) => kind === 'M' || kind === 'L'))
          return { sql: 'JSON', cast: (column) => `${column}::JSON` };
        return { sql: 'VARCHAR', cast: (column) => column };
    }
  }
}

/** An attribute as text for the first, untyped copy. */
function textOf(value: AttributeValue): string | null {
  if (value.NULL !== undefined) return null;
  if (value.S !== undefined) return value.S;
  if (value.N !== undefined) return value.N;
  if (value.BOOL !== undefined) return value.BOOL ? 'true' : 'false';
  if (value.B !== undefined) return Buffer.from(value.B).toString('base64');
  return attributeJson(value);
}

function keyAttribute(table: TableInfo, name: string, value: Constant): AttributeValue {
  const types = table.columns.find((column) => column.name === name)?.type.split('|') ?? [];
  return toAttribute(value, name, types);
}

/** A FilterExpression of the access's pushed-down predicates (names #f…, values :f…), if any. */
function filterOf(table: TableInfo, filters: readonly Pin[] | undefined) {
  if (!filters || filters.length === 0) return undefined;
  const names: Record<string, string> = {};
  const values: Record<string, AttributeValue> = {};
  const parts = filters.map((pin, index) => {
    names[`#f${index}`] = pin.column;
    const refs = pin.values.map((value, at) => {
      values[`:f${index}_${at}`] = keyAttribute(table, pin.column, value);
      return `:f${index}_${at}`;
    });
    switch (pin.op) {
      case 'in':
        return `#f${index} IN (${refs.join(', ')})`;
      case 'between':
        return `#f${index} BETWEEN ${refs[0]} AND ${refs[1]}`;
      default:
        return `#f${index} ${{ eq: '=', lt: '<', lte: '<=', gt: '>', gte: '>=' }[pin.op]} ${refs[0]}`;
    }
  });
  return { expression: parts.join(' AND '), names, values };
}

/** `#k = :k` and the sort key's condition, for a Query. */
function keyCondition(
  table: TableInfo,
  partitionKey: string,
  value: AttributeValue,
  sortKey: string | undefined,
  sortPin: Pin | undefined,
) {
  const names: Record<string, string> = { '#pk': partitionKey };
  const values: Record<string, AttributeValue> = { ':pk': value };
  let expression = '#pk = :pk';
  if (sortKey && sortPin && sortPin.op !== 'in') {
    names['#sk'] = sortKey;
    const at = (index: number) => keyAttribute(table, sortKey, sortPin.values[index]!);
    if (sortPin.op === 'between') {
      values[':s0'] = at(0);
      values[':s1'] = at(1);
      expression += ' AND #sk BETWEEN :s0 AND :s1';
    } else {
      values[':s0'] = at(0);
      expression += ` AND #sk ${{ eq: '=', lt: '<', lte: '<=', gt: '>', gte: '>=' }[sortPin.op]} :s0`;
    }
  }
  return { expression, names, values };
}

/**
 * Reads every table as planned and builds its DuckDB table. Returns what each read cost. The
 * values a lookup needs are collected from the table it looks up from as that one is read.
 */
export async function loadTables(
  connection: DuckDBConnection,
  client: DynamoDBClient,
  accesses: TableAccess[],
  keysOf: (table: TableInfo) => DynamoKeys,
  options: LoadOptions,
): Promise<TableRead[]> {
  const reads: TableRead[] = [];
  let itemsRead = 0;
  // For each lookup, the distinct values of the column it takes from another table.
  const wanted = new Map<string, Map<string, AttributeValue>>();
  for (const access of accesses)
    if (access.lookup) wanted.set(`${access.lookup.table}\u0000${access.lookup.column}`, new Map());

  const abortSignal = options.signal;
  const counted = (access: TableAccess, read: TableRead, items: number, capacity: number | undefined) => {
    read.items += items;
    itemsRead += items;
    if (capacity !== undefined) read.capacity = (read.capacity ?? 0) + capacity;
    if (itemsRead > options.maxItemsRead) {
      throw new DataSourceError(
        'too-large',
        `The statement stopped after reading ${itemsRead.toLocaleString('en-US')} items, past the ${options.maxItemsRead.toLocaleString('en-US')} one statement may read. ${pinAdvice(access, keysOf(access.table))}`,
      );
    }
  };

  for (const [position, access] of accesses.entries()) {
    const { table } = access;
    const keys = keysOf(table);
    const schemaColumns = table.columns.map((column) => column.name);
    let columns = access.attributes === 'all' ? schemaColumns : access.attributes;
    // COUNT(*) asks for no attribute: the key stands in, so every item is a row.
    if (columns.length === 0) columns = [keys.partitionKey];
    const projection = {
      ProjectionExpression: columns.map((_, index) => `#p${index}`).join(', '),
      ExpressionAttributeNames: Object.fromEntries(columns.map((name, index) => [`#p${index}`, name])),
    };
    const filter = filterOf(table, access.filters);
    const read: TableRead = {
      table: table.name,
      operation: access.operation,
      ...(access.index ? { index: access.index } : {}),
      items: 0,
    };
    reads.push(read);

    const raw = `toolrow_raw_${position}`;
    await connection.run(
      `CREATE TEMP TABLE ${raw} (${columns.map((name) => `${quote(name)} VARCHAR`).join(', ')})`,
    );
    const appender = await connection.createAppender(raw);
    const stats = columns.map(() => new ColumnStats());
    const collectors = columns.map((name) => wanted.get(`${table.name}\u0000${name}`));
    const append = (items: Record<string, AttributeValue>[]) => {
      for (const item of items) {
        for (const [index, name] of columns.entries()) {
          const value = item[name];
          if (value === undefined) {
            appender.appendNull();
            continue;
          }
          stats[index]!.see(value);
          collectors[index]?.set(JSON.stringify(value), value);
          const text = textOf(value);
          if (text === null) appender.appendNull();
          else appender.appendVarchar(text);
        }
        appender.endRow();
      }
    };

    const scan = (): Pages =>
      parallelScan(
        client,
        {
          TableName: table.name,
          ReturnConsumedCapacity: 'TOTAL',
          ProjectionExpression: projection.ProjectionExpression,
          ExpressionAttributeNames: { ...projection.ExpressionAttributeNames, ...filter?.names },
          ...(filter
            ? { FilterExpression: filter.expression, ExpressionAttributeValues: filter.values }
            : {}),
        },
        {
          signal: abortSignal,
          onPage: (page) =>
            counted(access, read, page.ScannedCount ?? 0, page.ConsumedCapacity?.CapacityUnits),
        },
      );

    const query = (values: AttributeValue[]): Pages =>
      merge(
        values.map((value) =>
          (async function* () {
            const condition = keyCondition(table, access.partitionKey, value, access.sortKey, access.sortPin);
            let start: Record<string, AttributeValue> | undefined;
            do {
              const page = await client.send(
                new QueryCommand({
                  TableName: table.name,
                  ...(access.index ? { IndexName: access.index } : {}),
                  KeyConditionExpression: condition.expression,
                  ProjectionExpression: projection.ProjectionExpression,
                  ExpressionAttributeNames: {
                    ...projection.ExpressionAttributeNames,
                    ...condition.names,
                    ...filter?.names,
                  },
                  ExpressionAttributeValues: { ...condition.values, ...filter?.values },
                  ...(filter ? { FilterExpression: filter.expression } : {}),
                  ReturnConsumedCapacity: 'TOTAL',
                  ...(start ? { ExclusiveStartKey: start } : {}),
                }),
                { abortSignal },
              );
              counted(access, read, page.ScannedCount ?? 0, page.ConsumedCapacity?.CapacityUnits);
              yield page.Items ?? [];
              start = page.LastEvaluatedKey;
            } while (start);
          })(),
        ),
        LOOKUP_CONCURRENCY,
      );

    const get = async function* (keyItems: Record<string, AttributeValue>[]): Pages {
      if (keyItems.length === 1 && access.operation === 'GetItem') {
        const page = await client.send(
          new GetItemCommand({
            TableName: table.name,
            Key: keyItems[0]!,
            ConsistentRead: true,
            ReturnConsumedCapacity: 'TOTAL',
            ...projection,
          }),
          { abortSignal },
        );
        counted(access, read, page.Item ? 1 : 0, page.ConsumedCapacity?.CapacityUnits);
        yield page.Item ? [page.Item] : [];
        return;
      }
      for (let at = 0; at < keyItems.length; at += 100) {
        let pending: Record<string, AttributeValue>[] = keyItems.slice(at, at + 100);
        while (pending.length > 0) {
          const page = await client.send(
            new BatchGetItemCommand({
              RequestItems: { [table.name]: { Keys: pending, ConsistentRead: true, ...projection } },
              ReturnConsumedCapacity: 'TOTAL',
            }),
            { abortSignal },
          );
          const items = page.Responses?.[table.name] ?? [];
          counted(
            access,
            read,
            items.length,
            page.ConsumedCapacity?.reduce((sum, each) => sum + (each.CapacityUnits ?? 0), 0),
          );
          yield items;
          pending = (page.UnprocessedKeys?.[table.name]?.Keys as Record<string, AttributeValue>[]) ?? [];
        }
      }
    };

    let pages: Pages;
    if (access.lookup) {
      const found = [...(wanted.get(`${access.lookup.table}\u0000${access.lookup.column}`)?.values() ?? [])];
      if (found.length > MAX_LOOKUP_KEYS) {
        read.operation = 'Scan';
        read.note = `${found.length} keys to look up, more than ${MAX_LOOKUP_KEYS}: read by Scan instead`;
        pages = scan();
      } else if (access.operation === 'BatchGetItem') {
        pages = get(found.map((value) => ({ [access.partitionKey]: value })));
      } else pages = query(found);
    } else if (access.operation === 'Scan') pages = scan();
    else {
      const values = (access.values ?? []).map((value) => keyAttribute(table, access.partitionKey, value));
      if (access.operation === 'Query') pages = query(values);
      else {
        const sortValues = access.sortKey
          ? (access.sortPin?.values ?? []).map((value) => keyAttribute(table, access.sortKey!, value))
          : [undefined];
        pages = get(
          values.flatMap((value) =>
            sortValues.map((sort) => ({
              [access.partitionKey]: value,
              ...(sort && access.sortKey ? { [access.sortKey]: sort } : {}),
            })),
          ),
        );
      }
    }
    try {
      for await (const items of pages) append(items);
    } finally {
      appender.closeSync();
    }
    // The typed table, under the name the statement uses.
    await connection.run(
      `CREATE TEMP TABLE ${quote(table.name)} AS SELECT ${columns
        .map(
          (name, index) =>
            `${stats[index]!.type(table.columns.find((column) => column.name === name)).cast(quote(name))} AS ${quote(name)}`,
        )
        .join(', ')} FROM ${raw}`,
    );
    await connection.run(`DROP TABLE ${raw}`);
  }
  return reads;
}
