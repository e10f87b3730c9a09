// Aborting a read (the user stops a chat turn, an MCP client cancels a call) stops the read on
// every engine: PostgreSQL cancels the statement server-side, on-disk PGlite restarts its worker,
// in-memory PGlite checks the signal between statements. Real engines; no timing assertions: the
// runaway statements below never end by themselves, so a test that finishes was stopped.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { DataSourceError } from '@toolrow/datasource';
import { createMemoryExportJobStore } from '@toolrow/datasource-utils';
import { serviceUrl } from '@toolrow/test-services';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openDatabase } from './drivers/open.ts';
import { createExportEngine } from './export-engine.ts';
import type { SqlDataSource } from './sql-source.ts';
import { createTestDatabase, pgliteOnDisk, testEngines } from './testing.ts';

/** A statement no machine finishes (2.7e10 rows, all in memory, no disk). */
const RUNAWAY =
  'SELECT count(*) FROM generate_series(1, 3000) a, generate_series(1, 3000) b, generate_series(1, 3000) c';

// Only a failed stop reaches it: the error is then 'timeout', not 'aborted', and the test says so.
const SAFETY_TIMEOUT_MS = 45_000;

const ABORTED = /^The query was cancelled because the request was aborted/;

async function failure(run: Promise<unknown>): Promise<DataSourceError> {
  const error = await run.then(
    () => new Error('the call succeeded'),
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(DataSourceError);
  return error as DataSourceError;
}

type Query = (sql: string, params: unknown[]) => Promise<{ rows: unknown[] }>;

/**
 * How many statements run in this database besides the asking one; every test database is fresh,
 * so they are the test's. readQuery runs its statement in the FETCH from its cursor.
 */
async function running(query: Query, like = '%'): Promise<number> {
  const result = await query(
    `SELECT pid FROM pg_stat_activity
      WHERE state = 'active' AND datname = current_database() AND pid <> pg_backend_pid() AND query LIKE $1`,
    [like],
  );
  return result.rows.length;
}

const stoppable = [...testEngines().filter((engine) => engine.name === 'postgres'), pgliteOnDisk];

describe.each(stoppable)('an aborted read in flight on $name', ({ name, open }) => {
  let ds: SqlDataSource;
  let orders: number;
  const countOrders = async () =>
    Number((await ds.db.query<{ n: string }>('SELECT count(*) AS n FROM orders')).rows[0]!.n);

  beforeAll(async () => {
    ds = await open({ seed: { orders: 40 } });
    orders = await countOrders();
  });
  afterAll(() => ds?.close());

  const query: Query = (sql, params) => ds.db.query(sql, params);

  /** Resolves once readQuery's FETCH runs (PostgreSQL: seen in pg_stat_activity) or a while after (PGlite: busy, unobservable). */
  async function whenFetching(): Promise<void> {
    if (name === 'postgres') {
      // The read's own FETCH, not the probe that only names the columns (FETCH FORWARD 0 runs nothing).
      await expect.poll(() => running(query, 'FETCH FORWARD % FROM toolrow_read_%')).toBe(1);
    } else {
      await sleep(500);
    }
  }

  it('readQuery stops with the clear error; the engine serves the next call; the data is unchanged', async () => {
    const controller = new AbortController();
    const read = failure(
      ds.db.readQuery(RUNAWAY, [], { signal: controller.signal, timeoutMs: SAFETY_TIMEOUT_MS }),
    );
    await whenFetching();
    controller.abort();
    const error = await read;
    expect(error.code).toBe('aborted');
    expect(error.message).toMatch(ABORTED);
    expect(error.message).toMatch(/run it again if it is still needed/);
    if (name === 'postgres') {
      // The server cancelled it (57014, "due to user request"), and nothing of it is left running.
      expect(error.cause).toMatchObject({ code: '57014', message: expect.stringMatching(/user request/) });
      expect(await running(query)).toBe(0);
    }
    expect(await countOrders()).toBe(orders);
    const next = await ds.db.readQuery<{ n: number }>('SELECT 41 AS n');
    expect(next.rows).toEqual([{ n: 41 }]);
    // Writes too: an aborted read leaves no transaction or lock behind.
    await ds.db.transaction((tx) => tx.query('UPDATE orders SET status = status WHERE id = 1'));
    const table = `after_abort_${randomBytes(4).toString('hex')}`;
    await ds.db.exec(`CREATE TABLE ${table} (id int); DROP TABLE ${table};`);
  });

  it('a statement aborted right after it was sent is stopped, not left to its timeout', async () => {
    const controller = new AbortController();
    const reason = new Error('stopped by the test');
    const read = failure(
      ds.db.readOnly(
        async (tx) => {
          await tx.query('SELECT 1');
          const statement = tx.query(RUNAWAY);
          // Sent, and (PGlite) before the worker arms it or (PostgreSQL) perhaps before the backend read it.
          controller.abort(reason);
          return statement;
        },
        { signal: controller.signal, timeoutMs: SAFETY_TIMEOUT_MS },
      ),
    );
    const error = await read;
    expect(error.code).toBe('aborted');
    // The running statement was stopped (not merely skipped): its own failure is the cause.
    if (name === 'postgres') {
      expect(error.cause).toMatchObject({ code: '57014' });
      expect(await running(query)).toBe(0);
    } else {
      expect(error.cause).toBe(reason);
    }
    expect(await countOrders()).toBe(orders);
  });
});

describe.each([...testEngines(), pgliteOnDisk])('abort and reads on $name', ({ open }) => {
  let ds: SqlDataSource;
  beforeAll(async () => {
    ds = await open({ seed: { orders: 30 } });
  });
  afterAll(() => ds?.close());

  it('an abort before the call runs nothing: no statement is sent, no function is called', async () => {
    const controller = new AbortController();
    controller.abort();
    const { signal } = controller;
    // Were it sent, this statement would fail with "column does not exist" instead.
    const read = await failure(ds.db.readQuery('SELECT no_such_column FROM orders', [], { signal }));
    expect(read.code).toBe('aborted');
    expect(read.message).toMatch(ABORTED);
    const fn = vi.fn(async () => 1);
    expect((await failure(ds.db.readOnly(fn, { signal }))).code).toBe('aborted');
    expect(fn).not.toHaveBeenCalled();
    expect((await failure(ds.rows.count('orders', undefined, { signal }))).code).toBe('aborted');
    expect((await failure(ds.rows.get('orders', 1, { signal }))).code).toBe('aborted');
    expect((await failure(ds.rows.select('orders', { signal }))).code).toBe('aborted');
    const batches = (async () => {
      for await (const _ of ds.db.cursor('SELECT no_such_column FROM orders', [], { signal })) {
        // never reached
      }
    })();
    expect((await failure(batches)).code).toBe('aborted');
    const jobs = createMemoryExportJobStore();
    const created = vi.spyOn(jobs, 'create');
    const exportsDir = await mkdtemp(join(tmpdir(), 'toolrow-exports-'));
    const exports = createExportEngine(ds.db, ds.schema, exportsDir, jobs);
    expect(
      (await failure(exports.start({ source: { table: 'orders' }, format: 'csv', actor: 'agent', signal })))
        .code,
    ).toBe('aborted');
    expect(created).not.toHaveBeenCalled();
    await rm(exportsDir, { recursive: true, force: true });
  });

  it('an abort between statements stops before the next one and rolls the transaction back', async () => {
    const controller = new AbortController();
    const seen: unknown[] = [];
    const error = await failure(
      ds.db.readOnly(
        async (tx) => {
          seen.push((await tx.query('SELECT 1 AS one')).rows);
          controller.abort();
          seen.push((await tx.query('SELECT no_such_column FROM orders')).rows);
        },
        { signal: controller.signal },
      ),
    );
    expect(error.code).toBe('aborted');
    expect(seen).toEqual([[{ one: 1 }]]);
    // No transaction is left open: a write outside readOnly works and is visible.
    await ds.db.transaction((tx) => tx.query('UPDATE orders SET status = status WHERE id = 1'));
    expect((await ds.db.readQuery('SELECT count(*)::int AS n FROM orders')).rows).toEqual([{ n: 30 }]);
  });

  it('a read that finished is unaffected by a later abort: results kept, nothing restarted', async () => {
    // A cursor open across the abort would be lost if anything were stopped or restarted.
    const iterator = ds.db
      .cursor<{ id: number }>('SELECT id FROM orders ORDER BY id', [], { batchSize: 10 })
      [Symbol.asyncIterator]();
    const first = await iterator.next();
    const controller = new AbortController();
    const read = await ds.db.readQuery<{ n: number }>('SELECT count(*)::int AS n FROM orders', [], {
      signal: controller.signal,
    });
    const row = await ds.rows.get('orders', 2, { signal: controller.signal });
    controller.abort();
    await sleep(50);
    expect(read.rows).toEqual([{ n: 30 }]);
    expect(row).toMatchObject({ id: 2 });
    const ids = (first.value as { id: number }[]).map((r) => r.id);
    for (let next = await iterator.next(); !next.done; next = await iterator.next())
      ids.push(...next.value.map((r) => r.id));
    expect(ids).toHaveLength(30);
    expect((await ds.db.readQuery('SELECT 1 AS ok')).rows).toEqual([{ ok: 1 }]);
  });
});

// PGlite is one connection: a read often waits for it (an export declaring, another tool call).
const oneConnection = [...testEngines().filter((engine) => engine.name === 'pglite'), pgliteOnDisk];

describe.each(oneConnection)('abort while waiting on $name', ({ open }) => {
  let ds: SqlDataSource;
  beforeAll(async () => {
    ds = await open();
  });
  afterAll(() => ds?.close());

  it('an abort while waiting for the one connection gives up the wait; nothing runs', async () => {
    let letGo!: () => void;
    const holding = new Promise<void>((resolve) => {
      letGo = resolve;
    });
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => {
      entered = resolve;
    });
    const holder = ds.db.readOnly(async (tx) => {
      await tx.query('SELECT 1');
      entered();
      await holding;
      return 'held';
    });
    await inside;
    const controller = new AbortController();
    const fn = vi.fn(async () => 'ran');
    const waiting = failure(ds.db.readOnly(fn, { signal: controller.signal }));
    controller.abort();
    expect((await waiting).code).toBe('aborted');
    letGo();
    expect(await holder).toBe('held');
    expect(fn).not.toHaveBeenCalled();
    expect((await ds.db.readQuery('SELECT 2 AS two')).rows).toEqual([{ two: 2 }]);
  });
});

describe.each(testEngines().filter((engine) => engine.name === 'postgres'))(
  'an aborted read on $name when every pool client is busy',
  () => {
    it('is cancelled from a connection of its own', async () => {
      const database = await createTestDatabase(serviceUrl('postgres')!);
      const url = database.url;
      const db = await openDatabase({ url, poolSize: 1 });
      const watcher = new pg.Client({ connectionString: url });
      await watcher.connect();
      const watch: Query = (sql, params) => watcher.query(sql, params);
      try {
        const controller = new AbortController();
        const read = failure(
          db.readQuery(RUNAWAY, [], { signal: controller.signal, timeoutMs: SAFETY_TIMEOUT_MS }),
        );
        await expect.poll(() => running(watch, 'FETCH FORWARD%')).toBe(1);
        controller.abort();
        const error = await read;
        expect(error.code).toBe('aborted');
        expect(error.cause).toMatchObject({ code: '57014' });
        expect(await running(watch)).toBe(0);
        // The pool's one client was dropped (a late cancel must not hit its next statement); a new one serves.
        expect((await db.readQuery('SELECT 3 AS three')).rows).toEqual([{ three: 3 }]);
      } finally {
        await watcher.end();
        await db.close();
        await database.drop();
      }
    });
  },
);
