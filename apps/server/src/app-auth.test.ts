// The app is its user's: a real server on a real socket, asked as `curl` would ask it (fetch, or a
// raw socket where fetch cannot leave a header out). Nothing is mocked.
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openToolrow, type Toolrow } from '@toolrow/state';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { APP_FILE, findRunningApp } from './app-file.ts';
import { mountMcp } from './mcp.ts';
import { startApp } from './start.ts';
import { bearer, SEED_NOW, startTestServer, type TestServer } from './test-support.ts';

interface ErrorJson {
  error: { message: string; hint?: string; code: string };
}

let dir: string;
let toolrow: Toolrow;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'toolrow-auth-'));
  // In memory, with its data dir (where app.json goes) in the temp folder.
  toolrow = await openToolrow({ env: {}, cwd: dir, data: { memory: true }, state: { memory: true } });
  await toolrow.source.seed!({ orders: 30, now: SEED_NOW });
}, 120_000);

afterAll(async () => {
  await toolrow?.close();
  await rm(dir, { recursive: true, force: true });
});

/** One staged edit of order 1, so a commit has something to apply. */
async function stageOne() {
  await toolrow.state.staging.discard({});
  const before = (await toolrow.source.rows.get('orders', { id: 1 })) as { note: string | null };
  const note = `staged ${Date.now()}`;
  await toolrow.state.staging.stageUpdate('orders', [{ key: { id: 1 }, values: { note } }], {
    actor: 'user',
    profile: 'default',
  });
  return { before: before.note, note };
}

const noteOfOrder1 = async () =>
  ((await toolrow.source.rows.get('orders', { id: 1 })) as { note: string | null }).note;

