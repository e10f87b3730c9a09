import { AsyncLocalStorage } from 'node:async_hooks';
import { randomBytes } from 'node:crypto';
import {
  abortedError,
  DataSourceError,
  isDataSourceError,
  type ReadPriority,
  type Row,
} from '@toolrow/datasource';
import type {
  CursorOptions,
  Database,
  FieldInfo,
  Queryable,
  QueryResult,
  ReadOnlyOptions,
  ReadQueryOptions,
  ReadQueryResult,
  SqlEngine,
  TextLines,
  TextLinesOptions,
  TransactionOptions,
} from '../database.ts';
import { quoteIdent, quoteLiteral } from '../sql.ts';
import { readLayerSwitches } from './layer-switches.ts';

/** One physical connection as the core sees it. */
export interface Connection {
  query(sql: string, params: readonly unknown[]): Promise<QueryResult<Row>>;
  exec(sql: string): Promise<void>;
  /**
   * PostgreSQL: `COPY … TO STDOUT` as the bytes the server sends, paced by the reader (the socket
   * pauses while the consumer is behind). Absent on engines without a COPY stream.
   */
  copyOut?(sql: string): AsyncIterable<Uint8Array>;
  /**
   * A statement (simple protocol, no parameters) whose rows have one text column: the values'
   * bytes, each followed by LF, read straight from the wire without a row object per row.
   * Absent: the core joins the values of a plain query.
   */
  queryLines?(sql: string): Promise<TextLines>;
}

export interface Lease {
  connection: Connection;
  /** Give it back; `broken` drops it (pg) after an error left it unusable. */
  release(broken?: boolean): void;
}

export interface LeaseOptions {
  /**
   * The lease runs a READ ONLY transaction whose statement_timeout is this many ms (0: none).
   * PostgreSQL enforces it itself; PGlite has no timer in its thread, so its worker host stops a
   * statement that overruns by discarding the engine (see pglite-thread.ts).
   */
  readOnlyTimeoutMs?: number;
  /**
   * Aborting stops the READ ONLY statement in flight: pg cancels it server-side; on-disk PGlite
   * restarts its worker. The core checks the signal between statements itself, so an engine only
   * has to stop what is running (in-memory PGlite cannot, and ignores it).
   */
  signal?: AbortSignal;
  /** Whose read: see ReadOnlyOptions.priority. */
  priority?: ReadPriority;
  /**
   * The lease holds one read that can be run again from the start (no rows handed out yet): an
   * engine may stop it for an interactive read (PreemptedError), and the core runs it again.
   */
  preemptible?: boolean;
}

/** A background read stopped to let the user's own read go first; the core runs it again. */
export class PreemptedError extends DataSourceError {
  constructor() {
    super('aborted', "The read gave way to the user's own request and is run again after it.");
  }
}

/** How often a background read is run again after giving way before it fails. */
const MAX_PREEMPTIONS = 5;

/** What an engine provides; the core builds the Database on top of it. */
export interface Adapter {
  engine: SqlEngine;
  description: string;
  /** One connection for exclusive use (PGlite: the lock; pg: a pool client). */
  acquire(options?: LeaseOptions): Promise<Lease>;
  /** A statement outside any transaction. */
  query(sql: string, params: readonly unknown[]): Promise<QueryResult<Row>>;
  /**
   * PGlite: one connection, so a cursor must survive its transaction (WITH HOLD) to let other
   * callers run between batches. pg: the cursor keeps its own client and transaction.
   */
  holdCursors: boolean;
  /** Connections offer copyOut (COPY … TO STDOUT). */
  copy: boolean;
  /**
   * How often the engine was restarted under this adapter (PGlite: to stop a runaway read).
   * Session state — held cursors above all — does not survive a restart.
   */
  readonly restarts: number;
  close(): Promise<void>;
}

