// SQL over DynamoDB: the statement is parsed by DuckDB (one SELECT, or nothing runs), each table it
// reads is fetched from DynamoDB the cheapest way its predicates allow (plan.ts), the items land in
// DuckDB tables of the same names (load.ts), and DuckDB runs the statement over them: JOIN, GROUP
// BY, aggregates, windows, CTEs, exact decimals. PartiQL, DynamoDB's own, stays as a mode.
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DuckDBConnection } from '@duckdb/node-api';
import {
  DataSourceError,
  type FieldInfo,
  type QueryPlan,
  type QueryRunner,
  type ReadQueryResult,
  type Row,
  type SchemaCache,
  type TableInfo,
} from '@toolrow/datasource';
import { deadlineOf } from '../deadline.ts';
import { checkReadOnlyPartiql } from '../partiql-guard.ts';
import { MAX_ITEMS_READ } from '../rows.ts';
import type { DynamoKeys, KeyMap } from '../schema.ts';
import { analyze, type TableUse } from './analyze.ts';
import { loadTables, type TableRead } from './load.ts';
import { pinAdvice, planReads, type TableAccess } from './plan.ts';
import { openSandbox, type Sandbox, type SandboxSwitches } from './sandbox.ts';

/** Test switches: a layer switched off, to test the others alone. */
export interface SqlLayerSwitches extends SandboxSwitches {
  /** DuckDB's own parser deciding it is one SELECT, and no file or system function. */
  statementCheck?: boolean;
}

export const SQL_EXAMPLE =
  'select status, count(*) as orders, sum(total) as revenue from orders group by status';

/** Table functions a SELECT may call: they make rows, and read nothing outside the statement. */
const TABLE_FUNCTIONS = new Set(['generate_series', 'range', 'unnest']);
/** Functions that read the process's surroundings, refused by the check (the sandbox holds anyway). */
const SYSTEM_FUNCTIONS =
  /^(getenv|read_\w+|glob|sniff_csv|parquet_\w+|duckdb_\w+|pragma_\w+|current_setting|which_secret|icu_\w+|load|install)$/i;

const STATEMENT_HINT =
  'Write one SELECT over your tables, e.g. select status, count(*) from orders group by status. Changes are staged and committed after review.';

type Node = Record<string, unknown>;
function* nodes(value: unknown): Generator<Node> {
  if (Array.isArray(value)) for (const item of value) yield* nodes(item);
  else if (value && typeof value === 'object') {
    yield value as Node;
    for (const child of Object.values(value)) yield* nodes(child);
  }
}

/** The refusal of the statement check: a DataSourceError the tools show as a refusal. */
function refused(message: string): DataSourceError {
  return new DataSourceError('permission', message);
}

/** A SQL statement's result as an export streams it: its columns, then batches of rows. */
export interface SqlRows {
  columns: string[];
  /** Per column: its values are numbers (written as JSON numbers, digits exact). */
  numeric: boolean[];
  batches: AsyncIterable<unknown[][]>;
  /** Frees the statement's tables (after the last batch, or on a stop). */
  close(): void;
}

export interface SqlRunner extends QueryRunner {
  /** The whole result of a statement, streamed (exports): reads past runQuery's bound, within its own. */
  stream(text: string, options: { signal?: AbortSignal; maxItemsRead: number }): Promise<SqlRows>;
  close(): void;
}

const NUMERIC_TYPE =
  /^(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT|UHUGEINT|FLOAT|DOUBLE|DECIMAL\(\d+,\s*\d+\))$/;

/** A column type's name, its alias first (JSON is DuckDB's VARCHAR with the alias JSON). */
function typeName(type: { alias?: string | undefined; toString(): string }): string {
  return type.alias ?? String(type);
}

/**
 * A result row's values in the forms the rest of Toolrow reads an item in, by column type: instants
 * as ISO 8601 in UTC; decimals with the digits DynamoDB keeps (it stores 5.6, not the 5.60 a
 * column's scale prints); maps and lists (JSON) as values, not their text, so the workbench shows
 * them as it shows PartiQL's and the grid's. Numbers inside keep their exact digits.
 */
