// An engine is a plug-in: one written entirely in this file (tables kept in memory, a one-line
// query language), registered, and then served by the tools through the CLI, the app's API and an
// MCP client over HTTP — with no other file knowing it exists.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { TOOL_NAMES, TOOL_NEEDS } from '@toolrow/catalog';
import {
  type ChangeToApply,
  type ColumnInfo,
  createSnapshotCache,
  type DataSource,
  DataSourceError,
  type EngineDescriptor,
  type Filter,
  type FilterCondition,
  type Row,
  type RowKey,
  type StagingConflict,
  type TableInfo,
} from '@toolrow/datasource';
import { createExportRunner, rowBody } from '@toolrow/datasource-utils';
import { installedEngines } from '@toolrow/engines';
import { type StartedApp, startApp } from '@toolrow/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './testing.ts';

// ── The engine ────────────────────────────────────────────────────────────────────────────────

type Kind = 'integer' | 'text';
const TABLES: Record<string, { columns: [string, Kind][]; rows: Row[] }> = {
  customers: {
    columns: [
      ['id', 'integer'],
      ['name', 'text'],
      ['country', 'text'],
    ],
    rows: [
      { id: 1, name: 'Ada', country: 'GB' },
      { id: 2, name: 'Grace', country: 'US' },
      { id: 3, name: 'Emmy', country: 'DE' },
    ],
  },
  orders: {
    columns: [
      ['id', 'integer'],
      ['customer_id', 'integer'],
      ['status', 'text'],
      ['total', 'integer'],
    ],
    rows: Array.from({ length: 12 }, (_, index) => ({
      id: index + 1,
      customer_id: (index % 3) + 1,
      status: index % 4 === 0 ? 'paid' : 'shipped',
      total: 10 * (index + 1),
    })),
  },
};

/** Each memory://<name> database, kept for the life of the process (so the CLI's commands share it). */
const databases = new Map<string, Map<string, Row[]>>();

function tableInfo(name: string): TableInfo {
  const { columns, rows } = TABLES[name]!;
  const info: ColumnInfo[] = columns.map(([column, type], index) => ({
    name: column,
    type,
    typeId: 0,
    nullable: column !== 'id',
    default: null,
    generated: false,
    position: index + 1,
    primaryKey: column === 'id',
    comment: null,
    commonValues: [],
    min: null,
    max: null,
    distinctEstimate: null,
    nullFraction: null,
  }));
  return {
    schema: '',
    name,
    qualifiedName: name,
    kind: 'table',
    comment: null,
    columns: info,
    primaryKey: ['id'],
    indexes: [],
    foreignKeys: [],
    referencedBy: [],
    rowEstimate: rows.length,
    tableBytes: 0,
    totalBytes: 0,
  };
}

function matches(row: Row, filter: Filter | undefined): boolean {
  if (!filter) return true;
  if ('and' in filter) return filter.and.every((each) => matches(row, each));
  if ('or' in filter) return filter.or.some((each) => matches(row, each));
  if ('not' in filter) return !matches(row, filter.not);
  const { column, op, value } = filter as FilterCondition;
  const cell = row[column];
  switch (op) {
    case 'eq':
      return cell === value;
    case 'neq':
      return cell !== value;
    case 'gt':
      return (cell as number) > (value as number);
    case 'gte':
      return (cell as number) >= (value as number);
    case 'lt':
      return (cell as number) < (value as number);
    case 'lte':
      return (cell as number) <= (value as number);
    case 'in':
      return (value as unknown[]).includes(cell);
    default:
      throw new DataSourceError('invalid-filter', `filter: the memory engine has no '${op}'.`);
  }
}

const STATEMENT =
  /^\s*select\s+(\*|count\(\*\))\s+from\s+(\w+)(?:\s+where\s+(\w+)\s*=\s*'([^']*)')?\s*;?\s*$/i;

/** What the memory engine can do; the read-only one (memoryro://) lists none and brings no member for them. */
const MEMORY_FEATURES = ['stagedWrites', 'exports', 'cancel', 'seed', 'readerRoles'] as const;

