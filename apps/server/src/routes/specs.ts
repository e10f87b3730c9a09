// Saved specs from the app: a chart is saved as a query with its chart ({ sql, chart }), after
// the same drawChart the agent calls has drawn it (so a spec that would be refused is not saved).
import { invokeTool } from '@toolrow/tools';
import { Hono } from 'hono';
import { z } from 'zod';
import { nonEmpty, readBody } from '../body.ts';
import type { ServerEnv } from '../request-connection.ts';
import type { RouteContext } from './context.ts';

export function specRoutes(ctx: RouteContext): Hono<ServerEnv> {
  const app = new Hono<ServerEnv>();

  app.post('/api/specs/charts', async (c) => {
    const { state } = c.var.connection;
    const body = await readBody(
      c,
      z.strictObject({
        name: nonEmpty().max(200),
        description: z.string().max(2000).optional(),
        sql: nonEmpty(),
        chart: z.record(z.string(), z.unknown()),
      }),
    );
    // Checked before saved: the read runs and the spec binds, or the refusal names the fix.
    await invokeTool(
      'drawChart',
      { sql: body.sql, spec: body.chart },
      ctx.userContext(c.var.connection, c.req.raw.signal),
    );
    const saved = await state.specs.save({
      name: body.name,
      kind: 'query',
      description: body.description ?? null,
      spec: { sql: body.sql, chart: body.chart },
    });
    return c.json({ name: saved.name, kind: saved.kind, updatedAt: saved.updatedAt.toISOString() });
  });

  return app;
}
