// PartiQL reads: SELECT only, run through the read client (whose allow-list holds without the
// statement check), bounded by rows, bytes and items read (and read capacity where AWS reports it); the plan says Query (which key) or Scan before it runs.
import { type AttributeValue, type DynamoDBClient, ExecuteStatementCommand } from '@aws-sdk/client-dynamodb';
import type {
  FieldInfo,
  QueryPlan,
  QueryRunner,
  ReadQueryResult,
  Row,
  SchemaCache,
  TableInfo,
  TableRead,
} from '@toolrow/datasource';
import { deadlineOf } from './deadline.ts';
import { checkReadOnlyPartiql, type PartiqlRead } from './partiql-guard.ts';
import { MAX_ITEMS_READ } from './read-bound.ts';
import type { KeyMap } from './schema.ts';
import { resolveWithin } from './table-schemas.ts';
import { itemToRow, valueText } from './values.ts';

const PLAN_NOTE =
  'Plan only: nothing was run. A Scan reads the whole table; an equality on the partition key makes it a Query.';

/** Items one ExecuteStatement request may evaluate. */
const PAGE_ITEMS = 1000;
/** Read capacity one statement may use where DynamoDB reports it (AWS): about 16 MB read. */
const MAX_READ_UNITS = 2000;

const SHOP_EXAMPLE = 'SELECT "id", "status", "total" FROM "orders" WHERE "customer_id" = 7';

/**
 * A first PartiQL statement for these tables: the sample shop's when it is there, else a read of
 * the first table by its partition key (a number or a string, as its items hold it).
 */
export function partiqlExample(tables: readonly TableInfo[], keys: KeyMap): string {
  const first = tables.find((table) => table.name === 'orders') ? undefined : tables[0];
  const key = first && keys.get(first.name)?.partitionKey;
  if (!first || !key) return SHOP_EXAMPLE;
  const type = first.columns.find((column) => column.name === key)?.type ?? '';
  return `SELECT * FROM "${first.name.replaceAll('"', '""')}" WHERE "${key.replaceAll('"', '""')}" = ${/^N\b/.test(type) ? '1' : "'…'"}`;
}

export function createPartiqlRunner(
  client: DynamoDBClient,
  schema: SchemaCache,
  keys: KeyMap,
  bound = MAX_ITEMS_READ,
): QueryRunner {
  return {
    // The workbench's first statement, on a table this account has: a Query on its partition key.
    get language() {
      return {
        name: 'PartiQL',
        dialect: 'DynamoDB',
        example: partiqlExample(schema.current?.tables ?? [], keys),
      };
    },
    check(text) {
      const read = checkReadOnlyPartiql(text);
      return { statement: read.statement, tables: [read.table] };
    },
    async run(statement, options = {}): Promise<ReadQueryResult> {
      const maxRows = options.maxRows ?? 1000;
      const maxBytes = options.maxBytes ?? 4 * 1024 * 1024;
      const maxItemsRead = options.maxItemsRead ?? bound;
      const rows: Row[] = [];
      let bytes = 0;
      let evaluated = 0;
      let readUnits = 0;
      let returned = 0;
      let next: string | undefined;
      let truncatedBy: ReadQueryResult['truncatedBy'];
      const deadline = deadlineOf(options, 'The query');
      // The table's attribute types decide how a value travels (see itemToRow).
      // Looked up leniently: this layer runs what it is given (the statement check is another layer).
      const table = await Promise.resolve()
        .then(() => resolveWithin(schema, checkReadOnlyPartiql(statement).table, options))
        .catch(() => undefined);
      try {
        do {
          // Limit bounds the items one request evaluates, so a selective Scan is stopped between pages.
          const limit = Math.max(1, Math.min(PAGE_ITEMS, maxItemsRead - evaluated));
          const page = await client.send(
            new ExecuteStatementCommand({
              Statement: statement,
              Limit: limit,
              ReturnConsumedCapacity: 'TOTAL',
              ...(next ? { NextToken: next } : {}),
            }),
            deadline.signal ? { abortSignal: deadline.signal } : {},
          );
          // A page evaluates at most `limit` items; AWS also says what it cost (DynamoDB Local does not).
          evaluated += limit;
          readUnits += page.ConsumedCapacity?.CapacityUnits ?? 0;
          returned += page.Items?.length ?? 0;
          for (const item of (page.Items ?? []) as Record<string, AttributeValue>[]) {
            if (rows.length === maxRows) {
              truncatedBy = 'rows';
              break;
            }
            const row = itemToRow(item, table);
            bytes += valueText(row).length;
            if (bytes > maxBytes) {
              truncatedBy = 'bytes';
              break;
            }
            rows.push(row);
          }
          next = page.NextToken;
          if (!truncatedBy && next && (evaluated >= maxItemsRead || readUnits >= MAX_READ_UNITS))
            truncatedBy = 'reads';
        } while (next && !truncatedBy);
      } catch (error) {
        throw deadline.explain(error);
      }
      if (!truncatedBy && next) truncatedBy = 'rows';
      // The SELECT's own order (DynamoDB answers with attributes in no order), then any others seen.
      const names = [...new Set([...projectionOrder(statement), ...rows.flatMap((row) => Object.keys(row))])];
      const fields: FieldInfo[] = names.map((name) => ({ name, typeId: 0 }));
      return {
        rows,
        fields,
        reads: [partiqlRead(statement, table, keys, returned, readUnits)],
        truncated: truncatedBy !== undefined,
        ...(truncatedBy ? { truncatedBy } : {}),
        ...(truncatedBy === 'reads'
          ? {
              readStop: `DynamoDB stopped after evaluating up to ${evaluated.toLocaleString('en-US')} items${readUnits > 0 ? ` (${Math.round(readUnits).toLocaleString('en-US')} read capacity units)` : ''} without reaching the end: the statement reads by Scan, or its key condition matches that many items`,
            }
          : {}),
      };
    },
    async plan(statement): Promise<QueryPlan> {
      const read = checkReadOnlyPartiql(statement);
      const table = await schema.resolveTable(read.table);
      const tableKeys = keys.get(table.name);
      const used = read.index
        ? tableKeys?.indexes.find((index) => index.name === read.index)
        : tableKeys && { name: undefined, partitionKey: tableKeys.partitionKey, sortKey: tableKeys.sortKey };
      const keyed = used ? equalityOn(read, used.partitionKey) : undefined;
      if (keyed) {
        return {
          lines: [
            `Query on ${table.name}${read.index ? ` index ${read.index}` : ''}: key condition ${keyed}`,
            'Reads only the items with that partition key.',
          ],
          estimatedItemsRead: Math.max(
            1,
            Math.round(table.rowEstimate / Math.max(distinctOf(table, used!.partitionKey), 1)),
          ),
          note: PLAN_NOTE,
        };
      }
      return {
        lines: [
          `Scan of the whole ${read.index ? `index ${read.index} of ` : ''}table ${table.name} (${table.rowEstimate.toLocaleString('en-US')} items, ${table.tableBytes.toLocaleString('en-US')} bytes): no equality on its partition key${used ? ` (${used.partitionKey})` : ''}.`,
          'Filter on the partition key (WHERE "key" = …) to make it a Query.',
        ],
        estimatedItemsRead: table.rowEstimate,
        note: PLAN_NOTE,
      };
    },
  };
}

