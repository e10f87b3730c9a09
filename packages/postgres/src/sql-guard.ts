// PostgreSQL's statement check (QueryRunner.check, the first read layer) for runQuery, validateQuery,
// explainQuery and the workbench.
//
// It parses with PostgreSQL's own grammar (libpg_query compiled to wasm), so strings, quoted
// identifiers, comments and dollar quoting are read exactly as the server reads them. It accepts
// exactly one SELECT-shaped statement and walks the whole tree, refusing anything that writes,
// locks or calls a function with side effects. It is the first line only: the statement then
// runs in a READ ONLY transaction with a statement timeout, so the server refuses what this misses.

import { AsyncLocalStorage } from 'node:async_hooks';
import { DataSourceError, PLAIN_STATEMENT_ADVICE, type StatementAdvice } from '@toolrow/datasource';

export type SqlGuardCode =
  | 'empty'
  | 'syntax'
  | 'multiple-statements'
  | 'not-a-select'
  | 'data-modifying-cte'
  | 'select-into'
  | 'row-locking'
  | 'side-effect-function'
  | 'forbidden-relation'
  | 'forbidden-character';

/** A statement the guard refused ('permission'), with the reason and how to fix it in the message. */
export class SqlGuardError extends DataSourceError {
  override name = 'SqlGuardError';
  /** Why, for programs and tests. */
  readonly reason: SqlGuardCode;
  /** 1-based character position in the SQL the problem starts at, when known. */
  readonly position: number | undefined;
  constructor(reason: SqlGuardCode, message: string, position?: number) {
    super('permission', message);
    this.reason = reason;
    this.position = position;
  }
}

export interface RelationRef {
  schema?: string;
  name: string;
  alias?: string;
}

export interface ColumnRefInfo {
  /** Table, alias or schema.table qualifying the column; empty when unqualified. */
  qualifier: string[];
  /** The column name, or '*' for `t.*` / `*`. */
  column: string;
}

/** One read-only statement the guard accepted, with what it reads (for validateQuery). */
export interface ReadOnlyStatement {
  /** The statement alone: without the trailing semicolon or what follows it. */
  statement: string;
  /** Tables and views named in FROM / JOIN, including CTE references (see cteNames). */
  relations: RelationRef[];
  /** Names defined by WITH anywhere in the statement (see tablesRead for what each name means where). */
  cteNames: string[];
  /**
   * The tables and views the statement reads: every relation in FROM / JOIN, in subqueries,
   * EXISTS, IN, LATERAL and CTE bodies, except a reference to a CTE that is in scope where it is
   * written. Grants and the audit log are decided on these, never on names alone: in
   * `WITH customers AS (SELECT * FROM customers) …` the inner `customers` is the table.
   */
  tablesRead: RelationRef[];
  columnRefs: ColumnRefInfo[];
  /** Names given to output columns (`AS x`); ORDER BY / GROUP BY may use them. */
  outputNames: string[];
  /** Aliases of subqueries, function calls and VALUES lists in FROM: their columns are not in the schema. */
  derivedAliases: string[];
  /** True when FROM reads something other than named tables (subquery, function, VALUES). */
  hasDerivedSources: boolean;
}

export interface SqlGuardOptions {
  /** Schemas the query may not read (the app-state schema: tokens, audit, chat attachments). */
  hiddenSchemas?: readonly string[];
  /**
   * What to do instead, in the words of whoever reads the refusal (the tools' for a model, the
   * app's for a person at its workbench). What is refused is the same for each.
   */
  advice?: StatementAdvice;
}

