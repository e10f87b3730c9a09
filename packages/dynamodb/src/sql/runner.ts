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
  ReadBoundError,
  type ReadQueryResult,
  type Row,
  type SchemaCache,
  type TableInfo,
  type TableRead,
} from '@toolrow/datasource';
import { deadlineOf } from '../deadline.ts';
import { checkReadOnlyPartiql } from '../partiql-guard.ts';
import { MAX_ITEMS_READ, raiseBound, readCost } from '../read-bound.ts';
import type { DynamoKeys, KeyMap } from '../schema.ts';
import { countingSchemaReads, resolveWithin } from '../table-schemas.ts';
import { analyze, cteScopesOf, type Ref, relationAlias, walk } from './analyze.ts';
import { BINDING_SETTINGS, type BoundTable, bindStatement, nearestAttribute } from './bind.ts';
import { openSession, type SqlSession } from './duckdb-process.ts';
import { loadTables } from './load.ts';
import { keysToRead, pinAdvice, planReads, type TableAccess } from './plan.ts';
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

/** Rows an export of a statement over no table may write (generated rows cost no read to bound them). */
export const MAX_GENERATED_ROWS = 1_000_000;

/** What DynamoDB allows a table to be named (3 to 255 of these characters). */
const DYNAMODB_TABLE_NAME = /^[A-Za-z0-9_.-]{3,255}$/;

const STATEMENT_HINT =
  'Write one SELECT over your tables, e.g. select status, count(*) from orders group by status. Changes are staged and committed after review.';

type Node = Record<string, unknown>;

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
      : /^DECIMAL\([^)]*\)$/.test(type)
        ? storedDecimal
        : /^DECIMAL\([^)]*\)\[\]$/.test(type)
          ? eachOf(storedDecimal)
          : type === 'JSON'
            ? jsonValueOf
            : undefined,
  );
  return (values) => values.map((value, index) => (value === null ? null : (forms[index]?.(value) ?? value)));
}

const eachOf =
  (form: (value: unknown) => unknown) =>
  (value: unknown): unknown =>
    Array.isArray(value) ? value.map((each) => (each === null ? null : form(each))) : value;

/** A parse tree as JSON again, its bigints as the digits they were. */
function treeText(tree: unknown): string {
  const rawJson = (JSON as unknown as { rawJSON(text: string): unknown }).rawJSON;
  return JSON.stringify(tree, (_key, value: unknown) =>
    typeof value === 'bigint' ? rawJson(value.toString()) : value,
  );
}

