// Settings → Model: the active profile's model, saved without a restart. The key is sealed in the
// data dir (never returned, never in the state store); AWS credentials stay in the AWS profile.
import {
  checkModelSetting,
  listModels,
  MODEL_PROVIDERS,
  ModelConfigError,
  modelFromSetting,
  modelLabel,
  testModel,
} from '@toolrow/agent';
import type { ModelSettingsView } from '@toolrow/desktop/wire';
import { hasModelKey, type ModelSetting, readModelKey, writeModelKey } from '@toolrow/state';
import type { Hono } from 'hono';
import { z } from 'zod';
import { readBody } from './body.ts';
import { badRequest } from './errors.ts';
import type { RequestConnection, ServerEnv } from './request-connection.ts';

export interface ModelRoutesOptions {
  env: Readonly<Record<string, string | undefined>>;
  /** The model the chat actually uses now (after a save: the new one), for the view. */
  current(connection: RequestConnection): Promise<{ label: string | null; problem: string | null }>;
}

const choice = z.strictObject({
  provider: z.string(),
  modelId: z.string().optional(),
  baseURL: z.string().optional(),
  region: z.string().optional(),
  awsProfile: z.string().optional(),
  /** A new key; empty or absent: the saved one; null (on save): forget the saved one. */
  apiKey: z.string().nullable().optional(),
});

function checked(input: z.output<typeof choice>, forList = false): ModelSetting {
  try {
    return checkModelSetting(input, { forList });
  } catch (error) {
    if (error instanceof ModelConfigError) throw badRequest(error.message);
    throw error;
  }
}

export function mountModelRoutes(app: Hono<ServerEnv>, options: ModelRoutesOptions): void {
  // A saved key belongs to its provider (and server): another choice does not inherit it.
  const keyFor = async (
    { state, profile }: RequestConnection,
    setting: ModelSetting,
    apiKey: string | null | undefined,
  ): Promise<string | undefined> => {
    if (apiKey) return apiKey;
    if (apiKey === null) return undefined;
    const saved = (await state.models.get(profile))?.setting;
    const same =
      saved?.provider === setting.provider &&
      (setting.provider !== 'openai-compatible' || saved.baseURL === setting.baseURL);
    return same ? readModelKey(options.env, state.dataDir, profile) : undefined;
  };

  async function view(connection: RequestConnection): Promise<ModelSettingsView> {
    const { state, profile } = connection;
    const saved = await state.models.get(profile);
    const current = await options.current(connection);
    return {
      profile,
      providers: [...MODEL_PROVIDERS],
      saved: saved
        ? {
            ...saved.setting,
            label: modelLabel(saved.setting),
            hasKey: await hasModelKey(state.dataDir, profile),
            updatedAt: saved.updatedAt.toISOString(),
          }
        : null,
      env: options.env.TOOLROW_MODEL?.trim() || null,
      active: current.label,
      problem: current.problem,
    };
  }

  app.get('/api/settings/model', async (c) => c.json(await view(c.var.connection)));

  app.put('/api/settings/model', async (c) => {
    const body = await readBody(c, choice);
    const setting = checked(body);
    const { state, profile } = c.var.connection;
    const key = await keyFor(c.var.connection, setting, body.apiKey);
    // Connecting builds the provider without calling it: a missing key or package fails here.
    try {
      await modelFromSetting(setting, key);
    } catch (error) {
      if (error instanceof ModelConfigError) throw badRequest(error.message);
      throw error;
    }
    // The new key, the saved one kept, or none (a key of another provider is forgotten).
    if (body.apiKey) await writeModelKey(options.env, state.dataDir, profile, body.apiKey);
    else if (key === undefined) await writeModelKey(options.env, state.dataDir, profile, undefined);
    await state.models.set(profile, setting);
    return c.json(await view(c.var.connection));
  });

  app.delete('/api/settings/model', async (c) => {
    const { state, profile } = c.var.connection;
    await state.models.clear(profile);
    await writeModelKey(options.env, state.dataDir, profile, undefined);
    return c.json(await view(c.var.connection));
  });

  app.post('/api/settings/model/models', async (c) => {
    const body = await readBody(c, choice);
    const setting = checked(body, true);
    try {
      return c.json({
        models: await listModels(setting, await keyFor(c.var.connection, setting, body.apiKey)),
      });
    } catch (error) {
      if (error instanceof ModelConfigError) throw badRequest(error.message);
      throw error;
    }
  });

  app.post('/api/settings/model/test', async (c) => {
    const body = await readBody(c, choice);
    const setting = checked(body);
    let model: Awaited<ReturnType<typeof modelFromSetting>>;
    try {
      model = await modelFromSetting(setting, await keyFor(c.var.connection, setting, body.apiKey));
    } catch (error) {
      if (error instanceof ModelConfigError) throw badRequest(error.message);
      throw error;
    }
    return c.json(await testModel(model));
  });
}
