import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, realpath, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { isAbsolute, join, relative, sep } from 'node:path';
import { type ExportEngine, isDataSourceError } from '@toolrow/datasource';
import { createMemoryExportJobStore, resolveExportPath } from '@toolrow/datasource-utils';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExportEngine } from './export-engine.ts';
import { readerRoleSql } from './reader-role.ts';
import type { SqlDataSource } from './sql-source.ts';
import { testEngines } from './testing.ts';

/** RFC 4180 reader, enough to check what the writer produced. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let index = 0; index < text.length; index++) {
    const char = text[index]!;
    if (quoted) {
      if (char === '"' && text[index + 1] === '"') {
        cell += '"';
        index++;
      } else if (char === '"') quoted = false;
      else cell += char;
    } else if (char === '"') quoted = true;
    else if (char === ',') {
      row.push(cell);
      cell = '';
    } else if (char === '\r' && text[index + 1] === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
      index++;
    } else cell += char;
  }
  if (cell !== '' || row.length > 0) rows.push([...row, cell]);
  return rows;
}

/** What an export wrote before the database did the formatting: the driver's values, formatted in JS. */
function oldCsvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  let text: string;
  if (value instanceof Date) text = value.toISOString();
  else if (value instanceof Uint8Array) text = `\\x${Buffer.from(value).toString('hex')}`;
  else if (typeof value === 'object') text = JSON.stringify(value);
  else text = String(value);
  return text;
}

function oldJson(row: Record<string, unknown>): unknown {
  return JSON.parse(
    JSON.stringify(row, (_key, value) => {
      if (value instanceof Uint8Array) return `\\x${Buffer.from(value).toString('hex')}`;
      if (typeof value === 'bigint') return value.toString();
      if (value?.type === 'Buffer' && Array.isArray(value.data))
        return `\\x${Buffer.from(value.data).toString('hex')}`;
      return value;
    }),
  );
}

