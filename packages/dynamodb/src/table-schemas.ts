// A DynamoDB connection's schema, read as far as a statement or a tool needs it: a table it names
// is described and sampled (DescribeTable, DescribeTimeToLive, one Scan page), and that is kept in
// Toolrow's state store with its age, so every process on the store reuses it. A kept schema
// younger than FRESH_MS is used as it is; an older one is checked with DescribeTable and sampled
// again only when its keys, item count or size changed. Listing every table (get) describes each
// and samples none; refresh, asked for, samples them all again. Each sampling read is counted for
// the statement or tool that caused it.
import { AsyncLocalStorage } from 'node:async_hooks';
import {
  DescribeTableCommand,
  DescribeTimeToLiveCommand,
  type DynamoDBClient,
  ScanCommand,
  type TableDescription,
} from '@aws-sdk/client-dynamodb';
import {
  type EngineCache,
  findColumnsIn,
  resolveColumnIn,
  resolveTableIn,
  type SchemaCache,
  type SchemaSnapshot,
  type TableInfo,
  type TableRead,
} from '@toolrow/datasource';
import { deadlineOf, type ReadLimits } from './deadline.ts';
import { type DynamoKeys, type KeyMap, keysOf, listTableNames, SAMPLE_ITEMS, tableInfo } from './schema.ts';

/** A kept schema this young is used without asking DynamoDB. */
export const FRESH_MS = 10 * 60_000;
/** Tables described at once when listing. */
const DESCRIBE_CONCURRENCY = 8;

/** What is kept of a table: its schema, and what says whether it is still DynamoDB's. */
interface Kept {
  info: TableInfo;
  keys: DynamoKeys;
  signature: string;
}

/**
 * Who a schema read is for: the reads it made are counted in theirs (a statement's `reads`), and
 * their time limit and cancel stop it.
 */
const reader = new AsyncLocalStorage<{ reads?: TableRead[]; signal?: AbortSignal }>();

/** Runs `read` with the schema reads it causes counted in `reads`. */
export function countingSchemaReads<T>(reads: TableRead[], read: () => Promise<T>): Promise<T> {
  return reader.run({ ...reader.getStore(), reads }, read);
}

/** A table by name, its schema read (if it must be) within the caller's time limit and cancel. */
export async function resolveWithin(
  schema: SchemaCache,
  name: string,
  limits: ReadLimits,
): Promise<TableInfo> {
  const deadline = deadlineOf(limits, `Reading the schema of ${name}`);
  try {
    return await reader.run(
      { ...reader.getStore(), ...(deadline.signal ? { signal: deadline.signal } : {}) },
      () => schema.resolveTable(name),
    );
  } catch (error) {
    throw deadline.explain(error);
  }
}

const sendOptions = () => {
  const signal = reader.getStore()?.signal;
  return signal ? { abortSignal: signal } : {};
};

/** What must stay the same for a kept sample to hold: keys, indexes, item count and size. */
function signatureOf(table: TableDescription): string {
  return JSON.stringify([keysOf(table), table.ItemCount ?? 0, table.TableSizeBytes ?? 0]);
}

const notFound = (error: unknown) =>
  /ResourceNotFound|ValidationException/.test((error as Error)?.name ?? '') ||
  /not found|Requested resource/i.test((error as Error)?.message ?? '');