// Functions that change state, sleep, run SQL given as a string, or read the server's files.
const SIDE_EFFECT_FUNCTIONS = new Set([
  'nextval',
  'setval',
  'lastval',
  'set_config',
  // Reseeds random() for the rest of the session: a later caller's "random" sample becomes predictable.
  'setseed',
  'pg_sleep',
  'pg_sleep_for',
  'pg_sleep_until',
  'pg_notify',
  'pg_terminate_backend',
  'pg_cancel_backend',
  'pg_signal_backend',
  'pg_reload_conf',
  'pg_rotate_logfile',
  'pg_promote',
  'pg_switch_wal',
  'pg_create_restore_point',
  'pg_log_backend_memory_contexts',
  'pg_export_snapshot',
  'pg_import_system_collations',
  'pg_nextoid',
  'pg_prewarm',
  'pg_truncate_visibility_map',
  'pg_current_logfile',
  'pg_stat_file',
  'pg_stat_clear_snapshot',
  'txid_current',
  'pg_current_xact_id',
  'loread',
  'lowrite',
  'ts_stat',
  'ts_rewrite',
  'brin_summarize_new_values',
  'brin_summarize_range',
  'brin_desummarize_range',
  'gin_clean_pending_list',
  'pg_hba_file_rules',
  'pg_ident_file_mappings',
  'pg_show_all_file_settings',
]);

const SIDE_EFFECT_PATTERNS: readonly RegExp[] = [
  /^pg_(try_)?advisory_/,
  /^lo_/,
  /^dblink/,
  /^pg_read_/,
  /^pg_ls_/,
  /^pg_file_/,
  /^pg_stat_reset/,
  /^pg_stat_statements_reset/,
  /^pg_(start|stop)_backup$/,
  /^pg_backup_/,
  /^pg_(create|drop|copy)_.*(slot|origin)/,
  /^pg_replication_/,
  /^pg_logical_/,
  /^pg_wal_replay_/,
  /^binary_upgrade_/,
  // query_to_xml('…'), crosstab('…') and friends run SQL handed to them as text, past this guard.
  /_to_xml/,
  /^crosstab/,
  /^connectby$/,
  /^xpath_table$/,
  // Extensions that reach the network or run work outside the transaction (pgsql-http, pg_background, pg_cron).
  /^http(_|$)/,
  /^pg_background/,
  /^(un)?schedule(_in_database)?$/,
  /^alter_job$/,
  /^pg_sync_replication_slots$/,
  /^pg_log_standby_snapshot$/,
  /^pg_stat_force_next_flush$/,
];

// Relations that hold secrets or the server's configuration files, or statistics that quote
// the values of any table (the app-state schema's included).
const FORBIDDEN_RELATIONS = new Set([
  'pg_statistic',
  'pg_stats',
  'pg_stats_ext',
  'pg_stats_ext_exprs',
  'pg_largeobject',
  'pg_authid',
  'pg_shadow',
  'pg_user_mapping',
  'pg_user_mappings',
  'pg_hba_file_rules',
  'pg_ident_file_mappings',
  'pg_file_settings',
]);

const WRITE_NODES: Readonly<Record<string, string>> = {
  InsertStmt: 'INSERT',
  UpdateStmt: 'UPDATE',
  DeleteStmt: 'DELETE',
  MergeStmt: 'MERGE',
};

const STATEMENT_NAMES: Readonly<Record<string, string>> = {
  ...WRITE_NODES,
  CopyStmt: 'COPY',
  CallStmt: 'CALL',
  DoStmt: 'DO',
  LockStmt: 'LOCK',
  ListenStmt: 'LISTEN',
  UnlistenStmt: 'UNLISTEN',
  NotifyStmt: 'NOTIFY',
  TruncateStmt: 'TRUNCATE',
  ExplainStmt: 'EXPLAIN',
  CreateTableAsStmt: 'CREATE TABLE AS',
  TransactionStmt: 'a transaction statement',
  VariableShowStmt: 'SHOW',
  DeclareCursorStmt: 'DECLARE CURSOR',
  FetchStmt: 'FETCH',
  PrepareStmt: 'PREPARE',
  ExecuteStmt: 'EXECUTE',
  VacuumStmt: 'VACUUM/ANALYZE',
  GrantStmt: 'GRANT/REVOKE',
};

let loaded: Promise<void> | undefined;

// The test switch (see withoutSqlGuard in ./testing.ts): only code run inside it sees 'off'.
const guardSwitch = new AsyncLocalStorage<'off'>();

