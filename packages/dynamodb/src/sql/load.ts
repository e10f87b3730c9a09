// Reads each table of a SQL statement from DynamoDB as planned (gets, Queries, a parallel Scan),
// only the attributes the statement binds, through the read client, and builds a DuckDB table of
// the same name from what came back: each page goes into the statement's DuckDB as text, then one
// typed copy. Values stay as stored: text is text (a date or an instant only where the statement
// binds it so), numbers exact (BIGINT, DECIMAL(38, the largest scale seen), or their digits as text
// past 38), sets as lists, maps and lists as JSON, binary as BLOB; an attribute of mixed types is
// text. An absent attribute is NULL.
import {
  type AttributeValue,
  BatchGetItemCommand,
  type DynamoDBClient,
  GetItemCommand,
  QueryCommand,
} from '@aws-sdk/client-dynamodb';
import { type ColumnInfo, DataSourceError, type TableInfo, type TableRead } from '@toolrow/datasource';
import { merge, type Pages, parallelScan } from '../pages.ts';
import { raiseBound } from '../read-bound.ts';
import type { DynamoKeys } from '../schema.ts';
import { attributeJson, toAttribute } from '../values.ts';
import type { Constant, Pin, Ref } from './analyze.ts';
import { type BoundTable, ISO_DATE, ISO_TIMESTAMP, nearestAttribute, quote } from './bind.ts';
import type { SqlSession } from './duckdb-process.ts';
import { MAX_LOOKUP_KEYS, pinAdvice, type TableAccess } from './plan.ts';

export interface LoadOptions {
  signal?: AbortSignal;
  /** Items all reads together may read before the statement stops (default 100,000). */
  maxItemsRead: number;
}

