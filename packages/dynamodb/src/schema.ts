// The schema of a DynamoDB table: key schema, indexes, TTL, item count and size from DescribeTable,
// and attributes inferred from a bounded sample of items (name, the types seen, how often present).
// When each table is read, and kept, is table-schemas.ts's.
import { type DynamoDBClient, ListTablesCommand, type TableDescription } from '@aws-sdk/client-dynamodb';
import type { ColumnInfo, CommonValue, IndexInfo, TableInfo } from '@toolrow/datasource';
import { fromAttribute, typeOf, valueText } from './values.ts';

/** Items read per table to infer its attributes. */
export const SAMPLE_ITEMS = 200;

/** What DynamoDB says of a table, beside the columns: for the planner (Query or Scan). */
export interface DynamoKeys {
  partitionKey: string;
  sortKey?: string;
  /** Indexes by name: their keys. */
  indexes: { name: string; kind: 'GSI' | 'LSI'; partitionKey: string; sortKey?: string }[];
}

/** The keys of each table, by name, beside the snapshot (the planner reads them). */
export type KeyMap = Map<string, DynamoKeys>;

/** Every table's name, across ListTables' pages. */
export async function listTableNames(client: DynamoDBClient): Promise<string[]> {
  const names: string[] = [];
  let start: string | undefined;
  do {
    const page = await client.send(
      new ListTablesCommand({ ...(start ? { ExclusiveStartTableName: start } : {}) }),
    );
    names.push(...(page.TableNames ?? []));
    start = page.LastEvaluatedTableName;
  } while (start);
  return names;
}

export function keysOf(table: TableDescription): DynamoKeys {
  const key = (schema: TableDescription['KeySchema']) => ({
    partitionKey: schema?.find((part) => part.KeyType === 'HASH')?.AttributeName ?? '',
    ...(schema?.find((part) => part.KeyType === 'RANGE')
      ? { sortKey: schema.find((part) => part.KeyType === 'RANGE')!.AttributeName! }
      : {}),
  });
  return {
    ...key(table.KeySchema),
    // By name: DynamoDB lists indexes in no fixed order.
    indexes: [
      ...(table.GlobalSecondaryIndexes ?? []).map((index) => ({
        name: index.IndexName!,
        kind: 'GSI' as const,
        ...key(index.KeySchema),
      })),
      ...(table.LocalSecondaryIndexes ?? []).map((index) => ({
        name: index.IndexName!,
        kind: 'LSI' as const,
        ...key(index.KeySchema),
      })),
    ].sort((a, b) => a.name.localeCompare(b.name)),
  };
}