/**
 * What a PartiQL statement read, for the result's badge: a Query when it has an equality on the
 * (index's) partition key, else a Scan. DynamoDB does not say how many items a PartiQL page
 * evaluated, so the items are those that came back, and the note says so.
 */
function partiqlRead(
  statement: string,
  table: TableInfo | undefined,
  keys: KeyMap,
  returned: number,
  readUnits: number,
): TableRead {
  let read: PartiqlRead | undefined;
  try {
    read = checkReadOnlyPartiql(statement);
  } catch {
    // Run with the statement check off: the table alone.
  }
  const tableKeys = table ? keys.get(table.name) : undefined;
  const used = read?.index
    ? tableKeys?.indexes.find((index) => index.name === read.index)
    : tableKeys && { partitionKey: tableKeys.partitionKey };
  const keyed = read && used ? equalityOn(read, used.partitionKey) !== undefined : false;
  return {
    table: table?.name ?? read?.table ?? '?',
    operation: keyed ? 'Query' : 'Scan',
    ...(read?.index ? { index: read.index } : {}),
    items: returned,
    ...(readUnits > 0 ? { capacity: readUnits } : {}),
    note: 'PartiQL does not report the items DynamoDB evaluated: these are the items that came back',
  };
}

function distinctOf(
  table: { columns: { name: string; distinctEstimate: number | null }[] },
  column: string,
): number {
  return table.columns.find((each) => each.name === column)?.distinctEstimate ?? 1;
}

/** `"key" = value` at the top level of the WHERE (not under OR): the statement can Query on it. */
function equalityOn(read: PartiqlRead, key: string): string | undefined {
  const where = /\bWHERE\b([\s\S]*)$/i.exec(read.statement)?.[1];
  if (!where || /\bOR\b/i.test(where.replace(/'(?:[^']|'')*'|"(?:[^"]|"")*"/g, ''))) return undefined;
  const quoted = key.replaceAll('"', '""');
  const pattern = new RegExp(
    `(?:^|\\s|\\()(?:"${escapeRegExp(quoted)}"|${/^[A-Za-z_]\w*$/.test(key) ? escapeRegExp(key) : '(?!)'})\\s*=\\s*('(?:[^']|'')*'|-?\\d+(?:\\.\\d+)?|\\?)`,
  );
  const match = pattern.exec(where);
  return match ? `${key} = ${match[1]}` : undefined;
}

/**
 * The top-level attributes a SELECT lists, in its order: `SELECT "b", a.c, "x"[0] FROM …` gives
 * b, a, x (a path projects its first attribute). `*` gives none (the items decide).
 */
export function projectionOrder(statement: string): string[] {
  const match = /^\s*SELECT\s+([\s\S]*?)\s+FROM\s/i.exec(statement.replace(/'(?:[^']|'')*'/g, "''"));
  if (!match) return [];
  const names: string[] = [];
  let depth = 0;
  let quoted = false;
  let item = '';
  const take = () => {
    const head = /^\s*(?:"((?:[^"]|"")*)"|([A-Za-z_][\w]*))/.exec(item);
    const name = head?.[1]?.replaceAll('""', '"') ?? head?.[2];
    if (name && name !== '*') names.push(name);
    item = '';
  };
  for (const char of match[1]!) {
    if (char === '"') quoted = !quoted;
    else if (!quoted && (char === '[' || char === '(')) depth++;
    else if (!quoted && (char === ']' || char === ')')) depth--;
    if (char === ',' && !quoted && depth === 0) take();
    else item += char;
  }
  take();
  return names;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
