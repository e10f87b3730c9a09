// What a fresh server per request costs (CVE-2026-25536 forbids sharing one across clients).
// Over a real socket on 127.0.0.1, in one run:
//   baseline   GET of the protected resource metadata: the same HTTP stack, Host/Origin checks,
//              no token, no MCP server;
//   tools/list authenticated, a fresh McpServer with the scope's tools, their JSON Schemas;
//   tools/call authenticated, scope gate, fresh server, one scripted tool run.
// Reported as ratios to the baseline, so the numbers mean the same on any machine.

import type { McpToken } from '@toolrow/state';
import { TOOL_IMPLEMENTATIONS } from '@toolrow/tools';
import type { McpBackend } from '../src/backend.ts';
import { createMcpHttpHandler, serveMcpHttp } from '../src/http.ts';
import type { McpTokenStore } from '../src/tokens.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 300);
const record: McpToken = {
  id: 1,
  name: 'bench',
  tokenHash: '',
  scope: 'tables:full',
  createdAt: new Date(),
  expiresAt: null,
  revokedAt: null,
  lastUsedAt: null,
  askViaClient: false,
};
// In memory, so the numbers are the MCP layer's and not the database's.
const tokens: McpTokenStore = {
  create: async () => ({ token: 'bench', record }),
  verify: async (token) =>
    token === 'bench' ? { ok: true, token: record } : { ok: false, reason: 'unknown' },
  list: async () => [record],
  revoke: async () => false,
};
const backend: McpBackend = {
  inputSchemaOf: (name) => TOOL_IMPLEMENTATIONS[name].inputSchema,
  parseInput: (_name, input) => input,
  run: async () => ({ ok: true }),
  audit: async () => {},
  profile: 'default',
  permissions: async () => ({ mode: 'full-auto', grants: [] }),
  tablesOf: async () => undefined,
  rememberGrant: async () => {},
};

const server = await serveMcpHttp(createMcpHttpHandler({ backend, tokens }), 0);
const headers = {
  Authorization: 'Bearer bench',
  'Content-Type': 'application/json',
  Accept: 'application/json, text/event-stream',
  'MCP-Protocol-Version': '2025-11-25',
};
const post = (body: unknown) => fetch(server.url, { method: 'POST', headers, body: JSON.stringify(body) });
const metadataUrl = new URL('/.well-known/oauth-protected-resource/mcp', server.url);

async function measure(label: string, once: () => Promise<Response>): Promise<number> {
  for (let i = 0; i < 20; i++) await (await once()).text(); // warm-up
  const started = performance.now();
  for (let i = 0; i < ROUNDS; i++) {
    const response = await once();
    await response.text();
    if (!response.ok) throw new Error(`${label}: HTTP ${response.status}`);
  }
  return (performance.now() - started) / ROUNDS;
}

const baseline = await measure('baseline', () => fetch(metadataUrl));
const list = await measure('tools/list', () => post({ jsonrpc: '2.0', id: 1, method: 'tools/list' }));
const call = await measure('tools/call', () =>
  post({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'countRows', arguments: { table: 'orders' } },
  }),
);
await server.close();

const row = (label: string, ms: number) =>
  `${label.padEnd(38)} ${ms.toFixed(3).padStart(8)} ms  ${(ms / baseline).toFixed(1).padStart(6)}×`;
console.log(
  `MCP over HTTP on 127.0.0.1, ${ROUNDS} sequential requests each (ratio to the baseline of this run)`,
);
console.log(row('baseline: metadata GET', baseline));
console.log(row('tools/list, fresh server, 35 tools', list));
console.log(row('tools/call countRows, fresh server', call));
