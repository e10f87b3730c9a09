// Streamable HTTP: a web-standard fetch handler for the MCP endpoint and its RFC 9728 metadata,
// mountable in any Hono/fetch server, plus serveMcpHttp for `toolrow mcp --http`.
import { serve } from '@hono/node-server';
import {
  type AuthInfo,
  bearerAuthChallengeResponse,
  createMcpHandler,
  getOAuthProtectedResourceMetadataUrl,
  hostHeaderValidationResponse,
  isInitializeRequest,
  isJsonContentType,
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  OAuthError,
  OAuthErrorCode,
  type OAuthProtectedResourceMetadata,
  type OAuthTokenVerifier,
  originValidationResponse,
  readRequestBody,
  requireBearerAuth,
} from '@modelcontextprotocol/server';
import type { McpBackend } from './backend.ts';
import { createInFlightCalls } from './cancellations.ts';
import { MCP_SCOPES, type McpScope } from './generated/mcp-scopes.ts';
import { createBearerVerifier, type OAuthTokenStore } from './oauth/verifier.ts';
import { capScope, isMcpScope, scopeCovers } from './scopes.ts';
import { screenPost } from './screen.ts';
import type { ToolrowServerOptions } from './server.ts';
import { createToolrowMcpServer, serverOptionsOf } from './server.ts';
import { createMcpSessions, type McpSessionLimits } from './sessions.ts';
import { createMcpTaskStore } from './tasks.ts';
import { type McpPrincipal, type McpTokenStore, principalOf } from './tokens.ts';

export const DEFAULT_MCP_PATH = '/mcp';
/** The port `toolrow mcp --http` listens on unless --port says otherwise. */
export const DEFAULT_MCP_PORT = 7337;

export interface McpHttpOptions extends ToolrowServerOptions {
  backend: McpBackend;
  tokens: McpTokenStore;
  /** Path of the MCP endpoint (default /mcp); the metadata lives at its RFC 9728 well-known path. */
  path?: string;
  /** Out-of-band errors (a failing audit write, a broken stream); reporting only. */
  onerror?: (error: Error) => void;
  /** Also accept the OAuth access tokens of Toolrow's authorization server (bound to this resource). */
  oauth?: OAuthTokenStore;
  /** Name this origin as the authorization server in the protected resource metadata (the app serves one). */
  authorizationServer?: boolean;
  /**
   * The backend of an OAuth connection's profile (the connection the user picked at consent). It
   * may open the connection (a promise); throwing refuses the token (401) with the error's message,
   * as for a connection that is no longer exposed. Its `scopeCeiling` caps the client's scope.
   */
  backendFor?: (profile: string) => McpBackend | Promise<McpBackend>;
  /**
   * The name of the connection `backend` serves. Without backendFor, a token bound to another
   * connection is refused (401, naming both connections): it is never served on this one. With
   * backendFor, a principal that names no connection is served as if it named this one.
   */
  connection?: string;
  /**
   * The widest scope any client gets here (a named connection's MCP exposure): a token for more
   * is served at this scope, and listed, called and refused as if it held only this.
   */
  scopeCeiling?: McpScope;
  /** How long 2025-era sessions live unused, and how many a token and the endpoint may hold. */
  sessions?: McpSessionLimits;
}

export interface McpHttpHandler {
  /** The MCP endpoint path, e.g. /mcp. */
  readonly path: string;
  /** The protected resource metadata path, e.g. /.well-known/oauth-protected-resource/mcp. */
  readonly metadataPath: string;
  /** Serves both paths (anything else: 404). Mount it for exactly these two paths. */
  fetch(request: Request): Promise<Response>;
  close(): Promise<void>;
}

