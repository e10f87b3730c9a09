// stdio: one local client per process. Per the MCP spec a stdio server takes its credentials from
// the environment rather than the HTTP authorization flow; see resolveStdioPrincipal.
import type { Readable, Writable } from 'node:stream';
import {
  INVALID_PARAMS,
  isJSONRPCRequest,
  type JSONRPCMessage,
  type MessageExtraInfo,
  type Transport,
  type TransportSendOptions,
} from '@modelcontextprotocol/server';
import { StdioServerTransport, serveStdio } from '@modelcontextprotocol/server/stdio';
import type { McpBackend } from './backend.ts';
import type { McpScope } from './generated/mcp-scopes.ts';
import { parseScope, refusalFor, scopeCovers } from './scopes.ts';
import type { ToolrowServerOptions } from './server.ts';
import { auditRefusal, createToolrowMcpServer } from './server.ts';
import { createTokenVerifier, type McpPrincipal, type McpTokenStore, principalOf } from './tokens.ts';

/** The environment variables a stdio server reads its credentials from. */
export const STDIO_ENV = {
  /** A token from `toolrow mcp token create`: its scope and name (the audit actor) apply. */
  token: 'TOOLROW_MCP_TOKEN',
  /** A scope, when no token is given (the client runs as the user, locally). */
  scope: 'TOOLROW_MCP_SCOPE',
} as const;

/** Without a token or a scope, a stdio client can read and nothing more. */
export const DEFAULT_STDIO_SCOPE: McpScope = 'tables:readonly';
/** The audit actor (mcp:<name>) of a stdio client that runs without a token. */
export const STDIO_PRINCIPAL_NAME = 'stdio';

/**
 * Who a stdio client is. With TOOLROW_MCP_TOKEN set the token must verify (else this throws
 * with what to do), its name is the actor, and `--scope` may narrow its scope but never widen it.
 * Without a token the client is the local user: scope from `--scope`, else TOOLROW_MCP_SCOPE,
 * else tables:readonly; actor mcp:stdio.
 */
export async function resolveStdioPrincipal(options: {
  env: Readonly<Record<string, string | undefined>>;
  scope?: string;
  tokens: McpTokenStore;
}): Promise<McpPrincipal> {
  const requested = options.scope ?? options.env[STDIO_ENV.scope];
  const wanted = requested === undefined || requested === '' ? undefined : parseScope(requested);
  const token = options.env[STDIO_ENV.token];
  if (token === undefined || token === '') {
    return { name: STDIO_PRINCIPAL_NAME, scope: wanted ?? DEFAULT_STDIO_SCOPE };
  }
  let principal: McpPrincipal | undefined;
  try {
    principal = principalOf(await createTokenVerifier(options.tokens).verifyAccessToken(token));
  } catch (error) {
    throw new Error(`${STDIO_ENV.token} is not usable: ${(error as Error).message}`);
  }
  if (!principal)
    throw new Error(`${STDIO_ENV.token} did not verify; create a token with: toolrow mcp token create`);
  if (wanted === undefined) return principal;
  if (!scopeCovers(principal.scope, wanted)) {
    throw new Error(
      `Scope ${wanted} is wider than the token ${principal.name} allows (${principal.scope}). Create a token with --scope ${wanted}, or drop --scope.`,
    );
  }
  return { ...principal, scope: wanted };
}

/**
 * Wraps the wire transport and answers an out-of-scope tools/call itself, as a JSON-RPC error
 * naming the scope needed, so the server never sees it. Calls to excluded tools are recorded and
 * passed on: the server has no such tool and says so.
 */
class ScopeGateTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;
  readonly #inner: Transport;
  readonly #ready: Promise<readonly [McpBackend, McpPrincipal]>;
  readonly #closed: () => void;

  constructor(
    inner: Transport,
    backend: McpBackend | Promise<McpBackend>,
    principal: McpPrincipal | Promise<McpPrincipal>,
    closed: () => void,
  ) {
    this.#inner = inner;
    this.#ready = Promise.all([backend, principal]);
    this.#ready.catch(() => {});
    this.#closed = closed;
  }

  get sessionId(): string | undefined {
    return this.#inner.sessionId;
  }

  setProtocolVersion(version: string): void {
    this.#inner.setProtocolVersion?.(version);
  }

  start(): Promise<void> {
    this.#inner.onclose = () => {
      this.onclose?.();
      this.#closed();
    };
    this.#inner.onerror = (error) => this.onerror?.(error);
    this.#inner.onmessage = (message, extra) => {
      void this.#screen(message, extra);
    };
    return this.#inner.start();
  }

  async #screen(message: JSONRPCMessage, extra: MessageExtraInfo | undefined): Promise<void> {
    if (
      isJSONRPCRequest(message) &&
      message.method === 'tools/call' &&
      typeof message.params?.name === 'string'
    ) {
      // Not open yet (or failed to open): the server's handler waits, or answers with the failure.
      const ready = await this.#ready.catch(() => undefined);
      const refusal = ready ? refusalFor(message.params.name, ready[1].scope, ready[0].engine) : undefined;
      if (ready && refusal) {
        await auditRefusal(ready[0], refusal, message.params.arguments ?? {}, ready[1]).catch((error) =>
          this.onerror?.(error as Error),
        );
        if (refusal.kind === 'scope') {
          await this.#inner.send({
            jsonrpc: '2.0',
            id: message.id,
            error: {
              code: INVALID_PARAMS,
              message: refusal.message,
              data: { requiredScope: refusal.needed, heldScope: refusal.held },
            },
          });
          return;
        }
      }
    }
    this.onmessage?.(message, extra);
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    return this.#inner.send(message, options);
  }

  close(): Promise<void> {
    return this.#inner.close();
  }
}

export interface McpStdioOptions extends ToolrowServerOptions {
  /** May still be opening: initialize is answered at once, everything else waits for it. */
  backend: McpBackend | Promise<McpBackend>;
  principal: McpPrincipal | Promise<McpPrincipal>;
  stdin?: Readable;
  stdout?: Writable;
  onerror?: (error: Error) => void;
}

export interface RunningMcpStdio {
  /** Resolves when the client closes the connection (stdin ends). */
  closed: Promise<void>;
  close(): Promise<void>;
}

/** Serves one client over stdin/stdout with a server holding `principal`'s scope. */
export function serveMcpStdio(options: McpStdioOptions): RunningMcpStdio {
  let markClosed: () => void = () => {};
  const closed = new Promise<void>((resolve) => {
    markClosed = resolve;
  });
  const wire = new StdioServerTransport(options.stdin, options.stdout);
  const transport = new ScopeGateTransport(wire, options.backend, options.principal, () => markClosed());
  const gate: ToolrowServerOptions = {
    ...(options.approvals ? { approvals: options.approvals } : {}),
    ...(options.progressIntervalMs ? { progressIntervalMs: options.progressIntervalMs } : {}),
    ...(options.heartbeatMs ? { heartbeatMs: options.heartbeatMs } : {}),
  };
  const handle = serveStdio(() => createToolrowMcpServer(options.backend, options.principal, gate), {
    transport,
    ...(options.onerror ? { onerror: options.onerror } : {}),
  });
  return {
    closed,
    async close() {
      await handle.close();
      markClosed();
    },
  };
}