describe('resolveExportPath', () => {
  let base: string;
  let dir: string;
  let outside: string;
  beforeAll(async () => {
    base = await realpath(await mkdtemp(join(tmpdir(), 'toolrow-paths-')));
    dir = join(base, 'exports');
    outside = join(base, 'outside');
    await mkdir(join(dir, 'real'), { recursive: true });
    await mkdir(outside);
    await writeFile(join(outside, 'secret.csv'), 'secret');
    await writeFile(join(dir, 'real', 'kept.csv'), 'kept');
    await symlink(outside, join(dir, 'escape'));
    await symlink(join(dir, 'real'), join(dir, 'inner'));
    await symlink(join(outside, 'secret.csv'), join(dir, 'link.csv'));
    await symlink(join(dir, 'real', 'kept.csv'), join(dir, 'inside-link.csv'));
    await symlink(dir, join(base, 'exports-link'));
  });
  afterAll(() => rm(base, { recursive: true, force: true }));

  it('accepts names and relative paths inside the folder', async () => {
    const ok: [string, string][] = [
      ['a.csv', 'a.csv'],
      ['sub/dir/a.json', `sub${sep}dir${sep}a.json`],
      ['./a.csv', 'a.csv'],
      ['sub/../a.csv', 'a.csv'],
      ['inner/new.csv', `inner${sep}new.csv`],
      ['real/kept.csv', `real${sep}kept.csv`],
      ['..a.csv', '..a.csv'],
    ];
    for (const [requested, expected] of ok) {
      expect(await resolveExportPath(dir, requested), requested).toBe(join(dir, expected));
    }
    expect(await resolveExportPath(dir, join(dir, 'abs.csv'))).toBe(join(dir, 'abs.csv'));
    // The exports folder itself may be reached through a link.
    expect(await resolveExportPath(join(base, 'exports-link'), 'a.csv')).toBe(
      join(base, 'exports-link', 'a.csv'),
    );
  });

  it('refuses every way out: .., absolute paths, symlinked folders and files', async () => {
    const refused: [string, RegExp][] = [
      ['../a.csv', /leads outside the exports folder/],
      ['sub/../../a.csv', /leads outside/],
      ['..', /leads outside/],
      ['.', /leads outside/],
      ['', /is empty/],
      ['  ', /is empty/],
      ['/etc/passwd', /an absolute path outside the exports folder/],
      [join(outside, 'x.csv'), /an absolute path outside/],
      ['escape/x.csv', /symbolic link that leads outside/],
      ['escape/secret.csv', /symbolic link that leads outside/],
      ['escape/../../outside/x.csv', /leads outside|symbolic link/],
      ['link.csv', /symbolic link that leads outside|the file is a symbolic link/],
      ['inside-link.csv', /the file is a symbolic link/],
      ['real', /is a directory/],
      ['a\u0000.csv', /NUL/],
    ];
    for (const [requested, message] of refused) {
      const error = await resolveExportPath(dir, requested).catch((e) => e);
      expect(isDataSourceError(error, 'export-path'), requested).toBe(true);
      expect(error.message, requested).toMatch(message);
      expect(error.message).toMatch(/Give a file name or a relative path inside the exports folder/);
    }
  });

  it('property: whatever the path, an accepted one is inside the real exports folder', async () => {
    const segment = fc.constantFrom(
      '..',
      '.',
      'a',
      'b.csv',
      'escape',
      'inner',
      'real',
      'link.csv',
      '',
      '...',
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(segment, { minLength: 1, maxLength: 6 }),
        fc.boolean(),
        async (parts, absolute) => {
          const requested = (absolute ? '/' : '') + parts.join('/');
          const resolved = await resolveExportPath(dir, requested).catch(() => undefined);
          if (resolved === undefined) return;
          const real = await realpath(resolved).catch(() => resolved);
          const rel = relative(dir, real);
          expect(
            rel === '' || rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel),
            `${requested} → ${real}`,
          ).toBe(false);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe.each(testEngines())('exports on $name', ({ open }) => {
  let ds: SqlDataSource;
  let exportsDir: string;
  let exports: ExportEngine;
  const tricky = [
    { id: 1, name: 'plain', note: null, meta: { a: [1, 2] }, at: '2026-01-02T03:04:05.000Z', amount: '1.50' },
    { id: 2, name: 'comma, and "quotes"', note: 'line\nbreak', meta: null, at: null, amount: null },
    {
      id: 3,
      name: ' padded ',
      note: 'ünï\r\ncødé',
      meta: { s: 'x,"y"' },
      at: '2025-12-31T23:59:59.999Z',
      amount: '-0.01',
    },
  ];
  beforeAll(async () => {
    ds = await open();
    exportsDir = await mkdtemp(join(tmpdir(), 'toolrow-exports-'));
    exports = createExportEngine(ds.db, ds.schema, exportsDir, createMemoryExportJobStore());
    await ds.db.exec(`CREATE TABLE things (id int PRIMARY KEY, name text, note text, meta jsonb, at timestamptz, amount numeric(8,2));
      CREATE TABLE big AS SELECT g AS id, md5(g::text) AS h FROM generate_series(1, 300000) AS g;
      ALTER TABLE big ADD PRIMARY KEY (id);`);
    for (const row of tricky) {
      await ds.db.query('INSERT INTO things VALUES ($1, $2, $3, $4::jsonb, $5, $6)', [
        row.id,
        row.name,
        row.note,
        row.meta === null ? null : JSON.stringify(row.meta),
        row.at,
        row.amount,
      ]);
    }
    await ds.schema.refresh({ analyze: true });
  }, 90_000);
  afterAll(async () => {
    await exports.idle();
    await ds.close();
    await rm(exportsDir, { recursive: true, force: true });
  });

  it('CSV: RFC 4180 with a header; quotes, commas, newlines and NULLs survive a round trip', async () => {
    const job = await exports.run({
      source: { table: 'things', sort: [{ column: 'id' }] },
      format: 'csv',
      actor: 'user',
      path: 'things.csv',
    });
    expect(job).toMatchObject({
      state: 'done',
      rowsDone: 3,
      format: 'csv',
      error: null,
      path: join(exports.dir, 'things.csv'),
    });
    const text = await readFile(job.path, 'utf8');
    expect(job.bytesWritten).toBe(Buffer.byteLength(text));
    // jsonb cells hold PostgreSQL's own text for the value (a space after ':' and ','), as COPY writes it.
    const jsonbText: Record<number, string> = { 1: '{"a": [1, 2]}', 3: '{"s": "x,\\"y\\""}' };
    expect(parseCsv(text)).toEqual([
      ['id', 'name', 'note', 'meta', 'at', 'amount'],
      ...tricky.map((row) => [
        String(row.id),
        row.name,
        row.note ?? '',
        jsonbText[row.id] ?? '',
        row.at ?? '',
        row.amount ?? '',
      ]),
    ]);
    for (const [id, cell] of Object.entries(jsonbText))
      expect(JSON.parse(cell)).toEqual(tricky[Number(id) - 1]!.meta);
  });

  it('JSON and NDJSON parse back to the rows', async () => {
    const expected = tricky.map((row) => ({ ...row }));
    const json = await exports.run({
      source: { table: 'things', sort: [{ column: 'id' }] },
      format: 'json',
      actor: 'user',
      path: 'things',
    });
    expect(json.path.endsWith('things.json')).toBe(true);
    expect(JSON.parse(await readFile(json.path, 'utf8'))).toEqual(expected);
    const ndjson = await exports.run({
      source: { table: 'things', sort: [{ column: 'id' }] },
      format: 'ndjson',
      actor: 'agent',
      path: 'nd/things.ndjson',
    });
    const lines = (await readFile(ndjson.path, 'utf8')).trimEnd().split('\n');
    expect(lines.map((line) => JSON.parse(line))).toEqual(expected);
  });

  it('exports a filtered, sorted column subset and an empty result in every format', async () => {
    const filtered = await exports.run({
      source: {
        table: 'things',
        filter: { column: 'name', op: 'contains', value: 'quotes' },
        columns: ['name', 'id'],
      },
      format: 'json',
      actor: 'user',
    });
    expect(JSON.parse(await readFile(filtered.path, 'utf8'))).toEqual([
      { name: 'comma, and "quotes"', id: 2 },
    ]);
    expect(filtered.source).toMatchObject({ table: 'public.things' });
    const empty = { table: 'things', filter: { column: 'id', op: 'gt' as const, value: 100 } };
    const files = await Promise.all(
      (['csv', 'json', 'ndjson'] as const).map(async (format) =>
        readFile((await exports.run({ source: empty, format, actor: 'user' })).path, 'utf8'),
      ),
    );
    expect(files).toEqual(['id,name,note,meta,at,amount\r\n', '[]\n', '']);
  });

  it('a read-only SELECT source streams; a write is refused, no file is left and the data is unchanged', async () => {
    const joined = await exports.run({
      source: { sql: 'SELECT id, upper(name) AS loud FROM things WHERE id < $1 ORDER BY id', params: [3] },
      format: 'ndjson',
      actor: 'user',
    });
    expect(
      (await readFile(joined.path, 'utf8'))
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line)),
    ).toEqual([
      { id: 1, loud: 'PLAIN' },
      { id: 2, loud: 'COMMA, AND "QUOTES"' },
    ]);
    for (const sql of [
      'DELETE FROM things RETURNING *',
      "UPDATE things SET name = 'x' RETURNING id",
      'SELECT 1; DELETE FROM things',
    ]) {
      const job = await exports.run({ source: { sql }, format: 'csv', actor: 'agent' });
      expect(job.state, sql).toBe('failed');
      expect(job.error, sql).toMatch(/syntax error|read-only|cannot insert multiple commands/);
      await expect(stat(job.path)).rejects.toThrow(/ENOENT/);
    }
    expect((await ds.db.query('SELECT count(*)::int AS n FROM things')).rows).toEqual([{ n: 3 }]);
  });

  it('refuses up front: unknown tables and columns, bad paths, existing files (unless overwrite)', async () => {
    await expect(
      exports.start({ source: { table: 'thingz' }, format: 'csv', actor: 'user' }),
    ).rejects.toThrow(/Did you mean 'public\.things'/);
    await expect(
      exports.start({ source: { table: 'things', columns: ['nme'] }, format: 'csv', actor: 'user' }),
    ).rejects.toThrow(/Did you mean 'name'/);
    await expect(
      exports.start({ source: { table: 'things' }, format: 'xlsx' as 'csv', actor: 'user' }),
    ).rejects.toThrow(/csv, json, ndjson/);
    await expect(
      exports.start({ source: { table: 'things' }, format: 'csv', actor: 'user', path: '../../x.csv' }),
    ).rejects.toThrow(/refused/);
    await exports.run({ source: { table: 'things' }, format: 'csv', actor: 'user', path: 'once.csv' });
    await expect(
      exports.start({ source: { table: 'things' }, format: 'csv', actor: 'user', path: 'once.csv' }),
    ).rejects.toThrow(/exists already.*never replaces a file\. Pick another name, e\.g\. 'once-2\.csv'/);
    // The advice works: the name it gives is free.
    expect(
      (await exports.run({ source: { table: 'things' }, format: 'csv', actor: 'user', path: 'once-2.csv' }))
        .state,
    ).toBe('done');
    const again = await exports.run({
      source: { table: 'things' },
      format: 'csv',
      actor: 'user',
      path: 'once.csv',
      overwrite: true,
    });
    expect(again.state).toBe('done');
  });

  it('writes every value as exports did before the database formatted them (json text and "" for empty strings aside)', async () => {
    await ds.db.exec(String.raw`CREATE TABLE kinds (id int PRIMARY KEY, t text, b boolean, i8 bigint, n numeric, f float8,
        d date, ts timestamp, tz timestamptz, iv interval, by bytea, j json, jb jsonb, ia int[], ta text[], u uuid);
      INSERT INTO kinds VALUES
        (1, E'back\\slash\ttab \\N \\. end\\', true, 9007199254740993, 1.50, 0.1, '2026-01-02',
         '2026-01-02 03:04:05.123456', '2026-01-02 03:04:05.999999+02', '1 day 02:03:04', '\x00ff0a',
         E'{"k":\n "a\\\\b",\t"u": "\\u00e9"}', '{"b": 1, "a": [true, null]}', '{1,2,NULL}', '{"a,b","c\"d"}',
         'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'),
        (2, '', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
        (3, E'quote " and \r\n crlf, ünï 😀 \u0001', false, -42, -0.01, -2.5, 'infinity', 'infinity', '-infinity',
         '-3 mons', '\x', 'null', '"str"', '{}', '{}', NULL),
        (4, ' padded ', NULL, 12, 'NaN', 'Infinity', '0099-12-31', '10000-01-01 00:00:00', '0044-03-15 12:00:00+00 BC',
         NULL, NULL, '[1, 2]', '[]', '{{1,2},{3,4}}', '{NULL}', NULL);`);
    await ds.schema.refresh();
    try {
      const { rows } = await ds.db.query<Record<string, unknown>>('SELECT * FROM kinds ORDER BY id');
      const names = Object.keys(rows[0]!);
      const source = { table: 'kinds', sort: [{ column: 'id' }] };
      const csv = await exports.run({ source, format: 'csv', actor: 'user' });
      const text = await readFile(csv.path, 'utf8');
      // An empty string is quoted, unlike NULL: the two no longer look alike.
      expect(text.split('\r\n')[2]!.startsWith('2,"",,')).toBe(true);
      const cells = parseCsv(text);
      expect(cells[0]).toEqual(names);
      const dbText = await ds.db.query<Record<string, string | null>>(
        'SELECT j::text AS j, jb::text AS jb FROM kinds ORDER BY id',
      );
      expect(cells.slice(1)).toEqual(
        rows.map((row, index) =>
          names.map((name) =>
            // json and jsonb cells carry PostgreSQL's own text of the value.
            name === 'j' || name === 'jb' ? (dbText.rows[index]![name] ?? '') : oldCsvCell(row[name]),
          ),
        ),
      );
      expect(cells[1]![names.indexOf('ts')]).toBe('2026-01-02T03:04:05.123Z');
      expect(cells[1]![names.indexOf('tz')]).toBe('2026-01-02T01:04:05.999Z');
      expect(cells[3]![names.indexOf('tz')]).toBe('-infinity');
      expect(cells[4]![names.indexOf('tz')]).toBe('0044-03-15 12:00:00+00 BC');
      expect(cells[1]![names.indexOf('b')]).toBe('true');

      // JSON has no Infinity or NaN: JSON.stringify wrote null, PostgreSQL writes the name as a string.
      const expected = rows.map(oldJson) as Record<string, unknown>[];
      expect(expected[3]!.f).toBeNull();
      expected[3]!.f = 'Infinity';
      const ndjson = await exports.run({ source, format: 'ndjson', actor: 'user' });
      const lines = (await readFile(ndjson.path, 'utf8')).split('\n');
      expect(lines.pop()).toBe('');
      expect(lines).toHaveLength(rows.length);
      expect(lines.map((line) => JSON.parse(line))).toEqual(expected);
      const json = await exports.run({ source, format: 'json', actor: 'user' });
      const body = await readFile(json.path, 'utf8');
      expect(JSON.parse(body)).toEqual(expected);
      expect(body.startsWith('[\n{"id":1,')).toBe(true);
      expect(body.endsWith('}\n]\n')).toBe(true);
      expect(body.split('\n')).toHaveLength(rows.length + 3);
    } finally {
      await ds.db.exec('DROP TABLE kinds');
      await ds.schema.refresh();
    }
  });

  it('parameters reach the export as values, also through COPY (which takes none)', async () => {
    const job = await exports.run({
      source: {
        sql: `SELECT '$1' AS lit, $1::text AS p, $2::int + 1 AS n, "name" AS "$1" FROM things WHERE name LIKE $3 -- $2
          /* $1 */ ORDER BY id`,
        params: ["it's \\ $2", 41, '%quotes%'],
      },
      format: 'ndjson',
      actor: 'user',
    });
    expect(job.error).toBeNull();
    expect(JSON.parse(await readFile(job.path, 'utf8'))).toEqual({
      lit: '$1',
      p: "it's \\ $2",
      n: 42,
      $1: 'comma, and "quotes"',
    });
    const filtered = await exports.run({
      source: { table: 'things', filter: { column: 'name', op: 'contains', value: '\'\\ and, "quotes' } },
      format: 'csv',
      actor: 'user',
    });
    expect(filtered.rowsDone).toBe(0);
    const found = await exports.run({
      source: {
        table: 'things',
        filter: { column: 'name', op: 'contains', value: 'and "quotes' },
        columns: ['id'],
      },
      format: 'csv',
      actor: 'user',
    });
    expect(await readFile(found.path, 'utf8')).toBe('id\r\n2\r\n');
  });

  it('runs inside the read layers: READ ONLY, and as the reader role when one is set', async () => {
    const role = `toolrow_reader_${randomBytes(4).toString('hex')}`;
    await ds.db.exec(`CREATE TABLE secret (x int); INSERT INTO secret VALUES (1);
      ${readerRoleSql({ role, schemas: ['public'] })}
      REVOKE ALL ON secret FROM "${role}";`);
    await ds.schema.refresh();
    ds.db.useReaderRole(role);
    try {
      const who = await exports.run({
        source: {
          sql: "SELECT current_user AS who, current_setting('transaction_read_only') AS ro, current_setting('standard_conforming_strings') AS scs",
        },
        format: 'ndjson',
        actor: 'agent',
      });
      expect(JSON.parse(await readFile(who.path, 'utf8'))).toEqual({ who: role, ro: 'on', scs: 'on' });
      const denied = await exports.run({ source: { table: 'secret' }, format: 'csv', actor: 'agent' });
      expect(denied.state).toBe('failed');
      expect(denied.error).toMatch(/permission denied/);
      await expect(stat(denied.path)).rejects.toThrow(/ENOENT/);
    } finally {
      ds.db.useReaderRole(undefined);
      await ds.db.exec(`DROP TABLE secret; DROP OWNED BY "${role}"; DROP ROLE "${role}";`);
      await ds.schema.refresh();
    }
  });

  it('runs in the background with progress readable through status, and lists the job', async () => {
    const job = await exports.start({
      source: { table: 'big', sort: [{ column: 'id' }] },
      format: 'ndjson',
      actor: 'agent',
      profile: 'bg',
      batchSize: 5000,
    });
    expect(['queued', 'running']).toContain(job.state);
    expect(job.rowsEstimate).toBeGreaterThan(250_000);
    const seen = new Set<string>();
    let status = job;
    while (status.state === 'queued' || status.state === 'running') {
      seen.add(status.state);
      await new Promise((resolve) => setTimeout(resolve, 20));
      status = await exports.status(job.id);
      expect(status.rowsDone).toBeLessThanOrEqual(300_000);
    }
    expect(status).toMatchObject({ state: 'done', rowsDone: 300_000, actor: 'agent', profile: 'bg' });
    expect(status.finishedAt!.getTime()).toBeGreaterThanOrEqual(status.startedAt!.getTime());
    expect((await stat(status.path)).size).toBe(status.bytesWritten);
    await expect(exports.status('exp_nope')).rejects.toThrow(/No export job with id 'exp_nope'/);
  });

  it('cancel stops a running export and removes the partial file', async () => {
    const job = await exports.start({
      source: { table: 'big' },
      format: 'csv',
      actor: 'user',
      batchSize: 50,
    });
    const cancelled = await exports.cancel(job.id);
    expect(cancelled.state).toBe('cancelled');
    expect(cancelled.error).toMatch(/cancelled/);
    await expect(stat(job.path)).rejects.toThrow(/ENOENT/);
    expect((await ds.db.query('SELECT 1 AS ok')).rows).toEqual([{ ok: 1 }]);
  });

  it('stops an export at its time limit, removes the partial file and says how to raise it', async () => {
    const limited = createExportEngine(ds.db, ds.schema, exportsDir, createMemoryExportJobStore(), {
      timeLimitMs: 300,
      timeLimitSource: 'TOOLROW_EXPORT_TIME_LIMIT',
    });
    const job = await limited.run({
      // Slow on purpose: 5 ms a row, a few seconds in all, far past the limit.
      source: { sql: 'SELECT g, pg_sleep(0.005) FROM generate_series(1, 400) g' },
      format: 'csv',
      actor: 'user',
      batchSize: 20,
    });
    expect(job.state).toBe('failed');
    expect(job.error).toMatch(
      /^stopped at its time limit of 300 ms after \d+ rows; the partial file was removed\. Narrow the query .*TOOLROW_EXPORT_TIME_LIMIT/,
    );
    expect(job.rowsDone).toBeLessThan(400);
    await expect(stat(job.path)).rejects.toThrow(/ENOENT/);
    // A request may raise it for itself.
    const raised = await limited.run({
      source: { sql: 'SELECT g FROM generate_series(1, 50) g' },
      format: 'csv',
      actor: 'user',
      timeLimitMs: 60_000,
    });
    expect(raised).toMatchObject({ state: 'done', rowsDone: 50 });
  });
});
