// The MCP endpoint the server mounts when asked (off by default): @toolrow/mcp-server's handler,
// a fresh token for this run, and the client config a person pastes into their MCP client.
import type { DataSource } from '@toolrow/datasource';
import {
  type ApprovalInbox,
  createMcpHttpHandler,
  createToken,
  createToolrowBackend,
  type McpScope,
  parseScope,
  renderClientConfig,
} from '@toolrow/mcp-server';
import type { ToolrowState } from '@toolrow/state';
import type { McpMount } from './server.ts';

export interface McpOptions {
  source: DataSource;
  state: ToolrowState;
  profile?: string;
  /** The scope this run's token holds (default tables:staged: reads, chips and staging, nothing immediate). */
  scope?: string;
  /** The token's name, the audit actor mcp:<name> (default 'toolrow-app'). */
  tokenName?: string;
  /** Where gated calls wait for the user: the app's inbox (ToolrowServer.approvals). */
  approvals?: ApprovalInbox;
  onerror?: (error: Error) => void;
}

export interface MountedMcp {
  mount: McpMount;
  scope: McpScope;
  /** The token issued for this run (shown once, in the client config). */
  token: string;
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
  await options.state.tokens.revoke(name);
  const created = await createToken(options.state.tokens, { scope, name, ttlMs: null });
  const backend = createToolrowBackend({
    source: options.source,
    state: options.state,
    ...(options.profile ? { profile: options.profile } : {}),
  });
  const handler = createMcpHttpHandler({
    backend,
    tokens: options.state.tokens,
    ...(options.approvals ? { approvals: options.approvals } : {}),
    ...(options.onerror ? { onerror: options.onerror } : {}),
  });
  return {
    mount: handler,
    scope,
    token: created.token,
    clientConfig: (baseUrl) =>
      renderClientConfig({ kind: 'http', url: `${baseUrl}${handler.path}`, token: created.token, scope }),
  };
}
