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
import type { DynamoKeys, KeyMap } from './schema.ts';
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

/**
 * `SET #s0 = :s0, …` for the staged values (placeholders apart from the condition's), and the
 * version incremented where the table keeps one; an item without it is at version 0 (as AWS's
 * object mappers read it) and gets version 1.
 */
function setOf(values: Row, table: TableInfo, version?: { name: string; absent: boolean }): Expression {
  const set = equalities('s', values, table);
  const parts = set.parts;
  if (version) {
    set.names['#ver'] = version.name;
    set.values[':one'] = { N: '1' };
    parts.push(version.absent ? '#ver = :one' : '#ver = #ver + :one');
  }
  return { expression: `SET ${parts.join(', ')}`, names: set.names, values: set.values };
}

/** Two images of an item, compared as DynamoDB stores them (12.50 and 12.5 are one number). */
function sameItem(table: TableInfo, left: Row | null, right: Row | null): boolean {
  if (left === null || right === null) return left === right;
  const stored = (row: Row) =>
    JSON.stringify(
      Object.entries(itemToRow(attributesOf(table, row), table))
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

/** One write of the transaction: the staged changes of one item, merged (DynamoDB takes one action per item). */
interface ItemWrite {
  /** The staged changes it stands for, in staging order. */
  changes: ChangeToApply[];
  kind: 'insert' | 'update' | 'delete' | 'replace' | 'none';
  table: TableInfo;
  keyRow: Row;
  /** The item as the first change saw it (null: it was not there). */
  before: Row | null;
  /** What the item becomes (insert, replace), or the attributes to set (update). */
  values: Row;
}

/**
 * The transaction's action for one item: a Put (an insert, or a replace), a Delete, an Update of
 * the staged attributes (and the version), or a ConditionCheck — each conditioned on the item being
 * as staged (`before`). `version`: the table's version attribute, when its items have it.
 */
function actionOf(
  item: ItemWrite,
  tableKeys: DynamoKeys,
  version: string | undefined,
): TransactWriteItem | undefined {
  const { table, keyRow, before } = item;
  const keyNames = [tableKeys.partitionKey, tableKeys.sortKey].filter((each): each is string =>
    Boolean(each),
  );
  const first = item.changes[0]!;
  if (item.kind === 'none') return undefined;
  if (item.kind === 'insert' || item.kind === 'replace') {
    const values =
      version && item.values[version] === undefined ? { ...item.values, [version]: 1 } : item.values;
    const attributes = attributesOf(table, values);
    const missing = keyNames.filter((name) => attributes[name] === undefined);
    if (missing.length > 0) {
      throw new DataSourceError(
        'invalid-change',
        `change ${first.id}: an item of ${table.name} needs its key ${missing.join(', ')}.`,
      );
    }
    if (item.kind === 'insert') {
      return {
        Put: {
          TableName: table.name,
          Item: attributes,
          ConditionExpression: 'attribute_not_exists(#k)',
          ExpressionAttributeNames: { '#k': tableKeys.partitionKey },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        },
      };
    }
  }
  const key = keyOf(table, tableKeys, keyRow);
  const staged = item.kind === 'update' ? item.values : {};
  // An item without the version attribute is at version 0: the condition is that it still has
  // none (a versioning writer since would have set it), and an update sets it to 1.
  const unversioned = version !== undefined && before !== null && before[version] === undefined;
  const added = [
    ...new Set([
      ...Object.keys(staged).filter((name) => !before || !Object.hasOwn(before, name)),
      ...(unversioned ? [version] : []),
    ]),
  ];
  const condition = sameAs(before ?? {}, table, added);
  const guard = {
    ConditionExpression: condition.expression,
    ExpressionAttributeNames: {
      ...condition.names,
      ...(condition.expression.includes('#k') ? { '#k': tableKeys.partitionKey } : {}),
    },
    ...(Object.keys(condition.values).length > 0 ? { ExpressionAttributeValues: condition.values } : {}),
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const,
  };
  if (item.kind === 'delete') return { Delete: { TableName: table.name, Key: key, ...guard } };
  if (item.kind === 'replace') {
    return { Put: { TableName: table.name, Item: attributesOf(table, item.values), ...guard } };
  }
  const changedKey = keyNames.find(
    (name) => Object.hasOwn(staged, name) && JSON.stringify(staged[name]) !== JSON.stringify(before?.[name]),
  );
  if (changedKey) {
    throw new DataSourceError(
      'invalid-change',
      `change ${first.id}: ${changedKey} is part of the key of ${table.name}; stage a delete and an insert instead.`,
    );
  }
  // An update sets the staged attributes and no other (a key attribute is never SET), and
  // increments the version where the table has one.
  const set = Object.fromEntries(
    Object.entries(staged).filter(([name]) => !keyNames.includes(name) && name !== version),
  );
  if (Object.keys(set).length === 0 && !version) {
    // Nothing to set: the transaction still checks the item is as staged.
    return { ConditionCheck: { TableName: table.name, Key: key, ...guard } };
  }
  const update = setOf(set, table, version ? { name: version, absent: unversioned } : undefined);
  return {
    Update: {
      TableName: table.name,
      Key: key,
      UpdateExpression: update.expression,
      ...guard,
      ExpressionAttributeNames: { ...guard.ExpressionAttributeNames, ...update.names },
      ExpressionAttributeValues: { ...(guard.ExpressionAttributeValues ?? {}), ...update.values },
    },
  };
}

/** The conflicts a cancelled transaction reports, one per refused item (its first change). */
function conflictsOf(error: TransactionCanceledException, sent: ItemWrite[]): StagingConflict[] {
  const conflicts: StagingConflict[] = [];
  (error.CancellationReasons ?? []).forEach((reason, index) => {
    if (reason.Code !== 'ConditionalCheckFailed') return;
    const item = sent[index]!;
    const change = item.changes[0]!;
    const now = reason.Item ? itemToRow(reason.Item, item.table) : null;
    conflicts.push({
      changeId: change.id,
      table: item.table.name,
      key: change.keyJson ? (JSON.parse(change.keyJson) as Row) : item.keyRow,
      reason: change.kind === 'insert' ? 'exists' : now === null ? 'missing' : 'changed',
      current: now,
      changedColumns: now && item.before ? changedAttributes(item.table, now, item.before) : [],
    });
  });
  return conflicts;
}

/** How long DynamoDB keeps a ClientRequestToken: a resent transaction within it applies once. */
const IDEMPOTENCY_WINDOW_MS = 9 * 60 * 1000;

export interface DynamoChangeWriterOptions {
  /** The attribute that versions items (see DynamoTarget.versionAttribute). */
  versionAttribute?: string;
}

/**
 * The items a commit writes, as they are now: read consistently, their keys as staged, each staged
 * change checked against the whole item, and the changes of one item merged into one write.
 */
function itemsAsTheyAre(
  read: DynamoDBClient,
  schema: SchemaCache,
  keys: KeyMap,
  options: DynamoChangeWriterOptions,
) {
  async function current(table: TableInfo, key: Record<string, AttributeValue>): Promise<Row | null> {
    const result = await read.send(
      new GetItemCommand({ TableName: table.name, Key: key, ConsistentRead: true }),
    );
    return result.Item ? itemToRow(result.Item, table) : null;
  }

  const keyNamesOf = (table: TableInfo) => {
    const tableKeys = keysFor(keys, table);
    return [tableKeys.partitionKey, tableKeys.sortKey].filter((each): each is string => Boolean(each));
  };

  /** The item's key as staged: an insert names it in its values. */
  function keyRowOf(change: ChangeToApply, table: TableInfo): Row {
    if (change.keyJson) return JSON.parse(change.keyJson) as Row;
    const values = JSON.parse(change.valuesJson ?? '{}') as Row;
    return Object.fromEntries(
      keyNamesOf(table)
        .filter((name) => values[name] !== undefined)
        .map((name) => [name, values[name]]),
    );
  }

  /** One item, whatever spelling its key was staged in (7 or "7"). */
  const itemId = (table: TableInfo, keyRow: Row) =>
    JSON.stringify([table.name, keyNamesOf(table).map((name) => String(keyRow[name]))]);

  /** The version attribute, when this table's items have it. */
  function versionOf(table: TableInfo): string | undefined {
    const name = options.versionAttribute;
    return name && table.columns.some((column) => column.name === name) ? name : undefined;
  }

  /**
   * Each staged change against the whole item as it is now: an attribute added since is a change.
   * Of several changes to one item, the first speaks for the item (a delete then an insert of one
   * key is a replace, not an insert over an existing item).
   */
  async function checkChanges(changes: readonly ChangeToApply[]): Promise<StagingConflict[]> {
    const conflicts: StagingConflict[] = [];
    const seen = new Set<string>();
    for (const change of changes) {
      const table = await schema.resolveTable(change.table);
      const keyRow = keyRowOf(change, table);
      if (Object.keys(keyRow).length === 0) continue;
      const id = itemId(table, keyRow);
      if (seen.has(id)) continue;
      seen.add(id);
      const base = { changeId: change.id, table: table.name, key: keyRow };
      const now = await current(table, keyOf(table, keysFor(keys, table), keyRow));
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
  }

  /**
   * The staged changes as one write per item, in staging order: two updates of one item are one
   * update (the later value wins), an insert then an update one insert, anything then a delete a
   * delete (an insert then a delete, nothing), a delete then an insert a replace.
   */
  async function itemWrites(changes: readonly ChangeToApply[]): Promise<ItemWrite[]> {
    const byItem = new Map<string, ItemWrite>();
    for (const change of changes) {
      const table = await schema.resolveTable(change.table);
      const keyRow = keyRowOf(change, table);
      const id = itemId(table, keyRow);
      const values = change.valuesJson ? (JSON.parse(change.valuesJson) as Row) : {};
      const before = change.beforeJson ? (JSON.parse(change.beforeJson) as Row) : null;
      const earlier = byItem.get(id);
      if (!earlier) {
        byItem.set(id, { changes: [change], kind: change.kind, table, keyRow, before, values });
        continue;
      }
      earlier.changes.push(change);
      const gone = earlier.kind === 'delete' || earlier.kind === 'none';
      if (change.kind === 'delete') {
        if (gone)
          throw new DataSourceError(
            'invalid-change',
            `change ${change.id} deletes an item of ${table.name} (${JSON.stringify(keyRow)}) that change ${earlier.changes[0]!.id} already deletes: discard one of them.`,
          );
        earlier.kind = earlier.kind === 'insert' ? 'none' : 'delete';
        earlier.values = {};
      } else if (change.kind === 'insert') {
        if (!gone)
          throw new DataSourceError(
            'invalid-change',
            `change ${change.id} inserts an item of ${table.name} (${JSON.stringify(keyRow)}) that change ${earlier.changes[0]!.id} already writes: discard one, or stage an update instead.`,
          );
        earlier.kind = earlier.kind === 'none' ? 'insert' : 'replace';
        earlier.values = values;
      } else {
        if (gone)
          throw new DataSourceError(
            'invalid-change',
            `change ${change.id} updates an item of ${table.name} (${JSON.stringify(keyRow)}) that change ${earlier.changes[0]!.id} deletes: discard one of them.`,
          );
        earlier.values = { ...earlier.values, ...values };
      }
    }
    return [...byItem.values()];
  }

  return { current, keyNamesOf, versionOf, checkChanges, itemWrites };
}

export function createDynamoChangeWriter(
  read: DynamoDBClient,
  write: () => DynamoDBClient,
  schema: SchemaCache,
  keys: KeyMap,
  description: string,
  options: DynamoChangeWriterOptions = {},
): ChangeWriter {
  const { current, keyNamesOf, versionOf, checkChanges, itemWrites } = itemsAsTheyAre(
    read,
    schema,
    keys,
    options,
  );

  return {
    writer: { description, source: 'option' },
    maxChangesPerTransaction: MAX_TRANSACTION_ITEMS,

    async currentRowJson(table, key) {
      const row = await current(table, keyOf(table, keysFor(keys, table), key));
      return row === null ? null : JSON.stringify(row);
    },

    async canonicalJson(table, values) {
      // Converting checks each value against the attribute's types; reading it back is canonical.
      return JSON.stringify(itemToRow(attributesOf(table, values), table));
    },

    check: checkChanges,

    protectionOf(table) {
      const version = versionOf(table);
      return version
        ? {
            kind: 'version',
            attribute: version,
            detail: `${table.name}'s items are versioned by ${version}: the write holds the version each item had when staged and increments it, so a writer that also keeps ${version} cannot slip in between.`,
          }
        : {
            kind: 'check',
            detail: `${table.name} is checked whole just before the transaction (an attribute added since staging stops the commit); the transaction's own condition covers the attributes it names, so an attribute another writer adds in the moment between is not seen. Name a version attribute (?version=<attribute> in the connection's URL) to close that moment.`,
          };
    },

    async apply(changes: readonly ChangeToApply[], applyOptions = {}): Promise<ApplyResult> {
      if (changes.length > MAX_TRANSACTION_ITEMS) {
        throw new DataSourceError(
          'invalid-change',
          `A DynamoDB transaction takes at most ${MAX_TRANSACTION_ITEMS} items, and ${changes.length} are staged: nothing was applied. Commit them in parts (toolrow staging commit --in-parts, or Commit in the app, which offers it).`,
        );
      }
      // The whole items, checked immediately before the transaction: an attribute someone added
      // since staging, which no condition can name, stops the commit here.
      const stale = await checkChanges(changes);
      if (stale.length > 0) return { ok: false, conflicts: stale };
      const writes = await itemWrites(changes);
      const sent: ItemWrite[] = [];
      const actions: TransactWriteItem[] = [];
      for (const item of writes) {
        const action = actionOf(item, keysFor(keys, item.table), versionOf(item.table));
        if (!action) continue;
        sent.push(item);
        actions.push(action);
      }
      const applied = { insert: 0, update: 0, delete: 0 };
      for (const change of changes) applied[change.kind]++;
      if (actions.length === 0) return { ok: true, applied };
      const token = randomUUID();
      const request = { TransactItems: actions, ClientRequestToken: token };
      // What a recoverer resends (same token) to learn the outcome without applying it twice.
      await applyOptions.onTransaction?.(token, JSON.stringify(request, replacer));
      try {
        await write().send(new TransactWriteItemsCommand(request));
      } catch (error) {
        if (error instanceof TransactionCanceledException) {
          const conflicts = conflictsOf(error, sent);
          if (conflicts.length > 0) return { ok: false, conflicts };
        }
        throw error;
      }
      return { ok: true, applied };
    },

    // DynamoDB keeps no record of a transaction to ask about. Within its idempotency window the
    // exact request is resent with its token: DynamoDB answers success for one it applied (without
    // applying it again), applies one it never saw (the user's commit, once), and refuses one whose
    // items moved on (then it never applied: had it, the token would have answered success). Past
    // the window, the items say: all as the commit left them, or all as they were staged.
    async transactionStatus(_token, changes = [], record = {}) {
      if (
        record.replay &&
        record.claimedAt &&
        Date.now() - record.claimedAt.getTime() < IDEMPOTENCY_WINDOW_MS
      ) {
        try {
          await write().send(new TransactWriteItemsCommand(JSON.parse(record.replay, reviver)));
          return 'committed';
        } catch (error) {
          if (error instanceof TransactionCanceledException) {
            const reasons = error.CancellationReasons ?? [];
            if (reasons.some((reason) => reason.Code === 'TransactionConflict')) return 'in progress';
            if (reasons.some((reason) => reason.Code === 'ConditionalCheckFailed')) return 'aborted';
          }
          if ((error as { name?: string }).name === 'TransactionInProgressException') return 'in progress';
          // Unreachable, throttled, or a mismatch: the items may still tell.
        }
      }
      if (changes.length === 0) return 'unknown';
      let appliedItems = 0;
      let untouched = 0;
      for (const change of changes) {
        const table = await schema.resolveTable(change.table);
        const tableKeys = keysFor(keys, table);
        const values = change.valuesJson ? (JSON.parse(change.valuesJson) as Row) : {};
        const keySource = change.keyJson ? JSON.parse(change.keyJson) : values;
        const now = await current(
          table,
          keyOf(
            table,
            tableKeys,
            Object.fromEntries(keyNamesOf(table).map((name) => [name, keySource[name]])),
          ),
        );
        const before = change.beforeJson ? (JSON.parse(change.beforeJson) as Row) : null;
        const version = versionOf(table);
        const after =
          change.kind === 'delete'
            ? null
            : Object.fromEntries(
                Object.entries({ ...(before ?? {}), ...values }).filter(([name]) => name !== version),
              );
        // On the attributes the change knows: one someone added since says nothing about it.
        const added = Object.keys(values).filter((name) => !before || !Object.hasOwn(before, name));
        if (holds(table, now, after)) appliedItems++;
        else if (holds(table, now, before) && added.every((name) => now?.[name] === undefined)) untouched++;
      }
      if (appliedItems === changes.length) return 'committed';
      if (untouched === changes.length) return 'aborted';
      return 'unknown';
    },

    async close() {},
  };
}

/** Binary attribute values survive JSON as { $bytes: base64 } (a Buffer arrives through its toJSON). */
function replacer(_key: string, value: unknown): unknown {
  if (value instanceof Uint8Array) return { $bytes: Buffer.from(value).toString('base64') };
  const buffer = value as { type?: unknown; data?: unknown } | null;
  if (buffer && typeof buffer === 'object' && buffer.type === 'Buffer' && Array.isArray(buffer.data))
    return { $bytes: Buffer.from(buffer.data as number[]).toString('base64') };
  return value;
}

function reviver(_key: string, value: unknown): unknown {
  return value !== null && typeof value === 'object' && '$bytes' in value && Object.keys(value).length === 1
    ? Buffer.from((value as { $bytes: string }).$bytes, 'base64')
    : value;
}
