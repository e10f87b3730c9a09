// `toolrow mcp --stdio` beside the running app: the app holds the embedded database, so the stdio
// process forwards its client here (see @toolrow/mcp-server's bridge.ts). Served whether or not
// the app serves MCP over HTTP: a stdio client is the user's own local process, and the route is
// behind the app's token like every /api route.

import type { DataSource } from '@toolrow/datasource';
import {
  type ApprovalInbox,
  createFairShare,
  createMcpBridgeHandler,
  createToolrowBackend,
  isMcpScope,
  MCP_BRIDGE_PATH,
  type McpBackend,
  type McpScope,
} from '@toolrow/mcp-server';
import type { Hono } from 'hono';
import type { RequestConnection, ServerEnv } from './request-connection.ts';

export interface McpBridgeMountOptions {
  /** The app's approval inbox: gated calls wait there, as HTTP clients' do. */
  approvals: ApprovalInbox;
  log(message: string): void;
}

export function mountMcpBridge(
  app: Hono<ServerEnv>,
  options: McpBridgeMountOptions,
): { close(): Promise<void> } {
  const fairShare = createFairShare();
  // The connection each forwarded message names (the stdio process's --connection), else the active one.
  const connectionOf = new WeakMap<Request, RequestConnection>();
  // Per data source, then profile and ceiling: a backend's tools/list is built once and kept.
  const backends = new WeakMap<DataSource, Map<string, McpBackend>>();
  const handler = createMcpBridgeHandler({
    approvals: options.approvals,
    onerror: (error) => options.log(`toolrow mcp (stdio through the app): ${error.message}`),
    async backendFor(asked, request) {
      const connection = connectionOf.get(request);
      if (!connection) throw new Error('No connection for this message (the app did not route it).');
      const { source, state, profile } = connection;
      const own = await state.connections.get(profile);
      let ceiling: McpScope | undefined;
      if (own?.named) {
        if (!own.mcpScope || !isMcpScope(own.mcpScope)) {
          throw new Error(
            `The connection '${own.name}' is not exposed over MCP (its MCP exposure is off), so no MCP client is served on it. Expose it with: toolrow connections set ${own.name} --mcp readonly (or staged, full: the widest scope its clients get).`,
          );
        }
        ceiling = own.mcpScope;
      }
      const at = asked ?? profile;
      let bySource = backends.get(source);
      if (!bySource) {
        bySource = new Map();
        backends.set(source, bySource);
      }
      const key = `${at}\u0000${ceiling ?? ''}`;
      let backend = bySource.get(key);
      if (!backend) {
        backend = createToolrowBackend({
          source,
          state,
          profile: at,
          fairShare,
          ...(ceiling ? { scopeCeiling: ceiling } : {}),
        });
        bySource.set(key, backend);
      }
      return backend;
    },
  });
  app.all(MCP_BRIDGE_PATH, (c) => {
    connectionOf.set(c.req.raw, c.var.connection);
    return handler.fetch(c.req.raw);
  });
  return { close: () => handler.close() };
}
