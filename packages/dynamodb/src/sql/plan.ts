// How each table of a SQL statement is read from DynamoDB, decided before anything runs: GetItem or
// BatchGetItem when its whole key is pinned (also the inner side of a join on its key, from the
// values the outer side read, within a bounded fan-out), a Query on the table or the index whose
// partition key is pinned (a sort-key range pushed down), and a parallel Scan only when nothing
// pins it. Only the attributes the statement uses are fetched.
import type { TableInfo } from '@toolrow/datasource';
import type { DynamoKeys } from '../schema.ts';
import type { Constant, Pin, TableUse } from './analyze.ts';

/** Items one statement's lookups may fan out to (the inner side of a join on a key). */
export const MAX_LOOKUP_KEYS = 1000;
/** Partition values one table may be queried for, one Query each (an IN list). */
export const MAX_QUERIES = 100;

export type Operation = 'GetItem' | 'BatchGetItem' | 'Query' | 'Scan';

export interface TableAccess {
  table: TableInfo;
  operation: Operation;
  /** The index a Query reads (absent: the table's own key). */
  index?: string;
  partitionKey: string;
  sortKey?: string;
  /** The partition key's values (a Query or a get each); absent for a Scan or a lookup. */
  values?: Constant[];
  /** The sort key's condition (a Query) or values (a get). */
  sortPin?: Pin;
  /** The values come from another table's read: its column, once that table is read. */
  lookup?: { table: string; column: string };
  /** The attributes fetched (projection); 'all': every attribute. */
  attributes: string[] | 'all';
  /**
   * Predicates on other attributes DynamoDB applies as a FilterExpression (a Query's or a Scan's):
   * fewer items come back, the same are read. DuckDB applies the whole WHERE again.
   */
  filters?: Pin[];
  /** Items it expects to read, from the table's item count. */
  expectedItems: number;
  /** As a person reads it: "Query on by_customer (customer_id = 7)". */
  describe: string;
}

const KEY_OPS = new Set<Pin['op']>(['eq', 'in']);

function keyValues(pin: Pin | undefined): Constant[] | undefined {
  return pin && KEY_OPS.has(pin.op) ? pin.values : undefined;
}

const show = (value: Constant) => (typeof value === 'string' ? `'${value}'` : String(value));

/** The keys an access asks for before anything comes back: each get, each Query's value. */
export function keysToRead(access: TableAccess): number {
  if (access.lookup || access.operation === 'Scan') return 0;
  const values = access.values?.length ?? 0;
  if (access.operation === 'Query') return values;
  return values * (access.sortKey && access.sortPin ? access.sortPin.values.length : 1);
}

function describePin(pin: Pin): string {
  switch (pin.op) {
    case 'eq':
      return `${pin.column} = ${show(pin.values[0]!)}`;
    case 'in':
      return `${pin.column} IN (${pin.values.map(show).join(', ')})`;
    case 'between':
      return `${pin.column} BETWEEN ${show(pin.values[0]!)} AND ${show(pin.values[1]!)}`;
    default:
      return `${pin.column} ${{ lt: '<', lte: '<=', gt: '>', gte: '>=' }[pin.op]} ${show(pin.values[0]!)}`;
  }
}

function estimateFor(table: TableInfo, column: string, values: number): number {
  const distinct = table.columns.find((each) => each.name === column)?.distinctEstimate ?? 1;
  return Math.max(values, Math.round((table.rowEstimate / Math.max(distinct, 1)) * values));
}

/**
 * The access of every table, in the order they must be read (a lookup after the table it takes
 * its values from). `keysOf` gives a table's key schema; the uses come from analyze().
 */