/** The statement's parse tree, integers past 2^53 kept exact (as bigint). */
function parseTree(text: string): unknown {
  return JSON.parse(text, ((_key: string, value: unknown, context?: { source?: string }) =>
    typeof value === 'number' &&
    !Number.isSafeInteger(value) &&
    context?.source !== undefined &&
    /^-?\d+$/.test(context.source)
      ? BigInt(context.source)
      : value) as never);
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
  /** Items one statement may read: the connection's setting (maxItemsRead in its URL). */
  bound = MAX_ITEMS_READ,
): SqlRunner {
  // One in-process instance parses (it only ever runs json_serialize_sql over a bound string); each
  // statement is bound and run in a DuckDB of its own in a bounded process (duckdb-process.ts), so
  // nothing one statement leaves (a table, a macro, a setting) is there for the next, its memory
  // goes when it ends, and no function it calls can take this process's memory or time.
  let parser: Promise<Sandbox> | undefined;
  const open = () => {
    parser ??= openSandbox(switches);
    parser.catch(() => {
      parser = undefined;
    });
    return parser;
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
    const tree = parseTree(String(reader.getRowObjects()[0]?.tree)) as {
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
    const scopes = cteScopesOf(tree.statements);
    for (const node of walk(tree.statements)) {
      // PartiQL's way of naming an index ("orders"."by_customer") reads in SQL as a schema.
      if (node.type === 'BASE_TABLE' && typeof node.schema_name === 'string' && node.schema_name !== '') {
        throw refused(
          `FROM "${node.schema_name}"."${String(node.table_name)}" names an index the PartiQL way. In SQL, name the table (FROM "${node.schema_name}"): the index that serves your WHERE is chosen for you (explainQuery shows which). Or run it in the workbench's PartiQL mode.`,
        );
      }
      // A file or a URL in FROM, wherever it stands (a CTE of its name elsewhere does not hide it).
      if (
        node.type === 'BASE_TABLE' &&
        typeof node.table_name === 'string' &&
        !DYNAMODB_TABLE_NAME.test(node.table_name) &&
        !scopes.get(node)?.has(node.table_name.toLowerCase())
      )
        throw refused(
          `'${node.table_name}' is not a table name DynamoDB allows: SQL here reads your DynamoDB tables only, never a file or a URL. ${STATEMENT_HINT}`,
        );
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
  /**
   * The tables the statement reads, resolved one by one (an unknown one names the nearest): only
   * those are described and sampled, however many the account holds.
   */
  async function tablesOf(
    tree: unknown,
    signal?: AbortSignal,
  ): Promise<{ refs: Ref[]; tables: Map<string, TableInfo> }> {
    const scopes = cteScopesOf(tree);
    const named = new Set<string>();
    for (const node of walk(tree))
      if (
        node.type === 'BASE_TABLE' &&
        !node.schema_name &&
        typeof node.table_name === 'string' &&
        !scopes.get(node)?.has(node.table_name.toLowerCase())
      )
        named.add(node.table_name);
    const tables = new Map<string, TableInfo>();
    for (const name of named) tables.set(name, await resolveWithin(schema, name, signal ? { signal } : {}));
    const analysis = analyze(tree, (name) => tables.get(name)?.columns.map((column) => column.name));
    return { refs: analysis.refs, tables };
  }

  /**
   * Parses, binds and plans a statement: DuckDB resolves its names against the sampled schemas
   * (bind.ts), then each table's read is decided from its pins (plan.ts). Nothing is read.
   */
  async function prepare(
    text: string,
    signal?: AbortSignal,
  ): Promise<{
    statement: string;
    accesses: TableAccess[];
    bound: Map<string, BoundTable>;
    filterSql: (ref: Ref) => string | undefined;
  }> {
    const statement = text.trim().replace(/;\s*$/, '');
    const connection = await (await open()).connect();
    let tree: unknown;
    try {
      tree =
        switches.statementCheck === false
          ? await parseLenient(connection, statement)
          : await parse(connection, statement);
    } finally {
      connection.closeSync();
    }
    const { refs, tables } = await tablesOf(tree, signal);
    const session = await openSession({
      sandbox: switches.sandbox !== false,
      settings: { ...BINDING_SETTINGS },
      ...(signal ? { signal } : {}),
    });
    let bound: Map<string, BoundTable>;
    try {
      bound = await bindStatement(
        session,
        statement,
        tree,
        tables,
        (alias) => relationAlias(tree, alias),
        (table) => keysOf(table).partitionKey,
      );
    } finally {
      session.close();
    }
    for (const ref of refs) {
      const binding = bound.get(ref.table);
      if (!binding) continue;
      // A date or an instant compares as one in DuckDB and as text in DynamoDB: DuckDB alone filters it.
      ref.pins = ref.pins.filter((pin) => !binding.temporal.has(pin.column));
      ref.edges = ref.edges.filter(
        (edge) =>
          !binding.temporal.has(edge.column) &&
          !bound.get(refs[edge.from]!.table)?.temporal.has(edge.fromColumn),
      );
    }
    const accesses = planReads(refs, tables, keysOf, (table) => bound.get(table)?.attributes ?? []);
    const filterSql = await filtersAsSql(refs);
    return { statement, accesses, bound, filterSql: (ref) => filterSql.get(ref) };
  }

  /** Each reference's own filters as SQL (DuckDB writes its parse tree back), for a lookup's values. */
  async function filtersAsSql(refs: readonly Ref[]): Promise<Map<Ref, string>> {
    const out = new Map<Ref, string>();
    const wanted = refs.filter((ref) => ref.filters.length > 0);
    if (wanted.length === 0) return out;
    const connection = await (await open()).connect();
    try {
      for (const ref of wanted) {
        const where =
          ref.filters.length === 1
            ? ref.filters[0]
            : { class: 'CONJUNCTION', type: 'CONJUNCTION_AND', alias: '', children: ref.filters };
        const tree = {
          error: false,
          statements: [
            {
              node: {
                type: 'SELECT_NODE',
                modifiers: [],
                cte_map: { map: [] },
                select_list: [
                  {
                    class: 'CONSTANT',
                    type: 'VALUE_CONSTANT',
                    alias: '',
                    value: { type: { id: 'INTEGER', type_info: null }, is_null: false, value: 1 },
                  },
                ],
                from_table: { type: 'EMPTY', alias: '', sample: null },
                where_clause: where,
                group_expressions: [],
                group_sets: [],
                aggregate_handling: 'STANDARD_HANDLING',
                having: null,
                sample: null,
                qualify: null,
              },
              named_param_map: [],
            },
          ],
        };
        try {
          const reader = await connection.runAndReadAll('SELECT json_deserialize_sql($1::JSON) AS sql', [
            treeText(tree),
          ]);
          const sql = String(reader.getRowObjects()[0]?.sql ?? '');
          const at = sql.indexOf(' WHERE ');
          if (at !== -1) out.set(ref, sql.slice(at + ' WHERE '.length));
        } catch {
          // Not written back: the lookup takes every value its source read.
        }
      }
    } finally {
      connection.closeSync();
    }
    return out;
  }

  /** What a statement would read, refused before any request when past the bound, with its cost. */
  function checkBound(accesses: readonly TableAccess[], maxItemsRead: number): void {
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

  /** Notes for attributes no sampled item has: read if items have them, NULL otherwise. */
  function unsampledNotes(bound: ReadonlyMap<string, BoundTable>): string[] {
    return [...bound.values()].flatMap((binding) =>
      [...binding.unsampled].map((attribute) => {
        const near = nearestAttribute(
          attribute,
          binding.table.columns.map((column) => column.name),
        );
        return `${attribute} is in no sampled item of ${binding.table.name}${near ? ` (did you mean ${near}?)` : ''}: it is read from the items that have it, and NULL elsewhere.`;
      }),
    );
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

    async plan(text, options = {}): Promise<QueryPlan> {
      const { accesses, bound: binding } = await prepare(text, options.signal);
      const lines = accesses.map(
        (access) =>
          `${access.describe}: ${access.attributes === 'all' ? 'every attribute' : access.attributes.join(', ') || 'the key only'}; about ${access.expectedItems.toLocaleString('en-US')} item${access.expectedItems === 1 ? '' : 's'} read`,
      );
      lines.push(
        'Then DuckDB runs the statement over what was read (joins, grouping, ordering in this process).',
      );
      const warnings = unsampledNotes(binding);
      const items = accesses.reduce((sum, access) => sum + access.expectedItems, 0);
      const limit = bound;
      lines.push(
        `In all: ${readCost(items, undefined)}${items > limit ? `, past the ${limit.toLocaleString('en-US')} items this connection lets one statement read: it would be refused. ${raiseBound(items)}` : ''}.`,
      );
      return {
        lines,
        estimatedItemsRead: accesses.reduce((sum, access) => sum + access.expectedItems, 0),
        ...(warnings.length > 0 ? { warnings } : {}),
        note: "Plan only: nothing was read. Each table is read by GetItem or BatchGetItem when its key is pinned, a Query when its or an index's partition key is, and a Scan (the whole table) otherwise.",
      };
    },

    async run(text, options = {}): Promise<ReadQueryResult> {
      const maxRows = options.maxRows ?? 1000;
      const maxBytes = options.maxBytes ?? 4 * 1024 * 1024;
      const maxValueBytes = options.maxValueBytes ?? 64 * 1024;
      const maxItemsRead = options.maxItemsRead ?? bound;
      const deadline = deadlineOf(options, 'The query');
      let session: SqlSession | undefined;
      // Tables this statement had to sample first: their reads are its reads too.
      const sampling: TableRead[] = [];
      try {
        const { statement, accesses, bound, filterSql } = await countingSchemaReads(sampling, () =>
          prepare(text, deadline.signal),
        );
        checkBound(accesses, maxItemsRead);
        session = await openSession({
          sandbox: switches.sandbox !== false,
          ...(deadline.signal ? { signal: deadline.signal } : {}),
        });
        const reads = await loadTables(session, client, accesses, bound, keysOf, {
          ...(deadline.signal ? { signal: deadline.signal } : {}),
          maxItemsRead,
          filterSql,
        });
        const answer = await session.read(statement, maxRows + 1);
        const names = answer.names;
        const asStored = storedForms(answer.types);
        const all = answer.rows.map(asStored);
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
          reads: [...sampling, ...reads],
        };
      } catch (error) {
        throw deadline.explain(error);
      } finally {
        session?.close();
      }
    },

    async stream(text, options): Promise<SqlRows> {
      const { statement, accesses, bound, filterSql } = await prepare(text, options.signal);
      checkBound(accesses, options.maxItemsRead);
      const session = await openSession({
        sandbox: switches.sandbox !== false,
        ...(options.signal ? { signal: options.signal } : {}),
      });
      try {
        await loadTables(session, client, accesses, bound, keysOf, {
          ...(options.signal ? { signal: options.signal } : {}),
          maxItemsRead: options.maxItemsRead,
          filterSql,
        });
        const result = await session.stream(statement);
        const asStored = storedForms(result.types);
        // Rows made from no table (range(), generate_series()) have a bound of their own.
        const rowBound =
          accesses.length === 0
            ? Math.min(options.maxItemsRead, MAX_GENERATED_ROWS)
            : Number.POSITIVE_INFINITY;
        return {
          columns: result.names,
          numeric: result.types.map((type) => NUMERIC_TYPE.test(type)),
          batches: (async function* () {
            let rows = 0;
            for await (const batch of result.batches) {
              rows += batch.length;
              if (rows > rowBound)
                throw new DataSourceError(
                  'too-large',
                  `The statement reads no table and made more than ${rowBound.toLocaleString('en-US')} rows, the bound of one statement. Narrow it (a smaller range(), a LIMIT).`,
                );
              yield batch.map(asStored);
            }
          })(),
          close: () => session.close(),
        };
      } catch (error) {
        session.close();
        throw error;
      }
    },

    close() {
      void parser?.then((opened) => opened.close()).catch(() => {});
      parser = undefined;
    },
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
    const tree = parseTree(String(reader.getRowObjects()[0]?.tree)) as { statements?: unknown[] };
    return tree.statements ?? [];
  } catch {
    return [];
  }
}
