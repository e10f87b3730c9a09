// Exports of a table (a Scan in parallel segments, or a Query) or a PartiQL SELECT to CSV, NDJSON or
// JSON: pages go to the file as it takes them (memory flat in the item count), with progress,
// cancel and a time limit; a stopped export leaves no partial file.
import { type AttributeValue, type DynamoDBClient, ExecuteStatementCommand } from '@aws-sdk/client-dynamodb';
import {
  DataSourceError,
  type ExportEngine,
  type ExportEngineOptions,
  type ExportFormat,
  type ExportJobStore,
  type ExportRequest,
  isDataSourceError,
  type SchemaCache,
  type TableInfo,
} from '@toolrow/datasource';
import { createExportRunner, type ExportBody } from '@toolrow/datasource-utils';
import { planRead, type ReadPlan } from './expressions.ts';
import { type Pages, parallelScan } from './pages.ts';
import { checkReadOnlyPartiql } from './partiql-guard.ts';
import { projectionOrder } from './queries.ts';
import { keysFor, readItems } from './rows.ts';
import type { KeyMap } from './schema.ts';
import type { SqlRows, SqlRunner } from './sql/runner.ts';
import { attributeJson, itemJson } from './values.ts';

interface Plan {
  label: string;
  source: Record<string, unknown>;
  /** The CSV header (a table's attributes; a query's are those of its first page). */
  columns?: string[];
  /** The attributes the request named: JSON records carry those alone, in this order. */
  project?: string[];
  rowsEstimate: number | null;
  /** Items, as a table read or a PartiQL statement gives them. */
  pages?(signal: AbortSignal): Pages;
  /** Rows of a SQL statement's result. */
  rows?(signal: AbortSignal): Promise<SqlRows>;
}

/** Items a SQL export may read from DynamoDB (its time limit bounds it too). */
const EXPORT_MAX_ITEMS = 10_000_000;

export function createDynamoExportEngine(
  client: DynamoDBClient,
  schema: SchemaCache,
  keys: KeyMap,
  dir: string,
  jobs: ExportJobStore,
  options: ExportEngineOptions = {},
  sql?: SqlRunner,
): ExportEngine {
  async function plan(request: ExportRequest): Promise<Plan> {
    const source = request.source as Record<string, unknown> | null;
    if (source && typeof source.table === 'string') {
      const table = await schema.resolveTable(source.table);
      const filter = 'filter' in request.source ? request.source.filter : undefined;
      if ('sort' in request.source && (request.source.sort?.length ?? 0) > 0) {
        throw new DataSourceError('export', 'sort: a DynamoDB export is in key order; leave the sort out.');
      }
      const read = planRead(table, keysFor(keys, table), filter);
      const wanted =
        Array.isArray(source.columns) && source.columns.length > 0 ? (source.columns as string[]) : undefined;
      const columns = (wanted ?? table.columns.map((column) => column.name)).map(
        (name) => schema.resolveColumn(table, name).name,
      );
      return {
        label: table.name,
        source: { ...source, table: table.name },
        columns,
        ...(wanted ? { project: columns } : {}),
        rowsEstimate: read.operation === 'Scan' && !read.filter ? table.rowEstimate : null,
        pages: (signal) => tablePages(table, read, signal),
      };
    }
    if (source && typeof source.sql === 'string' && source.sql.trim() !== '' && sql) {
      // SQL, as runQuery takes it; a statement that is PartiQL and not SQL runs as PartiQL below.
      let checked: { statement: string } | undefined;
      try {
        checked = await sql.check!(source.sql);
      } catch (error) {
        // Only a statement DuckDB cannot parse may be PartiQL; one the SQL check refuses stays refused.
        if (!isDataSourceError(error, 'invalid-filter')) throw error;
        let partiql = false;
        try {
          checkReadOnlyPartiql(source.sql);
          partiql = true;
        } catch {
          // neither
        }
        if (!partiql) throw error;
      }
      if (checked) {
        const statement = checked.statement;
        return {
          label: 'query',
          source: { sql: statement },
          rowsEstimate: null,
          rows: (signal) => sql.stream(statement, { signal, maxItemsRead: EXPORT_MAX_ITEMS }),
        };
      }
    }
    if (source && typeof source.sql === 'string' && source.sql.trim() !== '') {
      // The statement check again: an export may be asked for by a model.
      const { statement } = checkReadOnlyPartiql(source.sql);
      const listed = projectionOrder(statement);
      return {
        label: 'query',
        source: { sql: statement },
        // The columns the SELECT lists, in its order (SELECT *: the first item's).
        ...(listed.length > 0 ? { columns: listed } : {}),
        rowsEstimate: null,
        pages: (signal) => statementPages(statement, signal),
      };
    }
    throw new DataSourceError(
      'export',
      'An export source is { table, filter?, columns? } or { sql } (one SELECT).',
    );
  }

  async function* tablePages(table: TableInfo, read: ReadPlan, signal: AbortSignal): Pages {
    if (read.operation === 'Query') {
      for await (const page of readItems(client, table, read, { signal })) yield page.items;
      return;
    }
    yield* parallelScan(
      client,
      {
        TableName: table.name,
        ...(read.filter ? { FilterExpression: read.filter } : {}),
        ...(Object.keys(read.names).length > 0 ? { ExpressionAttributeNames: read.names } : {}),
        ...(Object.keys(read.values).length > 0 ? { ExpressionAttributeValues: read.values } : {}),
      },
      { signal, tableBytes: table.tableBytes ?? 0 },
    );
  }

  async function* statementPages(statement: string, signal: AbortSignal): Pages {
    let next: string | undefined;
    do {
      const page = await client.send(
        new ExecuteStatementCommand({ Statement: statement, ...(next ? { NextToken: next } : {}) }),
        { abortSignal: signal },
      );
      yield (page.Items ?? []) as Record<string, AttributeValue>[];
      next = page.NextToken;
    } while (next);
  }

  return createExportRunner({
    dir,
    jobs,
    engineOptions: options,
    async plan(request) {
      const planned = await plan(request);
      return {
        label: planned.label,
        source: planned.source,
        estimate: async () => planned.rowsEstimate,
        unit: 'items',
        narrow: 'Narrow the export (a key filter)',
        write: (format, signal) => bodyOf(planned, format, signal),
      };
    },
  });
}