describe('the API without the app token', () => {
  let app: TestServer;
  beforeAll(async () => {
    app = await startTestServer(toolrow, { desktopDir: null });
  });
  afterAll(() => app?.close());

  it('answers POST /api/staging/commit and GET /api/tables with 401, says how to get in, and commits nothing', async () => {
    const { before } = await stageOne();
    const commit = await fetch(`${app.url}/api/staging/commit`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(commit.status).toBe(401);
    expect(commit.headers.get('www-authenticate')).toContain('Bearer');
    const { error } = (await commit.json()) as ErrorJson;
    expect(error.code).toBe('unauthorized');
    expect(error.message).toContain('no app token');
    expect(error.hint).toContain('npm start');
    expect(error.hint).toContain('Authorization: Bearer');
    expect(await noteOfOrder1()).toBe(before);
    expect(await toolrow.state.staging.list({})).toHaveLength(1);

    const tables = await fetch(`${app.url}/api/tables`);
    expect(tables.status).toBe(401);
    expect(((await tables.json()) as ErrorJson).error.code).toBe('unauthorized');
    // Unknown routes too: nothing under /api answers without the token.
    expect((await fetch(`${app.url}/api/nothing-here`)).status).toBe(401);
  });

  it('refuses a wrong bearer token, and a token in an /api URL, saying which', async () => {
    const wrong = await fetch(`${app.url}/api/tables`, { headers: bearer(`${app.token}x`) });
    expect(wrong.status).toBe(401);
    expect(((await wrong.json()) as ErrorJson).error.message).toContain(
      'not the token this Toolrow was started with',
    );
    const malformed = await fetch(`${app.url}/api/tables`, { headers: { authorization: app.token } });
    expect(malformed.status).toBe(401);
    const inUrl = await fetch(`${app.url}/api/tables?token=${app.token}`);
    expect(inUrl.status).toBe(401);
    expect(((await inUrl.json()) as ErrorJson).error.message).toContain('Authorization header');
  });

  it('with the bearer token: 200, and the commit applies', async () => {
    const { note } = await stageOne();
    const tables = await fetch(`${app.url}/api/tables`, { headers: bearer(app.token) });
    expect(tables.status).toBe(200);
    const commit = await fetch(`${app.url}/api/staging/commit`, {
      method: 'POST',
      headers: bearer(app.token, { 'content-type': 'application/json' }),
      body: '{}',
    });
    expect(commit.status).toBe(200);
    expect(await commit.json()).toEqual({ committed: 1, conflicts: [] });
    expect(await noteOfOrder1()).toBe(note);
  });

  it('a fresh token per server unless one is given', async () => {
    const other = await startTestServer(toolrow, { desktopDir: null });
    try {
      expect(other.token).not.toBe(app.token);
      expect(other.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect((await fetch(`${other.url}/api/tables`, { headers: bearer(app.token) })).status).toBe(401);
    } finally {
      await other.close();
    }
  });
});

describe('the pages: the ?token= link, then the cookie', () => {
  let app: TestServer;
  let desktopDir: string;
  beforeAll(async () => {
    desktopDir = join(dir, 'dist');
    await mkdir(join(desktopDir, 'assets'), { recursive: true });
    await writeFile(join(desktopDir, 'index.html'), '<!doctype html><title>the app</title>');
    await writeFile(join(desktopDir, 'assets', 'app.js'), 'console.log(1)');
    app = await startTestServer(toolrow, { desktopDir });
  });
  afterAll(() => app?.close());

  const cookieOf = (response: Response) => (response.headers.get('set-cookie') ?? '').split(';')[0]!;

  it('without the link: 401 and a page that says to open the URL npm start printed', async () => {
    for (const path of ['/', '/assets/app.js', '/some/page']) {
      const response = await fetch(`${app.url}${path}`);
      expect(response.status).toBe(401);
      expect(response.headers.get('content-type')).toContain('text/html');
      const html = await response.text();
      expect(html).toContain('npm start');
      expect(html).toContain(`http://127.0.0.1:${app.server.port}/?token=`);
      expect(html).not.toContain('the app');
    }
  });

  it('the link sets an HttpOnly, SameSite=Strict cookie and redirects to the URL without the token', async () => {
    const login = await fetch(app.openUrl, { redirect: 'manual' });
    expect(login.status).toBe(302);
    expect(login.headers.get('location')).toBe('/');
    const setCookie = login.headers.get('set-cookie') ?? '';
    expect(setCookie).toMatch(new RegExp(`^toolrow_app_${app.server.port}=[A-Za-z0-9_-]+; `));
    expect(setCookie).toContain('HttpOnly');
    expect(setCookie).toContain('SameSite=Strict');
    expect(setCookie).toContain('Path=/');
    // The cookie is not the token itself.
    expect(setCookie).not.toContain(app.token);
    const cookie = cookieOf(login);

    const page = await fetch(`${app.url}/`, { headers: { cookie } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('the app');
    expect((await fetch(`${app.url}/assets/app.js`, { headers: { cookie } })).status).toBe(200);
    const api = await fetch(`${app.url}/api/tables`, { headers: { cookie: `other=1; ${cookie}` } });
    expect(api.status).toBe(200);

    // The rest of the URL survives the redirect.
    const deep = await fetch(`${app.url}/some/page?tab=orders&token=${encodeURIComponent(app.token)}`, {
      redirect: 'manual',
    });
    expect(deep.headers.get('location')).toBe('/some/page?tab=orders');

    // A bookmarked link of an earlier start, in a browser signed in to this one, still opens the app.
    const old = await fetch(`${app.url}/?token=from-an-earlier-start`, {
      headers: { cookie },
      redirect: 'manual',
    });
    expect(old.status).toBe(302);
    expect(old.headers.get('location')).toBe('/');
    expect(old.headers.get('set-cookie')).toBeNull();
  });

  it('refuses a wrong link and a cookie of another launch', async () => {
    const wrong = await fetch(`${app.url}/?token=not-the-token`, { redirect: 'manual' });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('set-cookie')).toBeNull();
    expect(await wrong.text()).toContain('not the one this Toolrow was started with');

    const other = await startTestServer(toolrow, { desktopDir });
    try {
      const stale = cookieOf(await fetch(other.openUrl, { redirect: 'manual' })).replace(
        `toolrow_app_${other.server.port}`,
        `toolrow_app_${app.server.port}`,
      );
      const page = await fetch(`${app.url}/`, { headers: { cookie: stale } });
      expect(page.status).toBe(401);
      expect(await page.text()).toContain('earlier start');
      const api = await fetch(`${app.url}/api/tables`, { headers: { cookie: stale } });
      expect(api.status).toBe(401);
      expect(((await api.json()) as ErrorJson).error.message).toContain('earlier start');
    } finally {
      await other.close();
    }
  });
});

describe('the MCP endpoint in the app keeps its own tokens', () => {
  let app: TestServer;
  let mcpToken: string;
  beforeAll(async () => {
    const mcp = await mountMcp({ source: toolrow.source, state: toolrow.state });
    mcpToken = mcp.token!;
    app = await startTestServer(toolrow, { desktopDir: null, mcp: mcp.mount });
  });
  afterAll(() => app?.close());

  const listTools = (headers: Record<string, string>) =>
    fetch(`${app.url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...headers,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });

  it('answers its metadata and its own 401 without the app token, and serves an MCP token', async () => {
    const metadata = await fetch(`${app.url}/.well-known/oauth-protected-resource/mcp`);
    expect(metadata.status).toBe(200);
    const anonymous = await listTools({});
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toContain('resource_metadata=');
    const listed = await listTools({ authorization: `Bearer ${mcpToken}` });
    expect(listed.status).toBe(200);
    // The app token is not an MCP token.
    expect((await listTools({ authorization: `Bearer ${app.token}` })).status).toBe(401);
  });

  it('refuses a page on another local port, whatever the method', async () => {
    const port = app.server.port;
    for (const origin of [`http://127.0.0.1:${port + 1}`, 'http://evil.example', 'null']) {
      const post = await listTools({ authorization: `Bearer ${mcpToken}`, origin });
      expect(post.status).toBe(403);
      expect(((await post.json()) as ErrorJson).error.message).toContain(origin);
      const get = await fetch(`${app.url}/mcp`, { headers: { origin, authorization: `Bearer ${mcpToken}` } });
      expect(get.status).toBe(403);
    }
    expect((await listTools({ authorization: `Bearer ${mcpToken}`, origin: app.url })).status).toBe(200);
  });
});

describe('a request without a Host header', () => {
  let app: TestServer;
  beforeAll(async () => {
    const mcp = await mountMcp({ source: toolrow.source, state: toolrow.state });
    app = await startTestServer(toolrow, { desktopDir: null, mcp: mcp.mount });
  });
  afterAll(() => app?.close());

  /** HTTP/1.0 may leave Host out (fetch always sends one); the status line of the answer. */
  const rawStatus = (head: string) =>
    new Promise<string>((resolve, reject) => {
      const socket = connect(app.server.port, '127.0.0.1', () => socket.write(`${head}\r\n\r\n`));
      let answer = '';
      socket.on('data', (chunk) => {
        answer += chunk;
      });
      socket.on('end', () => resolve(answer.split('\r\n')[0] ?? ''));
      socket.on('error', reject);
    });

  it.each(['/mcp', '/.well-known/oauth-protected-resource/mcp', '/api/tables', '/'])(
    'is refused on %s, with or without the token',
    async (path) => {
      const authorization = `Authorization: Bearer ${app.token}`;
      expect(await rawStatus(`GET ${path} HTTP/1.0`)).toBe('HTTP/1.1 403 Forbidden');
      expect(await rawStatus(`GET ${path} HTTP/1.0\r\n${authorization}`)).toBe('HTTP/1.1 403 Forbidden');
      expect(await rawStatus(`GET ${path} HTTP/1.0\r\nHost:\r\n${authorization}`)).toBe(
        'HTTP/1.1 403 Forbidden',
      );
      // The same request with our Host gets past the guard.
      expect(await rawStatus(`GET ${path} HTTP/1.0\r\nHost: 127.0.0.1:${app.server.port}`)).not.toBe(
        'HTTP/1.1 403 Forbidden',
      );
    },
  );
});

describe('npm start (startApp): the printed link, TOOLROW_APP_TOKEN, app.json', () => {
  let out: string;
  const options = () => ({
    env: {} as Record<string, string>,
    out: (text: string) => {
      out += text;
    },
    err: () => {},
    cwd: dir,
    port: 0,
    build: false,
    toolrow,
  });
  beforeEach(() => {
    out = '';
  });

  it('prints the tokened URL and writes app.json (0600) naming the app; close() removes it', async () => {
    const app = await startApp(options());
    try {
      expect(app.openUrl).toBe(`${app.url}/?token=${app.token}`);
      expect(out).toContain(`Toolrow is running at ${app.openUrl}`);
      const file = join(toolrow.state.dataDir, APP_FILE);
      expect(app.appFile).toBe(file);
      expect((await stat(file)).mode & 0o777).toBe(0o600);
      expect(JSON.parse(await readFile(file, 'utf8'))).toMatchObject({
        url: app.url,
        port: app.server.port,
        pid: process.pid,
        token: app.token,
      });
      expect(findRunningApp(toolrow.state.dataDir)).toMatchObject({ url: app.url, token: app.token, file });
      expect((await fetch(`${app.url}/api/status`, { headers: bearer(app.token) })).status).toBe(200);
      expect((await fetch(`${app.url}/api/status`)).status).toBe(401);
    } finally {
      await app.close();
    }
    await expect(stat(join(toolrow.state.dataDir, APP_FILE))).rejects.toMatchObject({ code: 'ENOENT' });
    expect(findRunningApp(toolrow.state.dataDir)).toBeNull();
  });

  it('TOOLROW_APP_TOKEN fixes the token across starts', async () => {
    const token = 'a-token-for-my-scripts-0123456789';
    for (let start = 0; start < 2; start++) {
      const app = await startApp({ ...options(), env: { TOOLROW_APP_TOKEN: token } });
      try {
        expect(app.token).toBe(token);
        expect(out).toContain(`?token=${token}`);
        const tables = await fetch(`${app.url}/api/tables`, { headers: bearer(token) });
        expect(tables.status).toBe(200);
      } finally {
        await app.close();
      }
    }
  });

  it('refuses a TOOLROW_APP_TOKEN too short to be a secret, saying how to make one', async () => {
    await expect(startApp({ ...options(), env: { TOOLROW_APP_TOKEN: 'secret' } })).rejects.toThrow(
      /TOOLROW_APP_TOKEN must be at least 16 characters.*openssl rand/,
    );
  });

  it('ignores an app.json whose process is gone', async () => {
    const file = join(dir, 'stale', APP_FILE);
    await mkdir(join(dir, 'stale'), { recursive: true });
    // A pid that cannot be alive: above the kernel's pid_max.
    await writeFile(file, JSON.stringify({ url: 'http://127.0.0.1:1', port: 1, pid: 2 ** 30, token: 'x' }));
    expect(findRunningApp(join(dir, 'stale'))).toBeNull();
  });
});
