import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSourceError } from '@toolrow/datasource';
import { serviceUrl } from '@toolrow/test-services';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from './database.ts';
import { openDatabase, resolveConnectionConfig } from './drivers/open.ts';
import { openDataSource } from './open-data-source.ts';
import { pgliteOnDisk, testEngines, withReadLayers } from './testing.ts';

describe('resolveConnectionConfig', () => {
  const cwd = '/home/me/project';
  it('picks the engine from options and environment', () => {
    const cases: [
      Parameters<typeof resolveConnectionConfig>[0],
      ReturnType<typeof resolveConnectionConfig>,
    ][] = [
      [
        { cwd, env: {} },
        { engine: 'pglite', dataDir: '/home/me/project/.toolrow', memory: false },
      ],
      [
        { cwd, env: { TOOLROW_DATA_DIR: 'data' } },
        { engine: 'pglite', dataDir: '/home/me/project/data', memory: false },
      ],
      [
        { cwd, env: { TOOLROW_DATA_DIR: '/var/toolrow' } },
        { engine: 'pglite', dataDir: '/var/toolrow', memory: false },
      ],
      [
        { cwd, env: { TOOLROW_DATA_DIR: 'x' }, dataDir: 'y' },
        { engine: 'pglite', dataDir: '/home/me/project/y', memory: false },
      ],
      [
        { cwd, env: {}, memory: true },
        { engine: 'pglite', dataDir: '/home/me/project/.toolrow', memory: true },
      ],
      [
        { cwd, env: { DATABASE_URL: 'postgres://u:p@db:5432/shop' } },
        {
          engine: 'postgres',
          url: 'postgres://u:p@db:5432/shop',
          dataDir: '/home/me/project/.toolrow',
          source: 'DATABASE_URL',
        },
      ],
      [
        { cwd, env: { DATABASE_URL: 'postgresql://db/shop' }, memory: true },
        {
          engine: 'postgres',
          url: 'postgresql://db/shop',
          dataDir: '/home/me/project/.toolrow',
          source: 'DATABASE_URL',
        },
      ],
      [
        { cwd, env: { DATABASE_URL: 'postgres://a/b' }, url: 'postgres://c/d' },
        { engine: 'postgres', url: 'postgres://c/d', dataDir: '/home/me/project/.toolrow', source: 'option' },
      ],
      [
        { cwd, env: { DATABASE_URL: '   ' } },
        { engine: 'pglite', dataDir: '/home/me/project/.toolrow', memory: false },
      ],
    ];
    for (const [options, expected] of cases)
      expect(resolveConnectionConfig(options), JSON.stringify(options)).toEqual(expected);
  });

  it('refuses bad URLs naming the variable and the expected form', () => {
    const bad: [string, RegExp][] = [
      [
        'not a url',
        /DATABASE_URL is not a valid URL\. Expected postgres:\/\/user:password@host:5432\/database/,
      ],
      [
        'mysql://u@h/db',
        /DATABASE_URL must start with postgres:\/\/ or postgresql:\/\/.*Unset it to use the embedded PGlite/,
      ],
      ['postgres://host:5432', /DATABASE_URL names no database/],
    ];
    for (const [url, message] of bad) {
      expect(() => resolveConnectionConfig({ env: { DATABASE_URL: url } }), url).toThrow(message);
    }
    expect(() => resolveConnectionConfig({ env: {}, url: 'http://x/y' })).toThrow(
      /the url option must start with postgres/,
    );
  });
});

