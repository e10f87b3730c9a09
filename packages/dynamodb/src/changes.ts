// The data side of staging on DynamoDB: an item as it is now, values in the attributes' types, and
// commits as one TransactWriteItems whose conditions check every item is as it was staged (an
// insert: that its key is free). An update SETs only the staged attributes, so an attribute someone
// added since (which no condition can name) is kept, not overwritten by a whole-item Put. Its
// ClientRequestToken is the commit's id, recorded before it is sent: DynamoDB applies a resent
// transaction with the same token once.
import { randomUUID } from 'node:crypto';
import {
  type AttributeValue,
  type DynamoDBClient,
  GetItemCommand,
  TransactionCanceledException,
  type TransactWriteItem,
  TransactWriteItemsCommand,
} from '@aws-sdk/client-dynamodb';
import {
  type ApplyResult,
  type ChangeToApply,
  type ChangeWriter,
  DataSourceError,
  type Row,
  type SchemaCache,
  type StagingConflict,
  type TableInfo,
} from '@toolrow/datasource';
import { keyOf, keysFor } from './rows.ts';
import type { KeyMap } from './schema.ts';
import { itemToRow, toAttribute } from './values.ts';

/** DynamoDB's limit of actions in one transaction. */
export const MAX_TRANSACTION_ITEMS = 100;

function attributesOf(table: TableInfo, values: Row): Record<string, AttributeValue> {
  return Object.fromEntries(
    Object.entries(values).map(([name, value]) => {
      const types = table.columns.find((column) => column.name === name)?.type.split('|') ?? [];
      return [name, toAttribute(value, name, types)];
    }),
  );
}

interface Expression {
  expression: string;
  names: Record<string, string>;
  values: Record<string, AttributeValue>;
}

/** `#p0 = :p0`, … for each attribute of `row`, with its name and value placeholders under `prefix`. */
function equalities(prefix: string, row: Row, table: TableInfo): Expression & { parts: string[] } {
  const names: Record<string, string> = {};
  const values: Record<string, AttributeValue> = {};
  const parts: string[] = [];
  Object.entries(attributesOf(table, row)).forEach(([name, value], index) => {
    names[`#${prefix}${index}`] = name;
    values[`:${prefix}${index}`] = value;
    parts.push(`#${prefix}${index} = :${prefix}${index}`);
  });
  return { expression: parts.join(', '), names, values, parts };
}

/**
 * A condition that every attribute of `before` is unchanged, and that each of `absent` (attributes
 * an update adds) is still not there. DynamoDB cannot test for attributes a condition does not
 * name: one added since the item was staged is not seen here (check() sees it, and an update keeps it).
 */
function sameAs(before: Row, table: TableInfo, absent: readonly string[] = []): Expression {
  const { names, values, parts } = equalities('c', before, table);
  absent.forEach((name, index) => {
    names[`#a${index}`] = name;
    parts.push(`attribute_not_exists(#a${index})`);
  });
  return { expression: parts.join(' AND ') || 'attribute_exists(#k)', names, values };
}

/** `SET #s0 = :s0, …` for the staged values (placeholders apart from the condition's). */
function setOf(values: Row, table: TableInfo): Expression {
  const set = equalities('s', values, table);
  return { expression: `SET ${set.expression}`, names: set.names, values: set.values };
}

/** Two images of an item, compared as DynamoDB stores them (12.50 and 12.5 are one number). */
function sameItem(table: TableInfo, left: Row | null, right: Row | null): boolean {
  if (left === null || right === null) return left === right;
  const stored = (row: Row) =>
    JSON.stringify(
      Object.entries(itemToRow(attributesOf(table, row)))
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([name, value]) => [name, normalized(value)]),
    );
  return stored(left) === stored(right);
}

/** Whether the item `now` has every attribute of `image` as it is there (null: the item is not there). */
function holds(table: TableInfo, now: Row | null, image: Row | null): boolean {
  if (now === null || image === null) return now === image;
  return Object.entries(image).every(
    ([name, value]) => now[name] !== undefined && sameItem(table, { [name]: now[name] }, { [name]: value }),
  );
}

/** The attributes whose stored value differs between two images of an item (added or removed ones too). */
function changedAttributes(table: TableInfo, now: Row, before: Row): string[] {
  return [...new Set([...Object.keys(now), ...Object.keys(before)])]
    .filter((name) =>
      now[name] === undefined || before[name] === undefined
        ? now[name] !== before[name]
        : !sameItem(table, { [name]: now[name] }, { [name]: before[name] }),
    )
    .sort();
}

