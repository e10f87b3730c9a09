// `npm start` as a real process: `toolrow serve` through the real bin, with its own data dir.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, TOOLROW_BIN } from '../testing.ts';

interface Started {
  child: ChildProcess;
  url: string;
  /** From the printed link `<url>/?token=<token>`. */
  token: string;
  stdout: () => string;
  stderr: () => string;
  exit: Promise<number | null>;
}

function start(args: string[], env: Record<string, string>): Promise<Started> {
  const child = spawn(process.execPath, [TOOLROW_BIN, 'serve', ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? tmpdir(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    stderr += chunk;
  });
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setInterval(() => {
      const match = /running at (http:\/\/127\.0\.0\.1:\d+)\/\?token=([\w-]+)\n/.exec(stdout);
      if (match?.[1] && match[2]) {
        clearInterval(timer);
        resolve({ child, url: match[1], token: match[2], stdout: () => stdout, stderr: () => stderr, exit });
      }
    }, 100);
    void exit.then((code) => {
      clearInterval(timer);
      reject(Object.assign(new Error(`exited ${code} before serving:\n${stderr}`), { code, stderr, stdout }));
    });
  });
}

describe('toolrow serve, what npm start runs (the real process)', () => {
  let dataDir: string;
  let holder: Server;
  let heldPort: number;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'toolrow-start-'));
    holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', () => resolve()));
    heldPort = (holder.address() as { port: number }).port;
  });

  afterAll(async () => {
    holder?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('creates and seeds the embedded database on first run, serves the API, and stops on SIGINT', async () => {
    const app = await start(['--port', '0', '--orders', '300', '--no-build'], { TOOLROW_DATA_DIR: dataDir });
    try {
      expect(app.stderr()).toContain('Creating the sample shop (300 orders)');
      expect(app.stdout()).toContain('model     none');
      expect(app.stdout()).toContain('MCP       off');
      // Without the printed token the app answers nothing; with it, everything.
      expect((await fetch(`${app.url}/api/tables`)).status).toBe(401);
      const authorization = `Bearer ${app.token}`;
      const tables = (await (
        await fetch(`${app.url}/api/tables`, { headers: { authorization } })
      ).json()) as {
        tables: { id: string }[];
      };
      expect(tables.tables.map((table) => table.id).sort()).toEqual([
        'public.customers',
        'public.order_items',
        'public.orders',
        'public.products',
      ]);
      const count = (await (
        await fetch(`${app.url}/api/tables/orders/count`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization },
          body: '{}',
        })
      ).json()) as { count: number };
      expect(count.count).toBe(300);
      // The CLI finds the app here; it goes away when the app stops.
      const appFile = JSON.parse(await readFile(join(dataDir, 'app.json'), 'utf8')) as {
        url: string;
        token: string;
      };
      expect(appFile).toMatchObject({ url: app.url, token: app.token, pid: app.child.pid });
    } finally {
      app.child.kill('SIGINT');
    }
    expect(await app.exit).toBe(0);
    expect(app.stderr()).toContain('Stopping Toolrow');
    expect(existsSync(join(dataDir, 'app.json'))).toBe(false);
  }, 180_000);

  it('opens the same database again without seeding, and can serve MCP with a client config', async () => {
    const app = await start(['--port', '0', '--no-build', '--mcp'], { TOOLROW_DATA_DIR: dataDir });
    try {
      expect(app.stderr()).not.toContain('Creating the sample shop');
      expect(app.stdout()).toContain(`MCP       on at ${app.url}/mcp, scope tables:staged`);
      const config = JSON.parse(
        app.stdout().slice(app.stdout().indexOf('{'), app.stdout().lastIndexOf('}') + 1),
      ) as {
        mcpServers: { toolrow: { url: string; headers: { Authorization: string } } };
      };
      expect(config.mcpServers.toolrow.url).toBe(`${app.url}/mcp`);
      const unauthorized = await fetch(`${app.url}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
      });
      expect(unauthorized.status).toBe(401);
      const listed = await fetch(`${app.url}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: config.mcpServers.toolrow.headers.Authorization,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
      });
      expect(listed.status).toBe(200);
      expect(await listed.text()).toContain('stageUpdateRows');
    } finally {
      app.child.kill('SIGINT');
    }
    expect(await app.exit).toBe(0);
  }, 180_000);

  it('refuses a second start on the same data dir, naming the first, which keeps its app.json and its CLI', async () => {
    const first = await start(['--port', '0', '--no-build'], { TOOLROW_DATA_DIR: dataDir });
    try {
      const before = await readFile(join(dataDir, 'app.json'), 'utf8');
      // Another port: only the data dir is shared.
      const second = await start(['--port', '0', '--no-build'], { TOOLROW_DATA_DIR: dataDir }).catch(
        (error: { code: number; stderr: string }) => error,
      );
      expect(second).toMatchObject({ code: 1 });
      const stderr = (second as { stderr: string }).stderr;
      expect(stderr).toContain(`Toolrow is already running on this data dir (${dataDir}): ${first.url}`);
      expect(stderr).toContain(`process ${first.child.pid}`);
      expect(stderr).toContain('TOOLROW_DATA_DIR=<another folder>');
      // The first app's file is untouched, and the CLI still reaches it.
      expect(await readFile(join(dataDir, 'app.json'), 'utf8')).toBe(before);
      const listed = await runCli(['call', 'countRows', '{"table":"orders"}'], {
        TOOLROW_DATA_DIR: dataDir,
        DATABASE_URL: '',
        TOOLROW_STATE_URL: '',
      });
      expect(listed.code, listed.stderr).toBe(0);
      expect(JSON.parse(listed.stdout)).toMatchObject({ count: 300 });
    } finally {
      first.child.kill('SIGINT');
    }
    expect(await first.exit).toBe(0);
  }, 180_000);

  it('refuses a taken port before it opens the database, and says what to do', async () => {
    const failed = await start(['--port', String(heldPort), '--no-build'], {
      TOOLROW_DATA_DIR: dataDir,
    }).catch((error: { code: number; stderr: string }) => error);
    expect(failed).toMatchObject({ code: 1 });
    expect((failed as { stderr: string }).stderr).toContain(`127.0.0.1:${heldPort} is already in use`);
    expect((failed as { stderr: string }).stderr).toContain(`npm start -- --port ${heldPort + 1}`);
    expect((failed as { stderr: string }).stderr).toContain('TOOLROW_PORT');
  }, 60_000);

  it('exits 2 with the usage on a bad option', async () => {
    const failed = await start(['--port', 'x'], {}).catch((error: { code: number; stderr: string }) => error);
    expect(failed).toMatchObject({ code: 2 });
    expect((failed as { stderr: string }).stderr).toContain('Usage: toolrow serve');
  }, 60_000);
});

describe('toolrow serve: bad arguments are refused before anything starts', () => {
  it.each([
    [['--port', '70000'], '--port must be a whole number from 0 to 65,535'],
    [['--port', '-1'], "--port's value starts with a dash"],
    [['--port=-1'], '--port must be a whole number from 0 to 65,535'],
    [['--port'], '--port needs a value'],
    [['--mcp=yes'], '--mcp is a switch and takes no value'],
    [['--port', '80.5'], '--port must be a whole number from 0 to 65,535'],
    [['--orders', '1e12'], '--orders must be a whole number from 1 to 10,000,000'],
    [['--orders', '0'], '--orders must be a whole number from 1 to 10,000,000'],
  ])('serve %j', async (args, message) => {
    const dir = await mkdtemp(join(tmpdir(), 'toolrow-serve-args-'));
    try {
      const dataDir = join(dir, 'data');
      const result = await runCli(['serve', ...args], { TOOLROW_DATA_DIR: dataDir }, dir);
      expect(result.code).not.toBe(0);
      expect(result.stderr).toContain(message);
      // Nothing was made: no data dir, no folder of any kind.
      expect(existsSync(dataDir)).toBe(false);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