describe('openDatabase errors', () => {
  it('names DATABASE_URL and what to check when the server is unreachable', async () => {
    const error = await openDatabase({
      env: { DATABASE_URL: 'postgres://toolrow:toolrow@127.0.0.1:1/toolrow' },
    }).catch((e) => e);
    expect(error).toBeInstanceOf(DataSourceError);
    expect(error.code).toBe('connection');
    expect(error.message).toMatch(
      /Cannot reach PostgreSQL at toolrow@127\.0\.0\.1:1\/toolrow \(from DATABASE_URL\)/,
    );
    expect(error.message).toMatch(/Check that the server is running/);
    expect(error.message).not.toMatch(/toolrow:toolrow/);
  });

  // In CI a missing server fails the run; elsewhere the test shows as skipped.
  const serverUrl = serviceUrl('postgres');
  it.runIf(serverUrl)('explains a wrong password and a missing database', async () => {
    const wrongPassword = new URL(serverUrl!);
    wrongPassword.password = 'definitely-wrong';
    const auth = await openDatabase({ env: { DATABASE_URL: wrongPassword.toString() } }).catch((e) => e);
    expect(auth.message).toMatch(/refused the login.*Check the user and password in DATABASE_URL/);
    expect(auth.message).not.toContain('definitely-wrong');
    const missing = new URL(serverUrl!);
    missing.pathname = '/toolrow_no_such_database';
    const noDb = await openDatabase({ env: { DATABASE_URL: missing.toString() } }).catch((e) => e);
    expect(noDb.message).toMatch(
      /does not exist.*Create it \(createdb\) or fix the database name in DATABASE_URL/,
    );
  });
});

describe('PGlite data directory', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'toolrow-datadir-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('keeps the database in <TOOLROW_DATA_DIR>/pgdata across opens, and creates nothing of its own in it', async () => {
    const first = await openDataSource({ env: { TOOLROW_DATA_DIR: dir } });
    expect(first.db.engine).toBe('pglite');
    expect(first.db.description).toBe(`PGlite at ${join(dir, 'pgdata')}`);
    await first.db.exec('CREATE TABLE kept (id int PRIMARY KEY, note text)');
    await first.db.query('INSERT INTO kept VALUES (1, $1)', ['still here']);
    await first.close();
    const second = await openDataSource({ env: { TOOLROW_DATA_DIR: dir } });
    expect((await second.db.query('SELECT note FROM kept')).rows).toEqual([{ note: 'still here' }]);
    const schemas = await second.db.query<{ name: string }>(
      "SELECT nspname AS name FROM pg_namespace WHERE nspname LIKE 'toolrow%'",
    );
    expect(schemas.rows).toEqual([]);
    await second.close();
  }, 90_000);
});

