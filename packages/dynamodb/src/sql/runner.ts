// SQL over DynamoDB: the statement is parsed by DuckDB (one SELECT, or nothing runs), each table it
// reads is fetched from DynamoDB the cheapest way its predicates allow (plan.ts), the items land in
// DuckDB tables of the same names (load.ts), and DuckDB runs the statement over them: JOIN, GROUP
// BY, aggregates, windows, CTEs, exact decimals. PartiQL, DynamoDB's own, stays as a mode.
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DataSourceError,
  type FieldInfo,
  type QueryPlan,
  type QueryRunner,
  type ReadQueryResult,
  type Row,
  type SchemaCache,
  type TableInfo,
  type TableRead,
} from '@toolrow/datasource';
import { deadlineOf } from '../deadline.ts';
import { MAX_ITEMS_READ, raiseBound, readCost } from '../read-bound.ts';
import type { DynamoKeys, KeyMap } from '../schema.ts';
import { countingSchemaReads, resolveWithin } from '../table-schemas.ts';
import { analyze, cteScopesOf, type Ref, relationAlias, walk } from './analyze.ts';
import {
  BINDING_SETTINGS,
  type BoundTable,
  bindStatement,
  dropTemporalPins,
  unsampledNotes,
} from './bind.ts';
import { openSession, type ReadAnswer, type SqlSession } from './duckdb-process.ts';
import { filtersAsSql } from './filters-sql.ts';
import { loadTables } from './load.ts';
import { checkReadBound, planReads, type TableAccess } from './plan.ts';
import { openSandbox, type Sandbox, type SandboxSwitches } from './sandbox.ts';
import { parseLenient, parseStatement } from './statement-check.ts';

/** Test switches: a layer switched off, to test the others alone. */
export interface SqlLayerSwitches extends SandboxSwitches {
  /** DuckDB's own parser deciding it is one SELECT, and no file or system function. */
  statementCheck?: boolean;
}

export const SQL_EXAMPLE =
  'select status, count(*) as orders, sum(total) as revenue from orders group by status';

/** Rows an export of a statement over no table may write (generated rows cost no read to bound them). */
export const MAX_GENERATED_ROWS = 1_000_000;

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
    const parser = await (await open()).connect();
    try {
      const tree =
        switches.statementCheck === false
          ? await parseLenient(parser, statement)
          : await parseStatement(parser, statement);
      const { refs, tables } = await tablesOf(schema, tree, signal);
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
      dropTemporalPins(refs, bound);
      const accesses = planReads(refs, tables, keysOf, (table) => bound.get(table)?.attributes ?? []);
      const filterSql = await filtersAsSql(parser, refs);
      return { statement, accesses, bound, filterSql: (ref) => filterSql.get(ref) };
    } finally {
      parser.closeSync();
    }
  }

  return {
    get language() {
      const tables = schema.current?.tables ?? [];
      const first = tables.some((table) => table.name === 'orders') ? undefined : tables[0];
      return {
        name: 'SQL',
        dialect: 'DuckDB',
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
            : await parseStatement(connection, statement);
        const { tables } = await tablesOf(schema, tree);
        return { statement, tables: [...tables.keys()] };
      } finally {
        connection.closeSync();
      }
    },

    async plan(text, options = {}): Promise<QueryPlan> {
      const { accesses, bound: binding } = await prepare(text, options.signal);
      return planOf(accesses, binding, bound);
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
        checkReadBound(accesses, maxItemsRead, keysOf);
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
        return { ...resultOf(answer, { maxRows, maxBytes, maxValueBytes }), reads: [...sampling, ...reads] };
      } catch (error) {
        throw deadline.explain(error);
      } finally {
        session?.close();
      }
    },

    async stream(text, options): Promise<SqlRows> {
      const { statement, accesses, bound, filterSql } = await prepare(text, options.signal);
      checkReadBound(accesses, options.maxItemsRead, keysOf);
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
        return {
          columns: result.names,
          numeric: result.types.map((type) => NUMERIC_TYPE.test(type)),
          // Rows made from no table (range(), generate_series()) have a bound of their own.
          batches: storedBatches(
            result.batches,
            result.types,
            accesses.length === 0
              ? Math.min(options.maxItemsRead, MAX_GENERATED_ROWS)
              : Number.POSITIVE_INFINITY,
          ),
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

/**
 * The tables the statement reads, resolved one by one (an unknown one names the nearest): only
 * those are described and sampled, however many the account holds.
 */
async function tablesOf(
  schema: SchemaCache,
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

/** What explainQuery shows: each table's read, the total cost, and whether the bound refuses it. */
function planOf(
  accesses: readonly TableAccess[],
  binding: ReadonlyMap<string, BoundTable>,
  limit: number,
): QueryPlan {
  const lines = accesses.map(
    (access) =>
      `${access.describe}: ${access.attributes.join(', ') || 'the key only'}; about ${access.expectedItems.toLocaleString('en-US')} item${access.expectedItems === 1 ? '' : 's'} read`,
  );
  lines.push(
    'Then DuckDB runs the statement over what was read (joins, grouping, ordering in this process).',
  );
  const warnings = unsampledNotes(binding);
  const items = accesses.reduce((sum, access) => sum + access.expectedItems, 0);
  lines.push(
    `In all: ${readCost(items, undefined)}${items > limit ? `, past the ${limit.toLocaleString('en-US')} items this connection lets one statement read: it would be refused. ${raiseBound(items)}` : ''}.`,
  );
  return {
    lines,
    estimatedItemsRead: items,
    ...(warnings.length > 0 ? { warnings } : {}),
    note: "Plan only: nothing was read. Each table is read by GetItem or BatchGetItem when its key is pinned, a Query when its or an index's partition key is, and a Scan (the whole table) otherwise.",
  };
}

/** An export's batches in stored forms, stopped past `rowBound` rows. */
async function* storedBatches(
  batches: AsyncIterable<unknown[][]>,
  types: readonly string[],
  rowBound: number,
): AsyncIterable<unknown[][]> {
  const asStored = storedForms(types);
  let rows = 0;
  for await (const batch of batches) {
    rows += batch.length;
    if (rows > rowBound)
      throw new DataSourceError(
        'too-large',
        `The statement reads no table and made more than ${rowBound.toLocaleString('en-US')} rows, the bound of one statement. Narrow it (a smaller range(), a LIMIT).`,
      );
    yield batch.map(asStored);
  }
}

/** A statement's answer as a result within its bounds: rows, bytes, and each value's size. */
function resultOf(
  answer: ReadAnswer,
  limits: { maxRows: number; maxBytes: number; maxValueBytes: number },
): Omit<ReadQueryResult, 'reads'> {
  const { maxRows, maxBytes, maxValueBytes } = limits;
  const names = answer.names;
  const asStored = storedForms(answer.types);
  const rows: Row[] = [];
  const oversized: { row: number; column: string; bytes: number }[] = [];
  let bytes = 0;
  let truncatedBy: ReadQueryResult['truncatedBy'];
  for (const values of answer.rows.map(asStored)) {
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
  };
}

/** DuckDB's "2025-08-11 12:34:12.58+00" as "2025-08-11T12:34:12.580Z". */
function isoInstant(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const ms = Date.parse(value.replace(' ', 'T').replace(/([+-]\d{2})$/, '$1:00'));
  return Number.isNaN(ms) ? value : new Date(ms).toISOString();
}