function openMemory(name: string, readOnly = false): DataSource {
  let data = databases.get(name);
  if (!data) {
    data = new Map(
      Object.entries(TABLES).map(([table, { rows }]) => [table, rows.map((row) => ({ ...row }))]),
    );
    databases.set(name, data);
  }
  const store = data;
  const schema = createSnapshotCache(async () => ({
    tables: Object.keys(TABLES).map(tableInfo),
    refreshedAt: new Date(),
  }));
  const rowsOf = async (table: string) => store.get((await schema.resolveTable(table)).name)!;
  const keyOf = (key: unknown) => Number(typeof key === 'object' && key !== null ? (key as RowKey).id : key);
  const rowJson = (table: TableInfo, row: Row) =>
    JSON.stringify(
      Object.fromEntries(table.columns.map((column) => [column.name, row[column.name] ?? null])),
    );
  const statement = (text: string) => {
    const found = STATEMENT.exec(text);
    if (!found?.[2] || !TABLES[found[2]]) {
      throw new DataSourceError(
        'invalid-filter',
        `The memory engine reads one statement: SELECT * (or count(*)) FROM <table> [WHERE <column> = '<text>'].`,
      );
    }
    return { count: found[1] !== '*', table: found[2], where: found[3], equals: found[4] };
  };
  const current = (table: string, key: string | null) =>
    store.get(table)!.find((row) => row.id === keyOf(key ? JSON.parse(key) : null));
  const check = async (changes: readonly ChangeToApply[]): Promise<StagingConflict[]> =>
    changes.flatMap((change) => {
      const row = current(change.table, change.keyJson);
      const now = row ? rowJson(tableInfo(change.table), row) : null;
      if (change.kind === 'insert' || now === change.beforeJson) return [];
      return [
        {
          changeId: change.id,
          table: change.table,
          key: change.keyJson ? JSON.parse(change.keyJson) : null,
          reason: row ? 'changed' : 'missing',
          current: row ?? null,
          changedColumns: [],
        } satisfies StagingConflict,
      ];
    });
  const queries: DataSource['queries'] = {
    language: { name: 'Memory SQL', dialect: 'Memory', example: 'SELECT * FROM orders' },
    check: (text) => ({ statement: text.trim(), tables: [statement(text).table] }),
    async run(text) {
      const read = statement(text);
      const rows = store
        .get(read.table)!
        .filter((row) => read.where === undefined || String(row[read.where]) === read.equals);
      const out = read.count ? [{ count: rows.length }] : rows.map((row) => ({ ...row }));
      return {
        rows: out,
        fields: Object.keys(out[0] ?? {}).map((field) => ({ name: field, typeId: 0 })),
        truncated: false,
      };
    },
    async plan(text) {
      return { lines: [`Scan ${statement(text).table}`], note: 'The memory engine reads every row.' };
    },
  };
  const source: DataSource = {
    engine: readOnly ? 'memoryro' : 'memory',
    driver: readOnly ? 'memoryro' : 'memory',
    // No foreign keys: the tools that need them are not served (describeRelations, below).
    features: readOnly ? [] : MEMORY_FEATURES,
    description: `Memory database '${name}'`,
    dataDir: '',
    schema,
    queries,
    rows: {
      async select(table, options = {}) {
        const info = await schema.resolveTable(table);
        const all = (await rowsOf(table)).filter((row) => matches(row, options.filter));
        const offset = options.offset ?? 0;
        const limit = options.limit ?? 100;
        return {
          table: info,
          columns: info.columns,
          rows: all.slice(offset, offset + limit).map((row) => ({ ...row })),
          hasMore: all.length > offset + limit,
          truncated: false,
        };
      },
      count: async (table, filter) => (await rowsOf(table)).filter((row) => matches(row, filter)).length,
      async get(table, key) {
        const row = (await rowsOf(table)).find((each) => each.id === keyOf(key));
        return row ? { ...row } : undefined;
      },
    },
    changes: {
      writer: { description: `Memory database '${name}'`, source: 'embedded' },
      async currentRowJson(table, key) {
        const row = store.get(table.name)!.find((each) => each.id === keyOf(key));
        return row ? rowJson(table, row) : null;
      },
      canonicalJson: async (table, values) =>
        JSON.stringify(
          Object.fromEntries(
            table.columns
              .filter((column) => column.name in values)
              .map((column) => [column.name, values[column.name]]),
          ),
        ),
      check,
      async apply(changes) {
        const conflicts = await check(changes);
        if (conflicts.length > 0) return { ok: false, conflicts };
        const applied = { insert: 0, update: 0, delete: 0 };
        for (const change of changes) {
          const rows = store.get(change.table)!;
          const row = current(change.table, change.keyJson);
          const values = change.valuesJson ? (JSON.parse(change.valuesJson) as Row) : {};
          if (change.kind === 'insert') rows.push(values);
          else if (change.kind === 'update') Object.assign(row!, values);
          else rows.splice(rows.indexOf(row!), 1);
          applied[change.kind]++;
        }
        return { ok: true, applied };
      },
      transactionStatus: async () => 'committed',
      close: async () => {},
    },
    createExportEngine(dir, jobs, options) {
      return createExportRunner({
        dir,
        jobs,
        engineOptions: options,
        async plan(request) {
          const source = request.source as { table?: string; sql?: string };
          const read = source.table ? { table: source.table, count: false } : statement(source.sql ?? '');
          const info = await schema.resolveTable(read.table);
          return {
            label: info.name,
            source: { table: info.name },
            estimate: async () => store.get(info.name)!.length,
            async write(format) {
              async function* batches() {
                yield store.get(info.name)!;
              }
              return rowBody(
                format,
                info.columns.map((column) => column.name),
                batches(),
              );
            },
          };
        },
      });
    },
    readLayers: async () => [
      { layer: 'memory', active: true, detail: 'the engine has no write path but commits' },
    ],
    setUpReaderRole: async () => ({ role: 'none', state: 'missing', detail: 'the memory engine has none' }),
    seed: async () => ({ alreadySeeded: true, counts: {} }) as never,
    close: async () => {},
  };
  if (!readOnly) return source;
  // A read-only engine has none of the members its features would bring.
  const {
    changes: _changes,
    createExportEngine: _export,
    setUpReaderRole: _role,
    seed: _seed,
    ...reads
  } = source;
  return reads;
}

