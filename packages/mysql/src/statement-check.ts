// MySQL's and MariaDB's statement check (QueryRunner.check, the first read layer): the text read as
// the server reads it under Toolrow's pinned sql_mode (quotes, backslash escapes, backticks, the three
// comment forms), executable comments (/*! … */, /*M! … */) refused, one statement, then parsed with
// node-sql-parser's grammar of the dialect: a SELECT (or WITH … SELECT, or a UNION of them), with no
// INTO, no locking read, no assignment to a variable, no function that waits, locks, reads a file of
// the server or calls a stored routine, and no table outside the connection's database.
import { DataSourceError, PLAIN_STATEMENT_ADVICE, type StatementAdvice } from '@toolrow/datasource';

/** Functions with an effect beyond the result, each with what it would do. */
const DENIED_FUNCTIONS: Record<string, string> = {
  sleep: 'SLEEP holds the connection',
  benchmark: 'BENCHMARK runs an expression millions of times',
  load_file: "LOAD_FILE reads a file of the server's",
  get_lock: 'GET_LOCK takes a named lock',
  release_lock: 'RELEASE_LOCK changes named locks',
  release_all_locks: 'RELEASE_ALL_LOCKS changes named locks',
  is_free_lock: 'IS_FREE_LOCK inspects named locks',
  is_used_lock: 'IS_USED_LOCK inspects named locks',
  master_pos_wait: 'MASTER_POS_WAIT waits on replication',
  source_pos_wait: 'SOURCE_POS_WAIT waits on replication',
  master_gtid_wait: 'MASTER_GTID_WAIT waits on replication',
  wait_for_executed_gtid_set: 'WAIT_FOR_EXECUTED_GTID_SET waits on replication',
  last_insert_id: "LAST_INSERT_ID(expr) sets the session's value",
  nextval: 'NEXTVAL advances a sequence (a write)',
  setval: 'SETVAL sets a sequence (a write)',
  lastval: "LASTVAL reads the session's sequence state",
  sys_exec: 'sys_exec runs a command on the server',
  sys_eval: 'sys_eval runs a command on the server',
  sys_set: 'sys_set sets an environment variable of the server',
};

/** Words a statement that is not a read begins with, and what to do instead. */
const WRITE_WORDS = new Set([
  'INSERT',
  'UPDATE',
  'DELETE',
  'REPLACE',
  'CREATE',
  'DROP',
  'ALTER',
  'TRUNCATE',
  'RENAME',
  'GRANT',
  'REVOKE',
  'LOAD',
  'CALL',
  'DO',
  'HANDLER',
  'SET',
  'LOCK',
  'UNLOCK',
  'START',
  'BEGIN',
  'COMMIT',
  'ROLLBACK',
  'SAVEPOINT',
  'RELEASE',
  'XA',
  'PREPARE',
  'EXECUTE',
  'DEALLOCATE',
  'FLUSH',
  'KILL',
  'INSTALL',
  'UNINSTALL',
  'OPTIMIZE',
  'REPAIR',
  'ANALYZE',
  'CHECK',
  'CHECKSUM',
  'PURGE',
  'RESET',
  'SHUTDOWN',
  'CHANGE',
  'BINLOG',
  'CACHE',
  'USE',
  'SHOW',
  'DESCRIBE',
  'DESC',
  'HELP',
  'TABLE',
  'VALUES',
]);

interface Scan {
  /** The statement without a trailing semicolon and what follows it (whitespace, comments). */
  statement: string;
  /** The first word outside comments, upper case. */
  first: string;
}

function refuse(message: string): never {
  throw new DataSourceError('permission', `The statement is refused: ${message}`);
}

