// An engine is a plug-in: one written entirely in this file (tables kept in memory, a one-line
// query language), registered, and then served by the tools through the CLI, the app's API and an
// MCP client over HTTP — with no other file knowing it exists.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import {
  type ChangeToApply,
  type ColumnInfo,
  createExportRunner,
  createSnapshotCache,
  type DataSource,
  DataSourceError,
  type EngineDescriptor,
  type Filter,
  type FilterCondition,
  type Row,
  type RowKey,
  rowBody,
  type StagingConflict,
  type TableInfo,
} from '@toolrow/datasource';
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

function openMemory(name: string): DataSource {
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
    dialect: 'memory',
    language: { name: 'Memory SQL', example: 'SELECT * FROM orders' },
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
  return {
    engine: 'memory',
    driver: 'memory',
    // No foreign keys: the tools that need them are not served (describeRelations, below).
    features: [],
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
}

const memoryEngine: EngineDescriptor = {
  id: 'memory',
  label: 'Memory',
  drivers: [{ id: 'memory', label: 'Memory' }],
  schemes: ['memory'],
  urlForms: 'memory://<name>',
  capabilities: { typedValues: false, largeShop: false },
  features: [],
  parseUrl(url, { field }) {
    const name = /^memory:\/\/(\w+)$/i.exec(url)?.[1];
    if (!name) throw new DataSourceError('config', `${field}: a memory URL is memory://<name>.`);
    return { driver: 'memory', url: `memory://${name}`, description: `Memory database '${name}'` };
  },
  async open(options) {
    const url = options.url ?? options.env?.DATABASE_URL ?? '';
    return openMemory(this.parseUrl(url, { cwd: '', field: 'url' }).url.slice('memory://'.length));
  },
};

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