/** memory://<name>, or memoryro://<name>: the same tables on an engine that can do nothing but read. */
function memoryEngineOf(scheme: 'memory' | 'memoryro'): EngineDescriptor {
  const readOnly = scheme === 'memoryro';
  const engine: EngineDescriptor = {
    id: scheme,
    label: readOnly ? 'Memory (read-only)' : 'Memory',
    drivers: [{ id: scheme, label: 'Memory' }],
    schemes: [scheme],
    urlForms: `${scheme}://<name>`,
    features: readOnly ? [] : MEMORY_FEATURES,
    parseUrl(url, { field }) {
      const name = new RegExp(`^${scheme}://(\\w+)$`, 'i').exec(url)?.[1];
      if (!name) throw new DataSourceError('config', `${field}: a ${scheme} URL is ${scheme}://<name>.`);
      return { driver: scheme, url: `${scheme}://${name}`, description: `Memory database '${name}'` };
    },
    async open(options) {
      const url = options.url ?? options.env?.DATABASE_URL ?? '';
      const name = engine.parseUrl(url, { cwd: '', field: 'url' }).url.slice(`${scheme}://`.length);
      return openMemory(name, readOnly);
    },
  };
  return engine;
}

const memoryEngine = memoryEngineOf('memory');

// ── Served through every entry point ─────────────────────────────────────────────────────────