/** Reads the text as the server does; refuses what hides a statement or a second one. */
export function scanMysqlText(text: string): Scan {
  if (text.includes('\0')) refuse('it holds a NUL byte. Send one read-only SELECT as plain text.');
  const n = text.length;
  let i = 0;
  let first = '';
  let end: number | undefined;
  while (i < n) {
    const char = text[i]!;
    const next = text[i + 1];
    const comment = char === '#' || (char === '-' && next === '-') || (char === '/' && next === '*');
    if (end !== undefined && !/\s/.test(char) && char !== ';' && !comment)
      refuse('it holds more than one statement. Send one SELECT at a time.');
    if (char === "'" || char === '"' || char === '`') {
      let j = i + 1;
      for (;;) {
        if (j >= n)
          refuse(
            `a ${char === '`' ? 'quoted name' : 'string'} opened at character ${i + 1} is never closed.`,
          );
        const at = text[j]!;
        if (at === '\\' && char !== '`') {
          j += 2;
          continue;
        }
        if (at === char) {
          if (text[j + 1] === char) {
            j += 2;
            continue;
          }
          break;
        }
        j++;
      }
      i = j + 1;
      continue;
    }
    if (char === '#' || (char === '-' && next === '-' && (i + 2 >= n || text.charCodeAt(i + 2) <= 32))) {
      const newline = text.indexOf('\n', i);
      i = newline === -1 ? n : newline + 1;
      continue;
    }
    if (char === '/' && next === '*') {
      if (text[i + 2] === '!' || (text[i + 2] === 'M' && text[i + 3] === '!'))
        refuse(
          `it holds an executable comment at character ${i + 1} (/*! … */ runs its contents on MySQL and MariaDB). Write the SQL without it.`,
        );
      const close = text.indexOf('*/', i + 2);
      if (close === -1) refuse(`a comment opened at character ${i + 1} is never closed.`);
      i = close + 2;
      continue;
    }
    if (char === ';') {
      end ??= i;
      i++;
      continue;
    }
    if (first === '' && /[A-Za-z(]/.test(char))
      first = char === '(' ? '(' : /^[A-Za-z_]+/.exec(text.slice(i))![0]!.toUpperCase();
    i++;
  }
  return { statement: text.slice(0, end ?? n).trim(), first };
}

type Ast = Record<string, unknown>;

interface Parser {
  astify(sql: string, options: { database: string }): Ast | Ast[];
  tableList(sql: string, options: { database: string }): string[];
}

// node-sql-parser's MySQL grammar, for MariaDB too: its MariaDB build (5.4) refuses a bare column
// named `status` (select status from orders), and MariaDB's reads are MySQL's for this check.
// What either grammar does not read is refused, never let through.
let parserLoad: Promise<Parser> | undefined;
async function parser(): Promise<Parser> {
  parserLoad ??= import('node-sql-parser/build/mysql.js').then((module) => {
    const { Parser: ParserClass } = (module as unknown as { default: { Parser: new () => Parser } }).default;
    return new ParserClass();
  });
  return parserLoad;
}

function functionName(node: Ast): { name: string; qualified: boolean } | undefined {
  if (node.type === 'aggr_func' && typeof node.name === 'string')
    return { name: node.name.toLowerCase(), qualified: false };
  if (node.type !== 'function') return undefined;
  const name = node.name as { name?: { value?: string }[]; schema?: { value?: string } | null } | string;
  if (typeof name === 'string') return { name: name.toLowerCase(), qualified: false };
  const parts = (name.name ?? []).map((part) => String(part.value ?? ''));
  return { name: parts.join('.').toLowerCase(), qualified: Boolean(name.schema) || parts.length > 1 };
}

/** Every node of the tree, depth first. */
function* nodesOf(value: unknown): Generator<Ast> {
  if (Array.isArray(value)) {
    for (const item of value) yield* nodesOf(item);
    return;
  }
  if (value === null || typeof value !== 'object') return;
  yield value as Ast;
  for (const child of Object.values(value)) yield* nodesOf(child);
}

export interface MysqlCheckOptions {
  /** The connection's database: tables are read from it alone. */
  database: string;
  flavor: 'MariaDB' | 'MySQL';
  /** The database's stored functions (lower case), refused by bare name as well as qualified. */
  storedFunctions?: readonly string[];
  advice?: StatementAdvice;
}

/** The statement, checked; the tables it reads as `database.table`. */
export async function checkMysqlText(
  text: string,
  options: MysqlCheckOptions,
): Promise<{ statement: string; tables: string[] }> {
  const advice = options.advice ?? PLAIN_STATEMENT_ADVICE;
  const { statement, first } = scanMysqlText(text);
  if (statement === '') refuse('it is empty. Send one SELECT.');
  if (first === 'EXPLAIN' || first === 'ANALYZE')
    refuse(`EXPLAIN and ANALYZE are not sent as queries: ${advice.explain}.`);
  if (WRITE_WORDS.has(first))
    refuse(`${first} is not a read. ${advice.write} Send one SELECT (or WITH … SELECT).`);
  if (first !== 'SELECT' && first !== 'WITH' && first !== '(')
    refuse(`it does not begin as a read (${first || 'no word'}). Send one SELECT (or WITH … SELECT).`);
  const dialect = { database: 'MySQL' };
  const sqlParser = await parser();
  let ast: Ast[];
  try {
    const parsed = sqlParser.astify(statement, dialect);
    ast = Array.isArray(parsed) ? parsed : [parsed];
  } catch (error) {
    refuse(
      `the MySQL grammar Toolrow checks reads with (node-sql-parser) does not read it as one SELECT: ${(error as Error).message.split('\n')[0]} Write it as a plain SELECT.`,
    );
  }
  if (ast.length !== 1) refuse('it holds more than one statement. Send one SELECT at a time.');
  if (ast[0]!.type !== 'select')
    refuse(`it is ${String(ast[0]!.type).toUpperCase()}, not a read. ${advice.write}`);
  const cteNames = new Set<string>();
  for (const node of nodesOf(ast)) {
    const into = node.into as { position?: unknown; keyword?: unknown } | undefined;
    if (into && typeof into === 'object' && into.position)
      refuse(
        `SELECT … INTO ${String(into.keyword ?? '').toUpperCase()} writes a file or sets variables: ${advice.export}.`,
      );
    if (node.locking_read)
      refuse(`${String(node.locking_read).toUpperCase()} locks rows; a read takes no locks. Remove it.`);
    if (node.type === 'assign')
      refuse('it assigns a variable (:=), an effect beyond the result. Remove the assignment.');
    if (node.type === 'var' && (node as { prefix?: unknown }).prefix === '@@')
      refuse("it reads the server's settings (@@…). Ask for rows of your tables instead.");
    const fn = functionName(node);
    if (fn) {
      const denied = DENIED_FUNCTIONS[fn.name];
      if (denied) refuse(`${denied}: it is not called from a read.`);
      if (fn.qualified || options.storedFunctions?.includes(fn.name))
        refuse(`${fn.name}() is a stored function, which may write. Read the tables it reads instead.`);
    }
    if (Array.isArray(node.with))
      for (const cte of node.with as { name?: { value?: string } | string }[]) {
        const name = typeof cte.name === 'string' ? cte.name : cte.name?.value;
        if (name) cteNames.add(name.toLowerCase());
      }
  }
  const tables = new Set<string>();
  for (const entry of sqlParser.tableList(statement, dialect)) {
    const [, db, table] = entry.split('::') as [string, string, string];
    if (db === 'null' && cteNames.has(table.toLowerCase())) continue;
    if (db !== 'null' && db.toLowerCase() !== options.database.toLowerCase())
      refuse(
        `it reads ${db}.${table}, outside this connection's database '${options.database}'. Read the tables of '${options.database}' (or add a connection for '${db}').`,
      );
    tables.add(`${options.database}.${table}`);
  }
  return { statement, tables: [...tables] };
}