/** Runs fn with the parser guard off, so a test can show the database layers hold alone. */
export function withoutSqlGuard<T>(fn: () => T): T {
  return guardSwitch.run('off', fn);
}

/** What the tools get with the guard off: the SQL as sent, nothing inspected. */
function unguarded(sql: string): ReadOnlyStatement {
  return {
    statement: sql,
    relations: [],
    cteNames: [],
    tablesRead: [],
    columnRefs: [],
    outputNames: [],
    derivedAliases: [],
    hasDerivedSources: true,
  };
}

/** libpg-query, once loadSqlParser has loaded it (a command that checks no SQL never loads it). */
let parser: typeof import('libpg-query') | undefined;

/** Loads the parser (wasm) once; every check awaits it. */
export function loadSqlParser(): Promise<void> {
  loaded ??= import('libpg-query').then(async (module) => {
    await module.loadModule();
    parser = module;
  });
  return loaded;
}

function parseSync(sql: string): ReturnType<typeof import('libpg-query').parseSync> {
  if (!parser) throw new Error('The SQL parser is not loaded: await loadSqlParser() first.');
  return parser.parseSync(sql);
}

type AnyNode = Record<string, unknown>;

const isObject = (value: unknown): value is AnyNode => typeof value === 'object' && value !== null;

function stringsOf(list: unknown): string[] {
  if (!Array.isArray(list)) return [];
  return list.flatMap((item) => {
    if (isObject(item) && isObject(item.String) && typeof item.String.sval === 'string')
      return [item.String.sval];
    if (isObject(item) && isObject(item.A_Star)) return ['*'];
    return [];
  });
}

/** Character (not byte) position, 1-based, for an error message. */
function charPosition(sql: string, byteOffset: unknown): number | undefined {
  if (typeof byteOffset !== 'number' || byteOffset < 0) return undefined;
  return Buffer.from(sql).subarray(0, byteOffset).toString().length + 1;
}

function at(sql: string, node: AnyNode): string {
  const position = charPosition(sql, node.location);
  return position === undefined ? '' : ` (at character ${position})`;
}

function statementName(kind: string, text: string): string {
  if (kind === 'VariableSetStmt') return /^\s*reset/i.test(text) ? 'RESET' : 'SET';
  const known = STATEMENT_NAMES[kind];
  if (known) return known;
  // DDL and everything else: its own first words say what it is.
  const words = text.trim().split(/\s+/).slice(0, 2).join(' ').toUpperCase();
  return words || kind;
}

function refuseStatement(kind: string, text: string, advice: StatementAdvice): never {
  const name = statementName(kind, text);
  if (kind in WRITE_NODES || kind === 'CreateTableAsStmt' || kind === 'CopyStmt' || kind === 'TruncateStmt') {
    throw new SqlGuardError('not-a-select', `${name} is refused: ${advice.write}`);
  }
  if (kind === 'ExplainStmt') {
    throw new SqlGuardError('not-a-select', `EXPLAIN is refused here: ${advice.explain}.`);
  }
  throw new SqlGuardError(
    'not-a-select',
    `${name} is refused: only one read-only SELECT (or WITH … SELECT, VALUES, TABLE) is accepted. ${advice.write}`,
  );
}

function functionName(parts: string[]): string {
  return (parts[parts.length - 1] ?? '').toLowerCase();
}

export function isSideEffectFunction(name: string): boolean {
  const lower = name.toLowerCase();
  return SIDE_EFFECT_FUNCTIONS.has(lower) || SIDE_EFFECT_PATTERNS.some((pattern) => pattern.test(lower));
}

/**
 * Checks that `sql` is exactly one read-only SELECT-shaped statement and reports what it reads.
 * Throws SqlGuardError (with a message that says what to do instead) for anything else.
 */