export function planReads(
  uses: readonly TableUse[],
  tables: ReadonlyMap<string, TableInfo>,
  keysOf: (table: TableInfo) => DynamoKeys,
): TableAccess[] {
  const planned: TableAccess[] = [];
  const done = new Set<string>();
  const attributesOf = (use: TableUse): string[] | 'all' =>
    use.columns === 'all' ? 'all' : [...use.columns].sort();

  const pinned = (use: TableUse): TableAccess | undefined => {
    const table = tables.get(use.table)!;
    const keys = keysOf(table);
    const pins = use.pins ?? [];
    const on = (column: string | undefined) =>
      column ? pins.find((pin) => pin.column === column) : undefined;
    const attributes = attributesOf(use);
    const partition = keyValues(on(keys.partitionKey));
    if (partition && partition.length <= MAX_QUERIES) {
      const sortPin = on(keys.sortKey);
      const sortValues = keyValues(sortPin);
      if (!keys.sortKey || sortValues) {
        const count = partition.length * (sortValues?.length ?? 1);
        const operation: Operation = count === 1 ? 'GetItem' : 'BatchGetItem';
        return {
          table,
          operation,
          partitionKey: keys.partitionKey,
          ...(keys.sortKey ? { sortKey: keys.sortKey } : {}),
          values: partition,
          ...(sortPin ? { sortPin } : {}),
          attributes,
          expectedItems: count,
          describe: `${operation} on ${table.name} (${[on(keys.partitionKey)!, ...(sortPin ? [sortPin] : [])].map(describePin).join(' AND ')})`,
        };
      }
      return {
        table,
        operation: 'Query',
        partitionKey: keys.partitionKey,
        ...(keys.sortKey ? { sortKey: keys.sortKey } : {}),
        values: partition,
        ...(sortPin ? { sortPin } : {}),
        attributes,
        expectedItems: estimateFor(table, keys.partitionKey, partition.length),
        describe: `Query on ${table.name} (${[on(keys.partitionKey)!, ...(sortPin ? [sortPin] : [])].map(describePin).join(' AND ')})`,
      };
    }
    // The index whose partition key is pinned; one whose sort key is pinned too, first.
    const candidates = keys.indexes
      .map((index) => ({ index, values: keyValues(on(index.partitionKey)), sortPin: on(index.sortKey) }))
      .filter((each) => each.values && each.values.length <= MAX_QUERIES)
      .sort((a, b) => Number(Boolean(b.sortPin)) - Number(Boolean(a.sortPin)));
    const best = candidates[0];
    if (best) {
      return {
        table,
        operation: 'Query',
        index: best.index.name,
        partitionKey: best.index.partitionKey,
        ...(best.index.sortKey ? { sortKey: best.index.sortKey } : {}),
        values: best.values!,
        ...(best.sortPin ? { sortPin: best.sortPin } : {}),
        attributes,
        expectedItems: estimateFor(table, best.index.partitionKey, best.values!.length),
        describe: `Query on ${table.name} index ${best.index.name} (${[on(best.index.partitionKey)!, ...(best.sortPin ? [best.sortPin] : [])].map(describePin).join(' AND ')})`,
      };
    }
    return undefined;
  };

  const lookup = (use: TableUse): TableAccess | undefined => {
    const table = tables.get(use.table)!;
    const keys = keysOf(table);
    for (const edge of use.joins) {
      if (!done.has(edge.other.table)) continue;
      const from = planned.find((access) => access.table.name === edge.other.table)!;
      // Only a side that reads few items fans out into lookups; a Scan's values would be many.
      if (from.operation === 'Scan' || from.expectedItems > MAX_LOOKUP_KEYS) continue;
      const attributes = attributesOf(use);
      if (edge.column === keys.partitionKey) {
        const operation: Operation = keys.sortKey ? 'Query' : 'BatchGetItem';
        return {
          table,
          operation,
          partitionKey: keys.partitionKey,
          ...(keys.sortKey ? { sortKey: keys.sortKey } : {}),
          lookup: edge.other,
          attributes,
          expectedItems: keys.sortKey
            ? estimateFor(table, keys.partitionKey, from.expectedItems)
            : from.expectedItems,
          describe: `${operation} on ${table.name} (${keys.partitionKey} = each ${edge.other.table}.${edge.other.column} read)`,
        };
      }
      const index = keys.indexes.find((each) => each.partitionKey === edge.column);
      if (index) {
        return {
          table,
          operation: 'Query',
          index: index.name,
          partitionKey: index.partitionKey,
          ...(index.sortKey ? { sortKey: index.sortKey } : {}),
          lookup: edge.other,
          attributes,
          expectedItems: estimateFor(table, index.partitionKey, from.expectedItems),
          describe: `Query on ${table.name} index ${index.name} (${index.partitionKey} = each ${edge.other.table}.${edge.other.column} read)`,
        };
      }
    }
    return undefined;
  };

  const remaining = [...uses];
  const take = (decide: (use: TableUse) => TableAccess | undefined) => {
    let progress = true;
    while (progress) {
      progress = false;
      for (const use of [...remaining]) {
        const access = decide(use);
        if (!access) continue;
        planned.push(access);
        done.add(use.table);
        remaining.splice(remaining.indexOf(use), 1);
        progress = true;
      }
    }
  };
  take(pinned);
  take(lookup);
  for (const use of remaining) {
    const table = tables.get(use.table)!;
    const keys = keysOf(table);
    planned.push({
      table,
      operation: 'Scan',
      partitionKey: keys.partitionKey,
      attributes: attributesOf(use),
      expectedItems: Math.round(table.rowEstimate),
      describe: `Scan of the whole table ${table.name} (nothing pins its key or an index's)`,
    });
  }
  for (const access of planned) {
    if (access.operation !== 'Query' && access.operation !== 'Scan') continue;
    const use = uses.find((each) => each.table === access.table.name);
    // What the key condition already holds: a Query's partition key and its sort-key range.
    const inKey = (pin: Pin) =>
      access.operation === 'Query' &&
      (pin.column === access.partitionKey ||
        (pin.column === access.sortKey && access.sortPin !== undefined && access.sortPin.op !== 'in'));
    const filters = (use?.pins ?? []).filter(
      (pin) =>
        !inKey(pin) && pushable(pin, access.table.columns.find((column) => column.name === pin.column)?.type),
    );
    if (filters.length === 0) continue;
    access.filters = filters;
    access.describe += `, filtered by ${filters.map(describePin).join(' AND ')}`;
  }
  return planned;
}

/**
 * Whether DynamoDB's filter keeps exactly the items the predicate does: numbers of a number
 * attribute compared (exactly: at most 15 digits), strings and booleans of one type by equality only
 * (DynamoDB orders strings by UTF-8 bytes, DuckDB may read them as instants).
 */
function pushable(pin: Pin, type: string | undefined): boolean {
  if (pin.values.length === 0 || pin.values.length > 100) return false;
  if (type === 'N')
    return pin.values.every(
      (value) =>
        typeof value === 'number' &&
        Number.isFinite(value) &&
        String(value).replace(/[-.]|e.*$/gi, '').length <= 15,
    );
  if (type === 'S')
    return (pin.op === 'eq' || pin.op === 'in') && pin.values.every((value) => typeof value === 'string');
  if (type === 'BOOL') return pin.op === 'eq' && typeof pin.values[0] === 'boolean';
  return false;
}

/** What would let a table be read without a Scan: its key, or an index that serves a predicate. */
export function pinAdvice(access: TableAccess, keys: DynamoKeys): string {
  const options = [
    `WHERE ${keys.partitionKey} = …`,
    ...keys.indexes.map((index) => `WHERE ${index.partitionKey} = … (index ${index.name})`),
  ];
  return `${access.table.name} is read by Scan: pin ${options.join(', or ')}, join it on its key to a table that is pinned, or export the query instead (an export reads past the bound).`;
}
