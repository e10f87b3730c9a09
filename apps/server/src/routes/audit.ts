// The audit log of the connection a request names.
import { Hono } from 'hono';
import { z } from 'zod';
import { queryInteger, readQuery } from '../body.ts';
import type { ServerEnv } from '../request-connection.ts';
import { toWireAudit } from '../wire.ts';

import type { RouteContext } from './context.ts';

export function auditRoutes(_ctx: RouteContext): Hono<ServerEnv> {
  const app = new Hono<ServerEnv>();

  app.get('/api/audit', async (c) => {
    const { state, profile } = c.var.connection;
    const { limit } = readQuery(c, z.object({ limit: queryInteger(1, 1000, 200) }));
    const entries = await state.audit.list({ limit, profile });
    return c.json({ entries: entries.map(toWireAudit) });
  });
  return app;
}