export async function checkReadOnlySql(
  sql: string,
  options: SqlGuardOptions = {},
): Promise<ReadOnlyStatement> {
  if (guardSwitch.getStore() === 'off') return unguarded(sql);
  await loadSqlParser();
  if (sql.trim() === '') throw new SqlGuardError('empty', 'The query is empty: send one SELECT statement.');
  const nul = sql.indexOf('\u0000');
  if (nul !== -1) {
    // The parser stops at a NUL, so it would check less text than the server is sent.
    throw new SqlGuardError(
      'forbidden-character',
      `The query contains a NUL character (at character ${nul + 1}), which SQL text cannot hold. Remove it and send the query again.`,
      nul + 1,
    );
  }
  let parsed: ReturnType<typeof parseSync>;
  try {
    parsed = parseSync(sql);
  } catch (error) {
    const details = (error as { sqlDetails?: { message?: string; cursorPosition?: number } }).sqlDetails;
    const message = details?.message ?? (error as Error).message;
    const position = charPosition(sql, details?.cursorPosition);
    throw new SqlGuardError(
      'syntax',
      `SQL syntax error: ${message}${position === undefined ? '' : ` (at character ${position})`}. Fix the SQL (PostgreSQL dialect) and try again.`,
      position,
    );
  }
  const statements = parsed.stmts ?? [];
  if (statements.length === 0) {
    throw new SqlGuardError(
      'empty',
      'The query has no statement (only comments or semicolons): send one SELECT.',
    );
  }
  const bytes = Buffer.from(sql);
  const texts = statements.map((entry) => {
    const start = entry.stmt_location ?? 0;
    const end = entry.stmt_len ? start + entry.stmt_len : bytes.length;
    return bytes.subarray(start, end).toString();
  });
  if (statements.length > 1) {
    throw new SqlGuardError(
      'multiple-statements',
      `Exactly one statement is accepted and this has ${statements.length}. Send them one at a time (each must be a read-only SELECT).`,
    );
  }
  const entry = statements[0]!;
  const text = texts[0]!;
  const root = entry.stmt as AnyNode | undefined;
  const kind = root ? Object.keys(root)[0] : undefined;
  if (!root || !kind) throw new SqlGuardError('empty', 'The query has no statement: send one SELECT.');
  const advice = options.advice ?? PLAIN_STATEMENT_ADVICE;
  if (kind !== 'SelectStmt') refuseStatement(kind, text, advice);

  const hidden = new Set((options.hiddenSchemas ?? []).map((schema) => schema.toLowerCase()));
  const result: ReadOnlyStatement = {
    statement: text.trim(),
    relations: [],
    cteNames: [],
    tablesRead: [],
    columnRefs: [],
    outputNames: [],
    derivedAliases: [],
    hasDerivedSources: false,
  };

  const visit = (value: unknown): void => {
    if (Array.isArray(value)) {
      for (const item of value) visit(item);
      return;
    }
    if (!isObject(value)) return;
    for (const [key, child] of Object.entries(value)) {
      if (key in WRITE_NODES) {
        throw new SqlGuardError(
          'data-modifying-cte',
          `${WRITE_NODES[key]} inside a query (a data-modifying WITH) is refused. ${advice.write}`,
        );
      }
      if (key === 'intoClause' && isObject(child)) {
        throw new SqlGuardError(
          'select-into',
          `SELECT … INTO creates a table and is refused. Drop the INTO clause to read the rows; to keep them, ${advice.export}.`,
        );
      }
      if (key === 'lockingClause' && Array.isArray(child) && child.length > 0) {
        throw new SqlGuardError(
          'row-locking',
          'FOR UPDATE / FOR SHARE locks rows and is refused in a read-only query: remove the locking clause.',
        );
      }
      if (key === 'FuncCall' && isObject(child)) {
        const name = functionName(stringsOf(child.funcname));
        if (isSideEffectFunction(name)) {
          throw new SqlGuardError(
            'side-effect-function',
            `The function ${name}() has side effects (it changes state, waits, reads server files or runs SQL given as text) and is refused${at(sql, child)}. Remove it from the query.`,
            charPosition(sql, child.location),
          );
        }
      }
      if (key === 'RangeVar' && isObject(child)) {
        const name = String(child.relname ?? '');
        const schema = typeof child.schemaname === 'string' ? child.schemaname : undefined;
        if (FORBIDDEN_RELATIONS.has(name.toLowerCase())) {
          throw new SqlGuardError(
            'forbidden-relation',
            `Reading ${name} is refused: it holds credentials, server configuration or other tables' values. Query your own tables instead (${advice.sample}).`,
          );
        }
        if (schema && hidden.has(schema.toLowerCase())) {
          throw new SqlGuardError(
            'forbidden-relation',
            `The schema ${schema} holds Toolrow's own app state and cannot be queried. ${advice.appState}`,
          );
        }
        const alias =
          isObject(child.alias) && typeof child.alias.aliasname === 'string'
            ? child.alias.aliasname
            : undefined;
        result.relations.push({ ...(schema ? { schema } : {}), name, ...(alias ? { alias } : {}) });
      }
      if (key === 'CommonTableExpr' && isObject(child) && typeof child.ctename === 'string') {
        result.cteNames.push(child.ctename);
      }
      if (
        (key === 'RangeSubselect' || key === 'RangeFunction' || key === 'RangeTableFunc') &&
        isObject(child)
      ) {
        result.hasDerivedSources = true;
        if (isObject(child.alias) && typeof child.alias.aliasname === 'string')
          result.derivedAliases.push(child.alias.aliasname);
      }
      if (
        key === 'JoinExpr' &&
        isObject(child) &&
        isObject(child.alias) &&
        typeof child.alias.aliasname === 'string'
      ) {
        result.derivedAliases.push(child.alias.aliasname);
      }
      if (key === 'valuesLists' && Array.isArray(child) && child.length > 0) result.hasDerivedSources = true;
      if (key === 'ColumnRef' && isObject(child)) {
        const fields = stringsOf(child.fields);
        const column = fields.pop();
        if (column !== undefined) result.columnRefs.push({ qualifier: fields, column });
      }
      if (key === 'ResTarget' && isObject(child) && typeof child.name === 'string')
        result.outputNames.push(child.name);
      visit(child);
    }
  };
  visit(root);
  result.tablesRead = tablesReadIn(root);
  return result;
}

