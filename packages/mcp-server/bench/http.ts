// Toolrow's MCP layer against a bare @modelcontextprotocol/server server, in the same run, as
// throughput ratios (Toolrow ÷ bare; 1.00 = as fast as the bare SDK server):
//   transports   Streamable HTTP on 127.0.0.1 (both on @hono/node-server, fresh server per
//                request as the SDK serves stateless HTTP) and stdio (one child process per client);
//   clients      1 and 8 concurrent clients, each sending its next request when the last answered;
//   operations   tools/list (both list the same 35 tools, tables:full) and tools/call countRows
//                (the bare server has that one tool);
//   backends     noop (the tool answers at once: the MCP layer alone) and real (countRows over a
//                real PGlite table through @toolrow/tools; Toolrow's side verifies a stored token,
//                reads the profile's mode and writes the audit entry, as a user's server does).
// Rounds alternate bare and Toolrow (the machine may be busy with other work); medians are shown.
// Knobs: BENCH_ROUNDS (default 5), BENCH_MS per round (default 700), BENCH_ONLY=http|stdio,
// BENCH_BACKENDS=noop,real.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { join } from 'node:path';
import { serve } from '@hono/node-server';
import { createMcpHandler } from '@modelcontextprotocol/server';
import { createTestDatabase } from '@toolrow/postgres/testing';
import { openToolrow } from '@toolrow/state';
import { createMcpHttpHandler, serveMcpHttp } from '../src/http.ts';
import { createWidgets } from '../test/fixture.ts';
import {
  type BackendKind,
  BENCH_TOKEN,
  bareServer,
  CALL_ARGS,
  CALL_TOOL,
  LISTING,
  openPeers,
} from './peers.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const ROUND_MS = Number(process.env.BENCH_MS ?? 700);
const ONLY = process.env.BENCH_ONLY;
const BACKENDS = (process.env.BENCH_BACKENDS ?? 'noop,real').split(',') as BackendKind[];
const CONCURRENCY = [1, 8];
type Op = 'list' | 'call';
type Side = 'bare' | 'toolrow';

const request = (op: Op, id: number) =>
  op === 'list'
    ? { jsonrpc: '2.0', id, method: 'tools/list' }
    : { jsonrpc: '2.0', id, method: 'tools/call', params: { name: CALL_TOOL, arguments: CALL_ARGS } };

/** Throughput (requests/s) of `clients` loops of `once` for ROUND_MS. */
async function throughput(
  clients: number,
  once: (client: number, id: number) => Promise<void>,
): Promise<number> {
  let done = 0;
  const until = performance.now() + ROUND_MS;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async (_, client) => {
      while (performance.now() < until) {
        await once(client, done);
        done += 1;
      }
    }),
  );
  return done / ((performance.now() - started) / 1000);
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

interface Row {
  transport: string;
  backend: BackendKind;
  op: Op;
  clients: number;
  bare: number;
  toolrow: number;
}
const rows: Row[] = [];

/** Alternates the sides round by round and keeps the medians. */
async function compare(
  label: Omit<Row, 'bare' | 'toolrow'>,
  run: (side: Side) => Promise<number>,
): Promise<void> {
  const samples: Record<Side, number[]> = { bare: [], toolrow: [] };
  // A warm-up round each, not counted (JIT, connection pools, caches).
  await run('bare');
  await run('toolrow');
  for (let round = 0; round < ROUNDS; round++) {
    const order: Side[] = round % 2 === 0 ? ['bare', 'toolrow'] : ['toolrow', 'bare'];
    for (const side of order) samples[side].push(await run(side));
  }
  const row = { ...label, bare: median(samples.bare), toolrow: median(samples.toolrow) };
  rows.push(row);
  print(row);
}

function print(row: Row): void {
  const name = `${row.transport.padEnd(5)} ${row.backend.padEnd(4)} ${(row.op === 'list' ? 'tools/list (35)' : `tools/call ${CALL_TOOL}`).padEnd(22)} ${String(row.clients).padStart(2)} client${row.clients === 1 ? ' ' : 's'}`;
  console.log(
    `${name}  bare ${row.bare.toFixed(0).padStart(6)}/s  toolrow ${row.toolrow.toFixed(0).padStart(6)}/s  ratio ${(row.toolrow / row.bare).toFixed(2)}×`,
  );
}

