// MCP: the endpoint (off unless mounted), the approvals inbox, the stdio bridge.
import { APPROVALS_PATH, createApprovalsHandler } from '@toolrow/mcp-server';
import { Hono } from 'hono';
import { mountMcpBridge } from '../mcp-bridge.ts';
import type { ServerEnv } from '../request-connection.ts';

import type { RouteContext } from './context.ts';

/** The MCP endpoint, its approvals inbox and the stdio bridge; close() ends the bridge's sessions. */
export function mcpRoutes(ctx: RouteContext): { app: Hono<ServerEnv>; close(): Promise<void> } {
  const { options, approvals, log } = ctx;
  const app = new Hono<ServerEnv>();

  const approvalRoutes = createApprovalsHandler(approvals);
  app.all(APPROVALS_PATH, (c) => approvalRoutes(c.req.raw));
  app.all(`${APPROVALS_PATH}/*`, (c) => approvalRoutes(c.req.raw));

  const bridge = mountMcpBridge(app, { approvals, log });

  if (options.mcp) {
    const mcp = options.mcp;
    app.all(mcp.path, (c) => mcp.fetch(c.req.raw));
    app.all(`${mcp.path}/*`, (c) => mcp.fetch(c.req.raw));
    app.get(mcp.metadataPath, (c) => mcp.fetch(c.req.raw));
    for (const path of mcp.paths ?? []) {
      if (path !== mcp.path && path !== mcp.metadataPath) app.all(path, (c) => mcp.fetch(c.req.raw));
    }
  }

  // Protocol paths never fall through to the app shell.
  for (const prefix of ['/oauth/*', '/.well-known/*'])
    app.all(prefix, (c) =>
      c.json({ error: 'not_found', error_description: `Nothing is served at ${c.req.path}.` }, 404),
    );
  return { app, close: () => bridge.close() };
}
