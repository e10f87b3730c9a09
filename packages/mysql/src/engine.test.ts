// The MySQL engine on a MariaDB server, over a database the mariadb client loaded from a dump:
// schema, values as stored, rows by filter, reads bounded by rows, bytes and time (stopped on the
// server), commits with PostgreSQL's conflict rules (a row changed by the client mid-test), exports.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ChangeToApply, type DataSourceWith, isDataSourceError } from '@toolrow/datasource';
import { createMemoryExportJobStore } from '@toolrow/datasource-utils';
import { describeWithService } from '@toolrow/test-services';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMariadbClient, VENUES_SQL } from '../test/made-by-mariadb.ts';
import { mysqlEngine } from './engine.ts';
import { createMysqlTestDatabase, type MysqlTestDatabase } from './testing.ts';
import { mysqlAddressOf } from './url.ts';

type Source = DataSourceWith<'changes' | 'createExportEngine' | 'seed'>;

describe('mysql:// and mariadb:// URLs', () => {
  const parse = (url: string) => mysqlEngine.parseUrl(url, { cwd: '/x', field: 'url' });
  it.each([
    ['mysql://me:secret@db:3307/shop', 'mysql://me@db:3307/shop', 'MySQL me@db:3307/shop', 'secret'],
    ['mariadb://db/shop', 'mariadb://db/shop', 'MariaDB root@db:3306/shop', undefined],
    ['mysql://a%40b:p%2Fw@[::1]/s?ssl=true', 'mysql://a%40b@[::1]/s?ssl=true', 'MySQL a@b@::1:3306/s', 'p/w'],
  ])('%s is stored as %s', (url, stored, description, password) => {
    expect(parse(url)).toEqual({
      driver: 'mysql',
      url: stored,
      description,
      ...(password ? { password } : {}),
    });
  });
  it.each([
    ['mysql://db', /name the database after the host/],
    ['mysql://db/a/b', /name the database/],
    ['mysql://db/shop?sslmode=require', /unknown URL setting 'sslmode'.*\?ssl=true/],
    ['mysql://db/shop?ssl=maybe', /ssl=maybe is neither true nor false/],
    ['postgres://db/shop', /not MySQL's/],
  ])('%s is refused: %s', (url, message) => {
    expect(() => parse(url)).toThrow(message);
  });
});

describeWithService(
  'mariadb',
  'the MySQL engine on a MariaDB database the mariadb client made',
  (adminUrl) => {
    let db: MysqlTestDatabase;
    let ds: Source;
    let dir: string;
    const client = (sql: string) => runMariadbClient({ ...mysqlAddressOf(db.url, 'url') }, sql);

    beforeAll(async () => {
      db = await createMysqlTestDatabase(adminUrl);
      client(VENUES_SQL);
      dir = await mkdtemp(join(tmpdir(), 'toolrow-mysql-'));
      ds = (await mysqlEngine.open({ url: db.url, dataDir: dir })) as Source;
    });

    afterAll(async () => {
      await ds?.close();
      await db?.drop();
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    it('reads tables, views, comments, composite keys, foreign keys both ways, enums and generated columns', async () => {
      const { tables } = await ds.schema.get();
      expect(tables.map((table) => `${table.name}:${table.kind}`)).toEqual([
        'bookings:table',
        'confirmed_bookings:view',
        'rooms:table',
        'venues:table',
      ]);
      const venues = tables.find((table) => table.name === 'venues')!;
      expect(venues.qualifiedName).toBe(`${db.name}.venues`);
      expect(venues.comment).toBe('Places that can be booked');
      expect(venues.columns[0]).toMatchObject({
        name: 'id',
        comment: "The venue's number",
        generated: true,
        primaryKey: true,
      });
      expect(venues.columns.find((column) => column.name === 'visits')!.type).toBe('bigint(20) unsigned');
      expect(venues.indexes.map((index) => [index.name, index.unique])).toEqual(
        expect.arrayContaining([
          ['PRIMARY', true],
          ['venues_name', true],
        ]),
      );
      const rooms = tables.find((table) => table.name === 'rooms')!;
      expect(rooms.primaryKey).toEqual(['venue_id', 'room_no']);
      expect(rooms.foreignKeys).toEqual([
        expect.objectContaining({ toTable: `${db.name}.venues`, toColumns: ['id'], onDelete: 'cascade' }),
      ]);
      expect(rooms.referencedBy).toEqual([
        expect.objectContaining({ fromTable: `${db.name}.bookings`, fromColumns: ['venue_id', 'room_no'] }),
      ]);
      const bookings = tables.find((table) => table.name === 'bookings')!;
      expect(bookings.columns.find((column) => column.name === 'status')!.type).toBe(
        "enum('held','confirmed','cancelled')",
      );
      expect(bookings.columns.find((column) => column.name === 'total')!.generated).toBe(true);
      expect(bookings.columns.find((column) => column.name === 'status')!.default).toBe("'held'");
    });

    it('values come back as stored: exact decimals and big integers, a BIT as 0/1, TIMESTAMP in UTC, emoji', async () => {
      const venue = await ds.rows.get('venues', { id: 1 });
      expect(venue).toEqual({
        id: 1,
        name: 'Café Müller 🎷',
        city: 'Wuppertal',
        capacity: 120,
        step_free: 1,
        visits: '18446744073709551615',
      });
      expect((await ds.rows.get('venues', { id: 2 }))!.visits).toBe('9007199254740993');
      const result = await ds.queries.run(
        'select guest, price, total, starts_at, booked_at from bookings order by id limit 1',
      );
      // 10:00 at +05:30, as the dump's session wrote it, is 04:30 UTC.
      expect(result.rows).toEqual([
        {
          guest: 'Zoë 🐙',
          price: '1234.50',
          total: '2469.00',
          starts_at: '2026-12-24 19:30:00',
          booked_at: '2026-12-01 04:30:00',
        },
      ]);
      expect(await ds.rows.get('rooms', { venue_id: 3, room_no: 10 })).toEqual({
        venue_id: 3,
        room_no: 10,
        label: '大ホール',
      });
    });

    it('reads rows by the filter language: text matches ignore case, like keeps it, pages by a sort do not repeat', async () => {
      const page = await ds.rows.select('bookings', {
        filter: {
          and: [
            { column: 'guest', op: 'contains', value: 'ZOË' },
            { column: 'price', op: 'gt', value: 100 },
          ],
        },
        columns: ['id', 'guest'],
      });
      expect(page.rows).toEqual([{ id: 1, guest: 'Zoë 🐙' }]);
      expect(
        (await ds.rows.select('bookings', { filter: { column: 'guest', op: 'like', value: 'ola' } })).rows,
      ).toEqual([]);
      expect(
        (await ds.rows.select('bookings', { filter: { column: 'guest', op: 'ilike', value: 'ola' } })).rows,
      ).toHaveLength(1);
      expect(
        await ds.rows.count('bookings', { column: 'status', op: 'in', value: ['confirmed', 'held'] }),
      ).toBe(3);
      const sorted = await ds.rows.select('venues', {
        sort: [{ column: 'capacity', direction: 'desc' }],
        limit: 2,
      });
      expect(sorted.rows.map((row) => row.capacity)).toEqual([800, 120]);
      expect(sorted.hasMore).toBe(true);
      const second = await ds.rows.select('venues', {
        sort: [{ column: 'capacity', direction: 'desc' }],
        limit: 2,
        offset: 2,
      });
      expect(second.rows.map((row) => row.capacity)).toEqual([40]);
    });

    it('a read stops at its row and byte bounds, and a value over its bound never reaches the result', async () => {
      const rows = await ds.queries.run('select * from bookings order by id', { maxRows: 2 });
      expect(rows.rows.map((row) => row.id)).toEqual([1, 2]);
      expect(rows).toMatchObject({ truncated: true, truncatedBy: 'rows' });
      const bytes = await ds.queries.run('select repeat(guest, 50) as long_guest from bookings', {
        maxBytes: 300,
      });
      expect(bytes.truncatedBy).toBe('bytes');
      const big = await ds.queries.run(
        "select id, repeat('x', 100000) as blob_ from venues order by id limit 1",
        {
          maxValueBytes: 1000,
        },
      );
      expect(big.rows).toEqual([{ id: 1, blob_: null }]);
      expect(big.oversized).toEqual([{ row: 0, column: 'blob_', bytes: 100000 }]);
      // The stopped reads' connections are gone; the next read is served.
      expect((await ds.queries.run('select count(*) as n from venues')).rows).toEqual([{ n: 3 }]);
    });

    it('a read past its time limit is stopped on the server, and a cancelled one too, while others go on', async () => {
      const started = Date.now();
      const slow = ds.queries.run('select sleep(30) as s', { timeoutMs: 500 });
      const meanwhile = await ds.queries.run('select 1 as one');
      expect(meanwhile.rows).toEqual([{ one: 1 }]);
      await expect(slow).rejects.toSatisfy(
        (error: unknown) => isDataSourceError(error) && error.code === 'timeout',
      );
      expect(Date.now() - started).toBeLessThan(20_000);
      const controller = new AbortController();
      const cancelled = ds.queries.run('select sleep(30) as s', {
        timeoutMs: 60_000,
        signal: controller.signal,
      });
      // Wait until the server runs it, then cancel.
      for (;;) {
        const [running] = (await db.admin(
          "SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE INFO LIKE 'select sleep(30)%'",
        )) as { n: number }[];
        if (Number(running!.n) > 0) break;
        await new Promise((resolve) => setImmediate(resolve));
      }
      controller.abort();
      await expect(cancelled).rejects.toSatisfy(
        (error: unknown) => isDataSourceError(error) && error.code === 'aborted',
      );
      for (;;) {
        const [running] = (await db.admin(
          "SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE INFO LIKE 'select sleep(30)%'",
        )) as { n: number }[];
        if (Number(running!.n) === 0) break;
        await new Promise((resolve) => setImmediate(resolve));
      }
    });

    it('plans without running and names unknown names with the nearest', async () => {
      const plan = await ds.queries.plan('select * from bookings where venue_id = 1');
      expect(plan.lines.join('\n')).toMatch(/table=bookings/);
      const checked = await ds.queries.check('select gest from bookings', { names: true });
      expect(checked.problems?.[0]).toMatch(/Unknown column 'gest'.*Did you mean 'guest'/);
      const table = await ds.queries.check('select * from booking', { names: true });
      expect(table.problems?.[0]).toMatch(/doesn't exist.*'bookings'/);
    });

    describe('commits', () => {
      let nextId = 1;
      const change = (
        fields: Partial<ChangeToApply> & Pick<ChangeToApply, 'kind' | 'table'>,
      ): ChangeToApply => ({
        id: nextId++,
        schema: db.name,
        keyJson: null,
        beforeJson: null,
        valuesJson: null,
        ...fields,
      });

      it('canonical values are the column types’ own, and a bad value names its column', async () => {
        const bookings = await ds.schema.resolveTable('bookings');
        expect(await ds.changes.canonicalJson(bookings, { price: '12.5', nights: '3', guest: 'Ana' })).toBe(
          '{"price":12.50,"nights":3,"guest":"Ana"}',
        );
        await expect(ds.changes.canonicalJson(bookings, { nights: 'many' })).rejects.toThrow(/nights/);
        const venues = await ds.schema.resolveTable('venues');
        expect(await ds.changes.currentRowJson(venues, { id: 1 })).toBe(
          '{"id":1,"name":"Café Müller 🎷","city":"Wuppertal","capacity":120,"step_free":1,"visits":18446744073709551615}',
        );
      });

      it('applies an update, an insert and a delete in one transaction; the outcome is read from the rows', async () => {
        const venues = await ds.schema.resolveTable('venues');
        const before = (await ds.changes.currentRowJson(venues, { id: 2 }))!;
        const changes = [
          change({
            kind: 'update',
            table: 'venues',
            keyJson: '{"id":2}',
            beforeJson: before,
            valuesJson: await ds.changes.canonicalJson(venues, { capacity: 45 }),
          }),
          change({
            kind: 'insert',
            table: 'rooms',
            keyJson: '{"venue_id":2,"room_no":2}',
            valuesJson: '{"venue_id":2,"room_no":2,"label":"Annex"}',
          }),
          change({
            kind: 'delete',
            table: 'bookings',
            keyJson: '{"id":3}',
            beforeJson: (await ds.changes.currentRowJson(await ds.schema.resolveTable('bookings'), {
              id: 3,
            }))!,
          }),
        ];
        let xid = '';
        const result = await ds.changes.apply(changes, {
          onTransaction: async (id) => {
            xid = id;
          },
        });
        expect(result).toEqual({ ok: true, applied: { insert: 1, update: 1, delete: 1 } });
        expect(client('SELECT capacity FROM venues WHERE id = 2')).toMatch(/45/);
        expect(await ds.changes.transactionStatus(xid, changes)).toBe('committed');
      });

      it('a row the mariadb client changed since it was staged is a conflict, and nothing is applied', async () => {
        const venues = await ds.schema.resolveTable('venues');
        const before = (await ds.changes.currentRowJson(venues, { id: 3 }))!;
        client("UPDATE venues SET city = 'Kyoto' WHERE id = 3");
        const changes = [
          change({
            kind: 'update',
            table: 'venues',
            keyJson: '{"id":3}',
            beforeJson: before,
            valuesJson: '{"capacity":1}',
          }),
          change({
            kind: 'insert',
            table: 'rooms',
            keyJson: '{"venue_id":1,"room_no":1}',
            valuesJson: '{"venue_id":1,"room_no":1,"label":"Again"}',
          }),
          change({ kind: 'delete', table: 'bookings', keyJson: '{"id":999}', beforeJson: '{}' }),
        ];
        expect(await ds.changes.check(changes)).toEqual([
          expect.objectContaining({ reason: 'changed', changedColumns: ['city'] }),
          expect.objectContaining({ reason: 'exists' }),
          expect.objectContaining({ reason: 'missing' }),
        ]);
        const result = await ds.changes.apply(changes);
        expect(result.ok).toBe(false);
        expect(client('SELECT capacity, city FROM venues WHERE id = 3')).toMatch(/800\s+Kyoto/);
        expect(await ds.changes.transactionStatus('x', [changes[0]!])).toBe('unknown');
      });

      it('a delete of a row still referenced is named before the commit', async () => {
        const rooms = await ds.schema.resolveTable('rooms');
        const before = (await ds.changes.currentRowJson(rooms, { venue_id: 1, room_no: 2 }))!;
        const conflicts = await ds.changes.check([
          change({
            kind: 'delete',
            table: 'rooms',
            keyJson: '{"venue_id":1,"room_no":2}',
            beforeJson: before,
          }),
        ]);
        expect(conflicts).toEqual([expect.objectContaining({ table: `${db.name}.rooms` })]);
      });
    });

    it('exports a table and a query as CSV, streamed from the server', async () => {
      const engine = ds.createExportEngine(dir, createMemoryExportJobStore());
      const done = await engine.run({
        source: { table: 'venues', columns: ['id', 'name', 'visits'] },
        format: 'csv',
        actor: 'user',
      });
      expect(done.state, done.error ?? '').toBe('done');
      expect(await readFile(done.path!, 'utf8')).toMatch(
        /^id,name,visits\r\n1,Café Müller 🎷,18446744073709551615\r\n/,
      );
      const answered = await engine.run({
        source: { sql: 'select guest, price from bookings order by id' },
        format: 'ndjson',
        actor: 'user',
      });
      expect(answered.state, answered.error ?? '').toBe('done');
      expect((await readFile(answered.path!, 'utf8')).split('\n')[0]).toBe(
        '{"guest":"Zoë 🐙","price":"1234.50"}',
      );
      await expect(
        engine.run({ source: { sql: 'delete from bookings' }, format: 'csv', actor: 'user' }),
      ).rejects.toThrow(/DELETE is not a read/);
    });

    it('db setup-roles prints a SELECT-only account, --apply makes it, and reads through it hold the third layer', async () => {
      const layer = async (source: Source) =>
        (await source.readLayers()).find((each) => each.layer === 'SELECT-only account')!;
      expect(await layer(ds)).toMatchObject({
        active: false,
        detail: expect.stringMatching(/may also ALL PRIVILEGES.*setup-roles/),
      });
      const account = `toolrow_reader_${db.name.slice(-6)}`;
      const printed = await mysqlEngine.readLayerSetup!({ url: db.url, flags: { role: account } });
      expect(printed.text).toBe(
        `CREATE USER IF NOT EXISTS '${account}'@'%' IDENTIFIED BY '<choose a password>';\nGRANT SELECT ON \`${db.name}\`.* TO '${account}'@'%';\n`,
      );
      expect(printed.advice).toMatch(/--apply.*TOOLROW_COMMIT_URL/);
      const applied = await mysqlEngine.readLayerSetup!({
        url: db.url,
        flags: { role: account, apply: true },
      });
      const readerUrl = /DATABASE_URL=(\S+)/.exec(applied.text)![1]!;
      const reader = (await mysqlEngine.open({ url: readerUrl, dataDir: dir })) as Source;
      try {
        expect(await layer(reader)).toMatchObject({ active: true });
        expect((await reader.queries.run('select count(*) as n from venues')).rows).toEqual([{ n: 3 }]);
        // Commits through it are refused by the server, naming what to do.
        const venues = await reader.schema.resolveTable('venues');
        const before = (await reader.changes.currentRowJson(venues, { id: 1 }))!;
        await expect(
          reader.changes.apply([
            {
              id: 1,
              kind: 'update',
              schema: db.name,
              table: 'venues',
              keyJson: '{"id":1}',
              beforeJson: before,
              valuesJson: '{"capacity":1}',
            },
          ]),
        ).rejects.toThrow(/TOOLROW_COMMIT_URL at an account with INSERT, UPDATE and DELETE/);
      } finally {
        await reader.close();
        await db.admin(`DROP USER IF EXISTS '${account}'@'%'`);
      }
    });

    it('seeds the sample shop in a database of its own', async () => {
      const shop = await createMysqlTestDatabase(adminUrl);
      const source = (await mysqlEngine.open({ url: shop.url, dataDir: dir })) as Source;
      try {
        const seeded = await source.seed({ orders: 200, now: new Date('2026-06-01T00:00:00Z') });
        expect(seeded.alreadySeeded).toBe(false);
        expect(seeded.counts.orders).toBe(200);
        expect(await source.rows.count('orders')).toBe(200);
        expect((await source.schema.resolveTable('orders')).foreignKeys[0]!.toTable).toBe(
          `${shop.name}.customers`,
        );
        expect((await source.seed({ orders: 200 })).alreadySeeded).toBe(true);
      } finally {
        await source.close();
        await shop.drop();
      }
    });
  },
);
