// Toolrow over production-like credentials, on a real PostgreSQL server: the app reads through a
// user granted only SELECT, writes commits through a second user, keeps its own state in a
// database of its own, and creates nothing in the user's database.
import { randomBytes } from 'node:crypto';
import type { StagedChange, TableInfo } from '@toolrow/desktop/wire';
import { hardeningSql, isSqlSource, openDataSource, readerRoleSql, sqlDatabaseOf } from '@toolrow/postgres';
import { createTestDatabase, TEST_SEED_NOW } from '@toolrow/postgres/testing';
import { openToolrow, type Toolrow } from '@toolrow/state';
import { describeWithService, serviceUrl } from '@toolrow/test-services';
import { invokeTool } from '@toolrow/tools';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { api, startTestServer, type TestServer } from './test-support.ts';

const adminUrl = serviceUrl('postgres');

describeWithService('postgres', 'the app over a SELECT-only PostgreSQL user', () => {
  const suffix = randomBytes(4).toString('hex');
  const reader = `ro_${suffix}`;
  const writer = `rw_${suffix}`;
  const readerRole = `toolrow_reader_${suffix}`;
  let data: Awaited<ReturnType<typeof createTestDatabase>>;
  let stateDb: Awaited<ReturnType<typeof createTestDatabase>>;
  let urls: { reader: string; writer: string; state: string };
  let toolrow: Toolrow;
  let app: TestServer;
  const asAdmin = async <T>(fn: (client: pg.Client) => Promise<T>, url = data.url): Promise<T> => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return await fn(client);
    } finally {
      await client.end();
    }
  };
  const urlFor = (user: string) => {
    const url = new URL(data.url);
    url.username = user;
    url.password = 'secret';
    return url.toString();
  };
  const schemas = () =>
    asAdmin(async (client) =>
      (
        await client.query<{ nspname: string }>(
          "SELECT nspname FROM pg_namespace WHERE nspname LIKE 'toolrow%'",
        )
      ).rows.map((row) => row.nspname),
    );

  beforeAll(async () => {
    [data, stateDb] = await Promise.all([
      createTestDatabase(adminUrl!),
      createTestDatabase(adminUrl!, 'toolrow_s_'),
    ]);
    // The sample shop, made by its owner (the admin), before any Toolrow process sees the database.
    const owner = await openDataSource({ url: data.url, env: {} });
    await owner.seed({ orders: 300, now: TEST_SEED_NOW });
    await owner.close();
    await asAdmin(async (client) => {
      await client.query(`CREATE ROLE ${reader} LOGIN PASSWORD 'secret'`);
      await client.query(`CREATE ROLE ${writer} LOGIN PASSWORD 'secret'`);
      await client.query(`GRANT USAGE ON SCHEMA public TO ${reader}, ${writer}`);
      await client.query(`GRANT SELECT ON ALL TABLES IN SCHEMA public TO ${reader}`);
      await client.query(`GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO ${writer}`);
      await client.query(`GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO ${writer}`);
      // The reader may not create anything in the database or its public schema.
      await client.query(`REVOKE CREATE ON SCHEMA public FROM PUBLIC`);
      await client.query(`REVOKE CREATE ON DATABASE ${data.name} FROM PUBLIC`);
    });
    urls = { reader: urlFor(reader), writer: urlFor(writer), state: stateDb.url };
    toolrow = await openToolrow({
      env: { DATABASE_URL: urls.reader, TOOLROW_COMMIT_URL: urls.writer, TOOLROW_STATE_URL: urls.state },
    });
    app = await startTestServer(toolrow, { desktopDir: null });
  }, 180_000);

  afterAll(async () => {
    await app?.close();
    await toolrow?.close();
    await data?.drop();
    await stateDb?.drop();
    await asAdmin(async (client) => {
      await client.query(`DROP ROLE IF EXISTS ${reader}`);
      await client.query(`DROP ROLE IF EXISTS ${writer}`);
      await client.query(`DROP ROLE IF EXISTS ${readerRole}`);
    }, adminUrl).catch(() => {});
  });

  it('browses, queries and runs the read tools', async () => {
    const { tables } = await api<{ tables: TableInfo[] }>(app, '/api/tables');
    expect(tables.map((table) => table.name)).toEqual(
      expect.arrayContaining(['orders', 'customers', 'products', 'order_items']),
    );
    const page = await api<{ rows: unknown[] }>(app, '/api/tables/orders/rows', { body: { limit: 10 } });
    expect(page.rows).toHaveLength(10);
    const query = await api<{ rows: unknown[] }>(app, '/api/query', {
      body: { sql: 'select status, count(*) from orders group by 1' },
    });
    expect(query.rows.length).toBeGreaterThan(0);
    const ctx = { source: toolrow.source, state: toolrow.state, profile: 'default', actor: 'agent' as const };
    expect((await invokeTool('countRows', { table: 'orders' }, ctx)).count).toBe(300);
    expect(
      (await invokeTool('runQuery', { sql: 'select count(*) as n from customers' }, ctx)).rows,
    ).toHaveLength(1);
    expect((await invokeTool('describeTable', { table: 'orders' }, ctx)).columns.length).toBeGreaterThan(0);
  });

  it('reads through a hardened reader role as well, which db setup-roles makes, and every layer is on', async () => {
    // What a DBA runs (toolrow db setup-roles), hardening included: PUBLIC loses temp tables,
    // large objects and session functions, and the SELECT-only login must still read.
    await asAdmin((client) =>
      client.query(
        readerRoleSql({ role: readerRole, schemas: ['public'], grantee: reader }) + hardeningSql(),
      ),
    );
    const layered = await openToolrow({
      env: {
        DATABASE_URL: urls.reader,
        TOOLROW_STATE_URL: urls.state,
        TOOLROW_READER_ROLE: readerRole,
      },
    });
    try {
      expect(isSqlSource(layered.source) && layered.source.readerRole).toMatchObject({
        state: 'in-use',
        hardened: true,
      });
      expect(sqlDatabaseOf(layered.source).readerRole).toBe(readerRole);
      const ctx = {
        source: layered.source,
        state: layered.state,
        profile: 'default',
        actor: 'agent' as const,
      };
      const read = await invokeTool(
        'runQuery',
        { sql: 'select current_user as who, count(*) as n from orders' },
        ctx,
      );
      expect(read.rows).toEqual([{ who: readerRole, n: 300 }]);
      const layers = await layered.source.readLayers();
      expect(layers.map((layer) => [layer.layer, layer.active])).toEqual([
        ['one statement', true],
        ['read-only transaction', true],
        ['reader role', true],
        ['login user', true],
      ]);
    } finally {
      await layered.close();
    }
  });

  it('exports a table to a file', async () => {
    const job = await api<{ id: string }>(app, '/api/exports', {
      body: { table: 'orders', format: 'csv' },
    });
    await toolrow.state.exports.idle();
    const done = await api<{ state: string; rowsDone: number }>(app, `/api/exports/${job.id}`);
    expect(done).toMatchObject({ state: 'done', rowsDone: 300 });
  });

  it('stages through the reader and commits through the writer', async () => {
    const before = await asAdmin(
      async (client) => (await client.query('SELECT status FROM orders WHERE id = 1')).rows[0],
    );
    const next = before.status === 'refunded' ? 'cancelled' : 'refunded';
    await api(app, '/api/staging/update', {
      body: { table: 'orders', key: { id: 1 }, values: { status: next } },
    });
    const { changes } = await api<{ changes: StagedChange[] }>(app, '/api/staging');
    expect(changes).toHaveLength(1);
    expect(await api(app, '/api/staging/commit', { body: {} })).toEqual({ committed: 1, conflicts: [] });
    const after = await asAdmin(
      async (client) => (await client.query('SELECT status FROM orders WHERE id = 1')).rows[0],
    );
    expect(after.status).toBe(next);
  });

  it('without TOOLROW_COMMIT_URL a commit says it needs a user with write rights, and keeps the changes', async () => {
    const readOnly = await openToolrow({ env: { DATABASE_URL: urls.reader, TOOLROW_STATE_URL: urls.state } });
    try {
      await readOnly.state.staging.stageDelete('order_items', [1], { actor: 'user' });
      const error = await readOnly.state.staging.commit().catch((caught: unknown) => caught);
      expect(error).toMatchObject({ code: 'permission' });
      expect((error as Error).message).toMatch(
        /Committing needs the right to DELETE on public\.order_items.*Set TOOLROW_COMMIT_URL to a PostgreSQL user with write rights.*Nothing was applied/,
      );
      expect((await readOnly.state.staging.list()).map((change) => change.table)).toEqual([
        'public.order_items',
      ]);
      await readOnly.state.staging.discard();
    } finally {
      await readOnly.close();
    }
    expect(
      await asAdmin(
        async (client) =>
          (await client.query('SELECT count(*)::int AS n FROM order_items WHERE id = 1')).rows[0].n,
      ),
    ).toBe(1);
  });

  it('created no toolrow schema or table in the user database; its state is in its own', async () => {
    expect(await schemas()).toEqual([]);
    const own = await asAdmin(
      async (client) =>
        (
          await client.query<{ n: number }>(
            "SELECT count(*)::int AS n FROM pg_namespace WHERE nspname = 'toolrow_app'",
          )
        ).rows[0]!.n,
      stateDb.url,
    );
    expect(own).toBe(1);
  });

  it('refuses a state URL that names the user database', async () => {
    await expect(
      openToolrow({ env: { DATABASE_URL: urls.reader, TOOLROW_STATE_URL: urls.writer } }),
    ).rejects.toThrow(
      /TOOLROW_STATE_URL points at the same database as DATABASE_URL.*give it a database of its own/,
    );
  });
});
