// A Kysely dialect over the data layer's PostgreSQL connection (@toolrow/datasource's Database):
// the state server gets the same URL checks, TLS handling and error wording as the user's data.
// The Database runs a transaction around a callback; Kysely begins, commits and rolls back by
// hand, so each Kysely transaction holds one callback open until it ends.
import type { Database, Queryable } from '@toolrow/postgres';
import {
  type CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type QueryResult,
} from 'kysely';

/** Thrown into the held callback to roll its transaction back; never seen outside. */
class Rollback extends Error {}

class DatabaseConnectionOver implements DatabaseConnection {
  readonly #db: Database;
  tx: Queryable | undefined;
  end: { commit(): void; rollback(): void; done: Promise<void> } | undefined;

  constructor(db: Database) {
    this.#db = db;
  }

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    const result = await (this.tx ?? this.#db).query<R>(compiled.sql, compiled.parameters);
    return { rows: result.rows, numAffectedRows: BigInt(result.rowCount ?? 0) };
  }

  // biome-ignore lint/correctness/useYield: the state store never streams; saying so is the implementation.
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('The state store does not stream queries.');
  }
}

class DatabaseDriver implements Driver {
  readonly #db: Database;

  constructor(db: Database) {
    this.#db = db;
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    return new DatabaseConnectionOver(this.#db);
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    const over = connection as DatabaseConnectionOver;
    await new Promise<void>((begun, failed) => {
      let commit!: () => void;
      let rollback!: () => void;
      const held = new Promise<void>((resolve, reject) => {
        commit = resolve;
        rollback = () => reject(new Rollback());
      });
      const done = this.#db
        .transaction(async (tx) => {
          over.tx = tx;
          begun();
          await held;
        })
        .catch((error: unknown) => {
          if (!(error instanceof Rollback)) throw error;
        });
      // BEGIN itself failed (connection refused, pool closed): the callback never ran.
      done.catch(failed);
      over.end = { commit, rollback, done };
    });
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await this.#finish(connection as DatabaseConnectionOver, 'commit');
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await this.#finish(connection as DatabaseConnectionOver, 'rollback');
  }

  async #finish(over: DatabaseConnectionOver, how: 'commit' | 'rollback'): Promise<void> {
    const end = over.end;
    over.end = undefined;
    over.tx = undefined;
    if (!end) return;
    end[how]();
    await end.done;
  }

  async releaseConnection(): Promise<void> {}

  async destroy(): Promise<void> {
    await this.#db.close();
  }
}

/** Kysely over a Database of the data layer; the dialect's close closes it. */
export class DatabaseDialect implements Dialect {
  readonly #db: Database;

  constructor(db: Database) {
    this.#db = db;
  }

  createDriver(): Driver {
    return new DatabaseDriver(this.#db);
  }
  createQueryCompiler() {
    return new PostgresQueryCompiler();
  }
  createAdapter() {
    return new PostgresAdapter();
  }
  createIntrospector(db: Kysely<unknown>) {
    return new PostgresIntrospector(db);
  }
}