const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_MAX_ROWS = 1000;
const DEFAULT_BATCH = 1000;
const DEFAULT_LINES_BATCH = 5000;
/** About the bytes one batch of lines may hold: the batch shrinks for wide rows. */
const LINES_BATCH_BYTES = 1024 * 1024;
/** The first batch, before the rows' width is known. */
const FIRST_LINES_BATCH = 100;
const DEFAULT_MAX_BYTES = 4 * 1024 * 1024;
const DEFAULT_MAX_VALUE_BYTES = 64 * 1024;

/** About what a row weighs as text: what the byte cap counts. */
function approximateBytes(row: Row): number {
  let size = 0;
  for (const value of Object.values(row)) {
    if (value === null || value === undefined) size += 1;
    else if (typeof value === 'string') size += value.length;
    else if (value instanceof Uint8Array) size += value.byteLength * 2;
    else if (typeof value === 'object') size += JSON.stringify(value)?.length ?? 0;
    else size += String(value).length;
  }
  return size;
}

/** The row without the size marks; its columns as the caller's statement named them. */
function userColumns(raw: Row, columns: readonly FieldInfo[]): Row {
  const row: Row = {};
  for (const column of columns) row[column.name] = raw[column.name];
  return row;
}

let cursorCounter = 0;

function timeoutMsOf(timeoutMs: number | undefined, fallback: number): number {
  const value = timeoutMs ?? fallback;
  if (!Number.isInteger(value) || value < 0) {
    throw new DataSourceError(
      'misuse',
      `timeoutMs must be a whole number of milliseconds ≥ 0, got ${value}.`,
    );
  }
  return value;
}

/**
 * The settings every read transaction pins before the caller's statement, whatever the server,
 * database or role defaults say. `standard_conforming_strings` and `client_encoding` decide where a
 * string literal ends, so pinning them makes the server read the statement as the SQL guard did (a
 * legacy `standard_conforming_strings = off` turns `'x\'` into an unterminated string). pg_catalog
 * goes first on the search path so a schema the server puts ahead cannot shadow a built-in.
 */
const PINNED_READ_SETTINGS: readonly (readonly [name: string, value: string])[] = [
  ['standard_conforming_strings', 'on'],
  ['client_encoding', 'UTF8'],
  ['backslash_quote', 'safe_encoding'],
  ['lock_timeout', '5000'],
  // An export's transaction stays open between batches; a client that stalls longer than this is dropped.
  ['idle_in_transaction_session_timeout', '300000'],
];

/** One statement (one round trip) that pins the settings for the rest of the transaction. */
function pinStatement(timeoutMs: number, readerRole: string | undefined): string {
  const pins = [['statement_timeout', String(timeoutMs)], ...PINNED_READ_SETTINGS].map(
    ([name, value]) => `set_config('${name}', '${value}', true)`,
  );
  pins.push(`set_config('search_path', 'pg_catalog, ' || current_setting('search_path'), true)`);
  // SET LOCAL ROLE as a function call: set_config('role', …) is what SET ROLE runs.
  if (readerRole) pins.push(`set_config('role', ${quoteLiteral(readerRole)}, true)`);
  return `SELECT ${pins.join(', ')}`;
}

function positiveInt(name: string, value: number | undefined, fallback: number): number {
  const result = value ?? fallback;
  if (!Number.isInteger(result) || result < 1) {
    throw new DataSourceError('misuse', `${name} must be a whole number ≥ 1, got ${result}.`);
  }
  return result;
}

/** One statement: trailing semicolons and blanks dropped so it can follow DECLARE … FOR. */
export function trimStatement(sql: string): string {
  return sql.replace(/[\s;]+$/u, '');
}

function beginStatement(options: TransactionOptions = {}): string {
  const parts = ['BEGIN'];
  if (options.isolation) {
    const level = options.isolation.toUpperCase();
    if (!['READ COMMITTED', 'REPEATABLE READ', 'SERIALIZABLE'].includes(level)) {
      throw new DataSourceError('misuse', `Unknown isolation level '${options.isolation}'.`);
    }
    parts.push(`ISOLATION LEVEL ${level}`);
  }
  if (options.readOnly) parts.push('READ ONLY');
  return parts.join(' ');
}

