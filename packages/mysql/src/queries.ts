// runQuery, validateQuery and explainQuery on MySQL and MariaDB: the statement check, then a read on
// a pinned session inside START TRANSACTION READ ONLY under the server's own time limit.
import {
  type CheckedStatement,
  nearestNames,
  type QueryLanguage,
  type QueryRunner,
  type SchemaCache,
  type StatementCheckOptions,
} from '@toolrow/datasource';
import { rowOf } from './rows.ts';
import { errnoOf, type MysqlServer } from './server.ts';
import { checkMysqlText } from './statement-check.ts';

export function mysqlLanguage(flavor: 'MariaDB' | 'MySQL'): QueryLanguage {
  return { name: 'SQL', dialect: flavor, example: 'select status, count(*) from orders group by status' };
}

const NO_TABLE = 1146;
const NO_COLUMN = 1054;

/** The server's words, and the nearest name where it says one is unknown. */
async function problemOf(error: unknown, schema: SchemaCache, flavor: string): Promise<string> {
  const message = (error as Error).message;
  const errno = errnoOf(error);
  const tables = (await schema.get()).tables;
  let near: string[] = [];
  if (errno === NO_TABLE) {
    const name = /Table '(?:[^.']*\.)?([^']+)' doesn't exist/.exec(message)?.[1];
    if (name)
      near = nearestNames(
        name,
        tables.map((table) => table.name),
      );
  } else if (errno === NO_COLUMN) {
    const name = /Unknown column '(?:[^']*\.)?([^'.]+)'/.exec(message)?.[1];
    if (name)
      near = nearestNames(name, [
        ...new Set(tables.flatMap((table) => table.columns.map((column) => column.name))),
      ]);
  }
  return `${flavor} rejects it: ${message}.${near.length > 0 ? ` Did you mean ${near.map((name) => `'${name}'`).join(' or ')}?` : ''}`;
}

export function createQueryRunner(
  server: MysqlServer,
  schema: SchemaCache,
  database: string,
  checkText: boolean,
): QueryRunner {
  const flavor = server.flavor;
  // The database's own functions, which a SELECT calls by bare name: refused by the check (they may write).
  const storedFunctions = () =>
    server.withSession(async (connection) => {
      const [rows] = await connection.query({
        sql: "SELECT ROUTINE_NAME FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = ? AND ROUTINE_TYPE = 'FUNCTION'",
        values: [database],
        rowsAsArray: true,
      });
      return (rows as string[][]).map((row) => String(row[0]).toLowerCase());
    });
  return {
    language: mysqlLanguage(flavor),
    async check(text, options: StatementCheckOptions = {}): Promise<CheckedStatement> {
      const checked = checkText
        ? await checkMysqlText(text, {
            database,
            flavor,
            storedFunctions: await storedFunctions(),
            ...(options.advice ? { advice: options.advice } : {}),
          })
        : { statement: text, tables: [] };
      if (!options.names) return checked;
      // EXPLAIN names what the server does not know, and runs nothing.
      try {
        await server.read((session) =>
          session.rows(`EXPLAIN ${checked.statement}\n`, [], {
            maxRows: 1000,
            maxBytes: 1 << 20,
            maxValueBytes: 1 << 16,
          }),
        );
        return checked;
      } catch (error) {
        if (errnoOf(error) === undefined) throw error;
        return { ...checked, problems: [await problemOf(error, schema, flavor)] };
      }
    },
    async run(statement, options = {}) {
      const answer = await server.read(
        (session) =>
          session.rows(statement, [], {
            maxRows: options.maxRows ?? 1000,
            maxBytes: options.maxBytes ?? 4 * 1024 * 1024,
            maxValueBytes: options.maxValueBytes ?? 64 * 1024,
          }),
        { timeoutMs: options.timeoutMs ?? 10_000, ...(options.signal ? { signal: options.signal } : {}) },
      );
      return {
        rows: answer.rows.map((values) => rowOf(answer.columns, values)),
        fields: answer.columns.map((name) => ({ name })),
        truncated: answer.truncatedBy !== undefined,
        ...(answer.truncatedBy ? { truncatedBy: answer.truncatedBy } : {}),
        ...(answer.oversized.length > 0 ? { oversized: answer.oversized } : {}),
      };
    },
    async plan(statement, options = {}) {
      // A newline before nothing: a trailing line comment cannot swallow anything after it.
      const answer = await server.read(
        (session) =>
          session.rows(`EXPLAIN ${statement}\n`, [], {
            maxRows: 1000,
            maxBytes: 1 << 20,
            maxValueBytes: 1 << 16,
          }),
        { timeoutMs: options.timeoutMs ?? 10_000, ...(options.signal ? { signal: options.signal } : {}) },
      );
      const at = (name: string) => answer.columns.indexOf(name);
      const lines = answer.rows.map((row) =>
        answer.columns
          .map((column, index) => (row[index] === null ? '' : `${column}=${row[index]}`))
          .filter(Boolean)
          .join(' '),
      );
      const rows = answer.rows.map((row) => Number(row[at('rows')] ?? 0)).filter(Number.isFinite);
      return {
        lines,
        ...(rows.length > 0 ? { estimatedRows: Math.max(...rows) } : {}),
        note: `${flavor}'s EXPLAIN: nothing was run. type=ALL on a large table under a selective WHERE suggests a missing index; type=ref or range reads by one (key=…).`,
      };
    },
  };
}