function storedForms(types: readonly string[]): (values: unknown[]) => unknown[] {
  const forms = types.map((type) =>
    type === 'TIMESTAMP WITH TIME ZONE'
      ? isoInstant
      : /^DECIMAL\(/.test(type)
        ? storedDecimal
        : type === 'JSON'
          ? jsonValueOf
          : undefined,
  );
  return (values) => values.map((value, index) => (value === null ? null : (forms[index]?.(value) ?? value)));
}

/** "5.60" → "5.6", "250.00" → "250": a decimal's text without the zeros its scale adds. */
function storedDecimal(value: unknown): unknown {
  return typeof value === 'string' && value.includes('.') ? value.replace(/\.?0+$/, '') : value;
}

/** A JSON column's text as its value, numbers exact (JSON.rawJSON keeps their digits). */
function jsonValueOf(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    const rawJson = (JSON as unknown as { rawJSON(text: string): unknown }).rawJSON;
    return JSON.parse(value, ((_key: string, parsed: unknown, context?: { source?: string }) =>
      typeof parsed === 'number' && context?.source !== undefined
        ? rawJson(context.source)
        : parsed) as never);
  } catch {
    return value;
  }
}

export function createSqlRunner(
  client: DynamoDBClient,
  schema: SchemaCache,
  keys: KeyMap,
  partiql: QueryRunner,
  switches: SqlLayerSwitches = {},
): SqlRunner {
  // One instance parses and plans (it only ever runs json_serialize_sql over a bound string); each
  // statement runs in a fresh one of its own, so nothing one statement leaves in DuckDB (a table,
  // a macro, a setting) is there for the next, and its memory goes when it ends.
  let parser: Promise<Sandbox> | undefined;
  const open = () => {
    parser ??= openSandbox(switches);
    parser.catch(() => {
      parser = undefined;
    });
    return parser;
  };
  /** A connection to a sandbox of the statement's own; closing it closes the sandbox. */
  const isolated = async (): Promise<{ connection: DuckDBConnection; close(): void }> => {
    const sandbox = await openSandbox(switches);
    try {
      const connection = await sandbox.connect();
      return {
        connection,
        close: () => {
          connection.closeSync();
          sandbox.close();
        },
      };
    } catch (error) {
      sandbox.close();
      throw error;
    }
  };
  const keysOf = (table: TableInfo): DynamoKeys => {
    const found = keys.get(table.name);
    if (!found)
      throw new DataSourceError(
        'unknown-table',
        `The keys of '${table.name}' are not known; refresh the schema.`,
      );
    return found;
  };

  /** DuckDB's parse of the statement: one SELECT, or a refusal saying why. */
  async function parse(connection: DuckDBConnection, text: string): Promise<unknown> {
    const reader = await connection.runAndReadAll('SELECT json_serialize_sql($1::VARCHAR) AS tree', [text]);
    const tree = JSON.parse(String(reader.getRowObjects()[0]?.tree)) as {
      error: boolean;
      error_message?: string;
      statements?: unknown[];
    };
    if (tree.error) {
      const message = tree.error_message ?? 'it could not be read';
      if (/Only SELECT statements/i.test(message))
        throw refused(
          `Only a SELECT runs here, and this statement is ${/^\s*(\w+)/.exec(text)?.[1]?.toUpperCase() ?? 'not one'}. ${STATEMENT_HINT}`,
        );
      let partiqlToo = false;
      try {
        checkReadOnlyPartiql(text);
        partiqlToo = true;
      } catch {
        // not PartiQL either
      }
      // Not refused: a syntax DuckDB cannot read, which an export may still read as PartiQL.
      if (partiqlToo)
        throw new DataSourceError(
          'invalid-filter',
          `This reads as PartiQL, DynamoDB's own language, not SQL (${message.replace(/\s+/g, ' ')}). Here queries are SQL: write it as SQL (tables by name, "quoted" names, 'strings'), or run it in the workbench's PartiQL mode.`,
        );
      throw new DataSourceError(
        'invalid-filter',
        `SQL syntax error: ${message.replace(/\s+/g, ' ')}. ${STATEMENT_HINT}`,
      );
    }
    if ((tree.statements?.length ?? 0) !== 1)
      throw refused(
        `Only one statement is read at a time (this text has ${tree.statements?.length ?? 0}). ${STATEMENT_HINT}`,
      );
    for (const node of nodes(tree.statements)) {
      // PartiQL's way of naming an index ("orders"."by_customer") reads in SQL as a schema.
      if (node.type === 'BASE_TABLE' && typeof node.schema_name === 'string' && node.schema_name !== '') {
        throw refused(
          `FROM "${node.schema_name}"."${String(node.table_name)}" names an index the PartiQL way. In SQL, name the table (FROM "${node.schema_name}"): the index that serves your WHERE is chosen for you (explainQuery shows which). Or run it in the workbench's PartiQL mode.`,
        );
      }
      if (node.type === 'TABLE_FUNCTION') {
        const name = String((node.function as Node | undefined)?.function_name ?? '').toLowerCase();
        if (!TABLE_FUNCTIONS.has(name))
          throw refused(
            `${name}() reads from outside your tables, and SQL here reads your DynamoDB tables only. ${STATEMENT_HINT}`,
          );
      }
      if (
        node.class === 'FUNCTION' &&
        typeof node.function_name === 'string' &&
        SYSTEM_FUNCTIONS.test(node.function_name)
      )
        throw refused(
          `${node.function_name}() reads the system, not your tables: it does not run here. ${STATEMENT_HINT}`,
        );
    }
    return tree.statements;
  }

  /** The tables the statement reads, resolved against the schema (an unknown one names the nearest). */
  async function tablesOf(tree: unknown): Promise<{ uses: TableUse[]; tables: Map<string, TableInfo> }> {
    const snapshot = await schema.get();
    const byName = new Map(snapshot.tables.map((table) => [table.name, table]));
    const analysis = analyze(tree, (name) => byName.get(name)?.columns.map((column) => column.name));
    const tables = new Map<string, TableInfo>();
    for (const use of analysis.tables.values()) tables.set(use.table, await schema.resolveTable(use.table));
    return { uses: [...analysis.tables.values()], tables };
  }

  async function planOf(text: string): Promise<{ statement: string; accesses: TableAccess[] }> {
    const statement = text.trim().replace(/;\s*$/, '');
    const connection = await (await open()).connect();
    try {
      const tree =
        switches.statementCheck === false
          ? await parseLenient(connection, statement)
          : await parse(connection, statement);
      const { uses, tables } = await tablesOf(tree);
      return { statement, accesses: planReads(uses, tables, keysOf) };
    } finally {
      connection.closeSync();
    }
  }

  return {
    dialect: 'sql',
    get language() {
      const tables = schema.current?.tables ?? [];
      const first = tables.some((table) => table.name === 'orders') ? undefined : tables[0];
      return {
        name: 'SQL',
        // On an account without the sample shop, a look at its first table.
        example: first ? `select * from "${first.name.replaceAll('"', '""')}" limit 20` : SQL_EXAMPLE,
      };
    },
    modes: [partiql],

    async check(text) {
      const connection = await (await open()).connect();
      try {
        const statement = text.trim().replace(/;\s*$/, '');
        const tree =
          switches.statementCheck === false
            ? await parseLenient(connection, statement)
            : await parse(connection, statement);
        const { tables } = await tablesOf(tree);
        return { statement, tables: [...tables.keys()] };
      } finally {
        connection.closeSync();
      }
    },

    async plan(text): Promise<QueryPlan> {
      const { accesses } = await planOf(text);
      const lines = accesses.map(
        (access) =>
          `${access.describe}: ${access.attributes === 'all' ? 'every attribute' : access.attributes.join(', ') || 'the key only'}; about ${access.expectedItems.toLocaleString('en-US')} item${access.expectedItems === 1 ? '' : 's'} read`,
      );
      lines.push(
        'Then DuckDB runs the statement over what was read (joins, grouping, ordering in this process).',
      );
      return {
        lines,
        estimatedRows: accesses.reduce((sum, access) => sum + access.expectedItems, 0),
        note: "Plan only: nothing was read. Each table is read by GetItem or BatchGetItem when its key is pinned, a Query when its or an index's partition key is, and a Scan (the whole table) otherwise.",
      };
    },

    async run(text, options = {}): Promise<ReadQueryResult> {
      const maxRows = options.maxRows ?? 1000;
      const maxBytes = options.maxBytes ?? 4 * 1024 * 1024;
      const maxValueBytes = options.maxValueBytes ?? 64 * 1024;
      const maxItemsRead = options.maxItemsRead ?? MAX_ITEMS_READ;
      const { statement, accesses } = await planOf(text);
      // A Scan that would read past the bound stops before it starts, saying what would pin it.
      for (const access of accesses) {
        if (access.operation === 'Scan' && access.expectedItems > maxItemsRead)
          throw new DataSourceError(
            'too-large',
            `${access.table.name} holds about ${access.expectedItems.toLocaleString('en-US')} items, more than the ${maxItemsRead.toLocaleString('en-US')} one statement may read. ${pinAdvice(access, keysOf(access.table))}`,
          );
      }
      const deadline = deadlineOf(options, 'The query');
      const own = await isolated();
      const { connection } = own;
      const stop = () => connection.interrupt();
      deadline.signal?.addEventListener('abort', stop, { once: true });
      try {
        if (deadline.signal?.aborted) throw deadline.signal.reason;
        const reads = await loadTables(connection, client, accesses, keysOf, {
          ...(deadline.signal ? { signal: deadline.signal } : {}),
          maxItemsRead,
        });
        const reader = await connection.streamAndReadUntil(statement, maxRows + 1);
        const names = reader.columnNames();
        const asStored = storedForms(reader.columnTypes().map(typeName));
        const all = reader.getRowsJson().map(asStored);
        const rows: Row[] = [];
        const oversized: { row: number; column: string; bytes: number }[] = [];
        let bytes = 0;
        let truncatedBy: ReadQueryResult['truncatedBy'];
        for (const values of all) {
          if (rows.length === maxRows) {
            truncatedBy = 'rows';
            break;
          }
          const row: Row = {};
          for (const [index, name] of names.entries()) {
            const value = values[index] ?? null;
            const size =
              value === null ? 0 : typeof value === 'string' ? value.length : JSON.stringify(value).length;
            if (size > maxValueBytes) {
              oversized.push({ row: rows.length, column: name, bytes: size });
              row[name] = null;
            } else row[name] = value;
            bytes += Math.min(size, maxValueBytes);
          }
          if (bytes > maxBytes && rows.length > 0) {
            truncatedBy = 'bytes';
            break;
          }
          rows.push(row);
        }
        const fields: FieldInfo[] = names.map((name) => ({ name, typeId: 0 }));
        return {
          rows,
          fields,
          truncated: truncatedBy !== undefined,
          ...(truncatedBy ? { truncatedBy } : {}),
          ...(oversized.length > 0 ? { oversized } : {}),
          reads: reads.map(readOf),
        };
      } catch (error) {
        throw deadline.explain(error);
      } finally {
        deadline.signal?.removeEventListener('abort', stop);
        own.close();
      }
    },

    async stream(text, options): Promise<SqlRows> {
      const { statement, accesses } = await planOf(text);
      const own = await isolated();
      const { connection } = own;
      const stop = () => connection.interrupt();
      options.signal?.addEventListener('abort', stop, { once: true });
      const close = () => {
        options.signal?.removeEventListener('abort', stop);
        own.close();
      };
      try {
        await loadTables(connection, client, accesses, keysOf, {
          ...(options.signal ? { signal: options.signal } : {}),
          maxItemsRead: options.maxItemsRead,
        });
        const result = await connection.stream(statement);
        const types = result.columnTypes().map(typeName);
        const asStored = storedForms(types);
        return {
          columns: result.columnNames(),
          numeric: types.map((type) => NUMERIC_TYPE.test(type)),
          batches: (async function* () {
            for await (const rows of result.yieldRowsJson()) yield rows.map(asStored);
          })(),
          close,
        };
      } catch (error) {
        close();
        throw error;
      }
    },

    close() {
      void parser?.then((opened) => opened.close()).catch(() => {});
      parser = undefined;
    },
  };
}

function readOf(read: TableRead) {
  return {
    table: read.table,
    operation: read.operation,
    ...(read.index ? { index: read.index } : {}),
    items: read.items,
    ...(read.capacity !== undefined ? { capacity: read.capacity } : {}),
    ...(read.note ? { note: read.note } : {}),
  };
}

/** DuckDB's "2025-08-11 12:34:12.58+00" as "2025-08-11T12:34:12.580Z". */
function isoInstant(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const ms = Date.parse(value.replace(' ', 'T').replace(/([+-]\d{2})$/, '$1:00'));
  return Number.isNaN(ms) ? value : new Date(ms).toISOString();
}

/** With the check off (tests of the other layers): whatever tree DuckDB gives, else none. */
async function parseLenient(connection: DuckDBConnection, text: string): Promise<unknown> {
  try {
    const reader = await connection.runAndReadAll('SELECT json_serialize_sql($1::VARCHAR) AS tree', [text]);
    const tree = JSON.parse(String(reader.getRowObjects()[0]?.tree)) as { statements?: unknown[] };
    return tree.statements ?? [];
  } catch {
    return [];
  }
}