export class CoreDatabase implements Database {
  readonly engine: SqlEngine;
  readonly description: string;
  #adapter: Adapter;
  #closed = false;
  #inTransaction = new AsyncLocalStorage<boolean>();
  #openCursors = new Set<() => Promise<void>>();
  #readerRole: string | undefined;

  constructor(adapter: Adapter) {
    this.#adapter = adapter;
    this.engine = adapter.engine;
    this.description = adapter.description;
  }

  get readerRole(): string | undefined {
    return this.#readerRole;
  }

  useReaderRole(role: string | undefined): void {
    this.#readerRole = role;
  }

  /** The statements that open a read: test switches can drop the READ ONLY transaction or the role. */
  #readBegin(timeoutMs: number, begin = 'BEGIN READ ONLY'): string[] {
    const layers = readLayerSwitches();
    const role = layers.readerRole === false ? undefined : this.#readerRole;
    return [layers.transaction === false ? 'BEGIN' : begin, pinStatement(timeoutMs, role)];
  }
  /** A streamed read's lease plan, taken now, in the caller's context: its items run later, outside it. */
  #heldRead(timeoutMs: number, signal: AbortSignal | undefined, begin?: string): HeldRead {
    const [start, pin] = this.#readBegin(timeoutMs, begin);
    return {
      adapter: this.#adapter,
      timeoutMs,
      begin: start!,
      pin: pin!,
      end: this.#readEnd(),
      ...(signal ? { signal } : {}),
    };
  }

  /** How a read ends: rolled back, so nothing it did stays (committed with the layer switched off). */
  #readEnd(): 'COMMIT' | 'ROLLBACK' {
    return readLayerSwitches().transaction === false ? 'COMMIT' : 'ROLLBACK';
  }

  get closed(): boolean {
    return this.#closed;
  }

  #check(): void {
    if (this.#closed) throw new DataSourceError('misuse', `The database (${this.description}) is closed.`);
    if (this.#inTransaction.getStore()) {
      throw new DataSourceError(
        'misuse',
        'This call was made on the Database from inside one of its own transactions; use the transaction handle (tx) passed to your function instead.',
      );
    }
  }

  async query<R = Row>(sql: string, params: readonly unknown[] = []): Promise<QueryResult<R>> {
    this.#check();
    return (await this.#adapter.query(sql, params)) as QueryResult<R>;
  }

  async exec(sql: string): Promise<void> {
    this.#check();
    const lease = await this.#adapter.acquire();
    try {
      await lease.connection.exec(sql);
      lease.release();
    } catch (error) {
      lease.release(true);
      throw error;
    }
  }

  async #withTransaction<T>(
    begin: string[],
    fn: (tx: Queryable) => Promise<T>,
    end: 'COMMIT' | 'ROLLBACK',
    leaseOptions: LeaseOptions = {},
  ): Promise<T> {
    this.#check();
    const { signal } = leaseOptions;
    const lease = await acquire(this.#adapter, leaseOptions);
    let active = true;
    // Between statements the signal is checked here, on every engine; the adapter stops the one running.
    const run = (sql: string, params: readonly unknown[]) => {
      if (signal?.aborted) throw abortedError();
      return lease.connection.query(sql, params);
    };
    const tx: Queryable = {
      query: async <R = Row>(sql: string, params: readonly unknown[] = []) => {
        if (!active)
          throw new DataSourceError(
            'misuse',
            'This transaction handle was used after its transaction ended.',
          );
        return (await run(sql, params)) as QueryResult<R>;
      },
    };
    let broken = false;
    try {
      for (const statement of begin) await run(statement, []);
      const result = await this.#inTransaction.run(true, () => fn(tx));
      active = false;
      await lease.connection.query(end, []);
      return result;
    } catch (error) {
      active = false;
      try {
        await lease.connection.query('ROLLBACK', []);
      } catch {
        broken = true;
      }
      throw signal?.aborted ? asAborted(error) : error;
    } finally {
      lease.release(broken);
    }
  }

  transaction<T>(fn: (tx: Queryable) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
    return this.#withTransaction([beginStatement(options)], fn, 'COMMIT');
  }

  /** A READ ONLY transaction. A background one's fn may be run again from the start (see priority). */
  async readOnly<T>(fn: (tx: Queryable) => Promise<T>, options: ReadOnlyOptions = {}): Promise<T> {
    const timeoutMs = timeoutMsOf(options.timeoutMs, DEFAULT_TIMEOUT_MS);
    const preemptible = options.priority === 'background';
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.#withTransaction(this.#readBegin(timeoutMs), fn, this.#readEnd(), {
          readOnlyTimeoutMs: timeoutMs,
          ...(options.signal ? { signal: options.signal } : {}),
          ...(options.priority ? { priority: options.priority } : {}),
          ...(preemptible ? { preemptible } : {}),
        });
      } catch (error) {
        if (!(error instanceof PreemptedError) || attempt >= MAX_PREEMPTIONS) throw error;
      }
    }
  }

  async readQuery<R = Row>(
    sql: string,
    params: readonly unknown[] = [],
    options: ReadQueryOptions = {},
  ): Promise<ReadQueryResult<R>> {
    const maxRows = positiveInt('maxRows', options.maxRows, DEFAULT_MAX_ROWS);
    const maxBytes = positiveInt('maxBytes', options.maxBytes, DEFAULT_MAX_BYTES);
    const maxValueBytes = positiveInt('maxValueBytes', options.maxValueBytes, DEFAULT_MAX_VALUE_BYTES);
    const probe = `toolrow_probe_${++cursorCounter}`;
    const name = `toolrow_read_${++cursorCounter}`;
    const statement = trimStatement(sql);
    return this.readOnly(async (tx) => {
      // The columns first (FETCH 0 runs nothing), so the read can wrap each one in a size check.
      await tx.query(`DECLARE ${probe} NO SCROLL CURSOR FOR ${statement}`, params);
      const described = await tx.query(`FETCH FORWARD 0 FROM ${probe}`);
      await tx.query(`CLOSE ${probe}`);
      const columns = described.fields;
      const aliases = columns.map((_, index) => `c${index + 1}`);
      // A name no statement of the user's will have: the size marks ride along under it.
      const marksColumn = `toolrow_sizes_${randomBytes(6).toString('hex')}`;
      const sizes = aliases.map((alias) => `octet_length(toolrow_q.${alias}::text)`);
      const select =
        columns.length === 0
          ? `SELECT NULL::int[] AS ${marksColumn} FROM (${statement}\n) AS toolrow_q`
          : `SELECT ${aliases
              .map(
                (alias, index) =>
                  `CASE WHEN ${sizes[index]} > ${maxValueBytes} THEN NULL ELSE toolrow_q.${alias} END AS ${quoteIdent(columns[index]!.name)}`,
              )
              .join(
                ', ',
              )}, ARRAY[${sizes.map((size) => `CASE WHEN ${size} > ${maxValueBytes} THEN ${size} ELSE 0 END`).join(', ')}] AS ${marksColumn} FROM (${statement}\n) AS toolrow_q(${aliases.join(', ')})`;
      await tx.query(`DECLARE ${name} NO SCROLL CURSOR FOR ${select}`, params);
      const rows: R[] = [];
      const oversized: { row: number; column: string; bytes: number }[] = [];
      let bytes = 0;
      let widest = 0;
      let fields: FieldInfo[] = columns;
      let truncatedBy: 'rows' | 'bytes' | undefined;
      while (truncatedBy === undefined) {
        // Small batches while rows are wide: at most about the budget left comes over at once.
        const budget = Math.max(1, Math.floor((maxBytes - bytes) / Math.max(widest, 1)));
        const batch = Math.min(maxRows + 1 - rows.length, budget, rows.length === 0 ? 50 : 500);
        const fetched = await tx.query<Row>(`FETCH FORWARD ${batch} FROM ${name}`);
        fields = fetched.fields.slice(0, columns.length);
        for (const raw of fetched.rows) {
          if (rows.length === maxRows) {
            truncatedBy = 'rows';
            break;
          }
          const marks = raw[marksColumn] as number[] | null;
          const row = userColumns(raw, columns);
          for (const [index, size] of (marks ?? []).entries()) {
            if (size > 0) oversized.push({ row: rows.length, column: columns[index]!.name, bytes: size });
          }
          const size = approximateBytes(row);
          widest = Math.max(widest, size);
          // The cap holds for the first row too: one row of many large values is still too much.
          if (bytes + size > maxBytes) {
            truncatedBy = 'bytes';
            break;
          }
          bytes += size;
          rows.push(row as R);
        }
        if (fetched.rows.length < batch) break;
      }
      return {
        rows,
        fields,
        truncated: truncatedBy !== undefined,
        ...(truncatedBy ? { truncatedBy } : {}),
        ...(oversized.length > 0 ? { oversized } : {}),
      };
    }, options);
  }

  cursor<R = Row>(
    sql: string,
    params: readonly unknown[] = [],
    options: CursorOptions = {},
  ): AsyncIterable<R[]> {
    const batch = positiveInt('batchSize', options.batchSize, DEFAULT_BATCH);
    const timeoutMs = timeoutMsOf(options.timeoutMs, 0);
    const statement = trimStatement(sql);
    const hold = this.#adapter.holdCursors;
    const { signal } = options;
    const read = this.#heldRead(
      timeoutMs,
      signal,
      hold ? 'BEGIN READ ONLY' : 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY',
    );
    const adapter = this.#adapter;
    const openCursors = this.#openCursors;
    const check = () => this.#check();
    const throwIfAborted = () => {
      if (signal?.aborted) throw abortedError();
    };
    async function* batches(): AsyncGenerator<R[]> {
      check();
      const name = `toolrow_cursor_${++cursorCounter}`;
      let first = true;
      throwIfAborted();
      if (hold) {
        // Declared WITH HOLD inside a short read-only transaction; FETCHes then take the lock one by one.
        const restarts = adapter.restarts;
        // The signal can stop the declaring transaction too: its COMMIT materialises the whole result.
        const declare = { readOnlyTimeoutMs: timeoutMs, ...(signal ? { signal } : {}) };
        await withLease(adapter, declare, async (connection) => {
          await connection.query(read.begin, []);
          try {
            await connection.query(read.pin, []);
            await connection.query(`DECLARE ${name} NO SCROLL CURSOR WITH HOLD FOR ${statement}`, params);
            await connection.query('COMMIT', []);
          } catch (error) {
            await connection.query('ROLLBACK', []).catch(() => {});
            throw error;
          }
        });
        const closeCursor = async () => {
          if (adapter.restarts !== restarts) return;
          await withLease(adapter, {}, (connection) => connection.exec(`CLOSE ${name}`)).catch(() => {});
        };
        openCursors.add(closeCursor);
        try {
          while (true) {
            throwIfAborted();
            const result = await withLease(adapter, {}, (connection) => {
              if (adapter.restarts !== restarts) throw cursorLost();
              return connection.query(`FETCH FORWARD ${batch} FROM ${name}`, []);
            });
            if (first) options.onFields?.(result.fields);
            first = false;
            if (result.rows.length > 0) yield result.rows as R[];
            if (result.rows.length < batch) return;
          }
        } finally {
          openCursors.delete(closeCursor);
          await closeCursor();
        }
      }
      // Not WITH HOLD: one lease, and the transaction, held until the last batch.
      yield* heldRead(read, async function* (connection) {
        await connection.query(`DECLARE ${name} NO SCROLL CURSOR FOR ${statement}`, params);
        while (true) {
          throwIfAborted();
          const result = await connection.query(`FETCH FORWARD ${batch} FROM ${name}`, []);
          if (first) options.onFields?.(result.fields);
          first = false;
          if (result.rows.length > 0) yield result.rows as R[];
          if (result.rows.length < batch) return;
        }
      });
    }
    return abortable(batches, signal);
  }

  get copySupported(): boolean {
    return this.#adapter.copy;
  }

  textLines(
    sql: string,
    params: readonly unknown[] = [],
    options: TextLinesOptions = {},
  ): AsyncIterable<TextLines> {
    const batch = positiveInt('batchSize', options.batchSize, DEFAULT_LINES_BATCH);
    const timeoutMs = timeoutMsOf(options.timeoutMs, 0);
    const statement = trimStatement(sql);
    const { signal } = options;
    const read = this.#heldRead(timeoutMs, signal, 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const check = () => this.#check();
    async function* batches(): AsyncGenerator<TextLines> {
      check();
      if (signal?.aborted) throw abortedError();
      const name = `toolrow_lines_${++cursorCounter}`;
      // Not WITH HOLD: a held cursor's COMMIT materialises the whole result first. The lease (on
      // PGlite, the one connection) is kept until the last batch instead.
      yield* heldRead(read, async function* (connection) {
        await connection.query(`DECLARE ${name} NO SCROLL CURSOR FOR ${statement}`, params);
        // Batches sized by bytes as well as rows: wide rows come a few at a time, so memory stays
        // flat whatever a row holds (5,000 rows of 100 kB would be half a gigabyte at once).
        let size = Math.min(batch, FIRST_LINES_BATCH);
        while (true) {
          if (signal?.aborted) throw abortedError();
          const fetch = `FETCH FORWARD ${size} FROM ${name}`;
          const lines = connection.queryLines
            ? await connection.queryLines(fetch)
            : joinLines(await connection.query(fetch, []));
          if (lines.rows > 0) yield lines;
          if (lines.rows < size) return;
          const perRow = Math.max(1, lines.bytes.byteLength / lines.rows);
          size = Math.max(1, Math.min(batch, Math.floor(LINES_BATCH_BYTES / perRow)));
        }
      });
    }
    return abortable(batches, signal);
  }

  copyOut(sql: string, options: ReadOnlyOptions = {}): AsyncIterable<Uint8Array> {
    if (!this.#adapter.copy) {
      throw new DataSourceError(
        'misuse',
        `COPY … TO STDOUT is not available on ${this.description}; stream with textLines instead (check copySupported first).`,
      );
    }
    const timeoutMs = timeoutMsOf(options.timeoutMs, 0);
    const { signal } = options;
    const read = this.#heldRead(timeoutMs, signal);
    const check = () => this.#check();
    async function* chunks(): AsyncGenerator<Uint8Array> {
      check();
      if (signal?.aborted) throw abortedError();
      // A COPY left before its end (the consumer stopped, a write failed) still has rows on the
      // wire: the client cannot run ROLLBACK behind them, so the connection is dropped and the
      // server rolls the transaction back as the session ends.
      yield* heldRead({ ...read, dropUnlessFinished: true }, async function* (connection) {
        yield* connection.copyOut!(sql);
        if (signal?.aborted) throw abortedError();
      });
    }
    return abortable(chunks, signal);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    for (const closeCursor of [...this.#openCursors]) await closeCursor();
    this.#closed = true;
    await this.#adapter.close();
  }
}

/** The values of a one-column result as LF-terminated bytes: the engines without a raw path. */
function joinLines(result: QueryResult<Row>): TextLines {
  const column = result.fields[0]?.name;
  if (column === undefined) return { bytes: new Uint8Array(0), rows: 0 };
  let text = '';
  for (const row of result.rows) text += `${String(row[column] ?? '')}\n`;
  return { bytes: Buffer.from(text), rows: result.rows.length };
}

function cursorLost(): DataSourceError {
  return new DataSourceError(
    'connection',
    'This cursor was lost: the embedded database restarted (to stop another query at its timeout or on cancel, or after its worker thread died), and open cursors do not survive a restart. Start the export or read again.',
  );
}

/** A read streamed over one lease held from its BEGIN to its last item. */
interface HeldRead {
  adapter: Adapter;
  timeoutMs: number;
  begin: string;
  pin: string;
  /** How the transaction ends when the read went well (see #readEnd). */
  end: string;
  signal?: AbortSignal;
  /** Drop the connection, not ROLLBACK, when the body did not run to its end (a COPY mid-stream). */
  dropUnlessFinished?: boolean;
}

/** BEGIN and the pins, then `body`'s items, then `end` (ROLLBACK after a failure); a connection that could not be ended is dropped. */
async function* heldRead<T>(
  read: HeldRead,
  body: (connection: Connection) => AsyncGenerator<T>,
): AsyncGenerator<T> {
  const { signal } = read;
  const lease = await acquire(read.adapter, {
    readOnlyTimeoutMs: read.timeoutMs,
    ...(signal ? { signal } : {}),
  });
  let finished = false;
  let broken = false;
  try {
    await lease.connection.query(read.begin, []);
    await lease.connection.query(read.pin, []);
    yield* body(lease.connection);
    finished = true;
  } catch (error) {
    broken = true;
    throw error;
  } finally {
    if (read.dropUnlessFinished && !finished) lease.release(true);
    else {
      try {
        await lease.connection.query(broken ? 'ROLLBACK' : read.end, []);
        broken = false;
      } catch {
        broken = true;
      }
      lease.release(broken);
    }
  }
}

/** The generator as an iterable whose errors read as "aborted" once the signal fired. */
function abortable<T>(items: () => AsyncGenerator<T>, signal: AbortSignal | undefined): AsyncIterable<T> {
  return {
    async *[Symbol.asyncIterator]() {
      try {
        yield* items();
      } catch (error) {
        throw signal?.aborted ? asAborted(error) : error;
      }
    },
  };
}

function asAborted(error: unknown): DataSourceError {
  return isDataSourceError(error, 'aborted') ? error : abortedError(error);
}

/**
 * A lease, unless the signal fires first (waiting for PGlite's lock or a pool client): then
 * nothing runs, and a lease that arrives later goes straight back.
 */
function acquire(adapter: Adapter, options: LeaseOptions): Promise<Lease> {
  const { signal } = options;
  if (!signal) return adapter.acquire(options);
  if (signal.aborted) return Promise.reject(abortedError());
  const pending = adapter.acquire(options);
  return new Promise<Lease>((resolve, reject) => {
    let settled = false;
    const onAbort = () => {
      settled = true;
      reject(abortedError());
      pending.then(
        (lease) => lease.release(),
        () => {},
      );
    };
    signal.addEventListener('abort', onAbort, { once: true });
    pending.then(
      (lease) => {
        if (settled) return;
        signal.removeEventListener('abort', onAbort);
        resolve(lease);
      },
      (error: unknown) => {
        if (settled) return;
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

async function withLease<T>(
  adapter: Adapter,
  options: LeaseOptions,
  fn: (connection: Connection) => Promise<T>,
): Promise<T> {
  const lease = await acquire(adapter, options);
  try {
    const result = await fn(lease.connection);
    lease.release();
    return result;
  } catch (error) {
    lease.release(true);
    throw error;
  }
}

/** Field list in the public shape. */
export function toFields(fields: readonly { name: string; dataTypeID: number }[] | undefined): FieldInfo[] {
  return (fields ?? []).map((field) => ({ name: field.name, typeId: field.dataTypeID }));
}
