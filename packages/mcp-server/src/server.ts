// One McpServer per client session, registering exactly the tools the session's scope covers.
// Never reuse an instance across clients (CVE-2026-25536): both transports call this factory
// afresh for every connection (stdio) or request (HTTP).
import {
  type CallToolResult,
  McpServer,
  requireScopes,
  type StandardSchemaWithJSON,
} from '@modelcontextprotocol/server';
import { isGated, rowOf } from '@toolrow/catalog';
// The package's own manifest, one folder up from both src/ and dist/; a bundler inlines it.
// `changeset version` bumps it, so the version a client sees is the version that was installed.
import manifest from '../package.json' with { type: 'json' };
import { annotationsFor } from './annotations.ts';
import type { McpActor, McpBackend } from './backend.ts';
import { gateCall, type McpGateOptions, verifyElicitState } from './gate.ts';
import { MCP_REQUIRED_SCOPE, type McpToolName } from './generated/mcp-scopes.ts';
import type { McpRefusal } from './scopes.ts';
import { toolsForScope } from './scopes.ts';
import type { McpPrincipal } from './tokens.ts';

export const SERVER_NAME = 'toolrow';
export const SERVER_VERSION: string = manifest.version;

const INSTRUCTIONS =
  "Toolrow: read and query the tables of the user's SQL database (PostgreSQL dialect). Writes never reach a table: stage tools queue changes that the user reviews and commits in Toolrow. Start with listTables and describeTable.";

export function actorOf(principal: McpPrincipal): McpActor {
  return `mcp:${principal.name}`;
}

/** A tool's output as an MCP result: JSON text for every client, structured content for objects. */
export function toCallToolResult(output: unknown): CallToolResult {
  const text = output === undefined ? 'null' : JSON.stringify(output, null, 2);
  const structured = output !== null && typeof output === 'object' && !Array.isArray(output);
  return {
    content: [{ type: 'text', text }],
    ...(structured ? { structuredContent: output as Record<string, unknown> } : {}),
  };
}

function errorResult(message: string): CallToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}

// JSON Schema conversions, kept per input schema: a fresh server per request would otherwise
// convert every tool's schema on every tools/list (measured in bench/http.ts).
const converted = new WeakMap<object, Map<string, Record<string, unknown>>>();

/**
 * The schema the SDK is given: the tool's own JSON Schema for tools/list, but validation that
 * accepts anything, so the backend's parseInput checks input once, with the same messages the
 * agent and the CLI give ("table: expected a string, got number").
 */
export function listingSchema(schema: StandardSchemaWithJSON): StandardSchemaWithJSON {
  type ConvertOptions = Parameters<StandardSchemaWithJSON['~standard']['jsonSchema']['input']>[0];
  const convert = (io: 'input' | 'output') => (options: ConvertOptions) => {
    let cache = converted.get(schema);
    if (!cache) {
      cache = new Map();
      converted.set(schema, cache);
    }
    const key = `${io} ${options.target}`;
    let json = cache.get(key);
    if (!json) {
      json = schema['~standard'].jsonSchema[io](options);
      cache.set(key, json);
    }
    // A copy, so nothing downstream can change the cached document.
    return structuredClone(json);
  };
  return {
    '~standard': {
      version: 1,
      vendor: 'toolrow',
      validate: (value: unknown) => ({ value }),
      jsonSchema: { input: convert('input'), output: convert('output') },
    },
  };
}

/**
 * A fresh server for one client that holds `principal`'s scope: tools/list shows exactly the
 * scope's tools; a gated call is audited 'auto' under mcp:<name> before it runs.
 * `principal` undefined yields a server with no tools (defence in depth: the transports refuse
 * unauthenticated clients before they get here).
 */
export function createToolrowMcpServer(
  backend: McpBackend,
  principal: McpPrincipal | undefined,
  gate: McpGateOptions = {},
): McpServer {
  const server = new McpServer(
    { name: SERVER_NAME, version: SERVER_VERSION },
    {
      capabilities: { tools: { listChanged: false } },
      instructions: INSTRUCTIONS,
      requestState: { verify: verifyElicitState },
    },
  );
  if (!principal) return server;
  const actor = actorOf(principal);
  for (const name of toolsForScope(principal.scope)) {
    const row = rowOf(name);
    const needed = MCP_REQUIRED_SCOPE[name];
    server.registerTool(
      name,
      {
        description: row.description,
        inputSchema: listingSchema(backend.inputSchemaOf(name)),
        annotations: annotationsFor(row),
        // Always satisfied for a registered tool; kept so a wrong registration fails closed.
        scopeChallenge: requireScopes(needed),
      },
      async (rawInput: unknown, ctx) => {
        try {
          const input = await backend.parseInput(name, rawInput);
          if (isGated(name)) {
            const verdict = await gateCall({
              backend,
              principal,
              actor,
              name,
              input,
              ctx,
              initializedCapabilities: server.server.getClientCapabilities(),
              options: gate,
            });
            if (verdict.kind !== 'run') return verdict.result;
          }
          return toCallToolResult(
            await backend.run(name as McpToolName, input, { actor, signal: ctx.mcpReq.signal }),
          );
        } catch (error) {
          return errorResult(error instanceof Error ? error.message : String(error));
        }
      },
    );
  }
  return server;
}

/** Records a refused call as a 'denied' decision; unknown names are no tool, so nothing to record. */
export async function auditRefusal(
  backend: McpBackend,
  refusal: McpRefusal,
  input: unknown,
  principal: McpPrincipal,
): Promise<void> {
  if (refusal.kind === 'unknown') return;
  const detail =
    refusal.kind === 'scope' ? `needs ${refusal.needed}, holds ${refusal.held}` : 'not exposed over MCP';
  await backend.audit({
    tool: refusal.name,
    input,
    decision: 'denied',
    decidedBy: actorOf(principal),
    detail,
  });
}
