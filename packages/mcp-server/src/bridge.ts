// The app's end of `toolrow mcp --stdio` beside a running app. The app holds the embedded
// database, so the stdio process answers the handshake itself and forwards everything else here,
// behind the app's own token (whoever holds it is the user). The stdio process has already worked
// out who its client is (resolveStdioPrincipal: a verified MCP token, else the user at a scope)
// and says so in a header; the app caps that at its connection's exposure and serves each POST
// with a fresh server, as the bearer endpoint does, so the gate, the audit log and the approval
// inbox are the app's.
import { randomUUID } from 'node:crypto';
import {
  type AuthInfo,
  createMcpHandler,
  INVALID_PARAMS,
  readRequestBody,
} from '@modelcontextprotocol/server';
import type { McpBackend } from './backend.ts';
import { createInFlightCalls } from './cancellations.ts';
import { capScope, impliedScopes, isMcpScope } from './scopes.ts';
import { screenPost } from './screen.ts';
import type { ToolrowServerOptions } from './server.ts';
import { createToolrowMcpServer, serverOptionsOf } from './server.ts';
import { createMcpTaskStore } from './tasks.ts';
import { type McpPrincipal, TOKEN_NAME_PATTERN } from './tokens.ts';

/** Where the app serves forwarded stdio clients (an /api path: the app's token is required). */
export const MCP_BRIDGE_PATH = '/api/mcp/stdio';

/** The headers a forwarding stdio process sends with every message. */
export const MCP_BRIDGE_HEADERS = {
  /** JSON {name, scope, askViaClient?}: the stdio client's principal. */
  principal: 'x-toolrow-mcp-principal',
  /** The profile the client acts in (absent: the app's active one). */
  profile: 'x-toolrow-mcp-profile',
  /** A random id per stdio process: its cancellations reach its own calls only. */
  bridge: 'x-toolrow-mcp-bridge',
} as const;

export interface McpBridgeOptions extends ToolrowServerOptions {
  /**
   * The backend a forwarded client acts on: the connection its request names (the app decides it
   * from the request), in `profile` when the client names one. Its scopeCeiling caps the client;
   * throwing refuses the message with the error's message (a connection not exposed over MCP).
   */
  backendFor(profile: string | undefined, request: Request): McpBackend | Promise<McpBackend>;
  onerror?: (error: Error) => void;
}

export interface McpBridgeHandler {
  fetch(request: Request): Promise<Response>;
  close(): Promise<void>;
}

const PROFILE_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** The principal header, checked: a bad one is the forwarding process's bug, said plainly. */
export function parseBridgePrincipal(header: string | null): McpPrincipal {
  if (!header)
    throw new Error(`Missing ${MCP_BRIDGE_HEADERS.principal}: this endpoint serves \`toolrow mcp --stdio\`.`);
  let value: unknown;
  try {
    value = JSON.parse(header);
  } catch {
    throw new Error(`${MCP_BRIDGE_HEADERS.principal} is not JSON.`);
  }
  const { name, scope, askViaClient } = (value ?? {}) as Record<string, unknown>;
  if (typeof name !== 'string' || !TOKEN_NAME_PATTERN.test(name))
    throw new Error(
      `${MCP_BRIDGE_HEADERS.principal} names no valid client (name: 1-64 letters, digits, '.', '_' or '-').`,
    );
  if (typeof scope !== 'string' || !isMcpScope(scope))
    throw new Error(`${MCP_BRIDGE_HEADERS.principal} holds no Toolrow scope.`);
  return { name, scope, ...(askViaClient === true ? { askViaClient: true } : {}) };
}

const jsonRpcError = (id: unknown, code: number, message: string, data?: unknown) => ({
  jsonrpc: '2.0' as const,
  id: id ?? null,
  error: { code, message, ...(data === undefined ? {} : { data }) },
});

export function createMcpBridgeHandler(options: McpBridgeOptions): McpBridgeHandler {
  const gate = serverOptionsOf(options);
  const calls = createInFlightCalls();
  // One bridge's tasks are its own, as its calls are.
  const tasks = createMcpTaskStore();
  const backends = new WeakMap<AuthInfo, McpBackend>();
  const mcp = createMcpHandler(
    async (context) => {
      const auth = context.authInfo as AuthInfo;
      return createToolrowMcpServer(
        backends.get(auth) as McpBackend,
        context.authInfo?.extra?.toolrow as McpPrincipal,
        {
          ...gate,
          inFlight: { calls, token: auth.token },
          tasks: { store: tasks, owner: auth.token },
        },
      );
    },
    options.onerror ? { onerror: options.onerror } : {},
  );
  const report = (error: unknown) =>
    options.onerror?.(error instanceof Error ? error : new Error(String(error)));

  return {
    async fetch(request) {
      let asked: McpPrincipal;
      try {
        asked = parseBridgePrincipal(request.headers.get(MCP_BRIDGE_HEADERS.principal));
      } catch (error) {
        return Response.json(jsonRpcError(null, INVALID_PARAMS, (error as Error).message), { status: 400 });
      }
      // Without an id, a request's cancellations reach nothing rather than another bridge's calls.
      const bridge = request.headers.get(MCP_BRIDGE_HEADERS.bridge) ?? randomUUID();
      const profile = request.headers.get(MCP_BRIDGE_HEADERS.profile) ?? undefined;
      if (profile !== undefined && !PROFILE_PATTERN.test(profile))
        return Response.json(jsonRpcError(null, INVALID_PARAMS, `Bad profile name '${profile}'.`), {
          status: 400,
        });
      if (request.method !== 'POST') {
        // Stateless: no standalone stream and no session to end (the SDK answers 405 itself).
        return mcp.fetch(request);
      }
      const read = await readRequestBody(request);
      if (read.tooLarge)
        return Response.json(jsonRpcError(null, -32600, 'Request body too large'), { status: 413 });
      let body: unknown;
      try {
        body = JSON.parse(read.text);
      } catch {
        return Response.json(jsonRpcError(null, -32700, 'Parse error: the body is not JSON.'), {
          status: 400,
        });
      }
      const id = Array.isArray(body) ? null : (body as { id?: unknown } | null)?.id;
      let backend: McpBackend;
      try {
        backend = await options.backendFor(profile, request);
      } catch (error) {
        return Response.json(jsonRpcError(id, -32000, (error as Error).message));
      }
      const scope = capScope(asked.scope, backend.scopeCeiling);
      const principal: McpPrincipal = {
        ...asked,
        scope,
        ...(scope !== asked.scope ? { cappedFrom: asked.scope } : {}),
      };
      // One bridge's calls share a key, so its cancellations reach them and nobody else's.
      const caller = `bridge:${bridge}`;
      // Cancellations routed, refusals audited; the server answers an out-of-scope call with a
      // tool result, as the direct stdio server does (there is no step-up on stdio).
      await screenPost(body, { calls, caller, principal, backend, report });
      const authInfo: AuthInfo = {
        token: caller,
        clientId: `stdio:${principal.name}`,
        scopes: impliedScopes(principal.scope),
        extra: { toolrow: principal },
      };
      backends.set(authInfo, backend);
      return mcp.fetch(request, { authInfo, parsedBody: body });
    },
    async close() {
      tasks.close();
      await mcp.close();
    },
  };
}