// ── HTTP ──────────────────────────────────────────────────────────────────────────────────
async function benchHttp(backend: BackendKind): Promise<void> {
  const peers = await openPeers(backend);
  const bareList = await listen(createMcpHandler(() => bareServer(LISTING, peers.runCall)).fetch);
  const bareCall = await listen(createMcpHandler(() => bareServer([CALL_TOOL], peers.runCall)).fetch);
  const toolrow = await serveMcpHttp(
    createMcpHttpHandler({ backend: peers.toolrowBackend, tokens: peers.tokens }),
    0,
  );
  const headers = {
    'Content-Type': 'application/json',
    Accept: 'application/json, text/event-stream',
    'MCP-Protocol-Version': '2025-11-25',
  };
  const post = async (url: URL, body: unknown, auth: boolean) => {
    const response = await fetch(url, {
      method: 'POST',
      headers: auth ? { ...headers, Authorization: `Bearer ${BENCH_TOKEN}` } : headers,
      body: JSON.stringify(body),
    });
    const text = await response.text();
    // The answer, as JSON or as the data of an SSE message (the listing itself may name "error").
    const data = text.startsWith('event:') || text.startsWith('data:') ? text.split('\ndata: ')[1] : text;
    let answer: { error?: unknown; result?: { isError?: boolean } } | undefined;
    try {
      answer = data ? JSON.parse(data.split('\n')[0]!) : undefined;
    } catch {
      answer = undefined;
    }
    if (!response.ok || !answer || answer.error || answer.result?.isError)
      throw new Error(`${url}: HTTP ${response.status} ${text.slice(0, 300)}`);
  };
  try {
    for (const op of ['list', 'call'] as const) {
      for (const clients of CONCURRENCY) {
        await compare({ transport: 'http', backend, op, clients }, (side) =>
          throughput(clients, (_client, id) =>
            side === 'bare'
              ? post(op === 'list' ? bareList.url : bareCall.url, request(op, id), false)
              : post(toolrow.url, request(op, id), true),
          ),
        );
      }
    }
  } finally {
    await toolrow.close();
    await bareList.close();
    await bareCall.close();
    await peers.close();
  }
}

async function listen(fetch: (request: Request) => Promise<Response>) {
  return new Promise<{ url: URL; close: () => Promise<void> }>((resolve) => {
    const server = serve({ fetch, port: 0, hostname: '127.0.0.1' }, (info) =>
      resolve({
        url: new URL(`http://127.0.0.1:${info.port}/mcp`),
        close: () => new Promise((done) => server.close(() => done())),
      }),
    );
  });
}

// ── stdio ─────────────────────────────────────────────────────────────────────────────────
/** A stdio client speaking newline-delimited JSON-RPC to one child server. */
class StdioPeer {
  readonly #child: ChildProcessWithoutNullStreams;
  readonly #waiting = new Map<
    number,
    (message: { error?: unknown; result?: { isError?: boolean } }) => void
  >();
  #buffer = '';
  #id = 0;
  #closing = false;
  #dead: Error | undefined;

  constructor(args: string[]) {
    this.#child = spawn(
      process.execPath,
      ['--conditions=@toolrow/source', join(import.meta.dirname, 'stdio-child.ts'), ...args],
      { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, TOOLROW_MCP_TOKEN: '' } },
    );
    let stderr = '';
    this.#child.stderr.setEncoding('utf8');
    this.#child.stderr.on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-2000);
    });
    // A child that dies must fail the bench loudly, not leave its requests waiting forever.
    this.#child.once('exit', (code, signal) => {
      if (this.#closing) return;
      const error = new Error(`stdio server ${args.join(' ')} exited (${code ?? signal}): ${stderr}`);
      for (const settle of this.#waiting.values()) settle({ error });
      this.#waiting.clear();
      this.#dead = error;
    });
    this.#child.stdout.setEncoding('utf8');
    this.#child.stdout.on('data', (chunk: string) => {
      this.#buffer += chunk;
      let newline = this.#buffer.indexOf('\n');
      while (newline >= 0) {
        const line = this.#buffer.slice(0, newline);
        this.#buffer = this.#buffer.slice(newline + 1);
        newline = this.#buffer.indexOf('\n');
        if (!line.trim()) continue;
        const message = JSON.parse(line) as { id?: number; error?: unknown; result?: { isError?: boolean } };
        if (typeof message.id === 'number') {
          this.#waiting.get(message.id)?.(message);
          this.#waiting.delete(message.id);
        }
      }
    });
  }

  send(body: Record<string, unknown>): Promise<void> {
    const id = ++this.#id;
    if (this.#dead) return Promise.reject(this.#dead);
    return new Promise((resolve, reject) => {
      this.#waiting.set(id, (message) => {
        if (message.error || message.result?.isError)
          reject(new Error(JSON.stringify(message).slice(0, 300)));
        else resolve();
      });
      this.#child.stdin.write(`${JSON.stringify({ ...body, id })}\n`);
    });
  }

  async start(): Promise<void> {
    await this.send({
      jsonrpc: '2.0',
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'bench', version: '0' },
      },
    });
    this.#child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
  }

  close(): Promise<void> {
    this.#closing = true;
    if (this.#dead || this.#child.exitCode !== null) return Promise.resolve();
    return new Promise((resolve) => {
      const kill = setTimeout(() => this.#child.kill('SIGKILL'), 5000);
      this.#child.once('exit', () => {
        clearTimeout(kill);
        resolve();
      });
      this.#child.stdin.end();
    });
  }
}