export function tableInfo(
  name: string,
  table: TableDescription,
  keys: DynamoKeys,
  items: readonly Record<string, import('@aws-sdk/client-dynamodb').AttributeValue>[],
  ttlAttribute: string | undefined,
): TableInfo {
  const seen = new Map<
    string,
    { types: Set<string>; present: number; values: Map<string, number>; numbers: number[] }
  >();
  for (const item of items) {
    for (const [attribute, value] of Object.entries(item)) {
      let entry = seen.get(attribute);
      if (!entry) {
        entry = { types: new Set(), present: 0, values: new Map(), numbers: [] };
        seen.set(attribute, entry);
      }
      const type = typeOf(value);
      entry.types.add(type);
      entry.present++;
      if (type === 'S' || type === 'N' || type === 'BOOL') {
        const text = valueText(fromAttribute(value));
        if (text.length <= 200) entry.values.set(text, (entry.values.get(text) ?? 0) + 1);
        if (type === 'N') entry.numbers.push(Number(value.N));
      }
    }
  }
  // Keys first (partition, sort), then the other attributes by how often they are present.
  const keyNames = [keys.partitionKey, keys.sortKey].filter((each): each is string => Boolean(each));
  for (const key of keyNames) {
    if (!seen.has(key)) {
      const declared = table.AttributeDefinitions?.find((each) => each.AttributeName === key)?.AttributeType;
      seen.set(key, {
        types: new Set(declared ? [declared] : []),
        present: items.length,
        values: new Map(),
        numbers: [],
      });
    }
  }
  const ordered = [...seen.entries()].sort(([a, left], [b, right]) => {
    const rank = (attribute: string) => (keyNames.includes(attribute) ? keyNames.indexOf(attribute) : 9);
    return rank(a) - rank(b) || right.present - left.present || a.localeCompare(b);
  });
  const total = Math.max(items.length, 1);
  const columns: ColumnInfo[] = ordered.map(([attribute, entry], index) => {
    const roles = [
      attribute === keys.partitionKey ? 'partition key' : '',
      attribute === keys.sortKey ? 'sort key' : '',
      ...keys.indexes
        .filter((each) => each.partitionKey === attribute || each.sortKey === attribute)
        .map(
          (each) =>
            `${each.partitionKey === attribute ? 'partition' : 'sort'} key of ${each.kind} ${each.name}`,
        ),
      attribute === ttlAttribute ? 'TTL (expiry time, epoch seconds)' : '',
    ].filter(Boolean);
    const presence = Math.min(entry.present / total, 1);
    const common: CommonValue[] = [...entry.values.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 10)
      .map(([value, count]) => ({ value, frequency: count / total }));
    const sortedNumbers = entry.numbers.sort((a, b) => a - b);
    return {
      name: attribute,
      type: [...entry.types].sort().join('|') || 'unknown',
      typeId: 0,
      nullable: !keyNames.includes(attribute),
      default: null,
      generated: false,
      position: index + 1,
      primaryKey: keyNames.includes(attribute),
      comment: `${roles.length > 0 ? `${roles.join('; ')}; ` : ''}present in ${Math.round(presence * 100)}% of ${items.length} sampled items`,
      commonValues: common,
      min: sortedNumbers.length > 0 ? String(sortedNumbers[0]) : null,
      max: sortedNumbers.length > 0 ? String(sortedNumbers.at(-1)) : null,
      distinctEstimate: entry.values.size > 0 ? entry.values.size : null,
      nullFraction: keyNames.includes(attribute) ? 0 : 1 - presence,
    };
  });
  const indexes: IndexInfo[] = [
    {
      name: 'primary',
      columns: keyNames,
      unique: true,
      primary: true,
      definition: `primary key (partition ${keys.partitionKey}${keys.sortKey ? `, sort ${keys.sortKey}` : ''})`,
      sizeBytes: table.TableSizeBytes ?? 0,
      scans: 0,
    },
    ...keys.indexes.map((index) => {
      const described = [
        ...(table.GlobalSecondaryIndexes ?? []),
        ...(table.LocalSecondaryIndexes ?? []),
      ].find((each) => each.IndexName === index.name);
      return {
        name: index.name,
        columns: [index.partitionKey, index.sortKey].filter((each): each is string => Boolean(each)),
        unique: false,
        primary: false,
        definition: `${index.kind} (partition ${index.partitionKey}${index.sortKey ? `, sort ${index.sortKey}` : ''}), projection ${described?.Projection?.ProjectionType ?? 'ALL'}`,
        sizeBytes: described?.IndexSizeBytes ?? 0,
        scans: 0,
      };
    }),
  ];
  return {
    schema: '',
    name,
    qualifiedName: name,
    kind: 'table',
    comment: ttlAttribute ? `TTL on ${ttlAttribute}` : null,
    columns,
    primaryKey: keyNames,
    indexes,
    foreignKeys: [],
    referencedBy: [],
    openColumns: true,
    rowEstimate: Number(table.ItemCount ?? 0),
    tableBytes: Number(table.TableSizeBytes ?? 0),
    totalBytes:
      Number(table.TableSizeBytes ?? 0) +
      (table.GlobalSecondaryIndexes ?? []).reduce((sum, index) => sum + Number(index.IndexSizeBytes ?? 0), 0),
  };
}