/** The verifier with every principal's scope held to `ceiling` (no ceiling: unchanged). */
function capVerifier(
  verifier: OAuthTokenVerifier,
  ceiling: McpScope | undefined,
  backendOf: (principal: McpPrincipal | undefined) => McpBackend | Promise<McpBackend>,
): OAuthTokenVerifier {
  return {
    async verifyAccessToken(token) {
      const info = await verifier.verifyAccessToken(token);
      const principal = principalOf(info);
      if (!principal) return info;
      let backend: McpBackend;
      try {
        backend = await backendOf(principal);
      } catch (error) {
        throw new OAuthError(OAuthErrorCode.InvalidToken, (error as Error).message);
      }
      // The endpoint's ceiling, then the connection's own exposure.
      const scope = capScope(capScope(principal.scope, ceiling), backend.scopeCeiling);
      if (scope === principal.scope) return info;
      return {
        ...info,
        scopes: info.scopes.filter((each) => !isMcpScope(each) || scopeCovers(scope, each)),
        extra: { ...info.extra, toolrow: { ...principal, scope, cappedFrom: principal.scope } },
      };
    },
  };
}

/**
 * A 401 names the narrowest scope that connects (RFC 6750 §3, MCP 2025-11-25 "scope selection"),
 * so a client asks for that instead of everything it saw in scopes_supported; a call that needs
 * more is answered 403 insufficient_scope naming what it needs, and the client steps up.
 */
