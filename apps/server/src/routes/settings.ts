// Settings: the UI state the desktop and the agent's open tools share, and the model.
import type { UiState } from '@toolrow/desktop/wire';
import { Hono } from 'hono';
import { readBody, wireUiState } from '../body.ts';
import { mountModelRoutes } from '../model-routes.ts';
import type { ServerEnv } from '../request-connection.ts';
import { toDsUiPatch, toWireUiState } from '../wire.ts';

import type { RouteContext } from './context.ts';

export function settingsRoutes(ctx: RouteContext): Hono<ServerEnv> {
  const { env, currentChat, fixedModel } = ctx;
  const app = new Hono<ServerEnv>();

  app.get('/api/ui-state', async (c) => {
    const { state, profile } = c.var.connection;
    return c.json(toWireUiState(await state.ui.get(profile)));
  });

  app.put('/api/ui-state', async (c) => {
    const { state, profile } = c.var.connection;
    const body = (await readBody(c, wireUiState)) as UiState;
    const updated = await state.ui.update(profile, toDsUiPatch({ ...body, selection: body.selection ?? [] }));
    return c.json(toWireUiState(updated));
  });

  mountModelRoutes(app, {
    env: fixedModel === undefined ? env : { ...env, TOOLROW_MODEL: undefined },
    current: async (connection) => {
      const { chat, problem } = await currentChat(connection);
      return { label: chat?.modelId ?? null, problem };
    },
  });
  return app;
}
