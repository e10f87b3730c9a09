// The MCP endpoint the server mounts when asked (off by default): @toolrow/mcp-server's handler,
// a fresh token for this run, and the client config a person pastes into their MCP client.
import { type DataSource, DEFAULT_PROFILE } from '@toolrow/datasource';
import {
  type ApprovalInbox,
  createAuthorizationServer,
  createFairShare,
  createMcpHttpHandler,
  createToken,
  createToolrowBackend,
  type DocumentFetch,
  type McpBackend,
  type McpScope,
  parseScope,
  renderClientConfig,
} from '@toolrow/mcp-server';
import type { ConnectionHub, ToolrowState } from '@toolrow/state';
import { CONSENT_PATH } from './oauth.ts';
import type { McpMount } from './server-types.ts';

export interface McpOptions {
  source: DataSource;
  state: ToolrowState;
  /** The profile of the connection the app started on (its name; default 'default'). */
  profile?: string;
  /**
   * The app's other connections: an OAuth client granted one of them (at consent) works on it
   * alone, capped at its MCP exposure, and only while it stays exposed.
   */
  hub?: ConnectionHub;
  /** The scope this run's token holds (default tables:staged: reads, chips and staging, nothing immediate). */
  scope?: string;
  /** The token's name, the audit actor mcp:<name> (default 'toolrow-app'). */
  tokenName?: string;
  /** Fetches client ID metadata documents (default: https to public addresses; tests route a document to a local socket). */
  fetchClientDocument?: DocumentFetch;
  /** TOOLROW_DEV=1: client metadata documents may also be served from loopback. */
  allowLoopbackClientDocuments?: boolean;
  /** Where gated calls wait for the user: the app's inbox (ToolrowServer.approvals). */
  approvals?: ApprovalInbox;
  /**
   * Team mode: no token for the run (it would belong to nobody); each person makes their own in
   * the app (POST /api/team/mcp-tokens) or connects a client through OAuth consent.
   */
  team?: boolean;
  onerror?: (error: Error) => void;
}

export interface MountedMcp {
  mount: McpMount;
  scope: McpScope;
  /** The token issued for this run (shown once, in the client config); none in team mode. */
  token: string | undefined;
  /** The ready-to-paste client config for the server's URL. */
  clientConfig(baseUrl: string): string;
}

/**
 * Each run issues a fresh token under one name and revokes the previous run's, so exactly one
 * app token is live and a config pasted from an old run stops working.
 */
export async function mountMcp(options: McpOptions): Promise<MountedMcp> {
  const scope = parseScope(options.scope ?? 'tables:staged');
  const name = options.tokenName ?? 'toolrow-app';
  const start = options.profile ?? DEFAULT_PROFILE;
  await options.state.tokens.revoke(name);
  // The run's token serves the connection the app started on, and no other.
  const created = options.team
    ? undefined
    : await createToken(options.state.tokens, { scope, name, ttlMs: null, connection: start });
  // One share of the database for every MCP client of this app, whatever profile it acts in.
  const fairShare = createFairShare();
  const backend = createToolrowBackend({
    source: options.source,
    state: options.state,
    fairShare,
    ...(options.profile ? { profile: options.profile } : {}),
  });
  // A client acts on the connection its token names: the one picked at consent (OAuth), or the one
  // a CLI token was made for. A named connection serves clients only while it is exposed, capped
  // at its exposure; the unnamed one has no ceiling.
  const backends = new Map<string, { backend: McpBackend; ceiling: McpScope | undefined }>();
  const backendFor = async (profile: string): Promise<McpBackend> => {
    const connection = await options.state.connections.get(profile);
    const named = connection?.named === true;
    if ((profile !== start && !connection) || (profile !== start && !options.hub)) {
      // Never another connection's data: a token names its connection, and the app serves that one or none.
      throw new Error(
        `This client's token is for the connection '${profile}', which this Toolrow does not serve now (it serves '${start}'). Connect the client again to choose a connection, or make a token for '${start}'.`,
      );
    }
    const ceiling = named && connection?.mcpScope ? parseScope(connection.mcpScope) : undefined;
    if (named && !ceiling) {
      throw new Error(
        `The connection '${profile}' is not exposed over MCP, so no MCP client is served on it. Expose it (toolrow connections set ${profile} --mcp readonly) or connect the client again to choose another.`,
      );
    }
    const cached = backends.get(profile);
    if (cached && cached.ceiling === ceiling) return cached.backend;
    if (profile === start) {
      const served = ceiling
        ? createToolrowBackend({
            source: options.source,
            state: options.state,
            profile,
            fairShare,
            scopeCeiling: ceiling,
          })
        : backend;
      backends.set(profile, { backend: served, ceiling });
      return served;
    }
    const toolrow = await options.hub!.open(profile);
    const created = createToolrowBackend({
      source: toolrow.source,
      state: toolrow.state,
      profile,
      fairShare,
      scopeCeiling: ceiling,
    });
    backends.set(profile, { backend: created, ceiling });
    return created;
  };
  const handler = createMcpHttpHandler({
    backend,
    connection: start,
    tokens: options.state.tokens,
    oauth: options.state.oauth,
    authorizationServer: true,
    backendFor,
    ...(options.approvals ? { approvals: options.approvals } : {}),
    ...(options.onerror ? { onerror: options.onerror } : {}),
  });
  const authorization = createAuthorizationServer({
    state: options.state,
    consentPath: CONSENT_PATH,
    mcpPath: handler.path,
    ...(options.fetchClientDocument ? { fetchDocument: options.fetchClientDocument } : {}),
    ...(options.allowLoopbackClientDocuments ? { allowLoopbackDocuments: true } : {}),
  });
  const mount: McpMount = {
    path: handler.path,
    metadataPath: handler.metadataPath,
    paths: [handler.path, handler.metadataPath, ...authorization.paths],
    fetch: (request) =>
      authorization.paths.includes(new URL(request.url).pathname)
        ? authorization.fetch(request)
        : handler.fetch(request),
    close: () => handler.close(),
    consent: authorization,
  };
  return {
    mount,
    scope,
    token: created?.token,
    clientConfig: (baseUrl) =>
      created
        ? renderClientConfig({ kind: 'http', url: `${baseUrl}${handler.path}`, token: created.token, scope })
        : `Team mode: make a personal MCP token in the app (POST ${baseUrl}/api/team/mcp-tokens), or connect the client and sign in at its consent page.`,
  };
}