/** The file's body: a page of items (or a batch of a SQL result's rows) at a time. */
async function bodyOf(planned: Plan, format: ExportFormat, signal: AbortSignal): Promise<ExportBody> {
  let first = true;
  if (planned.rows) {
    const result = await planned.rows(signal);
    const formatted = rowFormatter(format, result.columns, result.numeric);
    return {
      head: formatted.head,
      chunks: result.batches,
      take(rows: unknown[][]) {
        let text = '';
        for (const row of rows) {
          text += formatted.record(row, first);
          first = false;
        }
        return { bytes: Buffer.from(text), rows: rows.length };
      },
      tail: () => formatted.tail,
      close: () => result.close(),
    } satisfies ExportBody<unknown[][]>;
  }
  const formatted = formatter(format, planned.columns, planned.project);
  return {
    head: formatted.head,
    chunks: planned.pages!(signal),
    take(items: Record<string, AttributeValue>[]) {
      let text = '';
      for (const item of items) {
        text += formatted.record(item, first);
        first = false;
      }
      return { bytes: Buffer.from(text), rows: items.length };
    },
    tail: () => formatted.tail,
  } satisfies ExportBody<Record<string, AttributeValue>[]>;
}

/** A SQL result row as JSON: a number column's values as JSON numbers with their exact digits. */
function rowJson(columns: string[], numeric: boolean[], row: unknown[]): string {
  return `{${columns
    .map((name, index) => {
      const value = row[index];
      const text =
        value === null || value === undefined
          ? 'null'
          : numeric[index] && (typeof value === 'string' || typeof value === 'number')
            ? String(value)
            : JSON.stringify(value);
      return `${JSON.stringify(name)}:${text}`;
    })
    .join(',')}}`;
}

function rowFormatter(format: ExportFormat, columns: string[], numeric: boolean[]) {
  switch (format) {
    case 'ndjson':
      return { head: '', tail: '', record: (row: unknown[]) => `${rowJson(columns, numeric, row)}\n` };
    case 'json':
      return {
        head: '[',
        tail: ']\n',
        record: (row: unknown[], first: boolean) =>
          `${first ? '\n' : ',\n'}${rowJson(columns, numeric, row)}`,
      };
    case 'csv':
      return {
        head: `${columns.map(cell).join(',')}\r\n`,
        tail: '',
        record: (row: unknown[]) =>
          `${row
            .map((value) =>
              value === null || value === undefined
                ? ''
                : cell(typeof value === 'string' ? value : JSON.stringify(value)),
            )
            .join(',')}\r\n`,
      };
  }
}

/** A CSV field: a string as it is, a number's digits, anything nested as plain JSON. */
function field(value: AttributeValue | undefined): string {
  if (value === undefined || value.NULL !== undefined) return '';
  return cell(value.S ?? attributeJson(value));
}

function cell(text: string): string {
  return /[",\r\n]|^\s|\s$/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

type Item = Record<string, AttributeValue>;

/** Only the named attributes, in their order; one an item lacks is null (as CSV leaves it empty). */
function projectedJson(project: readonly string[] | undefined): (item: Item) => string {
  if (!project) return itemJson;
  return (item) => itemJson(Object.fromEntries(project.map((name) => [name, item[name] ?? { NULL: true }])));
}

function formatter(format: ExportFormat, columns: string[] | undefined, project?: readonly string[]) {
  let header: string[] | undefined = columns;
  const json = projectedJson(project);
  switch (format) {
    case 'ndjson':
      return { head: '', tail: '', record: (item: Item) => `${json(item)}\n` };
    case 'json':
      return {
        head: '[',
        tail: ']\n',
        record: (item: Item, first: boolean) => `${first ? '\n' : ',\n'}${json(item)}`,
      };
    case 'csv':
      return {
        get head() {
          return header ? `${header.map(cell).join(',')}\r\n` : '';
        },
        tail: '',
        record(item: Item, first: boolean) {
          // A query's columns are those of its first item (a table's come from its schema).
          let prefix = '';
          if (!header) {
            header = Object.keys(item);
            if (first) prefix = `${header.map(cell).join(',')}\r\n`;
          }
          return `${prefix}${header.map((name) => field(item[name])).join(',')}\r\n`;
        },
      };
  }
}
