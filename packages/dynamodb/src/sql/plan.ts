// How each table of a SQL statement is read from DynamoDB, decided before anything runs, per place
// the statement reads it (a reference): GetItem or BatchGetItem when its whole key is pinned, a
// Query on the table or the index whose partition key is pinned (a sort-key range pushed down),
// and otherwise — sideways — from what another reference leaves after its own filters: its join,
// IN, EXISTS or correlated values pin this one's key (BatchGetItem) or an index's partition key (a
// Query per value), when a cost model in items says that reads fewer than a Scan. The most
// selective references are read first; a parallel Scan reads what nothing pins, smallest first.
// Only the attributes the statement binds are fetched.
import { ReadBoundError, type TableInfo } from '@toolrow/datasource';
import { raiseBound, readCost } from '../read-bound.ts';
import type { DynamoKeys } from '../schema.ts';
import type { Constant, Edge, Pin, Ref } from './analyze.ts';

/** Values one lookup may ask for (a BatchGetItem per 100, or a Query each). */
export const MAX_LOOKUP_KEYS = 10_000;
/** A lookup is planned when it is expected to read fewer items than this share of a Scan. */
const LOOKUP_SHARE = 1;
/** Partition values one table may be queried for, one Query each (an IN list). */
export const MAX_QUERIES = 100;

export type Operation = 'GetItem' | 'BatchGetItem' | 'Query' | 'Scan';