describe('an engine registered from a test, served by the tools, the CLI, the app and MCP', () => {
  let dir: string;
  let env: Record<string, string | undefined>;
  let app: StartedApp | undefined;
  let unregister: () => void;
  const cli = async (...argv: string[]) => {
    const result = await runCli(argv, env, dir);
    expect(result.code, `${argv.join(' ')}\n${result.stderr}`).toBe(0);
    return result.stdout;
  };
  const call = async (tool: string, input: unknown) =>
    JSON.parse(await cli('--connection', 'mem', 'call', tool, JSON.stringify(input)));

  beforeAll(async () => {
    unregister = installedEngines.register(memoryEngine);
    dir = await mkdtemp(join(tmpdir(), 'toolrow-plug-in-'));
    env = { TOOLROW_DATA_DIR: join(dir, 'data'), DATABASE_URL: undefined, TOOLROW_CONNECTION: undefined };
  });

  afterAll(async () => {
    await app?.close();
    unregister();
    await rm(dir, { recursive: true, force: true });
  });

  it('the CLI adds it by URL, tests it, and lists it with its engine', async () => {
    const added = await cli(
      'connections',
      'add',
      'mem',
      'memory://shop',
      '--mode',
      'full-auto',
      '--mcp',
      'full',
    );
    expect(added).toMatch(/Memory database 'shop'/);
    expect(await cli('connections', 'list')).toMatch(/mem\s+memory\s+memory:\/\/shop/);
    const refused = await runCli(['connections', 'add', 'other', 'nosuch://x'], env, dir);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/memory:\/\/<name>/);
  });

  it('the tools read it: tables, rows, counts, its own query language, and a refusal in it', async () => {
    const tables = await call('listTables', {});
    expect(tables.tables.map((table: { name: string }) => table.name)).toEqual(['customers', 'orders']);
    expect(
      (await call('countRows', { table: 'orders', filter: { column: 'status', op: 'eq', value: 'paid' } }))
        .count,
    ).toBe(3);
    const query = await call('runQuery', { sql: "SELECT * FROM customers WHERE country = 'DE'" });
    expect(query.rows).toEqual([{ id: 3, name: 'Emmy', country: 'DE' }]);
    const refused = await runCli(
      ['--connection', 'mem', 'call', 'runQuery', JSON.stringify({ sql: 'DELETE FROM orders' })],
      env,
      dir,
    );
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/The memory engine reads one statement/);
    // A tool its rows reserve for an engine that has foreign keys is not served, and says so.
    const unserved = await runCli(
      ['--connection', 'mem', 'call', 'describeRelations', '{"table":"orders"}'],
      env,
      dir,
    );
    expect(unserved.stderr).toMatch(
      /not served on this connection: it needs foreignKeys, which the memory engine does not have/,
    );
  });

  it('stages a change, commits it, and the engine holds it', async () => {
    await call('stageUpdateRows', {
      table: 'orders',
      updates: [{ key: { id: 2 }, values: { status: 'cancelled' } }],
    });
    expect(JSON.parse(await cli('--connection', 'mem', 'staging', 'list', '--json'))).toHaveLength(1);
    expect(await cli('--connection', 'mem', 'staging', 'commit')).toMatch(/1 update/);
    expect((await call('getRow', { table: 'orders', key: { id: 2 } })).row.status).toBe('cancelled');
  });

  it('the app serves it: status, tables, a query, an export', async () => {
    app = await startApp({
      env: { ...env, TOOLROW_CONNECTION: 'mem' },
      cwd: dir,
      port: 0,
      build: false,
      mcp: true,
      out: () => {},
      err: () => {},
    });
    // biome-ignore lint/suspicious/noExplicitAny: the app's JSON, read as a client reads it
    const api = async (path: string, body?: unknown): Promise<any> => {
      const response = await fetch(`${app!.url}${path}`, {
        method: body === undefined ? 'GET' : 'POST',
        headers: { authorization: `Bearer ${app!.token}`, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      expect(response.status, path).toBe(200);
      return response.json();
    };
    const status = await api('/api/status');
    expect(status.database).toMatchObject({
      engine: 'memory',
      typedValues: false,
      language: { name: 'Memory SQL' },
    });
    expect((await api('/api/tables')).tables).toHaveLength(2);
    expect((await api('/api/query', { sql: 'SELECT count(*) FROM orders' })).rows).toEqual([{ count: 12 }]);
    const job = await api('/api/exports', { table: 'customers', format: 'ndjson' });
    let done = job;
    while (done.state !== 'done' && done.state !== 'failed') done = await api(`/api/exports/${job.id}`);
    expect(done.state, done.error).toBe('done');
    const file = await fetch(`${app.url}/api/exports/${job.id}/download`, {
      headers: { authorization: `Bearer ${app.token}` },
    });
    expect(
      (await file.text())
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line).name),
    ).toEqual(['Ada', 'Grace', 'Emmy']);
  });

  it('an MCP client over HTTP lists what the engine serves and reads through it', async () => {
    const created = JSON.parse(
      await cli('--connection', 'mem', 'mcp', 'token', 'create', '--scope', 'full', '--json'),
    );
    const client = new Client({ name: 'plug-in', version: '0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${app!.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${created.token}` } },
      }),
    );
    try {
      const names = (await client.listTools()).tools.map((tool) => tool.name);
      expect(names).toContain('runQuery');
      expect(names).not.toContain('describeRelations');
      const result = await client.callTool({ name: 'countRows', arguments: { table: 'customers' } });
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toMatchObject({ count: 3 });
    } finally {
      await client.close();
    }
  });
});

// ── An engine that declares no staged writes ──────────────────────────────────────────────────

