// `npm run bench -w @toolrow/server` (second part): the embedded database shared fairly and within
// memory, measured on what a user runs — `toolrow serve --mcp` as a real process on a new data dir,
// an MCP client over HTTP with a token from `toolrow mcp token create`, the user's own requests to
// the app's API. Each figure beside its peer in the same run:
//
// 1. The user's count of orders while one MCP client has 40 heavy runQuery calls in flight, against
//    the same count with nothing else running (the goal: within 2 s).
// 2. An export of a query that never ends (wide rows), stopped by its time limit: the app's peak RSS
//    against its idle RSS (the goal: under 500 MB).
// 3. A 500 MB value asked for through the workbench: refused, the app still answers, and its RSS
//    afterwards against its idle RSS (the goal: within 100 MB).
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const BIN = join(import.meta.dirname, '../../cli/bin/toolrow.js');
const ORDERS = Number(process.env.TOOLROW_BENCH_ORDERS ?? 20_000);
const out = (text: string) => process.stdout.write(`${text}\n`);
const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
const rssMb = (pid: number) =>
  Math.round(Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024);

function run(args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let text = '';
    child.stdout.on('data', (chunk) => (text += chunk));
    child.stderr.on('data', (chunk) => (text += chunk));
    child.on('exit', (code) =>
      code === 0 ? resolve(text) : reject(new Error(`toolrow ${args.join(' ')}: ${text}`)),
    );
  });
}

async function main() {
  const dir = await mkdtemp(join(tmpdir(), 'toolrow-bench-shared-'));
  const token = randomBytes(24).toString('hex');
  const env = {
    ...process.env,
    TOOLROW_DATA_DIR: join(dir, 'data'),
    TOOLROW_APP_TOKEN: token,
    TOOLROW_EXPORT_TIME_LIMIT: '0.25',
    DATABASE_URL: '',
    TOOLROW_CONNECTION: '',
  };
  let app: ChildProcess | undefined;
  try {
    await run(['db', 'seed', '--orders', String(ORDERS)], env);
    const mcpToken = JSON.parse(
      await run(['mcp', 'token', 'create', '--scope', 'full', '--json'], env),
    ).token;
    app = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--mcp', '--no-build'], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const base = await new Promise<string>((resolve, reject) => {
      let text = '';
      app!.stdout!.on('data', (chunk) => {
        text += chunk;
        const found = /running at (http:\/\/127\.0\.0\.1:\d+)\//.exec(text);
        if (found) resolve(found[1]!);
      });
      app!.on('exit', (code) => reject(new Error(`toolrow serve exited (${code}): ${text}`)));
    });
    const pid = app.pid!;
    const api = async (path: string, body?: unknown) => {
      const response = await fetch(`${base}${path}`, {
        method: body === undefined ? 'GET' : 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };
    await api('/api/profile', undefined);
    // The client's reads run without asking (Full Auto), as a trusting user sets it.
    await fetch(`${base}/api/profile`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ mode: 'full-auto' }),
    });
    const count = async () => {
      const started = performance.now();
      const { body } = await api('/api/tables/orders/count', {});
      if (body.count !== ORDERS) throw new Error(`count said ${JSON.stringify(body)}`);
      return performance.now() - started;
    };
    for (let warm = 0; warm < 3; warm++) await count();
    const idleCounts: number[] = [];
    for (let round = 0; round < 10; round++) idleCounts.push(await count());
    const idleRss = rssMb(pid);

    // ── 1. The user's count beside 40 heavy client reads ─────────────────────────────────────
    const client = new Client({ name: 'bench-client', version: '0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${mcpToken}` } },
      }),
    );
    const heavy = 'SELECT count(*) FROM orders a CROSS JOIN orders b WHERE a.id % 1000 = b.id % 997';
    let clientDone = 0;
    const flood = Array.from({ length: 40 }, () =>
      client
        .callTool({ name: 'runQuery', arguments: { sql: heavy } }, { timeout: 600_000 })
        .then(() => clientDone++)
        .catch(() => clientDone++),
    );
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const loadedCounts: number[] = [];
    for (let round = 0; round < 10 && clientDone < 40; round++) loadedCounts.push(await count());
    out(`\nThe user's count of ${ORDERS.toLocaleString('en-US')} orders (median of ${loadedCounts.length})`);
    out(`  alone:                                   ${median(idleCounts).toFixed(0)} ms`);
    out(
      `  beside one MCP client's 40 heavy reads:  ${median(loadedCounts).toFixed(0)} ms (${(median(loadedCounts) / median(idleCounts)).toFixed(1)}x; worst ${Math.max(...loadedCounts).toFixed(0)} ms; goal 2000 ms)`,
    );
    await Promise.all(flood);
    await client.close();

    // ── 2. An export that never ends, wide rows ──────────────────────────────────────────────
    let peak = 0;
    const sampler = setInterval(() => {
      peak = Math.max(peak, rssMb(pid));
    }, 100);
    const started = await api('/api/exports', {
      sql: "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT n, repeat('x', 100000) AS wide FROM r",
      format: 'ndjson',
    });
    const id = started.body.id as string;
    for (;;) {
      const job = await api(`/api/exports/${id}`);
      if (job.body.state !== 'running' && job.body.state !== 'queued') break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    clearInterval(sampler);
    out('\nAn export of a query that never ends (100 kB rows), stopped at its 15 s limit');
    out(`  idle RSS ${idleRss} MB; peak RSS during it ${peak} MB (+${peak - idleRss} MB; goal under 500 MB)`);

    // ── 3. A 500 MB value ────────────────────────────────────────────────────────────────────
    const asked = await api('/api/query', { sql: "SELECT repeat('x', 500000000) AS big" });
    await count();
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const after = rssMb(pid);
    out("\nSELECT repeat('x', 500000000) through the workbench");
    out(
      `  answered ${asked.status}: ${String((asked.body.error as { message?: string })?.message ?? '').slice(0, 90)}…`,
    );
    out(
      `  RSS after, with the app answering again: ${after} MB (idle ${idleRss} MB, +${after - idleRss} MB; goal within 100 MB)`,
    );
  } finally {
    app?.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 500));
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
