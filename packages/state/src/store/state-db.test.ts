// The embedded store as a second process meets it: WAL, one writer at a time, a clear refusal
// when another writer holds it too long, and files only their owner can open.
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { migrate } from './migrations.ts';
import { openSqliteStore, type StateDb } from './state-db.ts';

describe('the embedded SQLite store', () => {
  let dir: string;
  let file: string;
  let store: StateDb;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'toolrow-sqlite-'));
    file = join(dir, 'state.db');
    store = await openSqliteStore(file, { busyTimeoutMs: 200 });
    await migrate(store);
  });
  afterEach(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('is a WAL database with foreign keys on, readable and writable by its owner only', async () => {
    const other = new DatabaseSync(file, { readOnly: true });
    try {
      expect(other.prepare('PRAGMA journal_mode').get()).toEqual({ journal_mode: 'wal' });
    } finally {
      other.close();
    }
    for (const name of ['state.db', 'state.db-wal', 'state.db-shm']) {
      expect(((await stat(join(dir, name))).mode & 0o777).toString(8)).toBe('600');
    }
    await expect(
      store.q
        .insertInto('grants')
        .values({ profile: 'nobody', grantee: 'agent', tool: 't', table_name: '*', granted_by: 'user' })
        .execute(),
    ).rejects.toThrow(/FOREIGN KEY/);
  });

  it('a second writer waits for the first; past the busy timeout it is refused, nothing written', async () => {
    const holder = new DatabaseSync(file, { timeout: 0 });
    holder.exec('BEGIN IMMEDIATE');
    holder.exec("INSERT INTO profiles (name) VALUES ('held')");
    try {
      // Readers are not blocked by the writer (WAL) and do not see its uncommitted row.
      expect((await store.q.selectFrom('profiles').select('name').execute()).map((row) => row.name)).toEqual(
        [],
      );
      await expect(store.q.insertInto('profiles').values({ name: 'second' }).execute()).rejects.toThrow(
        /being written by another process and stayed locked for 0\.2 s\. .*Nothing was written\./,
      );
      // A transaction takes the write lock when it begins, so it fails before doing anything.
      let ran = false;
      await expect(
        store.q.transaction().execute(async () => {
          ran = true;
        }),
      ).rejects.toThrow(/stayed locked/);
      expect(ran).toBe(false);
    } finally {
      holder.exec('COMMIT');
      holder.close();
    }
    await store.q.insertInto('profiles').values({ name: 'second' }).execute();
    expect(
      (await store.q.selectFrom('profiles').select('name').orderBy('name').execute()).map((row) => row.name),
    ).toEqual(['held', 'second']);
  });

  it('a file that is not a SQLite database is refused with what to do', async () => {
    const bad = join(dir, 'not-sqlite.db');
    await import('node:fs/promises').then((fs) => fs.writeFile(bad, 'x'.repeat(4096)));
    await expect(
      (async () => {
        const opened = await openSqliteStore(bad);
        try {
          await migrate(opened);
        } finally {
          await opened.close();
        }
      })(),
    ).rejects.toThrow(/is not a readable SQLite database .*Move the file aside/);
  });
});