describe('an engine that can only read serves no tool that would need more, on every entry point', () => {
  let dir: string;
  let env: Record<string, string | undefined>;
  let app: StartedApp | undefined;
  let unregister: () => void;
  const cli = (...argv: string[]) => runCli(argv, env, dir);
  // From the rows: every tool that needs a feature; the engine below has none.
  const NEEDING_MORE = TOOL_NAMES.filter(
    (name) => (TOOL_NEEDS as Record<string, unknown>)[name] !== undefined,
  );

  it('the rows reserve the stage, export and query tools for engines that can do them', () => {
    expect(NEEDING_MORE).toEqual(
      expect.arrayContaining([
        'stageUpdateRows',
        'listStagedChanges',
        'startExport',
        'runQuery',
        'describeRelations',
      ]),
    );
  });

  beforeAll(async () => {
    unregister = installedEngines.register(memoryEngineOf('memoryro'));
    dir = await mkdtemp(join(tmpdir(), 'toolrow-read-only-engine-'));
    env = { TOOLROW_DATA_DIR: join(dir, 'data'), DATABASE_URL: undefined, TOOLROW_CONNECTION: undefined };
    const added = await cli(
      'connections',
      'add',
      'ro',
      'memoryro://shop',
      '--mode',
      'full-auto',
      '--mcp',
      'full',
    );
    expect(added.code, added.stderr).toBe(0);
  });

  afterAll(async () => {
    await app?.close();
    unregister();
    await rm(dir, { recursive: true, force: true });
  });

  it('the CLI refuses each such tool, naming what the engine lacks, and still reads', async () => {
    for (const [tool, input, lacks] of [
      [
        'stageUpdateRows',
        { table: 'orders', updates: [{ key: { id: 2 }, values: { status: 'x' } }] },
        'stagedWrites',
      ],
      ['startExport', { table: 'orders', format: 'ndjson' }, 'exports'],
      ['runQuery', { sql: 'SELECT * FROM orders' }, 'cancel'],
    ] as const) {
      const refused = await cli('--connection', 'ro', 'call', tool, JSON.stringify(input));
      expect(refused.code, tool).not.toBe(0);
      expect(refused.stderr, tool).toMatch(new RegExp(`not served on this connection: it needs ${lacks}`));
    }
    const counted = await cli('--connection', 'ro', 'call', 'countRows', '{"table":"orders"}');
    expect(JSON.parse(counted.stdout).count).toBe(12);
    const commit = await cli('--connection', 'ro', 'staging', 'commit');
    expect(commit.stderr).not.toMatch(/TypeError|undefined/);
  });

  it('the catalog of the engine lists none of them', async () => {
    const listed = await cli('catalog', '--engine', 'memoryro', '--json');
    expect(listed.code, listed.stderr).toBe(0);
    const names = (JSON.parse(listed.stdout) as { name: string }[]).map((row) => row.name);
    expect(names).toContain('countRows');
    for (const tool of NEEDING_MORE) expect(names).not.toContain(tool);
  });

  it('the app refuses them and an edit, changing nothing; MCP lists none of them', async () => {
    app = await startApp({
      env: { ...env, TOOLROW_CONNECTION: 'ro' },
      cwd: dir,
      port: 0,
      build: false,
      mcp: true,
      out: () => {},
      err: () => {},
    });
    const post = (path: string, body: unknown) =>
      fetch(`${app!.url}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${app!.token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const tool = await post('/api/tools/stageDeleteRows', { input: { table: 'orders', keys: [{ id: 1 }] } });
    expect(tool.status).toBeGreaterThanOrEqual(400);
    expect(JSON.stringify(await tool.json())).toMatch(/needs stagedWrites/);
    const edit = await post('/api/staging/update', {
      table: 'orders',
      key: { id: 1 },
      values: { status: 'x' },
    });
    expect(edit.status).toBe(409);
    expect(JSON.stringify(await edit.json())).toMatch(/does not have 'stagedWrites'. Nothing was changed/);
    const listed = await fetch(`${app.url}/api/staging`, {
      headers: { authorization: `Bearer ${app.token}` },
    });
    expect(((await listed.json()) as { changes: unknown[] }).changes).toEqual([]);

    const created = await cli('--connection', 'ro', 'mcp', 'token', 'create', '--scope', 'full', '--json');
    const client = new Client({ name: 'read-only', version: '0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${app.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${JSON.parse(created.stdout).token}` } },
      }),
    );
    try {
      const names = (await client.listTools()).tools.map((each) => each.name);
      expect(names).toContain('countRows');
      for (const name of NEEDING_MORE) expect(names).not.toContain(name);
      const refused = await client.callTool({
        name: 'stageInsertRows',
        arguments: { table: 'orders', rows: [{ id: 99 }] },
      });
      expect(refused.isError).toBe(true);
      expect(JSON.stringify(refused.content)).toMatch(/needs stagedWrites/);
    } finally {
      await client.close();
    }
  });
});
