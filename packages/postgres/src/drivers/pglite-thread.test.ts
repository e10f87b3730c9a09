import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSourceError, type ExportEngine } from '@toolrow/datasource';
import { createMemoryExportJobStore } from '@toolrow/datasource-utils';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createExportEngine } from '../export-engine.ts';
import { openDataSource } from '../open-data-source.ts';
import type { SqlDataSource } from '../sql-source.ts';
import { testEngines } from '../testing.ts';
import { pgliteSnapshot } from '../testing-impl.ts';
import { openDatabase } from './open.ts';

// 2000³ rows: no machine finishes this; only the timeout ends it.
const RUNAWAY = 'SELECT count(*) FROM big a CROSS JOIN big b CROSS JOIN big c';

describe('on-disk PGlite stops a runaway read at its timeout', () => {
  let dataDir: string;
  let ds: SqlDataSource;
  let other: SqlDataSource;
  const open = async () =>
    openDataSource({
      env: {},
      dataDir,
      loadDataDir: await pgliteSnapshot('empty', '1'),
    });
  const exportsOf = (source: SqlDataSource): ExportEngine =>
    createExportEngine(source.db, source.schema, join(dataDir, 'exports'), createMemoryExportJobStore());

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'toolrow-runaway-'));
    [ds, other] = await Promise.all([open(), testEngines({})[0]!.open()]);
    await ds.db.exec(
      'CREATE TABLE big (g int PRIMARY KEY); INSERT INTO big SELECT generate_series(1, 2000);',
    );
    await ds.db.exec("CREATE TABLE kept (note text); INSERT INTO kept VALUES ('select 1');");
  });
  afterAll(async () => {
    await Promise.all([ds?.close(), other?.close()]);
    await rm(dataDir, { recursive: true, force: true });
  });

  it('fails the call with a clear timeout error while the process keeps serving; the data is intact after', async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 10);
    let settled = false;
    const runaway = ds.db
      .readQuery(RUNAWAY, [], { timeoutMs: 1500 })
      .finally(() => {
        settled = true;
      })
      .catch((error: unknown) => error);
    // Meanwhile the thread that called it runs other work: a query on a second data source, timers.
    const meanwhile = await other.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM generate_series(1, 5000)',
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    const ticksWhileRunning = ticks;
    const settledMeanwhile = settled;
    const error = await runaway;
    clearInterval(timer);
    expect(meanwhile.rows).toEqual([{ n: 5000 }]);
    expect(settledMeanwhile).toBe(false);
    expect(ticksWhileRunning).toBeGreaterThan(0);
    expect(error).toBeInstanceOf(DataSourceError);
    expect(error).toMatchObject({ code: 'timeout' });
    expect((error as Error).message).toMatch(
      /^The query ran longer than 1\.5 s and was stopped \(statement timeout\)\. Narrow it: filter with WHERE/,
    );

    // The next calls wait for the reopened engine: same data, same app state, writes work.
    expect((await ds.db.query('SELECT count(*)::int AS n FROM big')).rows).toEqual([{ n: 2000 }]);
    expect((await ds.db.query('SELECT note FROM kept')).rows).toEqual([{ note: 'select 1' }]);
    await ds.db.transaction((tx) => tx.query('INSERT INTO big VALUES (2001)'));
    expect((await ds.db.readQuery('SELECT max(g) AS m FROM big')).rows).toEqual([{ m: 2001 }]);
    await ds.db.query('DELETE FROM big WHERE g > 2000');
    // The data directory stayed locked by this process throughout.
    expect(JSON.parse(readFileSync(join(dataDir, 'pgdata.lock'), 'utf8')).pid).toBe(process.pid);
  });

  it('Postgres errors cross the thread with their class and fields, as the in-thread engine raises them', async () => {
    await other.db.exec('CREATE TABLE big (g int PRIMARY KEY); INSERT INTO big VALUES (1);');
    const failure = (run: Promise<unknown>) =>
      run.then(
        () => ({ message: 'no error' }) as Record<string, unknown>,
        (error: unknown) => error as Record<string, unknown>,
      );
    const failing: [string, unknown[]][] = [
      ['SELECT nope FROM big', []],
      ['SELECT 1 / $1::int', [0]],
      ["SELECT 'x'::int", []],
      ['INSERT INTO big VALUES (1)', []],
    ];
    for (const [sql, params] of failing) {
      const viaWorker = await failure(ds.db.query(sql, params));
      const inThread = await failure(other.db.query(sql, params));
      expect(inThread.message, sql).not.toBe('no error');
      expect(viaWorker.constructor, sql).toBe(inThread.constructor);
      for (const field of [
        'message',
        'name',
        'code',
        'severity',
        'position',
        'hint',
        'detail',
        'constraint',
        'routine',
      ])
        expect(viaWorker[field], `${sql}: ${field}`).toEqual(inThread[field]);
    }
  });

  it('a transaction handle is dead after its statement was stopped: nothing runs outside the READ ONLY transaction', async () => {
    const after = await ds.db.readOnly(
      async (tx) => {
        const stopped = await tx.query(RUNAWAY).catch((error: unknown) => error);
        expect(stopped).toMatchObject({ code: 'timeout' });
        return tx.query('INSERT INTO big VALUES (-1)').catch((error: unknown) => error);
      },
      { timeoutMs: 200 },
    );
    expect(after).toMatchObject({ code: 'connection' });
    expect((after as Error).message).toMatch(
      /transaction ended when the embedded database restarted.*Start a new transaction/,
    );
    expect((await ds.db.query('SELECT count(*)::int AS n FROM big WHERE g < 0')).rows).toEqual([{ n: 0 }]);
  });

  it('never stops a write: a queued read times only its own statement, and a caller who leaves READ ONLY gets no timer', async () => {
    const write = ds.db.transaction(async (tx) => {
      await tx.query('SELECT pg_sleep(0.8)');
      await tx.query('INSERT INTO big VALUES (3001)');
    });
    // Queued behind the write, far past its own 300 ms: waiting for the connection is not running.
    const read = ds.db.readQuery<{ n: number }>('SELECT count(*)::int AS n FROM big', [], { timeoutMs: 300 });
    await write;
    expect((await read).rows).toEqual([{ n: 2001 }]);

    // COMMIT ends the READ ONLY transaction; the write after it outlasts the 200 ms and still finishes.
    const done = await ds.db.readOnly(
      async (tx) => {
        await tx.query('COMMIT');
        await tx.query(
          'CREATE TABLE slow_write AS SELECT g, pg_sleep(0.002)::text AS s FROM generate_series(1, 300) AS g',
        );
        return 'finished';
      },
      { timeoutMs: 200 },
    );
    expect(done).toBe('finished');
    expect((await ds.db.query('SELECT count(*)::int AS n FROM slow_write')).rows).toEqual([{ n: 300 }]);
    await ds.db.exec('DROP TABLE slow_write; DELETE FROM big WHERE g > 2000;');
  });

  it('a cursor open across a restart fails with a clear error instead of a missing-cursor one', async () => {
    const batches = ds.db
      .cursor<{ g: number }>('SELECT g FROM big ORDER BY g', [], { batchSize: 500 })
      [Symbol.asyncIterator]();
    expect((await batches.next()).value).toHaveLength(500);
    await expect(ds.db.readQuery(RUNAWAY, [], { timeoutMs: 100 })).rejects.toMatchObject({ code: 'timeout' });
    await expect(batches.next()).rejects.toThrow(
      /cursor was lost: the embedded database restarted.*Start the export or read again/,
    );
    expect(
      (await ds.db.query("SELECT count(*)::int AS n FROM pg_cursors WHERE name LIKE 'toolrow%'")).rows,
    ).toEqual([{ n: 0 }]);
  });

  it('removes the temp files a stopped sort spilled', async () => {
    const tempDir = join(dataDir, 'pgdata', 'base', 'pgsql_tmp');
    const spilling = ds.db
      .readOnly(
        async (tx) => {
          await tx.query("SET LOCAL work_mem = '64kB'");
          return tx.query('SELECT a.g, b.g FROM big a CROSS JOIN big b ORDER BY a.g DESC, b.g DESC');
        },
        { timeoutMs: 1500 },
      )
      .catch((error: unknown) => error);
    await vi.waitFor(() => expect(existsSync(tempDir) && readdirSync(tempDir).length).toBeGreaterThan(0), {
      timeout: 1500,
      interval: 20,
    });
    expect(await spilling).toMatchObject({ code: 'timeout' });
    await ds.db.query('SELECT 1');
    expect(readdirSync(tempDir)).toEqual([]);
  });

  it('cancelling an export stops its query even while the cursor is still being materialised', async () => {
    const exports = exportsOf(ds);
    const job = await exports.start({
      // The sort must see every row before the first comes out: the first fetch never ends on its own.
      source: {
        sql: 'SELECT a.g AS a, b.g AS b, c.g AS c FROM big a CROSS JOIN big b CROSS JOIN big c ORDER BY a.g + b.g + c.g DESC',
      },
      format: 'csv',
      actor: 'user',
    });
    // The file opens just before the cursor is declared; the declaration then never ends on its own.
    await vi.waitFor(() => expect(existsSync(job.path)).toBe(true), { timeout: 20_000, interval: 20 });
    const cancelled = await exports.cancel(job.id);
    expect(cancelled).toMatchObject({ state: 'cancelled', rowsDone: 0 });
    expect(existsSync(job.path)).toBe(false);
    expect((await ds.db.query('SELECT count(*)::int AS n FROM big')).rows).toEqual([{ n: 2000 }]);
  });

  it('survives being stopped again and again, and a later open of the directory finds everything', async () => {
    for (let round = 0; round < 3; round++) {
      await ds.db.query('INSERT INTO big VALUES ($1)', [5000 + round]);
      await expect(ds.db.readQuery(RUNAWAY, [], { timeoutMs: 50 })).rejects.toMatchObject({
        code: 'timeout',
      });
    }
    await ds.close();
    ds = await open();
    expect((await ds.db.query('SELECT count(*)::int AS n FROM big WHERE g >= 5000')).rows).toEqual([
      { n: 3 },
    ]);
    expect((await ds.db.query('SELECT note FROM kept')).rows).toEqual([{ note: 'select 1' }]);
  });

  it('does not keep an idle process alive: a script that never calls close() still exits', async () => {
    await ds.close();
    const script = `
      const { openDatabase } = await import(${JSON.stringify(new URL('./open.ts', import.meta.url).href)});
      const db = await openDatabase({ env: {}, dataDir: ${JSON.stringify(dataDir)} });
      const { rows } = await db.query('SELECT count(*)::int AS n FROM big');
      console.log(rows[0].n);`;
    const stdout = await new Promise<string>((resolve, reject) => {
      execFile(
        process.execPath,
        ['--conditions=@toolrow/source', '--input-type=module', '-e', script],
        { timeout: 60_000 },
        (error, out, err) => (error ? reject(new Error(`${error.message}\n${err}`)) : resolve(out)),
      );
    });
    expect(stdout.trim()).toBe('2003');
    expect(existsSync(join(dataDir, 'pgdata.lock'))).toBe(false);
  });
});

describe('on-disk PGlite in its worker', () => {
  it('applies the embeddedSettings it was opened with (postgresql.conf lines)', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'toolrow-settings-'));
    const db = await openDatabase({
      env: {},
      dataDir,
      embeddedSettings: ['work_mem = 7MB'],
      loadDataDir: await pgliteSnapshot('empty', '1'),
    });
    try {
      const { rows } = await db.query<{ work_mem: string }>('SHOW work_mem');
      expect(rows[0]?.work_mem).toBe('7MB');
    } finally {
      await db.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