function normalized(value: unknown): unknown {
  if (typeof value === 'string' && /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(value))
    return Number(value).toString() === value ? value : String(Number(value));
  return value;
}

export function createDynamoChangeWriter(
  read: DynamoDBClient,
  write: () => DynamoDBClient,
  schema: SchemaCache,
  keys: KeyMap,
  description: string,
): ChangeWriter {
  async function current(table: TableInfo, key: Record<string, AttributeValue>): Promise<Row | null> {
    const result = await read.send(
      new GetItemCommand({ TableName: table.name, Key: key, ConsistentRead: true }),
    );
    return result.Item ? itemToRow(result.Item) : null;
  }

  return {
    writer: { description, source: 'option' },
    maxChangesPerTransaction: MAX_TRANSACTION_ITEMS,

    async currentRowJson(table, key) {
      const row = await current(table, keyOf(table, keysFor(keys, table), key));
      return row === null ? null : JSON.stringify(row);
    },

    async canonicalJson(table, values) {
      // Converting checks each value against the attribute's types; reading it back is canonical.
      return JSON.stringify(itemToRow(attributesOf(table, values)));
    },

    async check(changes) {
      const conflicts: StagingConflict[] = [];
      for (const change of changes) {
        const table = await schema.resolveTable(change.table);
        const tableKeys = keysFor(keys, table);
        // An insert names its key in its values.
        const values = JSON.parse(change.valuesJson ?? '{}') as Row;
        const keyRow = change.keyJson
          ? (JSON.parse(change.keyJson) as Row)
          : Object.fromEntries(
              [tableKeys.partitionKey, tableKeys.sortKey]
                .filter((name): name is string => Boolean(name) && values[name as string] !== undefined)
                .map((name) => [name, values[name]]),
            );
        if (Object.keys(keyRow).length === 0) continue;
        const base = { changeId: change.id, table: table.name, key: keyRow };
        const now = await current(table, keyOf(table, tableKeys, keyRow));
        if (change.kind === 'insert') {
          if (now) conflicts.push({ ...base, reason: 'exists', current: now, changedColumns: [] });
          continue;
        }
        const before = JSON.parse(change.beforeJson ?? '{}') as Row;
        if (now === null) {
          conflicts.push({ ...base, reason: 'missing', current: null, changedColumns: [] });
        } else if (!sameItem(table, now, before)) {
          conflicts.push({
            ...base,
            reason: 'changed',
            current: now,
            changedColumns: changedAttributes(table, now, before),
          });
        }
      }
      return conflicts;
    },

    async apply(changes: readonly ChangeToApply[], options = {}): Promise<ApplyResult> {
      if (changes.length > MAX_TRANSACTION_ITEMS) {
        throw new DataSourceError(
          'invalid-change',
          `A DynamoDB transaction takes at most ${MAX_TRANSACTION_ITEMS} items, and ${changes.length} are staged: nothing was applied. Commit them in parts (toolrow staging commit --ids …, or Commit on fewer cards).`,
        );
      }
      const actions: TransactWriteItem[] = [];
      const tables: TableInfo[] = [];
      for (const change of changes) {
        const table = await schema.resolveTable(change.table);
        tables.push(table);
        const tableKeys = keysFor(keys, table);
        const keyNames = [tableKeys.partitionKey, tableKeys.sortKey].filter((each): each is string =>
          Boolean(each),
        );
        if (change.kind === 'insert') {
          const item = attributesOf(table, JSON.parse(change.valuesJson ?? '{}') as Row);
          const missing = keyNames.filter((name) => item[name] === undefined);
          if (missing.length > 0) {
            throw new DataSourceError(
              'invalid-change',
              `change ${change.id}: an item of ${table.name} needs its key ${missing.join(', ')}.`,
            );
          }
          actions.push({
            Put: {
              TableName: table.name,
              Item: item,
              ConditionExpression: 'attribute_not_exists(#k)',
              ExpressionAttributeNames: { '#k': tableKeys.partitionKey },
              ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
            },
          });
          continue;
        }
        const key = keyOf(table, tableKeys, JSON.parse(change.keyJson ?? 'null'));
        const before = JSON.parse(change.beforeJson ?? '{}') as Row;
        const staged = change.kind === 'update' ? (JSON.parse(change.valuesJson ?? '{}') as Row) : {};
        const added = Object.keys(staged).filter((name) => !Object.hasOwn(before, name));
        const condition = sameAs(before, table, added);
        const guard = {
          ConditionExpression: condition.expression,
          ExpressionAttributeNames: {
            ...condition.names,
            ...(condition.expression.includes('#k') ? { '#k': tableKeys.partitionKey } : {}),
          },
          ...(Object.keys(condition.values).length > 0
            ? { ExpressionAttributeValues: condition.values }
            : {}),
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const,
        };
        if (change.kind === 'delete') {
          actions.push({ Delete: { TableName: table.name, Key: key, ...guard } });
          continue;
        }
        // An update sets the staged attributes and no other: the rest of the item stays as it is.
        const values = staged;
        const changedKey = keyNames.find(
          (name) =>
            Object.hasOwn(values, name) && JSON.stringify(values[name]) !== JSON.stringify(before[name]),
        );
        if (changedKey) {
          throw new DataSourceError(
            'invalid-change',
            `change ${change.id}: ${changedKey} is part of the key of ${table.name}; stage a delete and an insert instead.`,
          );
        }
        // A key attribute is never SET (DynamoDB refuses it); staged unchanged, it is left out.
        const set = Object.fromEntries(Object.entries(values).filter(([name]) => !keyNames.includes(name)));
        if (Object.keys(set).length === 0) {
          // Nothing to set: the transaction still checks the item is as staged.
          actions.push({ ConditionCheck: { TableName: table.name, Key: key, ...guard } });
          continue;
        }
        const update = setOf(set, table);
        actions.push({
          Update: {
            TableName: table.name,
            Key: key,
            UpdateExpression: update.expression,
            ...guard,
            ExpressionAttributeNames: { ...guard.ExpressionAttributeNames, ...update.names },
            ExpressionAttributeValues: { ...(guard.ExpressionAttributeValues ?? {}), ...update.values },
          },
        });
      }
      const token = randomUUID();
      await options.onTransaction?.(token);
      try {
        await write().send(
          new TransactWriteItemsCommand({ TransactItems: actions, ClientRequestToken: token }),
        );
      } catch (error) {
        if (error instanceof TransactionCanceledException) {
          const conflicts: StagingConflict[] = [];
          (error.CancellationReasons ?? []).forEach((reason, index) => {
            if (reason.Code !== 'ConditionalCheckFailed') return;
            const change = changes[index]!;
            const now = reason.Item ? itemToRow(reason.Item) : null;
            const before = change.beforeJson ? (JSON.parse(change.beforeJson) as Row) : null;
            conflicts.push({
              changeId: change.id,
              table: tables[index]!.name,
              key: change.keyJson ? (JSON.parse(change.keyJson) as Row) : null,
              reason: change.kind === 'insert' ? 'exists' : now === null ? 'missing' : 'changed',
              current: now,
              changedColumns: now && before ? changedAttributes(tables[index]!, now, before) : [],
            });
          });
          if (conflicts.length > 0) return { ok: false, conflicts };
        }
        throw error;
      }
      const applied = { insert: 0, update: 0, delete: 0 };
      for (const change of changes) applied[change.kind]++;
      return { ok: true, applied };
    },

    // DynamoDB keeps no record of a transaction to ask about: the items say. All as the commit
    // left them: committed; all as they were staged: aborted (a transaction applies all or none).
    async transactionStatus(_token, changes = []) {
      if (changes.length === 0) return 'unknown';
      let applied = 0;
      let untouched = 0;
      for (const change of changes) {
        const table = await schema.resolveTable(change.table);
        const tableKeys = keysFor(keys, table);
        const values = change.valuesJson ? (JSON.parse(change.valuesJson) as Row) : {};
        const keySource = change.keyJson ? JSON.parse(change.keyJson) : values;
        const keyNames = [tableKeys.partitionKey, tableKeys.sortKey].filter((each): each is string =>
          Boolean(each),
        );
        const now = await current(
          table,
          keyOf(table, tableKeys, Object.fromEntries(keyNames.map((name) => [name, keySource[name]]))),
        );
        const before = change.beforeJson ? (JSON.parse(change.beforeJson) as Row) : null;
        const after = change.kind === 'delete' ? null : { ...(before ?? {}), ...values };
        // On the attributes the change knows: one someone added since says nothing about it.
        const added = Object.keys(values).filter((name) => !before || !Object.hasOwn(before, name));
        if (holds(table, now, after)) applied++;
        else if (holds(table, now, before) && added.every((name) => now?.[name] === undefined)) untouched++;
      }
      if (applied === changes.length) return 'committed';
      if (untouched === changes.length) return 'aborted';
      return 'unknown';
    },

    async close() {},
  };
}