function withScopeHint(response: Response): Response {
  const challenge = response.headers.get('WWW-Authenticate');
  if (response.status !== 401 || !challenge || /\bscope="/.test(challenge)) return response;
  const headers = new Headers(response.headers);
  headers.set('WWW-Authenticate', `${challenge}, scope="${MCP_SCOPES[0]}"`);
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

/**
 * The MCP endpoint behind bearer tokens. Per request: Host/Origin checks (DNS rebinding), the
 * token (401 with resource_metadata when missing, unknown, expired or revoked), the scope of any
 * tools/call (403 insufficient_scope naming the scope needed, audited, nothing runs), then a
 * server holding the token's scope: the session's own (a 2025-era client that opened with
 * initialize, sessions.ts), or a fresh one for this request only.
 */
export function createMcpHttpHandler(options: McpHttpOptions): McpHttpHandler {
  const path = options.path ?? DEFAULT_MCP_PATH;
  const metadataPath = new URL(getOAuthProtectedResourceMetadataUrl(new URL(path, 'http://127.0.0.1')))
    .pathname;
  const backendOf = (principal: McpPrincipal | undefined): McpBackend | Promise<McpBackend> => {
    // A principal that names no connection (a token made before tokens were bound) is this server's.
    const wanted = principal?.profile ?? (options.backendFor ? options.connection : undefined);
    if (!wanted) return options.backend;
    if (options.backendFor) return options.backendFor(wanted);
    if (options.connection !== undefined && wanted !== options.connection) {
      throw new Error(
        `This token is for the connection '${wanted}', and this server serves '${options.connection}' alone: nothing was read. Serve that one (toolrow --connection ${wanted} mcp --http), or make a token for this one (toolrow --connection ${options.connection} mcp token create --scope …).`,
      );
    }
    return options.backend;
  };
  const verifier = capVerifier(
    createBearerVerifier(options.tokens, options.oauth),
    options.scopeCeiling,
    backendOf,
  );
  const gate = serverOptionsOf(options);
  // Calls in flight on stateless requests, so a cancellation (a POST of its own) reaches the call
  // it names. Calls in a session are the session server's own, and so are their cancellations.
  const calls = createInFlightCalls();
  const sessions = createMcpSessions(options.sessions);
  // Tasks are the token's, whichever request or session started them.
  const tasks = createMcpTaskStore();
  const mcp = createMcpHandler(
    async (context) => {
      const principal = principalOf(context.authInfo);
      const token = context.authInfo?.token;
      return createToolrowMcpServer(await backendOf(principal), principal, {
        ...gate,
        ...(token ? { inFlight: { calls, token }, tasks: { store: tasks, owner: token } } : {}),
      });
    },
    {
      ...(options.onerror ? { onerror: options.onerror } : {}),
    },
  );
  const report = (error: unknown) =>
    options.onerror?.(error instanceof Error ? error : new Error(String(error)));

  function metadata(request: Request): Response {
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      return new Response(null, { status: 405, headers: { Allow: 'GET, HEAD' } });
    }
    const origin = new URL(request.url).origin;
    // Without an authorization server (`toolrow mcp --http`), tokens come from `toolrow mcp token
    // create` only, so there is none to point a client at.
    const document: OAuthProtectedResourceMetadata = {
      resource: `${origin}${path}`,
      ...(options.authorizationServer ? { authorization_servers: [origin] } : {}),
      scopes_supported: [...MCP_SCOPES],
      bearer_methods_supported: ['header'],
      resource_name: 'Toolrow',
    };
    return Response.json(document, { headers: { 'Cache-Control': 'no-store' } });
  }

  async function endpoint(request: Request): Promise<Response> {
    const resourceMetadataUrl = `${new URL(request.url).origin}${metadataPath}`;
    const auth: AuthInfo | Response = await requireBearerAuth({ verifier, resourceMetadataUrl })(request);
    if (auth instanceof Response) return withScopeHint(auth);
    const principal = principalOf(auth);
    // RFC 8707: a token bound to another resource (another port, another name) is not for us.
    const resource = `${new URL(request.url).origin}${path}`;
    if (auth.resource && auth.resource.href !== new URL(resource).href) {
      return bearerAuthChallengeResponse(
        new OAuthError(
          OAuthErrorCode.InvalidToken,
          `This token was issued for ${auth.resource.href}, not for ${resource}; connect this client to ${resource} to get one.`,
        ),
        { resourceMetadataUrl },
      );
    }
    if (!principal) {
      return bearerAuthChallengeResponse(
        new OAuthError(OAuthErrorCode.InvalidToken, 'Token carries no Toolrow scope'),
        {
          resourceMetadataUrl,
        },
      );
    }
    const sessionId = request.headers.get('mcp-session-id');
    // Only JSON bodies can carry a tools/call; anything else goes to its session (GET opens the
    // session's stream, DELETE ends it) or to the SDK untouched, which answers it (405 for GET and
    // DELETE without a session, 415 for a non-JSON POST).
    if (request.method !== 'POST' || !isJsonContentType(request.headers.get('content-type'))) {
      if (sessionId) return sessions.serve(request, sessionId, { auth, principal });
      return mcp.fetch(request, { authInfo: auth });
    }

    const read = await readRequestBody(request);
    if (read.tooLarge) return Response.json({ error: 'Request body too large' }, { status: 413 });
    let body: unknown;
    try {
      body = JSON.parse(read.text);
    } catch {
      // Not JSON: hand the bytes on so the SDK answers with its own parse error.
      return mcp.fetch(
        new Request(request.url, { method: 'POST', headers: request.headers, body: read.text }),
        {
          authInfo: auth,
        },
      );
    }
    const screened = await screenPost(body, {
      ...(sessionId ? {} : { calls }),
      caller: auth.token,
      principal,
      backend: await backendOf(principal),
      report,
    });
    // A token that can step up (OAuth, with this app's authorization server, not held below its
    // scope by the connection's exposure, which no consent widens) gets the spec's 403; any other goes on to the server, which answers the call as an isError result (the refusal is
    // audited here already): a client that throws on a 403 would leave the model with nothing.
    if (screened && principal.canStepUp && !principal.cappedFrom && options.authorizationServer) {
      return bearerAuthChallengeResponse(
        new OAuthError(OAuthErrorCode.InsufficientScope, screened.refusal.message),
        { requiredScopes: [screened.refusal.needed], resourceMetadataUrl },
      );
    }
    if (sessionId) return sessions.serve(request, sessionId, { auth, principal, body });
    // A 2025-era client opens with initialize: it gets a session, and with it a stream the
    // server's questions (elicitation) can travel on. Anything else is served stateless.
    if (isInitializeRequest(body)) {
      return sessions.open(request, {
        auth,
        principal,
        body,
        server: async () =>
          createToolrowMcpServer(await backendOf(principal), principal, {
            ...gate,
            tasks: { store: tasks, owner: auth.token },
          }),
      });
    }
    return mcp.fetch(request, { authInfo: auth, parsedBody: body });
  }

  return {
    path,
    metadataPath,
    async fetch(request) {
      const rejected =
        hostHeaderValidationResponse(request, localhostAllowedHostnames()) ??
        originValidationResponse(request, localhostAllowedOrigins()) ??
        foreignPortResponse(request);
      if (rejected) return rejected;
      const { pathname } = new URL(request.url);
      if (pathname === metadataPath) return metadata(request);
      if (pathname === path) return endpoint(request);
      return Response.json({ error: `Not found: the MCP endpoint is ${path}` }, { status: 404 });
    },
    async close() {
      tasks.close();
      await sessions.close();
      await mcp.close();
    },
  };
}

/** A 403 in the SDK's shape (a JSON-RPC error), for refusals of our own. */
function refusal(message: string): Response {
  return Response.json({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }, { status: 403 });
}

const effectivePort = (url: URL) => url.port || (url.protocol === 'https:' ? '443' : '80');

/**
 * The SDK checks the Origin's hostname only, so a page on another local port (http://127.0.0.1:8080)
 * passes it. An Origin, when there is one, must be this endpoint's own: the scheme and port the
 * request was addressed to (the Host header, already checked to be a loopback name).
 */
function foreignPortResponse(request: Request): Response | undefined {
  const origin = request.headers.get('origin');
  if (!origin) return undefined;
  const own = new URL(request.url);
  own.host = request.headers.get('host') ?? own.host;
  let from: URL;
  try {
    from = new URL(origin);
  } catch {
    return refusal(`Invalid Origin header: ${origin}`);
  }
  if (from.protocol === own.protocol && effectivePort(from) === effectivePort(own)) return undefined;
  return refusal(
    `Refused: a page from ${origin} may not call this MCP endpoint; only MCP clients (which send no Origin) and pages of ${own.origin} itself may.`,
  );
}

export interface RunningMcpHttp {
  /** The endpoint URL clients connect to, e.g. http://127.0.0.1:7337/mcp. */
  url: URL;
  port: number;
  close(): Promise<void>;
}

/** Listens on 127.0.0.1 only (never another interface) and serves the handler. Port 0 picks a free one. */
export async function serveMcpHttp(
  handler: McpHttpHandler,
  port: number = DEFAULT_MCP_PORT,
): Promise<RunningMcpHttp> {
  const hostname = '127.0.0.1';
  let listening = 0;
  // The handler accepts any loopback Host (it may be mounted anywhere); here the port is ours to check.
  const fetch = (request: Request) => {
    const host = request.headers.get('host') ?? '';
    const port = /:(\d+)$/.exec(host)?.[1];
    if (host && port !== String(listening)) {
      return refusal(
        `Refused: this MCP server listens on 127.0.0.1:${listening}, and the request was addressed to '${host}'. Connect to http://127.0.0.1:${listening}${handler.path}.`,
      );
    }
    return handler.fetch(request);
  };
  const { server, address } = await new Promise<{
    server: ReturnType<typeof serve>;
    address: { port: number };
  }>((resolve, reject) => {
    const server = serve({ fetch, port, hostname }, (info) => {
      listening = info.port;
      resolve({ server, address: info });
    });
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        error.code === 'EADDRINUSE'
          ? new Error(
              `Port ${port} on 127.0.0.1 is in use. Pick another with --port N (or --port 0 for any free port).`,
            )
          : error,
      ),
    );
  });
  const url = new URL(`http://${hostname}:${address.port}${handler.path}`);
  return {
    url,
    port: address.port,
    async close() {
      await handler.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