/**
 * The relations a statement reads, resolving CTE names by scope as PostgreSQL does: a WITH list's
 * names are visible in the query it belongs to and in nested queries; in a plain WITH, each CTE's
 * body sees only the CTEs listed before it (itself and later ones name tables); in WITH RECURSIVE,
 * every body sees every name of its list. A schema-qualified name is always a table.
 */
export function tablesReadIn(root: unknown): RelationRef[] {
  const reads: RelationRef[] = [];
  const walk = (value: unknown, scope: ReadonlySet<string>): void => {
    if (Array.isArray(value)) {
      for (const item of value) walk(item, scope);
      return;
    }
    if (!isObject(value)) return;
    let inner = scope;
    const withClause = value.withClause;
    if (isObject(withClause) && Array.isArray(withClause.ctes)) {
      const ctes = withClause.ctes
        .map((entry) => (isObject(entry) ? entry.CommonTableExpr : undefined))
        .filter(isObject);
      const names = ctes.map((cte) => String(cte.ctename ?? ''));
      const recursive = withClause.recursive === true;
      ctes.forEach((cte, index) => {
        const visible = new Set([...scope, ...(recursive ? names : names.slice(0, index))]);
        walk(cte.ctequery, visible);
      });
      inner = new Set([...scope, ...names]);
    }
    for (const [key, child] of Object.entries(value)) {
      if (key === 'withClause') continue;
      if (key === 'RangeVar' && isObject(child)) {
        const name = String(child.relname ?? '');
        const schema = typeof child.schemaname === 'string' ? child.schemaname : undefined;
        if (schema || !inner.has(name)) reads.push({ ...(schema ? { schema } : {}), name });
        continue;
      }
      walk(child, inner);
    }
  };
  walk(root, new Set());
  return reads;
}
