// The embedded database is one connection for everyone: the user's own reads go before a client's
// queued ones, and a client's running read gives way to the user's (stopped, then run again from
// the start). Events, not clocks: what answers first is asserted, never how fast.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDataSource } from '../open-data-source.ts';
import type { SqlDataSource } from '../sql-source.ts';
import { pgliteSnapshot } from '../testing-impl.ts';
import { Mutex } from './mutex.ts';

// Seconds of work on any machine, and a known answer to check a re-run against.
const HEAVY = 'SELECT count(*)::int AS n FROM big a CROSS JOIN big b';

describe('the lock of the one connection', () => {
  it('grants the user before every waiting client, first come first served within each', async () => {
    const mutex = new Mutex();
    const order: string[] = [];
    let contended = 0;
    const release = await mutex.lock('background', () => contended++);
    const waits = [
      ['client-1', 'background'],
      ['user-1', 'interactive'],
      ['client-2', 'background'],
      ['user-2', 'interactive'],
    ].map(([name, priority]) =>
      mutex.lock(priority as 'interactive' | 'background').then((unlock) => {
        order.push(name!);
        unlock();
      }),
    );
    expect(contended).toBe(2);
    release();
    await Promise.all(waits);
    expect(order).toEqual(['user-1', 'user-2', 'client-1', 'client-2']);
  });
});

describe('on-disk PGlite shared by the user and a client', () => {
  let dataDir: string;
  let ds: SqlDataSource;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'toolrow-priority-'));
    ds = await openDataSource({ env: {}, dataDir, loadDataDir: await pgliteSnapshot('empty', '1') });
    await ds.db.exec(
      'CREATE TABLE big (g int PRIMARY KEY); INSERT INTO big SELECT generate_series(1, 3000);',
    );
  });
  afterAll(async () => {
    await ds?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it("the user's read is answered while a client's heavy reads wait, and theirs still answer right", async () => {
    const order: string[] = [];
    const client = Array.from({ length: 4 }, (_, index) =>
      ds.db.readQuery<{ n: number }>(HEAVY, [], { priority: 'background', timeoutMs: 0 }).then((result) => {
        order.push(`client-${index}`);
        return result.rows[0]?.n;
      }),
    );
    // The first client read is running now (the others queue behind it).
    await new Promise((resolve) => setImmediate(resolve));
    const user = ds.db.readQuery<{ n: number }>('SELECT count(*)::int AS n FROM big').then((result) => {
      order.push('user');
      return result.rows[0]?.n;
    });
    expect(await user).toBe(3000);
    // It came first: the running client read gave way (its statement stopped), the queue waited.
    expect(order[0]).toBe('user');
    // Every client read was answered in full, the one that gave way run again from the start.
    expect(await Promise.all(client)).toEqual([9_000_000, 9_000_000, 9_000_000, 9_000_000]);
  }, 120_000);

  it("a user's read never gives way, to anyone", async () => {
    const order: string[] = [];
    const first = ds.db
      .readQuery<{ n: number }>(HEAVY, [], { timeoutMs: 0 })
      .finally(() => order.push('first'));
    await new Promise((resolve) => setImmediate(resolve));
    const second = ds.db.readQuery<{ n: number }>('SELECT 1 AS n').finally(() => order.push('second'));
    expect((await first).rows[0]?.n).toBe(9_000_000);
    expect((await second).rows[0]?.n).toBe(1);
    expect(order).toEqual(['first', 'second']);
  }, 120_000);
});
