// The SQLite engine on a file made by the sqlite3 shell: schema, rows by filter, queries bounded by
// time (a runaway stopped while other reads go on), commits with PostgreSQL's conflict rules, and exports.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ChangeToApply, type DataSourceWith, isDataSourceError } from '@toolrow/datasource';
import { createMemoryExportJobStore } from '@toolrow/datasource-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeLibrary } from '../test/made-by-sqlite3.ts';
import { sqliteEngine } from './engine.ts';

describe('the SQLite engine on a file the sqlite3 shell made', () => {
  let dir: string;
  let ds: DataSourceWith<'changes' | 'createExportEngine' | 'seed'>;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'toolrow-sqlite-'));
    makeLibrary(dir);
    ds = (await sqliteEngine.open({ url: 'sqlite:./library.db', cwd: dir, dataDir: dir })) as typeof ds;
  });

  afterAll(async () => {
    await ds?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('parses its URLs and refuses what names no file', () => {
    expect(sqliteEngine.parseUrl('sqlite:///data/shop.db', { cwd: '/x', field: 'url' }).url).toBe(
      'sqlite:///data/shop.db',
    );
    expect(sqliteEngine.parseUrl('sqlite:shop.db', { cwd: '/x', field: 'url' }).description).toBe(
      'SQLite /x/shop.db',
    );
    expect(() => sqliteEngine.parseUrl('sqlite://host/shop.db', { cwd: '/x', field: 'url' })).toThrow(
      /three slashes/,
    );
    expect(() => sqliteEngine.parseUrl('sqlite::memory:', { cwd: '/x', field: 'url' })).toThrow(
      /names a database file/,
    );
  });

  it('a missing file is refused at open, naming it', async () => {
    await expect(sqliteEngine.open({ url: 'sqlite:./nope.db', cwd: dir })).rejects.toThrow(
      /no SQLite file at .*nope\.db/,
    );
  });

  it('reads tables, keys, foreign keys, indexes and views from the file', async () => {
    const { tables } = await ds.schema.get();
    expect(tables.map((table) => `${table.qualifiedName}:${table.kind}`)).toEqual([
      'main.authors:table',
      'main.books:table',
      'main.loans:table',
      'main.long_books:view',
    ]);
    const books = tables.find((table) => table.name === 'books')!;
    expect(books.primaryKey).toEqual(['isbn']);
    expect(books.foreignKeys).toEqual([
      expect.objectContaining({
        fromColumns: ['author_id'],
        toTable: 'main.authors',
        toColumns: ['id'],
        onDelete: 'cascade',
      }),
    ]);
    expect(books.indexes.map((index) => index.name)).toContain('books_author');
    expect(tables.find((table) => table.name === 'loans')!.primaryKey).toEqual(['book', 'member']);
    expect(tables.find((table) => table.name === 'authors')!.referencedBy).toHaveLength(1);
    expect(books.rowEstimate).toBe(4);
  });

  it('reads rows by the filter language, counts, and gets by key with values as stored', async () => {
    const page = await ds.rows.select('books', {
      filter: {
        and: [
          { column: 'author_id', op: 'eq', value: 2 },
          { column: 'title', op: 'contains', value: 'CITIES' },
        ],
      },
    });
    expect(page.rows.map((row) => row.title)).toEqual(['Invisible Cities']);
    expect(await ds.rows.count('books', { column: 'pages', op: 'between', value: [200, 300] })).toBe(2);
    expect(await ds.rows.count('books', { column: 'title', op: 'like', value: 'solaris' })).toBe(0);
    expect(await ds.rows.count('books', { column: 'title', op: 'ilike', value: 'solaris' })).toBe(1);
    // Any case of any letter, not ASCII alone (SQLite's LIKE folds only A-Z): Ł is ł.
    expect(await ds.rows.count('authors', { column: 'name', op: 'ilike', value: 'STANISŁAW%' })).toBe(1);
    expect(await ds.rows.count('authors', { column: 'name', op: 'starts_with', value: 'stanisŁ' })).toBe(1);
    expect(await ds.rows.count('authors', { column: 'name', op: 'contains', value: 'AW LEM' })).toBe(1);
    // like keeps case, of every letter.
    expect(await ds.rows.count('authors', { column: 'name', op: 'like', value: 'STANISŁAW%' })).toBe(0);
    expect(await ds.rows.count('authors', { column: 'name', op: 'like', value: 'Stanisław%' })).toBe(1);
    const first = await ds.rows.get('books', '978-0441478125');
    expect(first).toMatchObject({ views: '9007199254740993', cover: '\\xcafe', price: 9.99 });
    expect(await ds.rows.get('loans', { book: '978-0156027601', member: 9 })).toMatchObject({
      since: '2026-12-01',
    });
  });

  it('runs a read in its language, names its tables, and plans it', async () => {
    expect(ds.queries.language).toMatchObject({ name: 'SQL', dialect: 'SQLite' });
    const checked = await ds.queries.check(
      'select a.name, count(*) from books b join authors a on a.id = b.author_id group by 1',
    );
    expect(checked.tables.sort()).toEqual(['main.authors', 'main.books']);
    const result = await ds.queries.run(checked.statement);
    expect(result.rows).toContainEqual({ name: 'Italo Calvino', 'count(*)': 2 });
    expect((await ds.queries.plan(checked.statement)).lines.join('\n')).toMatch(/SCAN|SEARCH/);
    const misspelt = await ds.queries.check('select titel from books', { names: true });
    expect(misspelt.problems?.[0]).toMatch(/no such column: titel.*Did you mean 'title'/);
  });

  it('stops a runaway statement at its limit while other reads go on', async () => {
    const forever = 'with recursive n(i) as (select 1 union all select i + 1 from n) select count(*) from n';
    const started = performance.now();
    const runaway = ds.queries.run(forever, { timeoutMs: 1500 }).then(
      () => undefined,
      (error: unknown) => error,
    );
    // The server is not blocked: another read answers while the runaway runs.
    expect(await ds.rows.count('authors')).toBe(3);
    const error = await runaway;
    expect(isDataSourceError(error, 'timeout')).toBe(true);
    expect(performance.now() - started).toBeGreaterThanOrEqual(1400);
    const controller = new AbortController();
    const cancelled = ds.queries.run(forever, { signal: controller.signal, timeoutMs: 0 });
    controller.abort();
    await expect(cancelled).rejects.toMatchObject({ code: 'aborted' });
    expect(await ds.rows.count('books')).toBe(4);
  });

  it('a reading process busy inside SQLite does not outlive the process that started it', async () => {
    const { spawn, execFileSync } = await import('node:child_process');
    const { fileURLToPath } = await import('node:url');
    const engine = fileURLToPath(new URL('./engine.ts', import.meta.url));
    // A file of its own: this test's connection keeps a reader of library.db alive, rightly.
    const orphanFile = join(dir, 'orphan.db');
    const { copyFile } = await import('node:fs/promises');
    await copyFile(join(dir, 'library.db'), orphanFile);
    const script = `const { sqliteEngine } = await import(${JSON.stringify(engine)});
const ds = await sqliteEngine.open({ url: ${JSON.stringify(`sqlite://${orphanFile}`)} });
void ds.queries.run('with recursive n(i) as (select 1 union all select i + 1 from n) select count(*) from n', { timeoutMs: 0 }).catch(() => {});
setTimeout(() => process.exit(0), 300);`;
    const parent = spawn(
      process.execPath,
      ['--conditions=@toolrow/source', '--input-type=module', '-e', script],
      {
        stdio: 'ignore',
      },
    );
    await new Promise((resolve) => parent.once('exit', resolve));
    const readers = () =>
      execFileSync('ps', ['-eo', 'stat=,args='], { encoding: 'utf8' })
        .split('\n')
        .filter(
          (line) => line.includes('read-child') && line.includes(orphanFile) && !line.trim().startsWith('Z'),
        );
    // SIGKILL lands at once; the listing may lag the kernel by a moment.
    for (let tries = 0; readers().length > 0 && tries < 50; tries++)
      await new Promise((resolve) => setTimeout(resolve, 100));
    expect(readers()).toEqual([]);
  });

  describe('commits', () => {
    let nextId = 1;
    const change = async (
      kind: ChangeToApply['kind'],
      table: string,
      key: Record<string, unknown> | null,
      values: Record<string, unknown> | null,
    ): Promise<ChangeToApply> => {
      const info = await ds.schema.resolveTable(table);
      return {
        id: nextId++,
        kind,
        schema: info.schema,
        table: info.name,
        keyJson: key ? JSON.stringify(key) : null,
        beforeJson: key && kind !== 'insert' ? await ds.changes.currentRowJson(info, key) : null,
        valuesJson: values ? await ds.changes.canonicalJson(info, values) : null,
      };
    };

    it('stores values in the column types (integers keep every digit)', async () => {
      const books = await ds.schema.resolveTable('books');
      expect(
        await ds.changes.canonicalJson(books, { pages: '320', views: '90071992547409931', title: 12 }),
      ).toBe('{"pages":320,"views":90071992547409931,"title":"12"}');
    });

    it('applies an insert, an update and a delete in one transaction', async () => {
      const changes = [
        await change('insert', 'authors', { id: 4 }, { id: 4, name: 'Octavia E. Butler', country: 'US' }),
        await change('update', 'books', { isbn: '978-0156027601' }, { pages: 224 }),
        await change('delete', 'loans', { book: '978-0156027601', member: 9 }, null),
      ];
      let xid: string | undefined;
      const result = await ds.changes.apply(changes, {
        onTransaction: async (id) => {
          xid = id;
        },
      });
      expect(result).toEqual({ ok: true, applied: { insert: 1, update: 1, delete: 1 } });
      expect((await ds.rows.get('books', '978-0156027601'))?.pages).toBe(224);
      expect(await ds.rows.get('loans', { book: '978-0156027601', member: 9 })).toBeUndefined();
      // After a crash the outcome is read from the rows: every change is there.
      expect(await ds.changes.transactionStatus(xid!, changes)).toBe('committed');
    });

    it('reports a row changed since it was staged, an insert whose key is taken, a row gone, and applies nothing', async () => {
      const stale = await change('update', 'books', { isbn: '978-0156439619' }, { price: 1 });
      const taken = await change('insert', 'authors', { id: 1 }, { id: 1, name: 'Someone' });
      const gone = await change('delete', 'loans', { book: 'nope', member: 1 }, null);
      const fine = await change('update', 'authors', { id: 2 }, { country: 'XX' });
      // Someone else writes the book's row with the sqlite3 shell meanwhile.
      const { execFileSync } = await import('node:child_process');
      execFileSync('sqlite3', [
        join(dir, 'library.db'),
        "UPDATE books SET pages = 166 WHERE isbn = '978-0156439619'",
      ]);
      const result = await ds.changes.apply([stale, taken, gone, fine]);
      expect(result.ok).toBe(false);
      if (result.ok) return;
      expect(
        result.conflicts.map((conflict) => [conflict.changeId, conflict.reason, conflict.changedColumns]),
      ).toEqual([
        [stale.id, 'changed', ['pages']],
        [taken.id, 'exists', []],
        [gone.id, 'missing', []],
      ]);
      expect((await ds.rows.get('authors', 2))?.country).toBe('IT');
      expect(await ds.changes.check([fine])).toEqual([]);
    });

    it('a check names a delete still referenced under a key that does not cascade, unless its referrers go too', async () => {
      // Solaris is on loan (loans.book references books, no action); its author cascades.
      const book = await change('delete', 'books', { isbn: '978-0156027601' }, null);
      const onLoan = (
        await ds.rows.select('loans', { filter: { column: 'book', op: 'eq', value: '978-0156027601' } })
      ).rows;
      expect(onLoan.length).toBeGreaterThan(0);
      const [referenced] = await ds.changes.check([book]);
      expect(referenced).toMatchObject({
        changeId: book.id,
        reason: 'referenced',
        referencedBy: { table: 'main.loans', columns: ['book'], rows: onLoan.length, more: false },
      });
      const loans = await Promise.all(
        onLoan.map((loan) => change('delete', 'loans', { book: loan.book, member: loan.member }, null)),
      );
      expect(await ds.changes.check([book, ...loans])).toEqual([]);
      // A cascading key is no refusal: deleting an author takes their books along.
      expect(await ds.changes.check([await change('delete', 'authors', { id: 1 }, null)])).toEqual([]);
    });

    it('a failing change rolls everything back and says which', async () => {
      const fine = await change('update', 'authors', { id: 3 }, { country: 'XX' });
      const broken = await change('insert', 'books', null, { isbn: 'x', title: 'Orphan', author_id: 999 });
      await expect(ds.changes.apply([fine, broken])).rejects.toThrow(
        /Change #\d+ \(insert main\.books \(new row\)\) failed: FOREIGN KEY constraint failed/,
      );
      expect((await ds.rows.get('authors', 3))?.country).toBe('PL');
    });
  });

  it('exports a table and a query', async () => {
    const exports = ds.createExportEngine(join(dir, 'exports'), createMemoryExportJobStore());
    const table = await exports.run({ source: { table: 'authors' }, format: 'ndjson', actor: 'user' });
    expect(table.state, table.error ?? '').toBe('done');
    const lines = (await readFile(table.path!, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line).name);
    expect(lines).toContain('Italo Calvino');
    const query = await exports.run({
      source: { sql: 'select isbn from books order by isbn' },
      format: 'csv',
      actor: 'user',
    });
    expect(query.state, query.error ?? '').toBe('done');
    expect((await readFile(query.path!, 'utf8')).split('\r\n')[0]).toBe('isbn');
    await expect(
      exports.run({ source: { sql: 'delete from books' }, format: 'csv', actor: 'user' }),
    ).rejects.toThrow(/DELETE is refused/);
  });

  it('names that need quoting (quotes, spaces, keywords, non-ASCII) are read, filtered and committed as named', async () => {
    const oddDir = await mkdtemp(join(tmpdir(), 'toolrow-sqlite-odd-'));
    try {
      const { execFileSync } = await import('node:child_process');
      execFileSync('sqlite3', [join(oddDir, 'odd.db')], {
        input: `CREATE TABLE "odd ""name""" ("key" INTEGER PRIMARY KEY, "a b" TEXT, "select" TEXT, "größe" INTEGER);
INSERT INTO "odd ""name""" VALUES (1, 'x', 'y', 3), (2, 'x'' OR 1=1 --', 'z', 4);`,
      });
      const odd = (await sqliteEngine.open({ url: `sqlite://${join(oddDir, 'odd.db')}` })) as typeof ds;
      try {
        const table = (await odd.schema.get()).tables[0]!;
        expect(table.name).toBe('odd "name"');
        expect(table.columns.map((column) => column.name)).toEqual(['key', 'a b', 'select', 'größe']);
        expect(
          await odd.rows.count(table.qualifiedName, { column: 'a b', op: 'eq', value: "x' OR 1=1 --" }),
        ).toBe(1);
        expect(
          (await odd.rows.select(table.qualifiedName, { filter: { column: 'größe', op: 'gt', value: 3 } }))
            .rows,
        ).toEqual([{ key: 2, 'a b': "x' OR 1=1 --", select: 'z', größe: 4 }]);
        const before = await odd.changes.currentRowJson(table, { key: 1 });
        const result = await odd.changes.apply([
          {
            id: 1,
            kind: 'update',
            schema: table.schema,
            table: table.name,
            keyJson: '{"key":1}',
            beforeJson: before,
            valuesJson: await odd.changes.canonicalJson(table, {
              'a b': 'new',
              select: "'); DROP TABLE x; --",
            }),
          },
        ]);
        expect(result.ok).toBe(true);
        expect(await odd.rows.get(table.qualifiedName, 1)).toEqual({
          key: 1,
          'a b': 'new',
          select: "'); DROP TABLE x; --",
          größe: 3,
        });
      } finally {
        await odd.close();
      }
    } finally {
      await rm(oddDir, { recursive: true, force: true });
    }
  });

  it('makes the sample shop in a file of its own', async () => {
    const shopDir = await mkdtemp(join(tmpdir(), 'toolrow-sqlite-shop-'));
    try {
      makeLibrary(shopDir, 'shop.db');
      const shop = await sqliteEngine.open({ url: `sqlite://${join(shopDir, 'shop.db')}` });
      try {
        const seeded = await shop.seed!({ orders: 200, now: new Date('2026-06-01T00:00:00Z') });
        expect(seeded.counts.orders).toBe(200);
        expect(await shop.rows.count('orders')).toBe(200);
        expect((await shop.seed!({ orders: 200, now: new Date('2026-06-01T00:00:00Z') })).alreadySeeded).toBe(
          true,
        );
        await expect(shop.seed!({ orders: 300 })).rejects.toThrow(/--reset/);
      } finally {
        await shop.close();
      }
    } finally {
      await rm(shopDir, { recursive: true, force: true });
    }
  });
});
