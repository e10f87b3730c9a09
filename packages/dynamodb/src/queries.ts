// PartiQL reads: SELECT only, run through the read client (whose allow-list holds without the
// statement check), bounded by rows and bytes; the plan says Query (which key) or Scan before it runs.
import { type AttributeValue, type DynamoDBClient, ExecuteStatementCommand } from '@aws-sdk/client-dynamodb';
import type {
  FieldInfo,
  QueryPlan,
  QueryRunner,
  ReadQueryResult,
  Row,
  SchemaCache,
} from '@toolrow/datasource';
import { checkReadOnlyPartiql, type PartiqlRead } from './partiql-guard.ts';
import type { KeyMap } from './schema.ts';
import { itemToRow, valueText } from './values.ts';

export function createPartiqlRunner(client: DynamoDBClient, schema: SchemaCache, keys: KeyMap): QueryRunner {
  return {
    dialect: 'partiql',
    check(text) {
      const read = checkReadOnlyPartiql(text);
      return { statement: read.statement, tables: [read.table] };
    },
    async run(statement, options = {}): Promise<ReadQueryResult> {
      const maxRows = options.maxRows ?? 1000;
      const maxBytes = options.maxBytes ?? 4 * 1024 * 1024;
      const rows: Row[] = [];
      let bytes = 0;
      let next: string | undefined;
      let truncatedBy: 'rows' | 'bytes' | undefined;
      do {
        const page = await client.send(
          new ExecuteStatementCommand({ Statement: statement, ...(next ? { NextToken: next } : {}) }),
          options.signal ? { abortSignal: options.signal } : {},
        );
        for (const item of (page.Items ?? []) as Record<string, AttributeValue>[]) {
          if (rows.length === maxRows) {
            truncatedBy = 'rows';
            break;
          }
          const row = itemToRow(item);
          bytes += valueText(row).length;
          if (bytes > maxBytes) {
            truncatedBy = 'bytes';
            break;
          }
          rows.push(row);
        }
        next = page.NextToken;
      } while (next && !truncatedBy);
      if (!truncatedBy && next) truncatedBy = 'rows';
      const names = [...new Set(rows.flatMap((row) => Object.keys(row)))];
      const fields: FieldInfo[] = names.map((name) => ({ name, typeId: 0 }));
      return { rows, fields, truncated: truncatedBy !== undefined, ...(truncatedBy ? { truncatedBy } : {}) };
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
          estimatedRows: Math.max(
            1,
            Math.round(table.rowEstimate / Math.max(distinctOf(table, used!.partitionKey), 1)),
          ),
        };
      }
      return {
        lines: [
          `Scan of the whole ${read.index ? `index ${read.index} of ` : ''}table ${table.name} (${table.rowEstimate.toLocaleString('en-US')} items, ${table.tableBytes.toLocaleString('en-US')} bytes): no equality on its partition key${used ? ` (${used.partitionKey})` : ''}.`,
          'Filter on the partition key (WHERE "key" = …) to make it a Query.',
        ],
        estimatedRows: table.rowEstimate,
      };
    },
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

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
