// What is left: unknown API paths as JSON 404s, and the desktop build.
import { DESKTOP_DIST_DIR } from '@toolrow/desktop';
import { Hono } from 'hono';
import type { ServerEnv } from '../request-connection.ts';
import { serveDesktop } from '../static.ts';

import type { RouteContext } from './context.ts';

/** Unknown API paths as JSON 404s, and the desktop build at every other path. */
export function desktopRoutes(ctx: RouteContext): Hono<ServerEnv> {
  const desktopDir = ctx.options.desktopDir === undefined ? DESKTOP_DIST_DIR : ctx.options.desktopDir;
  const app = new Hono<ServerEnv>();

  app.all('/api/*', (c) =>
    c.json({ error: { message: `No API route ${c.req.method} ${c.req.path}.`, code: 'not-found' } }, 404),
  );

  app.get('*', async (c) => {
    if (!desktopDir) return c.text('This server runs without the desktop UI; the API is under /api.', 404);
    return serveDesktop(desktopDir, c.req.path);
  });
  return app;
}
