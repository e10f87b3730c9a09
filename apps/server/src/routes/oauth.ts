// MCP clients as the app lists them, and the OAuth consent the app's MCP endpoint asks for.

import type { EngineView } from '@toolrow/catalog';
import { DEFAULT_PROFILE } from '@toolrow/datasource';
import { installedEngines } from '@toolrow/engines';
import { isMcpScope } from '@toolrow/mcp-server';
import { Hono } from 'hono';
import { mountMcpClientRoutes, mountOAuthRoutes } from '../oauth.ts';
import type { ServerEnv } from '../request-connection.ts';

import { teamConfigFrom } from '../team/config.ts';
import { ROLE_MCP_SCOPE } from '../team/roles.ts';
import type { RouteContext } from './context.ts';

/** A stored connection's engine as the catalog sees it (an engine no longer installed: none of the features). */
function engineViewOf(driver: string): EngineView {
  const engine = installedEngines.driver(driver)?.engine;
  return { engine: engine?.id ?? driver, features: engine?.features ?? [] };
}

export function oauthRoutes(ctx: RouteContext): Hono<ServerEnv> {
  const { options, server } = ctx;
  const team = teamConfigFrom(ctx.env);
  const app = new Hono<ServerEnv>();

  mountMcpClientRoutes(app);
  if (options.mcp?.consent) {
    const startProfile = options.profile ?? DEFAULT_PROFILE;
    const startState = options.state;
    mountOAuthRoutes(app, {
      consent: options.mcp.consent,
      state: startState,
      profile: startProfile,
      port: () => server.port,
      ...(team ? { team: { publicOrigin: team.publicUrl.origin, roleScope: ROLE_MCP_SCOPE } } : {}),
      async connections() {
        const all = await startState.connections.list();
        const own = all.find((connection) => connection.name === startProfile);
        const exposure = (scope: string | null | undefined) =>
          scope && isMcpScope(scope) ? { ceiling: scope } : {};
        return [
          // The app's own: a named one only while it is exposed (its clients are refused otherwise).
          ...(own?.named && !own.mcpScope
            ? []
            : [
                {
                  name: startProfile,
                  description: own?.url ?? own?.description ?? 'the connection the app started on',
                  engine: options.source,
                  ...(own?.named ? exposure(own.mcpScope) : {}),
                },
              ]),
          ...all
            .filter(
              (connection) => connection.named && connection.name !== startProfile && connection.mcpScope,
            )
            .map((connection) => ({
              name: connection.name,
              description: connection.url ?? connection.description,
              engine: engineViewOf(connection.engine),
              ...exposure(connection.mcpScope),
            })),
        ];
      },
    });
  }
  return app;
}
