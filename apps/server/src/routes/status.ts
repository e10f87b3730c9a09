// The status bar's facts, and the profile's mode.
import type { AppStatus } from '@toolrow/desktop/wire';
import { PERMISSION_MODES } from '@toolrow/state';
import { Hono } from 'hono';
import { z } from 'zod';
import { readBody } from '../body.ts';
import type { ServerEnv } from '../request-connection.ts';

import { NO_MODEL_HINT } from '../server-types.ts';
import type { RouteContext } from './context.ts';
import { origin } from './shared.ts';

export function statusRoutes(ctx: RouteContext): Hono<ServerEnv> {
  const { options, server, currentChat } = ctx;
  const app = new Hono<ServerEnv>();

  app.get('/api/status', async (c) => {
    const { source, state, profile } = c.var.connection;
    const current = await state.profiles.ensure(profile);
    const listed = await state.connections.list().catch(() => []);
    const active = listed.find((connection) => connection.active);
    const { chat, problem: chatProblem } = await currentChat(c.var.connection);
    // The languages' examples are written for the connection's tables: know them first.
    await source.schema.get().catch(() => undefined);
    const status: AppStatus = {
      version: options.version ?? '0.1.0',
      database: {
        engine: active?.engine ?? source.driver,
        typedValues: source.features.includes('typedValues'),
        location: active?.description ?? source.dataDir,
        language: { ...source.queries.language },
        languages: [source.queries, ...(source.queries.modes ?? [])].map((runner) => ({
          ...runner.language,
        })),
      },
      model: chat
        ? { configured: true, id: chat.modelId }
        : { configured: false, hint: chatProblem ? `${chatProblem}. ${NO_MODEL_HINT}` : NO_MODEL_HINT },
      mcp: options.mcp
        ? { enabled: true, url: `${origin(server.port)}${options.mcp.path}` }
        : { enabled: false },
      profile,
      mode: current.mode,
      connection: profile,
    };
    return c.json(status);
  });

  app.put('/api/profile', async (c) => {
    const { state, profile } = c.var.connection;
    const body = await readBody(c, z.strictObject({ mode: z.enum(PERMISSION_MODES) }));
    const updated = await state.profiles.setMode(profile, body.mode);
    return c.json({ mode: updated.mode });
  });
  return app;
}
