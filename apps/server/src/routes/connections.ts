// The app's connections: list, add (tested first), switch.
import { Hono } from 'hono';
import { mountConnectionRoutes } from '../connections.ts';
import type { ServerEnv } from '../request-connection.ts';

import type { RouteContext } from './context.ts';

export function connectionRoutes(ctx: RouteContext): Hono<ServerEnv> {
  const { options, env, connections } = ctx;
  const app = new Hono<ServerEnv>();

  mountConnectionRoutes(app, {
    hub: options.connections ?? null,
    activate: (toolrow) => connections.activate(toolrow),
    env,
    ...(options.cwd ? { cwd: options.cwd } : {}),
  });
  return app;
}
