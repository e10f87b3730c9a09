// The two servers the bench compares, built the same way for HTTP and stdio:
//   bare     a plain @modelcontextprotocol/server McpServer, as the SDK's docs write one: tools
//            registered with their zod schemas, a fresh server per request (HTTP) or per process
//            (stdio), no auth, no gate, no audit;
//   toolrow  createMcpHttpHandler / serveMcpStdio over a backend: token, scope gate, ladder, audit.
// Both run the same tool code on the same backend: 'noop' answers at once (the MCP layer alone),
// 'real' counts the rows of a real PGlite table through @toolrow/tools.
import {
  fromJsonSchema,
  type JsonSchemaType,
  McpServer,
  type StandardSchemaWithJSON,
} from '@modelcontextprotocol/server';
import { rowOf } from '@toolrow/catalog';
import type { McpToken, Toolrow } from '@toolrow/state';
import { openToolrow } from '@toolrow/state';
import { TOOL_IMPLEMENTATIONS, TOOL_OUTPUT_SCHEMAS, type ToolImplementation } from '@toolrow/tools';
import type { McpBackend } from '../src/backend.ts';
import type { McpToolName } from '../src/generated/mcp-scopes.ts';
import { toolsForScope } from '../src/scopes.ts';
import type { McpTokenStore } from '../src/tokens.ts';
import { createToolrowBackend } from '../src/toolrow-backend.ts';
import { createWidgets } from '../test/fixture.ts';

export type BackendKind = 'noop' | 'real';
export const CALL_TOOL: McpToolName = 'countRows';
export const CALL_ARGS = { table: 'widgets' };
export const BENCH_TOKEN = 'bench-token';

export interface Peers {
  /** Runs the call tool on the backend (what the bare server's tool does). */
  runCall(input: unknown): Promise<unknown>;
  toolrowBackend: McpBackend;
  tokens: McpTokenStore;
  close(): Promise<void>;
}

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
  connection: null,
  person: null,
};
/** Tokens in memory: the MCP layer's cost without the database's (token caching is measured apart). */
export const memoryTokens: McpTokenStore = {
  create: async () => ({ token: BENCH_TOKEN, record }),
  verify: async (token) =>
    token === BENCH_TOKEN ? { ok: true, token: record } : { ok: false, reason: 'unknown' },
  list: async () => [record],
  revoke: async () => false,
};

export async function openPeers(kind: BackendKind): Promise<Peers> {
  if (kind === 'noop') {
    const output = { table: 'widgets', count: 3 };
    return {
      runCall: async () => output,
      toolrowBackend: {
        profile: 'default',
        inputSchemaOf: (name) => TOOL_IMPLEMENTATIONS[name].inputSchema,
        outputSchemaOf: (name) => TOOL_OUTPUT_SCHEMAS[name],
        parseInput: (_name, input) => input,
        run: async () => output,
        audit: async () => {},
        permissions: async () => ({ mode: 'full-auto', grants: [] }),
        tablesOf: async () => undefined,
        rememberGrant: async () => {},
      },
      tokens: memoryTokens,
      close: async () => {},
    };
  }
  // Over stdio every client is a process of its own: they share one PostgreSQL database when the
  // bench made one (BENCH_DATA_URL, widgets already in it) instead of each holding an embedded one.
  const shared = process.env.BENCH_DATA_URL;
  const toolrow: Toolrow = await openToolrow({
    env: {},
    data: shared ? { url: shared } : { memory: true },
    state: { memory: true },
  });
  if (!shared) await createWidgets(toolrow);
  // The ladder runs every gated call (as Full Auto does); its read of the mode is part of the cost.
  await toolrow.state.profiles.setMode('default', 'full-auto');
  const { source, state } = toolrow;
  const implementation = TOOL_IMPLEMENTATIONS[CALL_TOOL] as ToolImplementation;
  const created = await state.tokens.create({ name: 'bench', scope: 'tables:full', expiresAt: null });
  // The bench's clients all send BENCH_TOKEN; map it to the stored one.
  const tokens: McpTokenStore = {
    ...state.tokens,
    verify: (token) => state.tokens.verify(token === BENCH_TOKEN ? created.token : token),
  };
  return {
    runCall: (input) =>
      implementation.execute(input, {
        source,
        state,
        profile: 'default',
        actor: 'mcp:bare',
      }) as Promise<unknown>,
    toolrowBackend: createToolrowBackend({ source, state }),
    tokens,
    close: () => toolrow.close(),
  };
}

/**
 * The bare SDK server: `tools` registered as the SDK's docs do (zod input schema, output schema,
 * description, annotations), each answering with JSON text and structured content, like Toolrow's.
 * Its output schemas are Toolrow's own, so both list the same documents.
 */
export function bareServer(
  tools: readonly McpToolName[],
  runCall: (input: unknown) => Promise<unknown>,
): McpServer {
  const server = new McpServer({ name: 'bare', version: '0.0.0' }, { capabilities: { tools: {} } });
  for (const name of tools) {
    const row = rowOf(name);
    server.registerTool(
      name,
      {
        description: row.description,
        inputSchema: TOOL_IMPLEMENTATIONS[name].inputSchema as StandardSchemaWithJSON,
        outputSchema: fromJsonSchema(TOOL_OUTPUT_SCHEMAS[name] as JsonSchemaType),
        annotations: { readOnlyHint: row.writes === 'none' },
      },
      async (input: unknown) => {
        const output = (await runCall(input)) as Record<string, unknown>;
        return { content: [{ type: 'text', text: JSON.stringify(output) }], structuredContent: output };
      },
    );
  }
  return server;
}

/** The listing the list comparison uses on both sides: tables:full, 35 tools. */
export const LISTING = toolsForScope('tables:full');
