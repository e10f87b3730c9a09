// runQuery, validateQuery and explainQuery on SQLite: the statement check, then a read worker
// whose connection holds the other layers (read-only open, query_only, the authorizer).
import {
  type CheckedStatement,
  DataSourceError,
  nearestNames,
  type QueryRunner,
  type SchemaCache,
  type StatementCheckOptions,
} from '@toolrow/datasource';
import { type ReadPool, SqliteError } from './read-pool.ts';
import { rowOf } from './rows.ts';
import { MAIN } from './schema.ts';
import { checkSqliteText } from './statement-check.ts';

export const SQLITE_LANGUAGE = {
  name: 'SQL',
  dialect: 'SQLite',
  example: 'select status, count(*) from orders group by status',
} as const;

/** SQLite's words, and the nearest name where it says one is unknown. */
async function problemOf(error: SqliteError, schema: SchemaCache): Promise<string> {
  const unknown = /no such (table|column): (?:[\w]+\.)?(\w+)/.exec(error.message);
  if (!unknown) return `SQLite rejects it: ${error.message}`;
  const tables = (await schema.get()).tables;
  const known =
    unknown[1] === 'table'
      ? tables.map((table) => table.name)
      : [...new Set(tables.flatMap((table) => table.columns.map((column) => column.name)))];
  const near = nearestNames(unknown[2]!, known);
  return `SQLite rejects it: ${error.message}.${near.length > 0 ? ` Did you mean ${near.map((name) => `'${name}'`).join(' or ')}?` : ''}`;
}

export function createQueryRunner(pool: ReadPool, schema: SchemaCache, checkText: boolean): QueryRunner {
  return {
    language: SQLITE_LANGUAGE,
    async check(text, options: StatementCheckOptions = {}): Promise<CheckedStatement> {
      const statement = checkText ? checkSqliteText(text, options.advice) : text;
      try {
        const { tables } = await pool.ask({ kind: 'tables', sql: statement }, 'tables');
        return { statement, tables: tables.map((table) => `${MAIN}.${table}`) };
      } catch (error) {
        if (!(error instanceof SqliteError)) throw error;
        if (/not authorized/.test(error.message))
          throw new DataSourceError(
            'permission',
            `The statement is refused: SQLite's authorizer denies it (${error.message}). Send one read-only SELECT.`,
          );
        // What does not compile is the run's to report (in SQLite's words); validateQuery says it now.
        return {
          statement,
          tables: [],
          ...(options.names ? { problems: [await problemOf(error, schema)] } : {}),
        };
      }
    },
    async run(statement, options = {}) {
      const maxRows = options.maxRows ?? 1000;
      const answer = await pool.ask(
        {
          kind: 'query',
          sql: statement,
          params: [],
          maxRows,
          maxBytes: options.maxBytes ?? 4 * 1024 * 1024,
          maxValueBytes: options.maxValueBytes ?? 64 * 1024,
        },
        'rows',
        { timeoutMs: options.timeoutMs ?? 10_000, ...(options.signal ? { signal: options.signal } : {}) },
      );
      return {
        rows: answer.rows.map((values) => rowOf(answer.columns, values)),
        fields: answer.columns.map((name) => ({ name, typeId: 0 })),
        truncated: answer.truncatedBy !== undefined,
        ...(answer.truncatedBy ? { truncatedBy: answer.truncatedBy } : {}),
        ...(answer.oversized.length > 0 ? { oversized: answer.oversized } : {}),
      };
    },
    async plan(statement, options = {}) {
      const { lines } = await pool.ask({ kind: 'plan', sql: statement }, 'plan', {
        timeoutMs: options.timeoutMs ?? 10_000,
        ...(options.signal ? { signal: options.signal } : {}),
      });
      return {
        lines,
        note: 'SQLite\'s query plan (EXPLAIN QUERY PLAN): nothing was run. "SCAN" a table under a selective WHERE suggests a missing index; "SEARCH … USING INDEX" reads by one.',
      };
    },
  };
}
