// The SQL statement check, the first read layer of SQL over DynamoDB: DuckDB's own parser
// (json_serialize_sql) decides the text is one SELECT, and the tree is walked for what may not run
// — a file or URL as a table wherever it stands (CTE scopes resolved), table functions that read
// outside the statement, functions that read the system, PartiQL's index syntax. The sandbox holds
// without it (escapes.test.ts tests each alone).
import type { DuckDBConnection } from '@duckdb/node-api';
import { DataSourceError } from '@toolrow/datasource';
import { checkReadOnlyPartiql } from '../partiql-guard.ts';
import { cteScopesOf, walk } from './analyze.ts';

/** Table functions a SELECT may call: they make rows, and read nothing outside the statement. */
const TABLE_FUNCTIONS = new Set(['generate_series', 'range', 'unnest']);
/** Functions that read the process's surroundings, refused by the check (the sandbox holds anyway). */
const SYSTEM_FUNCTIONS =
  /^(getenv|read_\w+|glob|sniff_csv|parquet_\w+|duckdb_\w+|pragma_\w+|current_setting|which_secret|icu_\w+|load|install)$/i;

/** What DynamoDB allows a table to be named (3 to 255 of these characters). */
const DYNAMODB_TABLE_NAME = /^[A-Za-z0-9_.-]{3,255}$/;

const STATEMENT_HINT =
  'Write one SELECT over your tables, e.g. select status, count(*) from orders group by status. Changes are staged and committed after review.';

type Node = Record<string, unknown>;

/** The refusal of the statement check: a DataSourceError the tools show as a refusal. */
function refused(message: string): DataSourceError {
  return new DataSourceError('permission', message);
}

/** DuckDB's parse of the statement: one SELECT, or a refusal saying why. */
export async function parseStatement(connection: DuckDBConnection, text: string): Promise<unknown> {
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

/** With the check off (tests of the other layers): whatever tree DuckDB gives, else none. */
export async function parseLenient(connection: DuckDBConnection, text: string): Promise<unknown> {
  try {
    const reader = await connection.runAndReadAll('SELECT json_serialize_sql($1::VARCHAR) AS tree', [text]);
    const tree = parseTree(String(reader.getRowObjects()[0]?.tree)) as { statements?: unknown[] };
    return tree.statements ?? [];
  } catch {
    return [];
  }
}

/** A parse tree as JSON again, its bigints as the digits they were. */
export function treeText(tree: unknown): string {
  const rawJson = (JSON as unknown as { rawJSON(text: string): unknown }).rawJSON;
  return JSON.stringify(tree, (_key, value: unknown) =>
    typeof value === 'bigint' ? rawJson(value.toString()) : value,
  );
}

/** The statement's parse tree, integers past 2^53 kept exact (as bigint). */
export function parseTree(text: string): unknown {
  return JSON.parse(text, ((_key: string, value: unknown, context?: { source?: string }) =>
    typeof value === 'number' &&
    !Number.isSafeInteger(value) &&
    context?.source !== undefined &&
    /^-?\d+$/.test(context.source)
      ? BigInt(context.source)
      : value) as never);
}