/** Queries of one lookup in flight at once. */
const LOOKUP_CONCURRENCY = 8;
/** Rows sent to DuckDB at once. */
const APPEND_BATCH = 2000;

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
      // timestamps: every value reads as an instant (a date is one, at midnight UTC).
      if (!ISO_TIMESTAMP.test(value.S) && !ISO_DATE.test(value.S)) {
        this.example ??= value.S;
        this.timestamps = false;
      }
      if (!ISO_DATE.test(value.S)) this.dates = false;
    }
  }
  example: string | undefined;
  /**
   * The column's SQL type, and how its text becomes that type. `temporal`: the statement binds
   * this text as a date or an instant (its values must all read as one). With no value read (every
   * item lacked it, or none matched), the sampled type decides, so `price BETWEEN 10 AND 60` binds
   * whether or not an item came back.
   */
  type(
    attribute: string,
    sampled: ColumnInfo | undefined,
    temporal: boolean,
  ): { sql: string; cast: (column: string) => string } {
    const kinds = this.kinds.size === 0 && sampled ? new Set(sampled.type.split('|')) : this.kinds;
    const only = kinds.size === 1 ? [...kinds][0] : undefined;
    if (temporal) {
      if (only !== undefined && only !== 'S')
        throw new DataSourceError(
          'invalid-filter',
          `The statement uses ${attribute} as a date or an instant, and it holds ${kinds.has('N') ? 'numbers' : 'values that are not text'}. Compare it with a value of its own type, or convert it explicitly (e.g. to_timestamp(${attribute}) for epoch seconds).`,
        );
      if (this.kinds.size > 0 && !this.timestamps)
        throw new DataSourceError(
          'invalid-filter',
          `The statement uses ${attribute} as a date or an instant, and some items hold text that is not one (e.g. '${this.example}'). Compare it as text ('2026-05' sorts like a date when every value is ISO 8601), or skip those items: TRY_CAST(${attribute} AS TIMESTAMPTZ).`,
        );
      const dates =
        this.kinds.size > 0
          ? this.dates
          : (sampled?.commonValues ?? []).every((each) => ISO_DATE.test(String(each.value)));
      const sql = dates ? 'DATE' : 'TIMESTAMPTZ';
      return { sql, cast: (column) => `CAST(${column} AS ${sql})` };
    }
    const numeric = (): string | undefined =>
      this.scale === 0 && this.wholeDigits <= 18
        ? 'BIGINT'
        : this.wholeDigits + this.scale <= 38
          ? `DECIMAL(38, ${this.scale})`
          : undefined;
    const number = this.kinds.size === 0 ? 'DECIMAL(38, 9)' : numeric();
    switch (only) {
      case 'N':
        // Past what one scale holds, the digits as stored (text): never a rounded DOUBLE.
        return number
          ? { sql: number, cast: (column) => `CAST(${column} AS ${number})` }
          : { sql: 'VARCHAR', cast: (column) => column };
      case 'S':
        return { sql: 'VARCHAR', cast: (column) => column };
      case 'BOOL':
        return { sql: 'BOOLEAN', cast: (column) => `CAST(${column} AS BOOLEAN)` };
      case 'B':
        return { sql: 'BLOB', cast: (column) => `from_base64(${column})` };
      case 'SS':
        return { sql: 'VARCHAR[]', cast: (column) => `CAST(${column}::JSON AS VARCHAR[])` };
      case 'NS':
        return number
          ? { sql: `${number}[]`, cast: (column) => `CAST(${column}::JSON AS ${number}[])` }
          : { sql: 'VARCHAR[]', cast: (column) => `CAST(${column}::JSON AS VARCHAR[])` };
      case 'BS':
        return {
          sql: 'BLOB[]',
          cast: (column) => `list_transform(CAST(${column}::JSON AS VARCHAR[]), b -> from_base64(b))`,
        };
      case 'M':
      case 'L':
        return { sql: 'JSON', cast: (column) => `${column}::JSON` };
      default:
        if (kinds.size > 0 && [...kinds].every((kind) => kind === 'M' || kind === 'L'))
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

/** The ways a planned read fetches pages: a parallel Scan, a Query per value, gets by key. */
function readersOf(
  client: DynamoDBClient,
  access: TableAccess,
  projection: { ProjectionExpression: string; ExpressionAttributeNames: Record<string, string> },
  filter: ReturnType<typeof filterOf>,
  abortSignal: AbortSignal | undefined,
  /** Items evaluated (a key asked for is one, found or not) and capacity, as each page answers. */
  count: (items: number, capacity: number | undefined) => void,
) {
  const { table } = access;
  const scan = (): Pages =>
    parallelScan(
      client,
      {
        TableName: table.name,
        ReturnConsumedCapacity: 'TOTAL',
        ProjectionExpression: projection.ProjectionExpression,
        ExpressionAttributeNames: { ...projection.ExpressionAttributeNames, ...filter?.names },
        ...(filter ? { FilterExpression: filter.expression, ExpressionAttributeValues: filter.values } : {}),
      },
      {
        signal: abortSignal,
        tableBytes: table.tableBytes ?? 0,
        onPage: (page) => count(page.ScannedCount ?? 0, page.ConsumedCapacity?.CapacityUnits),
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
            // A Query for an absent value still costs a read.
            count(Math.max(1, page.ScannedCount ?? 0), page.ConsumedCapacity?.CapacityUnits);
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
      // A key asked for is an item evaluated (and billed) whether or not it exists.
      count(1, page.ConsumedCapacity?.CapacityUnits);
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
        const unprocessed =
          (page.UnprocessedKeys?.[table.name]?.Keys as Record<string, AttributeValue>[]) ?? [];
        count(
          pending.length - unprocessed.length,
          page.ConsumedCapacity?.reduce((sum, each) => sum + (each.CapacityUnits ?? 0), 0),
        );
        yield items;
        pending = unprocessed;
      }
    }
  };
  return { scan, query, get };
}

/** A table's rows as they arrive, before its typed copy: one text table per DynamoDB table. */
interface Landing {
  raw: string;
  /** The attributes the statement binds (the key alone when it binds none). */
  columns: string[];
  /** Key attributes kept beside them when several reads fill the table (an item once). */
  keys: string[];
  stats: ColumnStats[];
}

/** A landed table's columns, typed (by the stats so far) under the names the statement uses. */
function typedColumnsOf(table: TableInfo, landing: Landing, binding: BoundTable): string[] {
  return landing.columns.map((name, index) => {
    const sampled = table.columns.find((column) => column.name === name);
    const type = landing.stats[index]!.type(name, sampled, binding.temporal.has(name));
    return `${type.cast(`c${index}`)} AS ${quote(binding.names.get(name) ?? name)}`;
  });
}

/**
 * A table, typed, under the name the statement uses (an item two references read is one row), and
 * the note of an attribute no item read had.
 */
async function typeLanding(
  session: SqlSession,
  table: TableInfo,
  landing: Landing,
  binding: BoundTable,
  reads: TableRead[],
): Promise<void> {
  const from =
    landing.keys.length > 0
      ? `(SELECT DISTINCT ON (${landing.keys.map((_, index) => `k${index}`).join(', ')}) * FROM ${landing.raw})`
      : landing.raw;
  await session.run(
    `CREATE TEMP TABLE ${quote(table.name)} AS SELECT ${typedColumnsOf(table, landing, binding).join(', ')} FROM ${from}`,
  );
  await session.run(`DROP TABLE ${landing.raw}`);
  const read = reads.find((each) => each.table === table.name)!;
  for (const [index, attribute] of landing.columns.entries()) {
    if (!binding.unsampled.has(attribute) || landing.stats[index]!.kinds.size > 0) continue;
    const near = nearestAttribute(
      attribute,
      table.columns.map((column) => column.name),
    );
    const note = `No item of ${table.name} read has an attribute ${attribute}${near ? `: did you mean ${near}?` : ' (it is NULL in every row).'}`;
    read.note = read.note ? `${read.note}; ${note}` : note;
  }
}

/**
 * Reads every table as planned and builds its DuckDB table. Returns what each read cost. A lookup
 * takes its values from the rows its source reference read, after that reference's own filters
 * (run by DuckDB over what landed); past what the plan compared with a Scan, it Scans instead.
 */
export async function loadTables(
  session: SqlSession,
  client: DynamoDBClient,
  accesses: TableAccess[],
  bound: ReadonlyMap<string, BoundTable>,
  keysOf: (table: TableInfo) => DynamoKeys,
  options: LoadOptions & {
    /** A reference's own filters as SQL over its alias, for the values it gives a lookup. */
    filterSql?: (ref: Ref) => string | undefined;
  },
): Promise<TableRead[]> {
  const reads: TableRead[] = [];
  let itemsRead = 0;
  const landings = new Map<string, Landing>();
  const readsOf = new Map<string, number>();
  for (const access of accesses) readsOf.set(access.table.name, (readsOf.get(access.table.name) ?? 0) + 1);

  const abortSignal = options.signal;
  const counted = (access: TableAccess, read: TableRead, items: number, capacity: number | undefined) => {
    read.items += items;
    itemsRead += items;
    if (capacity !== undefined) read.capacity = (read.capacity ?? 0) + capacity;
    if (itemsRead > options.maxItemsRead) {
      throw new DataSourceError(
        'too-large',
        `The statement stopped after reading ${itemsRead.toLocaleString('en-US')} items, past the ${options.maxItemsRead.toLocaleString('en-US')} this connection lets one statement read. ${pinAdvice(access, keysOf(access.table))} ${raiseBound(itemsRead * 2)}`,
      );
    }
  };
  /** The typed columns of what landed for a table (by the stats so far). */
  const typedColumns = (table: TableInfo, landing: Landing) =>
    typedColumnsOf(table, landing, bound.get(table.name)!);
  /** The distinct values of a reference's column over the rows it read, after its own filters. */
  const valuesOf = async (lookup: NonNullable<TableAccess['lookup']>, target: TableInfo) => {
    const source = accesses.findIndex((each) => each.refs.includes(lookup.from));
    const sourceTable = accesses[source]!.table;
    const landing = landings.get(sourceTable.name)!;
    const binding = bound.get(sourceTable.name)!;
    const column = binding.names.get(lookup.fromColumn) ?? lookup.fromColumn;
    const rows = `(SELECT ${typedColumns(sourceTable, landing).join(', ')} FROM ${landing.raw} WHERE toolrow_read = ${source}) AS ${quote(lookup.from.alias)}`;
    const select = (where: string) =>
      `SELECT DISTINCT CAST(${quote(lookup.from.alias)}.${quote(column)} AS VARCHAR) AS v FROM ${rows} WHERE ${quote(lookup.from.alias)}.${quote(column)} IS NOT NULL${where}`;
    const filter = options.filterSql?.(lookup.from);
    let answer: { rows: unknown[][] };
    try {
      answer = await session.read(select(filter ? ` AND (${filter})` : ''), MAX_LOOKUP_KEYS + 1);
    } catch {
      // Its filters could not run alone: every value it read (more, never fewer).
      answer = await session.read(select(''), MAX_LOOKUP_KEYS + 1);
    }
    return answer.rows.map((row) => keyAttribute(target, lookup.column, String(row[0])));
  };

  for (const [position, access] of accesses.entries()) {
    const { table } = access;
    const keys = keysOf(table);
    const binding = bound.get(table.name)!;
    let landing = landings.get(table.name);
    if (!landing) {
      // The attributes the statement binds; COUNT(*) binds none, and the key stands in for each item.
      const columns = binding.attributes.length > 0 ? binding.attributes : [keys.partitionKey];
      const keyNames =
        (readsOf.get(table.name) ?? 0) > 1
          ? [keys.partitionKey, ...(keys.sortKey ? [keys.sortKey] : [])]
          : [];
      landing = {
        raw: `toolrow_raw_${landings.size}`,
        columns,
        keys: keyNames,
        stats: columns.map(() => new ColumnStats()),
      };
      landings.set(table.name, landing);
      await session.run(
        `CREATE TEMP TABLE ${landing.raw} (toolrow_read INTEGER, ${[
          ...columns.map((_, index) => `c${index} VARCHAR`),
          ...keyNames.map((_, index) => `k${index} VARCHAR`),
        ].join(', ')})`,
      );
    }
    const { columns, stats } = landing;
    const fetched = [...new Set([...columns, ...landing.keys])];
    const projection = {
      ProjectionExpression: fetched.map((_, index) => `#p${index}`).join(', '),
      ExpressionAttributeNames: Object.fromEntries(fetched.map((name, index) => [`#p${index}`, name])),
    };
    const filter = filterOf(table, access.filters);
    const read: TableRead = {
      table: table.name,
      operation: access.operation,
      ...(access.index ? { index: access.index } : {}),
      items: 0,
    };
    reads.push(read);

    const raw = landing.raw;
    const keyNames = landing.keys;
    let batch: (string | null)[][] = [];
    const flush = async () => {
      if (batch.length === 0) return;
      const rows = batch;
      batch = [];
      await session.append(raw, rows);
    };
    const append = async (items: Record<string, AttributeValue>[]) => {
      for (const item of items) {
        batch.push([
          String(position),
          ...columns.map((name, index) => {
            const value = item[name];
            if (value === undefined) return null;
            stats[index]!.see(value);
            return textOf(value);
          }),
          ...keyNames.map((name) => (item[name] ? JSON.stringify(item[name]) : null)),
        ]);
      }
      if (batch.length >= APPEND_BATCH) await flush();
    };

    const { scan, query, get } = readersOf(
      client,
      access,
      projection,
      filter,
      abortSignal,
      (items, capacity) => counted(access, read, items, capacity),
    );

    let pages: Pages;
    if (access.lookup) {
      const found = await valuesOf(access.lookup, table);
      if (found.length > access.lookup.maxValues) {
        // More values than the plan compared with a Scan: the Scan reads fewer.
        read.operation = 'Scan';
        delete read.index;
        read.note = `${found.length.toLocaleString('en-US')} values to look up, more than the ${access.lookup.maxValues.toLocaleString('en-US')} that read fewer items than a Scan: read by Scan instead`;
        pages = scan();
      } else {
        if (itemsRead + found.length > options.maxItemsRead)
          throw new DataSourceError(
            'too-large',
            `The statement would look up ${found.length.toLocaleString('en-US')} keys of ${table.name} after reading ${itemsRead.toLocaleString('en-US')} items, past the ${options.maxItemsRead.toLocaleString('en-US')} this connection lets one statement read. ${pinAdvice(access, keys)} ${raiseBound(itemsRead + found.length)}`,
          );
        if (access.operation === 'BatchGetItem')
          pages = get(found.map((value) => ({ [access.partitionKey]: value })));
        else pages = query(found);
      }
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
    for await (const items of pages) await append(items);
    await flush();
  }

  for (const [name, landing] of landings)
    await typeLanding(
      session,
      accesses.find((access) => access.table.name === name)!.table,
      landing,
      bound.get(name)!,
      reads,
    );
  return reads;
}
