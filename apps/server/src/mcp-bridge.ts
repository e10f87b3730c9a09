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
import type { ToolrowState } from '@toolrow/state';
import type { Hono } from 'hono';

export interface McpBridgeMountOptions {
  /** The app's active connection when a message arrives (the user may switch it). */
  active(): { source: DataSource; state: ToolrowState; profile: string };
  /** The app's approval inbox: gated calls wait there, as HTTP clients' do. */
  approvals: ApprovalInbox;
  log(message: string): void;
}

export function mountMcpBridge(app: Hono, options: McpBridgeMountOptions): { close(): Promise<void> } {
  const fairShare = createFairShare();
  // Per data source, then profile and ceiling: a backend's tools/list is built once and kept.
  const backends = new WeakMap<DataSource, Map<string, McpBackend>>();
  const handler = createMcpBridgeHandler({
    approvals: options.approvals,
    onerror: (error) => options.log(`toolrow mcp (stdio through the app): ${error.message}`),
    async backendFor(asked) {
      const { source, state, profile } = options.active();
      const active = (await state.connections.list()).find((connection) => connection.active);
      let ceiling: McpScope | undefined;
      if (active?.named) {
        if (!active.mcpScope || !isMcpScope(active.mcpScope)) {
          throw new Error(
            `The Toolrow app is on the connection '${active.name}', which is not exposed over MCP (its MCP exposure is off). Expose it with: toolrow connections set ${active.name} --mcp readonly (or staged, full: the widest scope its clients get).`,
          );
        }
        ceiling = active.mcpScope;
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
  app.all(MCP_BRIDGE_PATH, (c) => handler.fetch(c.req.raw));
  return { close: () => handler.close() };
}