export interface TableAccess {
  table: TableInfo;
  /** The references this read serves (a Scan serves every reference of its table). */
  refs: Ref[];
  operation: Operation;
  /** The index a Query reads (absent: the table's own key). */
  index?: string;
  partitionKey: string;
  sortKey?: string;
  /** The partition key's values (a Query or a get each); absent for a Scan or a lookup. */
  values?: Constant[];
  /** The sort key's condition (a Query) or values (a get). */
  sortPin?: Pin;
  /**
   * The values come from another reference's rows once it is read (after its own filters); past
   * `maxValues` of them the read is a Scan instead, as the cost model compared.
   */
  lookup?: {
    from: Ref;
    column: string;
    fromColumn: string;
    /** Items each value is expected to read. */
    perValue: number;
    /** Values expected. */
    values: number;
    maxValues: number;
  };
  /** The attributes fetched (projection): those the statement binds. */
  attributes: string[];
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

/** The share of a table's items a condition keeps, from the sample (a guess where it has none). */
function selectivity(table: TableInfo, pin: Pin | undefined): number {
  if (!pin) return 0.25;
  const column = table.columns.find((each) => each.name === pin.column);
  if (pin.op === 'eq' || pin.op === 'in') {
    const common = column?.commonValues ?? [];
    const frequency = pin.values.reduce<number>((sum, value) => {
      const found = common.find((each) => String(each.value) === String(value));
      return sum + (found ? Number(found.frequency) : 1 / Math.max(column?.distinctEstimate ?? 10, 10));
    }, 0);
    return Math.min(1, frequency);
  }
  return 0.3;
}

/** Items a reference is expected to keep after its own filters, of those its read reads. */
function kept(ref: Ref, access: TableAccess): number {
  let share = 1;
  for (const filter of ref.filters) {
    const pin = ref.pins.find((each) => each.source === filter);
    // The key condition already narrowed the read by this one.
    const inKey =
      pin &&
      access.operation !== 'Scan' &&
      !access.lookup &&
      (pin.column === access.partitionKey || pin.column === access.sortKey);
    if (!inKey) share *= selectivity(access.table, pin);
  }
  return Math.max(1, Math.round(access.expectedItems * share));
}

/** Items the schema sampled (its first Scan page): what a sampled distinct count is out of. */
const SAMPLE_SIZE = 200;

/**
 * Distinct values of a column in the whole table, from the sample. A Scan returns a partition's
 * items together, so the sample holds whole partitions: the partition key has one value per
 * (sampled items ÷ sampled values) items. Any other column distinct in nearly every sampled item
 * may be distinct in every item (an upper bound); else the sample's count.
 */
function distinctTotal(table: TableInfo, keys: DynamoKeys, column: string): number {
  const rows = Math.max(1, table.rowEstimate);
  const sampled = table.columns.find((each) => each.name === column)?.distinctEstimate;
  const sampleSize = Math.min(SAMPLE_SIZE, rows);
  if (column === keys.partitionKey) {
    if (!keys.sortKey) return rows;
    return sampled ? Math.max(1, Math.round(rows / Math.max(1, sampleSize / sampled))) : rows;
  }
  if (sampled == null || sampled >= sampleSize * 0.8) return rows;
  return Math.max(1, sampled);
}

function estimateFor(table: TableInfo, keys: DynamoKeys, column: string, values: number): number {
  return Math.max(values, Math.round((table.rowEstimate / distinctTotal(table, keys, column)) * values));
}

/**
 * Each reference's read, in the order they must run (a lookup after the reference it takes its
 * values from). `keysOf` gives a table's key schema; the references come from analyze(), their
 * attributes from the binding (`attributesOf`).
 */
export function planReads(
  refs: readonly Ref[],
  tables: ReadonlyMap<string, TableInfo>,
  keysOf: (table: TableInfo) => DynamoKeys,
  attributesOf: (table: string) => string[],
): TableAccess[] {
  const planned: TableAccess[] = [];
  const accessOf = new Map<Ref, TableAccess>();
  /** Rows each planned reference is expected to keep after its own filters. */
  const keeps = new Map<Ref, number>();

  const pinned = (ref: Ref) => keyedRead(ref, tables.get(ref.table)!, keysOf, attributesOf(ref.table));

  /** The cheapest lookup of a reference from one already planned, if it reads fewer than a Scan. */
  const lookup = (ref: Ref): { access: TableAccess; cost: number } | undefined => {
    const table = tables.get(ref.table)!;
    const keys = keysOf(table);
    let best: { access: TableAccess; cost: number } | undefined;
    for (const edge of ref.edges) {
      const from = refsById.get(edge.from);
      if (!from || !keeps.has(from)) continue;
      const fromTable = tables.get(from.table)!;
      const fromDistinct = distinctKept(from, edge.fromColumn);
      const fromUniverse = distinctTotal(fromTable, keysOf(fromTable), edge.fromColumn);
      const candidate = lookupVia(
        ref,
        table,
        keys,
        edge,
        from,
        fromDistinct,
        fromUniverse,
        attributesOf(ref.table),
      );
      const values = Math.min(keeps.get(from)!, fromDistinct);
      if (!candidate) continue;
      const cost = candidate.expectedItems;
      if (cost >= table.rowEstimate * LOOKUP_SHARE || values > MAX_LOOKUP_KEYS) continue;
      if (!best || cost < best.cost) best = { access: candidate, cost };
    }
    return best;
  };

  const refsById = new Map(refs.map((ref) => [ref.id, ref]));
  /** Distinct values of a column among the rows a planned reference keeps. */
  const distinctKept = (ref: Ref, column: string): number => {
    const access = accessOf.get(ref)!;
    const rows = keeps.get(ref)!;
    if (access.lookup?.column === column) return Math.max(1, Math.min(rows, access.lookup.values));
    if (access.values && column === access.partitionKey) return Math.min(rows, access.values.length);
    return Math.max(1, Math.min(rows, distinctTotal(access.table, keysOf(access.table), column)));
  };
  const remaining = new Set(refs);
  const place = (ref: Ref, access: TableAccess) => {
    // Another reference already reads the same items (the same lookup): one read serves both.
    const same = planned.find(
      (each) =>
        each.table === access.table &&
        each.lookup &&
        access.lookup &&
        each.lookup.from === access.lookup.from &&
        each.lookup.column === access.lookup.column &&
        each.lookup.fromColumn === access.lookup.fromColumn &&
        each.index === access.index,
    );
    if (same) {
      same.refs.push(ref);
      accessOf.set(ref, same);
      keeps.set(ref, kept(ref, same));
      remaining.delete(ref);
      return;
    }
    planned.push(access);
    accessOf.set(ref, access);
    keeps.set(ref, kept(ref, access));
    remaining.delete(ref);
  };
  for (const ref of [...remaining]) {
    const access = pinned(ref);
    if (access) place(ref, access);
  }
  while (remaining.size > 0) {
    let cheapest: { ref: Ref; access: TableAccess; cost: number } | undefined;
    for (const ref of remaining) {
      const found = lookup(ref);
      if (found && (!cheapest || found.cost < cheapest.cost)) cheapest = { ref, ...found };
    }
    if (cheapest) {
      place(cheapest.ref, cheapest.access);
      continue;
    }
    // Nothing pins what is left: Scan the smallest table, whose rows may then pin the others.
    const ref = [...remaining].sort(
      (a, b) => tables.get(a.table)!.rowEstimate - tables.get(b.table)!.rowEstimate,
    )[0]!;
    const table = tables.get(ref.table)!;
    const keys = keysOf(table);
    place(ref, {
      table,
      refs: [ref],
      operation: 'Scan',
      partitionKey: keys.partitionKey,
      attributes: attributesOf(ref.table),
      expectedItems: Math.round(table.rowEstimate),
      describe: `Scan of the whole table ${table.name} (nothing pins its key or an index's${ref.edges.length > 0 ? ', and no lookup reads fewer' : ''})`,
    });
  }

  // A table read whole for one reference is read once for all of them: the Scan takes the place
  // of the first read of that table (a Scan depends on nothing, so it may move earlier).
  const merged: TableAccess[] = [];
  for (const access of planned) {
    const scan = planned.find((each) => each.table === access.table && each.operation === 'Scan');
    if (!scan) {
      merged.push(access);
      continue;
    }
    if (merged.includes(scan)) continue;
    scan.refs = refs.filter((ref) => ref.table === access.table.name);
    merged.push(scan);
  }

  for (const access of merged) {
    if (access.operation !== 'Query' && access.operation !== 'Scan') continue;
    // Pushed down only for a read that serves one reference: another may need other items.
    if (access.refs.length !== 1) continue;
    const pins = access.refs[0]!.pins;
    // What the key condition already holds: a Query's partition key and its sort-key range.
    const inKey = (pin: Pin) =>
      access.operation === 'Query' &&
      !access.lookup &&
      (pin.column === access.partitionKey ||
        (pin.column === access.sortKey && access.sortPin !== undefined && access.sortPin.op !== 'in'));
    const filters = pins.filter(
      (pin) =>
        !inKey(pin) && pushable(pin, access.table.columns.find((column) => column.name === pin.column)?.type),
    );
    if (filters.length === 0) continue;
    access.filters = filters;
    access.describe += `, filtered by ${filters.map(describePin).join(' AND ')}`;
  }
  return merged;
}

/** The read of a reference its constants pin: gets of its whole key, a Query of its partition or an index's. */
function keyedRead(
  ref: Ref,
  table: TableInfo,
  keysOf: (table: TableInfo) => DynamoKeys,
  attributes: string[],
): TableAccess | undefined {
  const keys = keysOf(table);
  const pins = ref.pins;
  const on = (column: string | undefined) => (column ? pins.find((pin) => pin.column === column) : undefined);
  const partition = keyValues(on(keys.partitionKey));
  if (partition && partition.length <= MAX_QUERIES) {
    const sortPin = on(keys.sortKey);
    const sortValues = keyValues(sortPin);
    if (!keys.sortKey || sortValues) {
      const count = partition.length * (sortValues?.length ?? 1);
      const operation: Operation = count === 1 ? 'GetItem' : 'BatchGetItem';
      return {
        table,
        refs: [ref],
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
    // The table's sort key is not narrowed, and a local index's is: that index reads fewer (a
    // range of the partition instead of all of it).
    const local = sortPin
      ? undefined
      : keys.indexes.find(
          (index) =>
            index.kind === 'LSI' &&
            index.partitionKey === keys.partitionKey &&
            on(index.sortKey) !== undefined,
        );
    const usedSort = local ? on(local.sortKey)! : sortPin;
    const partitionItems = estimateFor(table, keys, keys.partitionKey, partition.length);
    return {
      table,
      refs: [ref],
      operation: 'Query',
      ...(local ? { index: local.name } : {}),
      partitionKey: keys.partitionKey,
      ...((local?.sortKey ?? keys.sortKey) ? { sortKey: (local?.sortKey ?? keys.sortKey)! } : {}),
      values: partition,
      ...(usedSort ? { sortPin: usedSort } : {}),
      attributes,
      expectedItems: local ? Math.max(partition.length, Math.round(partitionItems * 0.3)) : partitionItems,
      describe: `Query on ${table.name}${local ? ` index ${local.name}` : ''} (${[on(keys.partitionKey)!, ...(usedSort ? [usedSort] : [])].map(describePin).join(' AND ')})`,
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
      refs: [ref],
      operation: 'Query',
      index: best.index.name,
      partitionKey: best.index.partitionKey,
      ...(best.index.sortKey ? { sortKey: best.index.sortKey } : {}),
      values: best.values!,
      ...(best.sortPin ? { sortPin: best.sortPin } : {}),
      attributes,
      expectedItems: estimateFor(table, keys, best.index.partitionKey, best.values!.length),
      describe: `Query on ${table.name} index ${best.index.name} (${[on(best.index.partitionKey)!, ...(best.sortPin ? [best.sortPin] : [])].map(describePin).join(' AND ')})`,
    };
  }
  return undefined;
}

/**
 * A read of `ref` with the values of `from`'s column (`fromDistinct` of them expected, of
 * `fromUniverse` in its table): by its key,
 * or a Query of an index. Items per value: a partition's items, or the table's items over the
 * values the two columns can share.
 */
function lookupVia(
  ref: Ref,
  table: TableInfo,
  keys: DynamoKeys,
  edge: Edge,
  from: Ref,
  fromDistinct: number,
  fromUniverse: number,
  attributes: string[],
): TableAccess | undefined {
  const source = `each ${from.alias}.${edge.fromColumn} kept`;
  const rows = Math.max(1, table.rowEstimate);
  // The column's values are the source column's (a join): no more distinct than either has.
  const perValueOf = (column: string) =>
    Math.max(1, rows / Math.max(1, Math.min(distinctTotal(table, keys, column), fromUniverse)));
  const lookupOf = (column: string, perValue: number, values: number) => ({
    from,
    column,
    fromColumn: edge.fromColumn,
    perValue,
    values,
    maxValues: maxValuesOf(table, perValue),
  });
  if (edge.column === keys.partitionKey) {
    const operation: Operation = keys.sortKey ? 'Query' : 'BatchGetItem';
    const perValue = keys.sortKey ? rows / distinctTotal(table, keys, keys.partitionKey) : 1;
    return {
      table,
      refs: [ref],
      operation,
      partitionKey: keys.partitionKey,
      ...(keys.sortKey ? { sortKey: keys.sortKey } : {}),
      lookup: lookupOf(edge.column, perValue, fromDistinct),
      attributes,
      expectedItems: Math.round(fromDistinct * perValue),
      describe: `${operation} on ${table.name} (${keys.partitionKey} = ${source}, about ${fromDistinct.toLocaleString('en-US')})`,
    };
  }
  const index = keys.indexes.find((each) => each.partitionKey === edge.column);
  if (!index) return undefined;
  const perValue = perValueOf(index.partitionKey);
  return {
    table,
    refs: [ref],
    operation: 'Query',
    index: index.name,
    partitionKey: index.partitionKey,
    ...(index.sortKey ? { sortKey: index.sortKey } : {}),
    lookup: lookupOf(edge.column, perValue, fromDistinct),
    attributes,
    expectedItems: Math.round(fromDistinct * perValue),
    describe: `Query on ${table.name} index ${index.name} (${index.partitionKey} = ${source}, about ${fromDistinct.toLocaleString('en-US')})`,
  };
}

/** Past this many values, the lookup would read more than the Scan it was compared with. */
function maxValuesOf(table: TableInfo, perValue: number): number {
  return Math.min(MAX_LOOKUP_KEYS, Math.max(1, Math.floor(table.rowEstimate / perValue)));
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

/** What a statement would read, refused before any request when past the bound, with its cost. */
export function checkReadBound(
  accesses: readonly TableAccess[],
  maxItemsRead: number,
  keysOf: (table: TableInfo) => DynamoKeys,
): void {
  const bound = maxItemsRead.toLocaleString('en-US');
  for (const access of accesses) {
    if (access.operation === 'Scan' && access.expectedItems > maxItemsRead)
      throw new ReadBoundError(
        {
          items: accesses.reduce((sum, each) => sum + each.expectedItems, 0),
          bound: maxItemsRead,
        },
        `${access.table.name} holds ${readCost(access.expectedItems, access.table)} to Scan, more than the ${bound} items this connection lets one statement read. ${pinAdvice(access, keysOf(access.table))} ${raiseBound(access.expectedItems)}`,
      );
  }
  const keyed = accesses.reduce((sum, access) => sum + keysToRead(access), 0);
  if (keyed > maxItemsRead) {
    const widest = [...accesses].sort((a, b) => keysToRead(b) - keysToRead(a))[0]!;
    throw new ReadBoundError(
      { items: keyed, bound: maxItemsRead },
      `The statement asks for ${keyed.toLocaleString('en-US')} keys (${widest.describe}), more than the ${bound} items this connection lets one statement read: each key is a read whether or not the item exists (${readCost(keyed, widest.table, true)}). Ask for fewer keys. ${raiseBound(keyed)}`,
    );
  }
}