/**
 * The real backend over stdio: one process per client, each with the data open. On a PostgreSQL
 * server (TOOLROW_TEST_DATABASE_URL) they share one database; without one each would hold an
 * embedded PGlite, so only one client per side runs (two processes instead of sixteen).
 */
async function stdioData(backend: BackendKind): Promise<{ concurrency: number[]; drop(): Promise<void> }> {
  if (backend === 'noop') return { concurrency: CONCURRENCY, drop: async () => {} };
  const adminUrl = process.env.TOOLROW_TEST_DATABASE_URL?.trim();
  if (!adminUrl) {
    console.log(
      '  stdio, real backend: 8 clients SKIPPED (each would be a process with its own embedded database; set TOOLROW_TEST_DATABASE_URL to share one); 1 client only',
    );
    return { concurrency: [1], drop: async () => {} };
  }
  const database = await createTestDatabase(adminUrl, 'toolrow_bench_');
  const toolrow = await openToolrow({ env: {}, data: { url: database.url }, state: { memory: true } });
  await createWidgets(toolrow).finally(() => toolrow.close());
  process.env.BENCH_DATA_URL = database.url;
  return {
    concurrency: CONCURRENCY,
    async drop() {
      delete process.env.BENCH_DATA_URL;
      await database.drop();
    },
  };
}

async function benchStdio(backend: BackendKind): Promise<void> {
  const data = await stdioData(backend);
  try {
    await benchStdioOver(backend, data.concurrency);
  } finally {
    await data.drop();
  }
}

async function benchStdioOver(backend: BackendKind, concurrency: number[]): Promise<void> {
  const max = Math.max(...concurrency);
  for (const op of ['list', 'call'] as const) {
    const peers: Record<Side, StdioPeer[]> = {
      bare: Array.from({ length: max }, () => new StdioPeer(['bare', backend, op])),
      toolrow: Array.from({ length: max }, () => new StdioPeer(['toolrow', backend, op])),
    };
    try {
      await Promise.all([...peers.bare, ...peers.toolrow].map((peer) => peer.start()));
      for (const clients of concurrency) {
        await compare({ transport: 'stdio', backend, op, clients }, (side) =>
          throughput(clients, (client, id) => peers[side][client]!.send(request(op, id))),
        );
      }
    } finally {
      await Promise.all([...peers.bare, ...peers.toolrow].map((peer) => peer.close()));
    }
  }
}

console.log(
  `MCP: Toolrow vs a bare @modelcontextprotocol/server server, same run, ${ROUNDS} alternating rounds of ${ROUND_MS} ms, medians (ratio = Toolrow ÷ bare)`,
);
for (const backend of BACKENDS) {
  if (ONLY !== 'stdio') await benchHttp(backend);
  if (ONLY !== 'http') await benchStdio(backend);
}
const goal = rows.filter((row) => row.transport === 'http' && row.backend === 'noop' && row.clients === 8);
console.log(
  `\nGoal (HTTP, no-op backend, 8 clients, ≥ 0.90×): ${goal.map((row) => `${row.op === 'list' ? 'tools/list' : 'tools/call'} ${(row.toolrow / row.bare).toFixed(2)}×`).join(', ')}`,
);