export function createDynamoSchemaCache(
  client: DynamoDBClient,
  keys: KeyMap,
  options: {
    /** Where schemas are kept across processes (absent: this process only). */
    cache?: EngineCache;
    /** What tells this connection's tables from another's in the cache (endpoint, region, key). */
    scope: () => Promise<string>;
  },
): SchemaCache {
  const sampled = new Map<string, Kept>();
  let current: SchemaSnapshot | undefined;
  let listing: Promise<SchemaSnapshot> | undefined;
  const cacheKey = async (table: string) => `dynamodb-schema\u0000${await options.scope()}\u0000${table}`;

  const remember = (name: string, kept: Kept) => {
    sampled.set(name, kept);
    keys.set(name, kept.keys);
    if (current)
      current = {
        ...current,
        tables: current.tables.map((table) => (table.name === name ? kept.info : table)),
      };
  };

  const describe = async (name: string): Promise<TableDescription | undefined> => {
    try {
      return (await client.send(new DescribeTableCommand({ TableName: name }), sendOptions())).Table;
    } catch (error) {
      if (notFound(error) && !reader.getStore()?.signal?.aborted) return undefined;
      throw error;
    }
  };

  const sample = async (name: string, described: TableDescription): Promise<Kept> => {
    const [ttl, page] = await Promise.all([
      client.send(new DescribeTimeToLiveCommand({ TableName: name }), sendOptions()).catch(() => undefined),
      client.send(
        new ScanCommand({ TableName: name, Limit: SAMPLE_ITEMS, ReturnConsumedCapacity: 'TOTAL' }),
        sendOptions(),
      ),
    ]);
    reader.getStore()?.reads?.push({
      table: name,
      operation: 'Scan',
      items: page.ScannedCount ?? page.Items?.length ?? 0,
      ...(page.ConsumedCapacity?.CapacityUnits !== undefined
        ? { capacity: page.ConsumedCapacity.CapacityUnits }
        : {}),
      note: 'a sample of its items, to learn its attributes (kept for other statements and processes)',
    });
    const ttlAttribute =
      ttl?.TimeToLiveDescription?.TimeToLiveStatus === 'ENABLED'
        ? ttl.TimeToLiveDescription.AttributeName
        : undefined;
    const tableKeys = keysOf(described);
    const kept: Kept = {
      info: tableInfo(name, described, tableKeys, page.Items ?? [], ttlAttribute),
      keys: tableKeys,
      signature: signatureOf(described),
    };
    if (options.cache) await options.cache.set(await cacheKey(name), JSON.stringify(kept)).catch(() => {});
    return kept;
  };

  /** A table's sampled schema by its exact name: kept, checked, or read; undefined when there is none. */
  const load = async (name: string, force = false): Promise<Kept | undefined> => {
    if (!force) {
      const inMemory = sampled.get(name);
      if (inMemory) return inMemory;
      const stored = options.cache
        ? await options.cache.get(await cacheKey(name)).catch(() => undefined)
        : undefined;
      if (stored) {
        const kept = JSON.parse(stored.value) as Kept;
        if (Date.now() - stored.savedAt.getTime() < FRESH_MS) {
          remember(name, kept);
          return kept;
        }
        const described = await describe(name);
        if (!described) return undefined;
        if (signatureOf(described) === kept.signature) {
          await options.cache!.set(await cacheKey(name), stored.value).catch(() => {});
          remember(name, kept);
          return kept;
        }
        const fresh = await sample(name, described);
        remember(name, fresh);
        return fresh;
      }
    }
    const described = await describe(name);
    if (!described) return undefined;
    const fresh = await sample(name, described);
    remember(name, fresh);
    return fresh;
  };

  /** Every table, described and not sampled (those sampled already as they are). */
  const list = async (): Promise<SchemaSnapshot> => {
    const names = (await listTableNames(client)).sort();
    const tables: TableInfo[] = new Array(names.length);
    let next = 0;
    await Promise.all(
      Array.from({ length: DESCRIBE_CONCURRENCY }, async () => {
        while (next < names.length) {
          const at = next++;
          const name = names[at]!;
          const known = sampled.get(name);
          if (known) {
            tables[at] = known.info;
            continue;
          }
          const described = await describe(name);
          if (!described) continue;
          const tableKeys = keysOf(described);
          keys.set(name, tableKeys);
          const info = tableInfo(name, described, tableKeys, [], undefined);
          tables[at] = {
            ...info,
            comment: `${info.comment ? `${info.comment}; ` : ''}attributes not sampled yet (describeTable samples it)`,
          };
        }
      }),
    );
    current = { tables: tables.filter(Boolean), refreshedAt: new Date() };
    return current;
  };
  const get = (): Promise<SchemaSnapshot> => {
    if (current) return Promise.resolve(current);
    if (!listing) {
      const started = list();
      listing = started;
      const done = () => {
        if (listing === started) listing = undefined;
      };
      started.then(done, done);
    }
    return listing;
  };

  const cache: SchemaCache = {
    get,
    get current() {
      return current;
    },
    // Asked for: every table described and sampled again now (the one read of them all).
    async refresh() {
      sampled.clear();
      current = undefined;
      const names = (await get()).tables.map((table) => table.name);
      let next = 0;
      await Promise.all(
        Array.from({ length: DESCRIBE_CONCURRENCY }, async () => {
          while (next < names.length) await load(names[next++]!, true);
        }),
      );
      return current ?? get();
    },
    invalidate() {
      current = undefined;
    },
    async resolveTable(input) {
      const exact = await load(input);
      if (exact) return exact.info;
      // Not a table by that exact name: as a person typed it (case, quotes), or the nearest names.
      const names = await listTableNames(client);
      const stubs = {
        tables: names.map((name) => ({ name, qualifiedName: name, schema: '' }) as TableInfo),
        refreshedAt: new Date(),
      };
      const found = resolveTableIn(stubs, input);
      const kept = await load(found.name);
      if (!kept) return resolveTableIn({ tables: [], refreshedAt: new Date() }, input);
      return kept.info;
    },
    resolveColumn: resolveColumnIn,
    async findColumns(text) {
      return findColumnsIn(await get(), text);
    },
  };
  return cache;
}
