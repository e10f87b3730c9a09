// Named connections through the real CLI: two embedded databases side by side, each with its own
// staging, history and mode; a PostgreSQL connection whose password never leaves its 0600 file;
// and every bad input refused with the field named and nothing saved.
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { installedEngines } from '@toolrow/engines';
import { openDatabase } from '@toolrow/postgres';
import { createTestDatabase, type TestDatabase } from '@toolrow/postgres/testing';
import { describeWithService, serviceUrl } from '@toolrow/test-services';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, TOOLROW_BIN } from '../testing.ts';

/** An environment a child process can take: the unset variables left out. */
function stringEnv(env: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
}

async function tempDir(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'toolrow-connections-'));
}

/** Every byte Toolrow wrote under `dir`, but the one file meant to hold passwords. */
async function everythingBut(dir: string, secretsFile: string): Promise<string> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    const path = join(entry.parentPath, entry.name);
    if (!entry.isFile() || path === secretsFile) continue;
    out.push((await readFile(path)).toString('latin1'));
  }
  return out.join('\n');
}

describe('toolrow connections: bad input names the field, and nothing is saved', () => {
  let dir: string;
  let env: Record<string, string | undefined>;
  beforeAll(async () => {
    dir = await tempDir();
    env = { TOOLROW_DATA_DIR: join(dir, 'data'), DATABASE_URL: undefined, TOOLROW_CONNECTION: undefined };
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it.each([
    [
      ['connections', 'add', 'Prod', 'postgres://h/db'],
      2,
      /name: 'Prod' is not a connection name\. Use 1 to 40 lowercase/,
    ],
    [['connections', 'add', 'default', 'postgres://h/db'], 2, /name: 'default' is the unnamed connection/],
    [
      ['connections', 'add', 'a', 'oracle://h/db'],
      2,
      /url: the scheme 'oracle:' is not one Toolrow connects to\. Use postgres:\/\//,
    ],
    [['connections', 'add', 'a', 'not a url'], 2, /url: 'not a url' has no scheme/],
    [['connections', 'add', 'a', 'pglite:'], 2, /url: pglite: needs a directory/],
    [['connections', 'add', 'a'], 2, /connections add needs <name> <url>/],
    [
      ['connections', 'add', 'a', 'pglite:x', '--mode', 'yolo'],
      2,
      /--mode must be one of manual, auto, full-auto, got 'yolo'/,
    ],
    [
      ['connections', 'add', 'a', 'pglite:x', '--mcp', 'all'],
      2,
      /--mcp must be one of off, readonly, staged, full, got 'all'/,
    ],
    [['connections', 'add', 'a', 'postgres://nobody@127.0.0.1:1/db'], 1, /127\.0\.0\.1:1.*Nothing was saved/],
    [
      ['connections', 'use', 'nope'],
      1,
      /There is no connection named 'nope'\. No connection is configured yet\. Add one with toolrow connections add nope <url>/,
    ],
    [['connections', 'remove', 'nope'], 1, /There is no connection named 'nope'/],
    [['connections', 'set', 'nope', '--mode', 'auto'], 1, /There is no connection named 'nope'/],
    [['connections', 'frob'], 2, /Unknown subcommand 'frob'\. Use list, add, set, use, test or remove\./],
    [['db', 'info', '--connection'], 2, /--connection needs a connection's name/],
    [['call', 'listTables', '{}', '--connection', 'nope'], 1, /There is no connection named 'nope'/],
  ])('%j exits %i', async (argv, code, message) => {
    const result = await runCli(argv, env, dir);
    expect(result.stderr).toMatch(message);
    expect(result.code).toBe(code);
    const listed = await runCli(['connections', 'list', '--json'], env, dir);
    expect(JSON.parse(listed.stdout).connections).toEqual([]);
  });
});

describe('toolrow connections --help', () => {
  it("names every installed engine's URL forms", async () => {
    const { stdout, code } = await runCli(['connections', 'add', '--help'], {}, process.cwd());
    expect(code).toBe(0);
    for (const engine of installedEngines.engines)
      expect(stdout).toContain(`${engine.label}: ${engine.urlForms}`);
    expect(stdout).toContain('dynamodb://');
  });
});

describe('toolrow connections over two embedded databases', () => {
  let dir: string;
  let env: Record<string, string | undefined>;
  const run = (...argv: string[]) => runCli(argv, env, dir);
  beforeAll(async () => {
    dir = await tempDir();
    env = { TOOLROW_DATA_DIR: join(dir, 'data'), DATABASE_URL: undefined, TOOLROW_CONNECTION: undefined };
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('adds, seeds and reads each one; use picks the default; each keeps its own staging and mode', async () => {
    const added = await run('connections', 'add', 'shop-a', 'pglite:./a', '--mode', 'auto');
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toMatch(/Connected to shop-a \(PGlite .*\/a\): 0 tables\./);
    expect(added.stdout).toMatch(/Saved connection 'shop-a'.*mode auto, MCP off/);
    expect((await run('connections', 'add', 'shop-b', 'pglite:./b', '--no-test')).code).toBe(0);
    const duplicate = await run('connections', 'add', 'shop-a', 'pglite:./c');
    expect(duplicate.code).toBe(1);
    expect(duplicate.stderr).toMatch(/a connection named 'shop-a' exists already.*Nothing was saved/);

    expect((await run('db', 'seed', '--orders', '30', '--connection', 'shop-a')).code).toBe(0);
    expect((await run('db', 'seed', '--orders', '40', '--connection=shop-b')).code).toBe(0);
    const countOf = async (...extra: string[]) =>
      JSON.parse((await run('call', 'countRows', '{"table":"orders"}', ...extra)).stdout).count;
    expect(await countOf('--connection', 'shop-a')).toBe(30);
    expect(await countOf('--connection', 'shop-b')).toBe(40);
    // No connection named and no default yet: the embedded sample (unseeded here) is used.
    expect((await run('call', 'countRows', '{"table":"orders"}')).stderr).toMatch(/Unknown table 'orders'/);
    expect((await run('connections', 'use', 'shop-b')).code).toBe(0);
    expect(await countOf()).toBe(40);
    expect((await run('call', 'countRows', '{"table":"orders"}', '--connection', 'default')).stderr).toMatch(
      /Unknown table 'orders'/,
    );

    const listed = JSON.parse((await run('connections', 'list', '--json')).stdout);
    expect(listed.default).toBe('shop-b');
    expect(listed.connections).toEqual([
      expect.objectContaining({ name: 'shop-a', engine: 'pglite', mode: 'auto', mcp: 'off', default: false }),
      expect.objectContaining({
        name: 'shop-b',
        engine: 'pglite',
        mode: 'manual',
        mcp: 'off',
        default: true,
      }),
    ]);
    const tools = JSON.parse((await run('call', 'listConnections', '{}')).stdout).connections;
    expect(
      tools.filter((each: { active: boolean }) => each.active).map((each: { name: string }) => each.name),
    ).toEqual(['shop-b']);

    // Staged on A: B sees none of it and its commit applies nothing of it.
    const staged = await run(
      'call',
      'stageUpdateRows',
      '{"table":"orders","updates":[{"key":{"id":1},"values":{"status":"cancelled"}}]}',
      '--connection',
      'shop-a',
    );
    expect(staged.code, staged.stderr).toBe(0);
    const onA = JSON.parse((await run('staging', 'list', '--json', '--connection', 'shop-a')).stdout);
    expect(onA).toHaveLength(1);
    expect(JSON.parse((await run('staging', 'list', '--json')).stdout)).toEqual([]);
    const commitB = await run('staging', 'commit', '--connection', 'shop-b');
    expect(commitB.stdout).toMatch(/Nothing staged/);
    const status = async (connection: string) =>
      JSON.parse(
        (
          await run(
            'call',
            'runQuery',
            '{"sql":"select status from orders where id = 1"}',
            '--connection',
            connection,
          )
        ).stdout,
      ).rows[0].status;
    const before = await status('shop-a');
    expect(before).not.toBe('cancelled');
    expect((await run('staging', 'commit', '--connection', 'shop-a')).code).toBe(0);
    expect(await status('shop-a')).toBe('cancelled');
    expect(await status('shop-b')).not.toBe('cancelled');

    // Not exposed over MCP until the user says so: refused inside MCP, where the client shows it.
    const client = new Client({ name: 'connections-test', version: '0' });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [TOOLROW_BIN, 'mcp', '--stdio', '--connection', 'shop-a'],
      env: stringEnv({ ...process.env, ...env }),
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (chunk) => {
      stderr += String(chunk);
    });
    await client.connect(transport);
    const notExposed =
      /The connection 'shop-a' is not exposed over MCP.*toolrow connections set shop-a --mcp readonly/;
    await expect(client.listTools()).rejects.toThrow(notExposed);
    await client.close();
    expect(stderr).toMatch(notExposed);
    // Tokens too: one is not made for a connection no client is served on.
    const refusedToken = await run('mcp', 'token', 'create', '--scope', 'readonly', '--connection', 'shop-a');
    expect(refusedToken.code).toBe(1);
    expect(refusedToken.stderr).toMatch(notExposed);
    expect((await run('connections', 'set', 'shop-a', '--mcp', 'staged', '--mode', 'full-auto')).code).toBe(
      0,
    );
    expect(JSON.parse((await run('connections', 'list', '--json')).stdout).connections[0]).toMatchObject({
      name: 'shop-a',
      mcp: 'tables:staged',
      mode: 'full-auto',
    });

    // Forgetting a connection leaves the other, and the default goes back to the unnamed one.
    // An embedded database has no password, so none is said to be removed.
    const removed = await run('connections', 'remove', 'shop-b');
    expect(removed.code).toBe(0);
    expect(removed.stdout).toBe(
      "Removed connection 'shop-b'. Its staged changes and history stay under its name.\n",
    );
    const after = JSON.parse((await run('connections', 'list', '--json')).stdout);
    expect(after.default).toBe('default');
    expect(after.connections.map((each: { name: string }) => each.name)).toEqual(['shop-a']);
  }, 240_000);
});

const serverUrl = serviceUrl('postgres');
describeWithService('postgres', 'toolrow connections to PostgreSQL: the password stays in its file', () => {
  let dir: string;
  let env: Record<string, string | undefined>;
  let database: TestDatabase;
  // A login of its own, whose password is a string that can appear nowhere by chance.
  const role = `toolrow_c_${randomBytes(4).toString('hex')}`;
  const password = `pw-${randomBytes(12).toString('hex')}`;
  let url: string;
  const admin = async (sql: string) => {
    const db = await openDatabase({ url: serverUrl!, env: {}, poolSize: 1 });
    try {
      await db.exec(sql);
    } finally {
      await db.close();
    }
  };
  const run = (...argv: string[]) => runCli(argv, env, dir);
  beforeAll(async () => {
    dir = await tempDir();
    env = {
      TOOLROW_DATA_DIR: join(dir, 'data'),
      DATABASE_URL: undefined,
      TOOLROW_CONNECTION: undefined,
      PGPASSWORD: undefined,
    };
    database = await createTestDatabase(serverUrl!);
    await admin(
      `CREATE ROLE ${role} LOGIN PASSWORD '${password}'; ALTER DATABASE ${database.name} OWNER TO ${role}`,
    );
    const parsed = new URL(database.url);
    parsed.username = role;
    parsed.password = password;
    url = parsed.href;
  });
  afterAll(async () => {
    await database?.drop();
    await admin(`DROP ROLE IF EXISTS ${role}`).catch(() => {});
    await rm(dir, { recursive: true, force: true });
  });

  it('a wrong password saves nothing; the right one is kept 0600 and appears in no output, state or audit', async () => {
    const wrong = new URL(url);
    wrong.password = 'not-the-password';
    const refused = await run('connections', 'add', 'team', wrong.href);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/refused the login.*Nothing was saved/);
    expect(JSON.parse((await run('connections', 'list', '--json')).stdout).connections).toEqual([]);

    const outputs: string[] = [];
    const keep = async (...argv: string[]) => {
      const result = await run(...argv);
      outputs.push(result.stdout, result.stderr);
      return result;
    };
    expect((await keep('connections', 'add', 'team', url, '--mcp', 'readonly')).code).toBe(0);
    await keep('connections', 'list');
    await keep('connections', 'list', '--json');
    await keep('connections', 'test', 'team');
    await keep('db', 'info', '--connection', 'team');
    expect((await keep('db', 'seed', '--orders', '20', '--connection', 'team')).code).toBe(0);
    await keep('call', 'listConnections', '{}', '--connection', 'team');
    await keep('call', 'runQuery', '{"sql":"select count(*) from orders"}', '--connection', 'team');
    await keep('call', 'runQuery', '{"sql":"select pg_sleep("}', '--connection', 'team');
    const secrets = join(dir, 'data', 'connection-secrets.json');
    expect((await stat(secrets)).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readFile(secrets, 'utf8'))).toEqual({ team: password });
    for (const text of outputs) expect(text).not.toContain(password);
    expect(await everythingBut(join(dir, 'data'), secrets)).not.toContain(password);
    const listed = JSON.parse((await run('connections', 'list', '--json')).stdout).connections[0];
    expect(listed).toMatchObject({
      name: 'team',
      engine: 'postgres',
      passwordStored: true,
      mcp: 'tables:readonly',
    });
    expect(listed.url).not.toContain(password);

    // Removing it removes the password too.
    const removed = await run('connections', 'remove', 'team');
    expect(removed.code).toBe(0);
    expect(removed.stdout).toContain("Removed connection 'team' and its stored password.");
    await expect(stat(secrets)).rejects.toMatchObject({ code: 'ENOENT' });
  }, 240_000);
});
