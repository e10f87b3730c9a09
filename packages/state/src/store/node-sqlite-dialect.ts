// A Kysely dialect over node:sqlite (Node >= 22.13 ships it: no native dependency). One
// connection per store, taken by one query or one transaction at a time; transactions begin
// IMMEDIATE, so a transaction that reads and then writes never fails half-way on another
// process's lock: it waits for the lock up front (busy timeout) or fails before doing anything.
import type { DatabaseSync, SQLInputValue, StatementSync } from 'node:sqlite';
import {
  CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  type QueryResult,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
} from 'kysely';

/** Values node:sqlite cannot bind are given as SQLite stores them: ISO text, 0/1. */
function bindable(value: unknown): SQLInputValue {
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (value === undefined) return null;
  return value as SQLInputValue;
}

/** Turns a driver error into what the store reports (see sqlite-store.ts). */
export type SqliteErrorMapper = (error: unknown) => unknown;

const STATEMENT_CACHE = 256;

class NodeSqliteConnection implements DatabaseConnection {
  readonly #db: DatabaseSync;
  readonly #mapError: SqliteErrorMapper;
  readonly #statements = new Map<string, StatementSync>();

  constructor(db: DatabaseSync, mapError: SqliteErrorMapper) {
    this.#db = db;
    this.#mapError = mapError;
  }

  #prepare(sql: string): StatementSync {
    let statement = this.#statements.get(sql);
    if (!statement) {
      statement = this.#db.prepare(sql);
      if (this.#statements.size >= STATEMENT_CACHE) {
        this.#statements.delete(this.#statements.keys().next().value as string);
      }
      this.#statements.set(sql, statement);
    }
    return statement;
  }

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    try {
      const statement = this.#prepare(compiled.sql);
      const params = compiled.parameters.map(bindable);
      if (statement.columns().length > 0) return { rows: statement.all(...params) as R[] };
      const { changes, lastInsertRowid } = statement.run(...params);
      return { rows: [], numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid) };
    } catch (error) {
      throw this.#mapError(error);
    }
  }

  // biome-ignore lint/correctness/useYield: the state store never streams; saying so is the implementation.
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('The state store does not stream queries.');
  }
}

class NodeSqliteDriver implements Driver {
  readonly #connection: NodeSqliteConnection;
  readonly #db: DatabaseSync;
  #queue: Promise<void> = Promise.resolve();
  #release: (() => void) | undefined;

  constructor(db: DatabaseSync, mapError: SqliteErrorMapper) {
    this.#db = db;
    this.#connection = new NodeSqliteConnection(db, mapError);
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    const previous = this.#queue;
    let release!: () => void;
    this.#queue = new Promise((resolve) => {
      release = resolve;
    });
    await previous;
    this.#release = release;
    return this.#connection;
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('BEGIN IMMEDIATE'));
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('COMMIT'));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    // A failed COMMIT or an I/O error may have ended the transaction already.
    if (this.#db.isTransaction) await connection.executeQuery(CompiledQuery.raw('ROLLBACK'));
  }

  async releaseConnection(): Promise<void> {
    const release = this.#release;
    this.#release = undefined;
    release?.();
  }

  async destroy(): Promise<void> {
    await this.#queue;
    if (this.#db.isOpen) this.#db.close();
  }
}

/** Kysely over an open node:sqlite database; the dialect's close closes it. */
export class NodeSqliteDialect implements Dialect {
  readonly #db: DatabaseSync;
  readonly #mapError: SqliteErrorMapper;

  constructor(db: DatabaseSync, mapError: SqliteErrorMapper = (error) => error) {
    this.#db = db;
    this.#mapError = mapError;
  }

  createDriver(): Driver {
    return new NodeSqliteDriver(this.#db, this.#mapError);
  }
  createQueryCompiler() {
    return new SqliteQueryCompiler();
  }
  createAdapter() {
    return new SqliteAdapter();
  }
  createIntrospector(db: Kysely<unknown>) {
    return new SqliteIntrospector(db);
  }
}
