// One set of migrations, two dialects: both make the same tables and columns, and a PostgreSQL
// state store made by Toolrow 0.1 (migrations 1–8, test/fixtures/state-v8-postgres.sql) is, to this
// release, a store at version 8 that needs nothing.
import { readFile } from 'node:fs/promises';
import { APP_SCHEMA } from '@toolrow/datasource';
import { type Database, openDatabase } from '@toolrow/postgres';
import {
  createTestDatabase,
  missingPostgresError,
  type TestDatabase,
  testEngines,
} from '@toolrow/postgres/testing';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openState } from '../state.ts';
import { MIGRATIONS, migrate } from './migrations.ts';
import { openSqliteStore, postgresStore, type StateDb } from './state-db.ts';

const adminUrl = process.env.TOOLROW_TEST_DATABASE_URL?.trim();
const inCi = process.env.CI === 'true' || process.env.CI === '1';

async function sqliteColumns(store: StateDb): Promise<Record<string, string[]>> {
  const tables = (
    await sql<{
      name: string;
    }>`SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`.execute(store.q)
  ).rows;
  const out: Record<string, string[]> = {};
  for (const { name } of tables) {
    out[name] = (
      await sql<{ name: string }>`SELECT name FROM pragma_table_info(${name})`.execute(store.q)
    ).rows
      .map((column) => column.name)
      .sort();
  }
  return out;
}

async function postgresSchema(db: Database) {
  const columns = (
    await db.query<{ table_name: string; column_name: string; data_type: string; is_nullable: string }>(
      `SELECT table_name, column_name, data_type, is_nullable FROM information_schema.columns
       WHERE table_schema = $1 ORDER BY table_name, column_name`,
      [APP_SCHEMA],
    )
  ).rows;
  const indexes = (
    await db.query<{ indexname: string; indexdef: string }>(
      'SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = $1 ORDER BY indexname',
      [APP_SCHEMA],
    )
  ).rows;
  const checks = (
    await db.query<{ conname: string; def: string }>(
      `SELECT conname, pg_get_constraintdef(c.oid) AS def FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace
       WHERE n.nspname = $1 ORDER BY conname`,
      [APP_SCHEMA],
    )
  ).rows;
  return { columns, indexes, checks };
}

describe('the state schema on both dialects', () => {
  it('SQLite gets the tables and columns PostgreSQL gets, from the same migrations', async () => {
    if (!adminUrl) {
      if (inCi) throw missingPostgresError();
      return;
    }
    const lite = await openSqliteStore(':memory:');
    const database = await createTestDatabase(adminUrl, 'toolrow_s_');
    const server = postgresStore(await openDatabase({ url: database.url, env: {} }));
    try {
      await migrate(lite);
      await migrate(server);
      const raw = await openDatabase({ url: database.url, env: {} });
      const { columns } = await postgresSchema(raw).finally(() => raw.close());
      const expected: Record<string, string[]> = {};
      for (const column of columns) {
        expected[column.table_name] = [...(expected[column.table_name] ?? []), column.column_name];
      }
      for (const list of Object.values(expected)) list.sort();
      expect(await sqliteColumns(lite)).toEqual(expected);
    } finally {
      await lite.close();
      await server.close();
      await database.drop();
    }
  }, 60_000);
});

describe.runIf(adminUrl || inCi)('a PostgreSQL state store made by Toolrow 0.1', () => {
  let legacy: TestDatabase;
  let fresh: TestDatabase;
  beforeAll(async () => {
    if (!adminUrl) throw missingPostgresError();
    [legacy, fresh] = await Promise.all([
      createTestDatabase(adminUrl, 'toolrow_s_'),
      createTestDatabase(adminUrl, 'toolrow_s_'),
    ]);
    const db = await openDatabase({ url: legacy.url, env: {} });
    try {
      await db.exec(
        await readFile(new URL('../../test/fixtures/state-v8-postgres.sql', import.meta.url), 'utf8'),
      );
    } finally {
      await db.close();
    }
  }, 60_000);
  afterAll(async () => {
    await Promise.all([legacy?.drop(), fresh?.drop()]);
  });

  it('needs only the migrations after 0.1, then has the schema a new store gets: columns, types, indexes, constraints', async () => {
    const old = postgresStore(await openDatabase({ url: legacy.url, env: {} }));
    const made = postgresStore(await openDatabase({ url: fresh.url, env: {} }));
    try {
      const since = MIGRATIONS.map((migration) => migration.version).filter((version) => version > 8);
      expect(await migrate(old)).toEqual(since);
      expect(await migrate(made)).toEqual([8, ...since]);
    } finally {
      await Promise.all([old.close(), made.close()]);
    }
    const [a, b] = await Promise.all([
      openDatabase({ url: legacy.url, env: {} }),
      openDatabase({ url: fresh.url, env: {} }),
    ]);
    try {
      const [before, now] = await Promise.all([postgresSchema(a), postgresSchema(b)]);
      expect(now.columns).toEqual(before.columns);
      expect(now.indexes).toEqual(before.indexes);
      expect(now.checks).toEqual(before.checks);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  }, 60_000);

  it('works as a store: counters, upserts and the staging area', async () => {
    const [engine] = testEngines({});
    const source = await engine!.open({ seed: { orders: 10 } });
    const state = await openState({ source, env: {}, url: legacy.url });
    try {
      await state.conversations.save({ id: 'a', messages: [] });
      await state.conversations.save({ id: 'b', messages: [] });
      await state.conversations.save({ id: 'a', messages: [] });
      expect((await state.conversations.list()).map((c) => c.id)).toEqual(['a', 'b']);
      await state.attachments.add({ name: 'n', mediaType: 'text/plain', content: 'one' });
      await state.attachments.add({ name: 'n', mediaType: 'text/plain', content: 'two' });
      expect(new TextDecoder().decode((await state.attachments.get('n')).content)).toBe('two');
      const [change] = await state.staging.stageUpdate(
        'orders',
        [{ key: { id: 2 }, values: { status: 'refunded' } }],
        {
          actor: 'agent',
        },
      );
      expect(await state.staging.commit({ ids: [change!.id] })).toMatchObject({
        ok: true,
        changeIds: [change!.id],
      });
    } finally {
      await state.close();
      await source.close();
    }
  }, 60_000);
});