// pglite-disk: the same suite through the worker thread (values cross it by structured clone).
describe.each([...testEngines(), pgliteOnDisk])('Database on $name', ({ name, open }) => {
  let db: Database;
  let close: () => Promise<void>;
  beforeAll(async () => {
    const ds = await open();
    db = ds.db;
    close = () => ds.close();
    await db.exec(`CREATE TABLE items (id int PRIMARY KEY, label text NOT NULL);
      INSERT INTO items SELECT g, 'item ' || g FROM generate_series(1, 2500) AS g;`);
  }, 60_000);
  afterAll(() => close());

  it('returns the same JavaScript values on both engines', async () => {
    const { rows } =
      await db.query(`SELECT 42::int2 AS small, 42::int4 AS int, 9007199254740991::int8 AS safe_big,
      9007199254740993::int8 AS unsafe_big, 1.50::numeric AS num, 2.5::float8 AS float, true AS bool,
      '{"a":[1,2]}'::jsonb AS jsonb, '2026-01-02'::date AS date, '2026-01-01 12:00:00.5'::timestamp AS ts,
      '2026-01-01 12:00:00+02'::timestamptz AS tstz, interval '1 day 2 hours' AS ivl, '12:30'::time AS time,
      'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid AS uuid, ARRAY[1,2,3] AS ints, ARRAY['a','b c'] AS texts,
      NULL::text AS nothing, 'infinity'::timestamptz AS forever`);
    expect(rows[0]).toEqual({
      small: 42,
      int: 42,
      safe_big: 9007199254740991,
      unsafe_big: '9007199254740993',
      num: '1.50',
      float: 2.5,
      bool: true,
      jsonb: { a: [1, 2] },
      date: '2026-01-02',
      ts: new Date('2026-01-01T12:00:00.500Z'),
      tstz: new Date('2026-01-01T10:00:00Z'),
      ivl: '1 day 02:00:00',
      time: '12:30:00',
      uuid: 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
      ints: [1, 2, 3],
      texts: ['a', 'b c'],
      nothing: null,
      forever: 'infinity',
    });
    const bytes = (await db.query<{ b: Uint8Array }>(`SELECT '\\x0102ff'::bytea AS b`)).rows[0]!.b;
    expect([...bytes]).toEqual([1, 2, 255]);
  });

  it('commits a transaction, and rolls it back when the function throws', async () => {
    await db.transaction(async (tx) => {
      await tx.query('INSERT INTO items VALUES (10001, $1)', ['kept']);
    });
    await expect(
      db.transaction(async (tx) => {
        await tx.query('INSERT INTO items VALUES (10002, $1)', ['dropped']);
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    const { rows } = await db.query('SELECT id FROM items WHERE id > 10000 ORDER BY id');
    expect(rows).toEqual([{ id: 10001 }]);
    await db.query('DELETE FROM items WHERE id > 10000');
  });

  it('refuses to be called from inside its own transaction instead of deadlocking', async () => {
    await expect(db.transaction(() => db.query('SELECT 1'))).rejects.toThrow(
      /use the transaction handle \(tx\)/,
    );
    let leaked: { query: (sql: string) => Promise<unknown> } | undefined;
    await db.transaction(async (tx) => {
      leaked = tx;
    });
    await expect(leaked!.query('SELECT 1')).rejects.toThrow(/used after its transaction ended/);
    expect((await db.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
  });

  it('readOnly refuses every write and leaves the data unchanged (the READ ONLY transaction alone, no reader role)', async () => {
    const writes = [
      "INSERT INTO items VALUES (20000, 'x')",
      "UPDATE items SET label = 'x'",
      'DELETE FROM items',
      'TRUNCATE items',
      'CREATE TABLE sneaky (id int)',
      'DROP TABLE items',
      'WITH d AS (DELETE FROM items RETURNING *) SELECT count(*) FROM d',
      'SELECT * INTO copied FROM items',
      'SELECT * FROM items FOR UPDATE',
      "SELECT nextval('some_seq')",
    ];
    await db.exec('CREATE SEQUENCE IF NOT EXISTS some_seq');
    for (const sql of writes) {
      await expect(
        withReadLayers({ readerRole: false }, () => db.readOnly((tx) => tx.query(sql))),
        sql,
      ).rejects.toThrow(/read-only transaction/);
    }
    expect((await db.query('SELECT count(*)::int AS n FROM items')).rows).toEqual([{ n: 2500 }]);
    expect((await db.query("SELECT to_regclass('copied') AS t, to_regclass('sneaky') AS s")).rows).toEqual([
      { t: null, s: null },
    ]);
  });

  it('readQuery caps rows, flags truncation, and accepts only a query', async () => {
    const capped = await db.readQuery('SELECT id FROM items ORDER BY id;', [], { maxRows: 3 });
    expect(capped).toEqual({
      rows: [{ id: 1 }, { id: 2 }, { id: 3 }],
      fields: [{ name: 'id', typeId: 23 }],
      truncated: true,
      truncatedBy: 'rows',
    });
    const exact = await db.readQuery('SELECT id FROM items WHERE id <= $1 ORDER BY id', [3], { maxRows: 3 });
    expect(exact.truncated).toBe(false);
    expect(exact.rows).toHaveLength(3);
    for (const sql of [
      "INSERT INTO items VALUES (0, 'x')",
      'DELETE FROM items',
      'SELECT 1; DELETE FROM items',
      'VACUUM',
    ]) {
      await expect(db.readQuery(sql), sql).rejects.toThrow();
    }
    expect((await db.query('SELECT count(*)::int AS n FROM items')).rows).toEqual([{ n: 2500 }]);
  });

  it('readQuery bounds bytes: a huge value never leaves the server, and rows stop at the byte cap', async () => {
    const huge = await db.readQuery(
      "SELECT id, repeat('x', 5000000) AS blob, 'small' AS note FROM items WHERE id <= 3 ORDER BY id -- comment",
      [],
      { maxValueBytes: 1000 },
    );
    expect(huge.rows).toEqual([
      { id: 1, blob: null, note: 'small' },
      { id: 2, blob: null, note: 'small' },
      { id: 3, blob: null, note: 'small' },
    ]);
    expect(huge.fields.map((field) => field.name)).toEqual(['id', 'blob', 'note']);
    expect(huge.oversized).toEqual([1, 2, 3].map((_, row) => ({ row, column: 'blob', bytes: 5_000_000 })));
    expect(huge.truncated).toBe(false);

    const wide = await db.readQuery("SELECT id, repeat('y', 100) AS pad FROM items ORDER BY id", [], {
      maxRows: 2000,
      maxBytes: 10_000,
    });
    expect(wide.truncatedBy).toBe('bytes');
    expect(wide.rows.length).toBeGreaterThan(50);
    expect(wide.rows.length).toBeLessThan(110);
    expect(wide.rows.map((row) => row.id)).toEqual(wide.rows.map((_, index) => index + 1));
    // One row wider than the whole budget (many values, each under the value cap) is not returned.
    const oneWideRow = await db.readQuery(
      `SELECT ${Array.from({ length: 40 }, (_, index) => `repeat('z', 900) AS c${index}`).join(', ')}`,
      [],
      { maxBytes: 10_000, maxValueBytes: 1000 },
    );
    expect(oneWideRow).toMatchObject({ rows: [], truncated: true, truncatedBy: 'bytes' });
    // Types, params, VALUES and a statement with no columns go through the wrapping unchanged.
    const typed = await db.readQuery('SELECT $1::int AS n, now() AS at, ARRAY[1, 2] AS list', [7]);
    expect(typed.rows[0]).toMatchObject({ n: 7, list: [1, 2] });
    expect(typed.rows[0]!.at).toBeInstanceOf(Date);
    expect((await db.readQuery('VALUES (1, 2)')).rows).toEqual([{ column1: 1, column2: 2 }]);
    expect((await db.readQuery('SELECT FROM items LIMIT 2')).rows).toEqual([{}, {}]);
  });

  it('enforces statement_timeout on PostgreSQL and on-disk PGlite (in-memory PGlite has no timer)', async () => {
    const run = db.readOnly((tx) => tx.query('SELECT pg_sleep(0.5)'), { timeoutMs: 20 });
    if (name === 'postgres') await expect(run).rejects.toThrow(/statement timeout/);
    else if (name === 'pglite-disk')
      await expect(run).rejects.toMatchObject({
        code: 'timeout',
        message: expect.stringMatching(/ran longer than 0\.02 s and was stopped/),
      });
    else await expect(run).resolves.toBeDefined();
    expect((await db.query('SELECT count(*)::int AS n FROM items')).rows).toEqual([{ n: 2500 }]);
  });

  it('streams a cursor in batches, lets other calls run between batches, and closes on early exit', async () => {
    const seen: number[] = [];
    const sizes: number[] = [];
    let fields: unknown;
    for await (const batch of db.cursor<{ id: number }>(
      'SELECT id FROM items WHERE id > $1 ORDER BY id',
      [100],
      {
        batchSize: 1000,
        onFields: (received) => {
          fields = received;
        },
      },
    )) {
      sizes.push(batch.length);
      seen.push(...batch.map((row) => row.id));
      // Another caller gets through mid-stream (PGlite: between FETCHes; pg: another pooled client).
      expect((await db.query('SELECT count(*)::int AS n FROM items')).rows[0]).toEqual({ n: 2500 });
    }
    expect(sizes).toEqual([1000, 1000, 400]);
    expect(seen).toEqual(Array.from({ length: 2400 }, (_, index) => index + 101));
    expect(fields).toEqual([{ name: 'id', typeId: 23 }]);

    for await (const batch of db.cursor('SELECT id FROM items', [], { batchSize: 10 })) {
      expect(batch).toHaveLength(10);
      break;
    }
    expect(
      (await db.query("SELECT count(*)::int AS n FROM pg_cursors WHERE name LIKE 'toolrow%'")).rows,
    ).toEqual([{ n: 0 }]);

    const controller = new AbortController();
    const iterate = async () => {
      for await (const _ of db.cursor('SELECT id FROM items', [], {
        batchSize: 10,
        signal: controller.signal,
      })) {
        controller.abort();
      }
    };
    await expect(iterate()).rejects.toThrow(/abort/i);
    expect(
      (await db.query("SELECT count(*)::int AS n FROM pg_cursors WHERE name LIKE 'toolrow%'")).rows,
    ).toEqual([{ n: 0 }]);
  });

  it('a cursor refuses writes like readQuery does', async () => {
    const iterate = async () => {
      for await (const _ of db.cursor('DELETE FROM items RETURNING id')) {
        // unreachable
      }
    };
    await expect(iterate()).rejects.toThrow();
    expect((await db.query('SELECT count(*)::int AS n FROM items')).rows).toEqual([{ n: 2500 }]);
  });
});
