// The read path's attack corpus, adapted to SQLite, with each read-only layer alone, all of them,
// and none (the control: it shows the corpus can change the file, so "held" means something). What
// a single layer cannot hold alone is asserted too: it is why the other layers are there.
import { createHash } from 'node:crypto';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeLibrary } from '../test/made-by-sqlite3.ts';
import { openSqliteDataSource, type SqliteLayers } from './source.ts';

const ATTACKS: Record<string, string> = {
  insert: "insert into authors (id, name) values (9, 'x')",
  update: "update books set title = 'x'",
  delete: 'delete from loans',
  'delete after a read': 'select 1; delete from loans',
  'write inside WITH': 'with x as (select 1) delete from loans',
  'insert inside WITH': "with x as (select 9, 'y') insert into authors (id, name) select * from x",
  replace: "replace into authors (id, name) values (1, 'x')",
  upsert: "insert into authors (id, name) values (1, 'x') on conflict (id) do update set name = 'y'",
  'drop table': 'drop table loans',
  'create table': 'create table sneaky (x)',
  'alter table': 'alter table books add column sneaky text',
  'create index': 'create index sneaky on books (title)',
  'create trigger': 'create trigger sneaky after insert on authors begin delete from loans; end',
  'attach a new file': "attach database 'ATTACHED' as sneaky",
  'vacuum into a new file': "vacuum into 'COPY'",
  vacuum: 'vacuum',
  'pragma user_version': 'pragma user_version = 7',
  'pragma query_only off, then write': 'pragma query_only = off',
  'pragma writable_schema': 'pragma writable_schema = on',
  load_extension: "select load_extension('/tmp/sneaky.so')",
  'begin a write transaction': 'begin immediate',
  reindex: 'reindex',
  analyze: 'analyze',
};

const ONE_LAYER = (layer: keyof SqliteLayers): SqliteLayers => ({
  check: false,
  readOnlyOpen: false,
  queryOnly: false,
  authorizer: false,
  [layer]: true,
});

/** Everything a statement could leave behind in the folder: each file's bytes, and the user_version. */
function fingerprint(dir: string): string {
  const files = readdirSync(dir)
    .filter((name) => !/-(wal|shm|journal)$/.test(name))
    .sort();
  const db = new DatabaseSync(join(dir, 'library.db'), { readOnly: true });
  const version = (db.prepare('pragma user_version').get() as { user_version: number }).user_version;
  db.close();
  return `${files
    .map(
      (name) =>
        `${name}:${createHash('sha256')
          .update(readFileSync(join(dir, name)))
          .digest('hex')}`,
    )
    .join(',')} v${version}`;
}

/** Runs each attack on a fresh copy of the file through the engine's read path; returns those that changed something. */
async function attack(template: string, layers: SqliteLayers): Promise<string[]> {
  const changed: string[] = [];
  for (const [name, sql] of Object.entries(ATTACKS)) {
    const dir = mkdtempSync(join(tmpdir(), 'toolrow-sqlite-attack-'));
    try {
      copyFileSync(template, join(dir, 'library.db'));
      const text = sql.replace('ATTACHED', join(dir, 'attached.db')).replace('COPY', join(dir, 'copy.db'));
      const before = fingerprint(dir);
      const source = await openSqliteDataSource({ path: join(dir, 'library.db'), layers });
      try {
        const checked = await source.queries.check(text);
        await source.queries.run(checked.statement, { timeoutMs: 10_000 });
        // A pragma that only turns a layer off is an attack if a write can follow on the same connection.
        if (name.startsWith('pragma query_only'))
          await source.queries.run("insert into authors (id, name) values (8, 'z')");
      } catch {
        // Refused or failed: what matters is what it left behind.
      } finally {
        await source.close();
      }
      if (fingerprint(dir) !== before) changed.push(name);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return changed;
}

describe('the SQLite read path against the attack corpus', () => {
  let dir: string;
  let template: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'toolrow-sqlite-corpus-'));
    template = makeLibrary(dir);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('with no layer (the control), the corpus changes the file', async () => {
    const changed = await attack(template, {
      check: false,
      readOnlyOpen: false,
      queryOnly: false,
      authorizer: false,
    });
    expect(changed).toEqual(
      expect.arrayContaining([
        'insert',
        'update',
        'delete',
        'write inside WITH',
        'drop table',
        'attach a new file',
        'vacuum into a new file',
        'pragma user_version',
      ]),
    );
  });

  it.each([
    ['every layer', { check: true, readOnlyOpen: true, queryOnly: true, authorizer: true }],
    ['the statement check alone', ONE_LAYER('check')],
    ['the authorizer alone', ONE_LAYER('authorizer')],
  ] as const)('with %s, nothing changes', async (_name, layers) => {
    expect(await attack(template, layers)).toEqual([]);
  });

  it('a read-only open alone holds all but VACUUM INTO, which writes a new file', async () => {
    expect(await attack(template, ONE_LAYER('readOnlyOpen'))).toEqual(['vacuum into a new file']);
  });

  it('query_only alone holds all but ATTACH and VACUUM INTO (new files) and a statement that turns it off', async () => {
    expect(await attack(template, ONE_LAYER('queryOnly'))).toEqual([
      'attach a new file',
      'vacuum into a new file',
      'pragma query_only off, then write',
    ]);
  });
});
