// The app's SQL routes (/api/query, /api/exports) against the attack corpus, over a real socket:
// on PGlite with hostile session defaults and on a PostgreSQL database whose defaults say
// standard_conforming_strings = off. Every form is refused or runs without effect. (The layers
// alone are proven in @toolrow/tools' read-layers.test.ts; these routes share them.)

import { sqlDatabaseOf } from '@toolrow/postgres';
import { dataFingerprint, stateFingerprint } from '@toolrow/postgres/testing';
import { openToolrow, type Toolrow } from '@toolrow/state';
import { createTestEnvironment, type TestEnvironment } from '@toolrow/state/testing';
import { serviceUrl } from '@toolrow/test-services';
import { ATTACKS } from '@toolrow/tools/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, openSeededSource, startTestServer, type TestServer } from './test-support.ts';

const adminUrl = serviceUrl('postgres');

interface Setup {
  name: string;
  single: boolean;
  open(): Promise<{ toolrow: Toolrow; cleanup(): Promise<void> }>;
}

const SETUPS: Setup[] = [
  {
    name: 'PGlite, standard_conforming_strings off in the session',
    single: true,
    async open() {
      const toolrow = await openSeededSource(60);
      await sqlDatabaseOf(toolrow.source).exec(
        'SET standard_conforming_strings = off; SET search_path = pg_temp, public',
      );
      return { toolrow, cleanup: () => toolrow.close() };
    },
  },
  ...(adminUrl
    ? [
        {
          name: 'PostgreSQL, standard_conforming_strings off on the database',
          single: false,
          async open() {
            const environment: TestEnvironment = await createTestEnvironment('postgres');
            const first = await openToolrow({ env: environment.env, cwd: environment.cwd });
            await first.source.seed!({ orders: 60 });
            const name = (
              await sqlDatabaseOf(first.source).query<{ db: string }>('SELECT current_database() AS db')
            ).rows[0]!.db;
            await sqlDatabaseOf(first.source).exec(
              `ALTER DATABASE "${name}" SET standard_conforming_strings = off; ALTER DATABASE "${name}" SET search_path = pg_temp, public`,
            );
            await first.close();
            const toolrow = await openToolrow({ env: environment.env, cwd: environment.cwd });
            return {
              toolrow,
              async cleanup() {
                await toolrow.close();
                await environment.cleanup();
              },
            };
          },
        },
      ]
    : []),
];

describe.each(SETUPS)('the SQL routes on $name', (setup) => {
  let toolrow: Toolrow;
  let cleanup: () => Promise<void>;
  let app: TestServer;

  beforeAll(async () => {
    ({ toolrow, cleanup } = await setup.open());
    app = await startTestServer(toolrow);
  }, 120_000);
  afterAll(async () => {
    await app?.close();
    await cleanup?.();
  });

  const post = (path: string, body: unknown) =>
    fetch(`${app.url}${path}`, {
      method: 'POST',
      headers: bearer(app.token, { 'content-type': 'application/json' }),
      body: JSON.stringify(body),
    });

  it('refuses every write form (or runs it as the one harmless SELECT it is), and nothing changes', async () => {
    const before = {
      data: await dataFingerprint(toolrow.source),
      state: await stateFingerprint(toolrow.source, { session: setup.single }),
    };
    const accepted: string[] = [];
    for (const attack of ATTACKS) {
      const query = await post('/api/query', { sql: attack.sql });
      const exported = await post('/api/exports', { sql: attack.sql, format: 'csv' });
      await query.body?.cancel();
      await exported.body?.cancel();
      expect(query.status, attack.sql).toBeLessThan(500);
      expect(exported.status, attack.sql).toBeLessThan(500);
      if (query.ok || exported.ok) accepted.push(attack.sql);
    }
    await toolrow.state.exports.idle();
    // Only the backslash forms get through: one SELECT of two strings, as the pinned server reads them.
    expect(accepted.sort()).toEqual(
      ATTACKS.filter((attack) => attack.oneSelect)
        .map((attack) => attack.sql)
        .sort(),
    );
    expect(await dataFingerprint(toolrow.source)).toEqual(before.data);
    expect(await stateFingerprint(toolrow.source, { session: setup.single })).toEqual(before.state);
  }, 300_000);

  it("the issue's attack reads back its two strings", async () => {
    const response = await post('/api/query', {
      sql: "SELECT 'x\\' AS a, '; COMMIT; DELETE FROM order_items; --' AS b",
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { rows: Record<string, unknown>[] };
    expect(body.rows).toEqual([{ a: 'x\\', b: '; COMMIT; DELETE FROM order_items; --' }]);
  });
});
