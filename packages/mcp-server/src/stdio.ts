// stdio: one local client per process. Per the MCP spec a stdio server takes its credentials from
// the environment rather than the HTTP authorization flow; see resolveStdioPrincipal.
import type { Readable, Writable } from 'node:stream';
import {
  CLIENT_INFO_META_KEY,
  INTERNAL_ERROR,
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
import { auditRefusal, createToolrowMcpServer, serverOptionsOf } from './server.ts';
import { createMcpTaskStore } from './tasks.ts';
import { capOf, createTokenVerifier, type McpPrincipal, type McpTokenStore, principalOf } from './tokens.ts';

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
 * Wraps the wire transport and audits every refused tools/call (out of scope, excluded, not served
 * by the engine) before the server sees it; the server then answers it as a tool result the model
 * can read (out of scope, not served) or as no tool of its own (excluded, unknown).
 */
class RefusalAuditTransport implements Transport {
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
      const refusal = ready
        ? refusalFor(message.params.name, ready[1].scope, ready[0].engine, capOf(ready[1], ready[0].profile))
        : undefined;
      if (ready && refusal) {
        await auditRefusal(ready[0], refusal, message.params.arguments ?? {}, ready[1]).catch((error) =>
          this.onerror?.(error as Error),
        );
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

/** What a stdio server answers itself, even when the rest goes to the app: the handshake. */
const ANSWERED_HERE = new Set(['initialize', 'notifications/initialized', 'ping']);

const methodOf = (message: JSONRPCMessage): string | undefined =>
  'method' in message && typeof message.method === 'string' ? message.method : undefined;

/**
 * The wire, as the local server sees it, with the rest of the conversation possibly going
 * elsewhere: until `forward` settles, the handshake is answered here and everything else waits;
 * then it goes to the transport `forward` gave (the running app, which holds the data), or here
 * when it gave none. Replies from there go back on the wire as they come (progress included).
 */
class ForwardingTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;
  readonly #wire: Transport;
  readonly #forward: Promise<Transport | undefined>;
  #there: Transport | undefined;
  #protocolVersion: string | undefined;
  /** The client as it named itself in initialize, answered here: the app reads it on each request. */
  #clientInfo: unknown;

  constructor(wire: Transport, forward: Promise<Transport | undefined>) {
    this.#wire = wire;
    this.#forward = forward.then(
      async (there) => {
        if (!there) return undefined;
        there.onmessage = (message) => {
          void this.#wire.send(message).catch((error: Error) => this.onerror?.(error));
        };
        there.onerror = (error) => this.onerror?.(error);
        await there.start();
        if (this.#protocolVersion) there.setProtocolVersion?.(this.#protocolVersion);
        this.#there = there;
        return there;
      },
      // Nowhere else to go (the failure is the caller's to report): serve here.
      () => undefined,
    );
  }

  get sessionId(): string | undefined {
    return this.#wire.sessionId;
  }

  setProtocolVersion(version: string): void {
    this.#protocolVersion = version;
    this.#wire.setProtocolVersion?.(version);
    this.#there?.setProtocolVersion?.(version);
  }

  start(): Promise<void> {
    this.#wire.onclose = () => {
      void this.#there?.close().catch(() => {});
      this.onclose?.();
    };
    this.#wire.onerror = (error) => this.onerror?.(error);
    this.#wire.onmessage = (message, extra) => {
      const method = methodOf(message);
      if (method === 'initialize' && isJSONRPCRequest(message))
        this.#clientInfo = (message.params as { clientInfo?: unknown } | undefined)?.clientInfo;
      if (method && ANSWERED_HERE.has(method)) {
        this.onmessage?.(message, extra);
        return;
      }
      // Promise callbacks run in the order they were added: messages keep their order.
      void this.#forward.then((there) => {
        if (!there) this.onmessage?.(message, extra);
        else void this.#send(there, message);
      });
    };
    return this.#wire.start();
  }

  async #send(there: Transport, message: JSONRPCMessage): Promise<void> {
    try {
      await there.send(this.#withClientInfo(message));
    } catch (error) {
      // A request gets an answer whatever happened on the way: the client never waits for nothing.
      if (isJSONRPCRequest(message)) {
        await this.#wire
          .send({
            jsonrpc: '2.0',
            id: message.id,
            error: { code: INTERNAL_ERROR, message: (error as Error).message },
          })
          .catch(() => {});
      } else this.onerror?.(error as Error);
    }
  }

  /** A request with the client's own name in its _meta, as 2026 clients send it on every request. */
  #withClientInfo(message: JSONRPCMessage): JSONRPCMessage {
    if (!this.#clientInfo || !isJSONRPCRequest(message)) return message;
    const params = (message.params ?? {}) as { _meta?: Record<string, unknown> };
    if (params._meta?.[CLIENT_INFO_META_KEY]) return message;
    return {
      ...message,
      params: { ...params, _meta: { ...params._meta, [CLIENT_INFO_META_KEY]: this.#clientInfo } },
    };
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    return this.#wire.send(message, options);
  }

  async close(): Promise<void> {
    await this.#there?.close().catch(() => {});
    await this.#wire.close();
  }
}

export interface McpStdioOptions extends ToolrowServerOptions {
  /** May still be opening: initialize is answered at once, everything else waits for it. */
  backend: McpBackend | Promise<McpBackend>;
  principal: McpPrincipal | Promise<McpPrincipal>;
  /**
   * Where the client's messages go once known, other than the handshake: a transport to forward
   * them to (the running app's stdio bridge, see bridge.ts), or undefined to serve them here.
   * Omit it to serve everything here.
   */
  forward?: Promise<Transport | undefined>;
  /**
   * The client's wire, when it is already open (startEarlyStdio: the handshake was answered while
   * the server loaded). Default: a new stdio transport on stdin/stdout.
   */
  wire?: Transport;
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
  const stdio = options.wire ?? new StdioServerTransport(options.stdin, options.stdout);
  const wire = options.forward ? new ForwardingTransport(stdio, options.forward) : stdio;
  const transport = new RefusalAuditTransport(wire, options.backend, options.principal, () => markClosed());
  const gate = serverOptionsOf(options);
  // The connection's tasks end with it (a task outlives its request, not its client).
  const tasks = createMcpTaskStore();
  const handle = serveStdio(
    () =>
      createToolrowMcpServer(options.backend, options.principal, {
        ...gate,
        tasks: { store: tasks, owner: 'stdio' },
      }),
    {
      transport,
      ...(options.onerror ? { onerror: options.onerror } : {}),
    },
  );
  void closed.then(() => tasks.close());
  return {
    closed,
    async close() {
      await handle.close();
      markClosed();
    },
  };
}
