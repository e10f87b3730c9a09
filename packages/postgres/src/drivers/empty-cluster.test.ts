// The empty cluster an in-memory database starts from: made once into the user's cache folder
// (owner-only), loaded by every later open, and made again when the file is damaged.
import { mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterCacheDir } from './empty-cluster.ts';
import { openDatabase } from './open.ts';

describe('the cached empty cluster', () => {
  let home: string;
  let env: Record<string, string>;
  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'toolrow-cache-'));
    env = { XDG_CACHE_HOME: home };
  });
  afterAll(() => rm(home, { recursive: true, force: true }));

  const cached = async () => (await readdir(clusterCacheDir(env))).filter((name) => name.endsWith('.tar'));

  it('is made at the first in-memory open, owner-only, and later opens load it', async () => {
    const first = await openDatabase({ memory: true, env });
    expect((await first.query<{ n: number }>('SELECT 1 AS n')).rows).toEqual([{ n: 1 }]);
    await first.close();
    const [file] = await cached();
    expect(file).toMatch(/^pglite-.+-empty-cluster\.tar$/);
    expect((await stat(clusterCacheDir(env))).mode & 0o777).toBe(0o700);
    expect((await stat(join(clusterCacheDir(env), file!))).mode & 0o777).toBe(0o600);
    const made = (await stat(join(clusterCacheDir(env), file!))).mtimeMs;
    const second = await openDatabase({ memory: true, env });
    await second.exec('CREATE TABLE t (x int)');
    await second.close();
    // Loaded, not made again.
    expect((await stat(join(clusterCacheDir(env), file!))).mtimeMs).toBe(made);
    // And each open is a database of its own: the table is not in the cluster.
    const third = await openDatabase({ memory: true, env });
    expect((await third.query("SELECT to_regclass('t') AS t")).rows).toEqual([{ t: null }]);
    await third.close();
  }, 120_000);

  it('a damaged file is dropped and the open still works (initdb, as before)', async () => {
    const [file] = await cached();
    await writeFile(join(clusterCacheDir(env), file!), 'not a cluster');
    const db = await openDatabase({ memory: true, env });
    expect((await db.query<{ n: number }>('SELECT 2 AS n')).rows).toEqual([{ n: 2 }]);
    await db.close();
    // Made again by the next open.
    const next = await openDatabase({ memory: true, env });
    await next.close();
    expect(await cached()).toHaveLength(1);
  }, 120_000);
});
