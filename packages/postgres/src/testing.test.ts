import { serviceUrl } from '@toolrow/test-services';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { testEngines } from './testing.ts';

describe('testEngines', () => {
  it('always has PGlite; PostgreSQL only with TOOLROW_TEST_DATABASE_URL', () => {
    expect(testEngines({}).map((engine) => engine.name)).toEqual(['pglite']);
    expect(
      testEngines({ TOOLROW_TEST_DATABASE_URL: 'postgres://u@h/db' }).map((engine) => engine.name),
    ).toEqual(['pglite', 'postgres']);
  });

  it('in CI the PostgreSQL half fails loudly when the variable is missing, instead of being skipped', async () => {
    const engines = testEngines({ CI: 'true' });
    expect(engines.map((engine) => engine.name)).toEqual(['pglite', 'postgres']);
    await expect(engines[1]!.open()).rejects.toThrow(
      /CI=true but TOOLROW_TEST_DATABASE_URL is not set.*must run in CI/,
    );
  });

  // In CI a missing server fails the run; elsewhere the test shows as skipped.
  const url = serviceUrl('postgres');
  it.runIf(url)(
    'gives each open() its own PostgreSQL database and drops it on close',
    async () => {
      const postgres = testEngines({ TOOLROW_TEST_DATABASE_URL: url })[1]!;
      const [a, b] = await Promise.all([postgres.open(), postgres.open()]);
      const name = async (ds: typeof a) =>
        (await ds.db.query<{ db: string }>('SELECT current_database() AS db')).rows[0]!.db;
      const [nameA, nameB] = [await name(a), await name(b)];
      expect(nameA).toMatch(/^toolrow_t_[0-9a-f]{12}$/);
      expect(nameA).not.toBe(nameB);
      await a.db.exec('CREATE TABLE only_in_a (id int)');
      expect((await b.db.query("SELECT to_regclass('only_in_a') AS t")).rows).toEqual([{ t: null }]);
      await Promise.all([a.close(), b.close()]);
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      try {
        const left = await admin.query('SELECT datname FROM pg_database WHERE datname = ANY($1)', [
          [nameA, nameB],
        ]);
        expect(left.rows).toEqual([]);
      } finally {
        await admin.end();
      }
    },
    60_000,
  );
});
