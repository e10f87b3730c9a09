// The model a profile uses: the one saved in the app's Settings (its key sealed in the data dir,
// see @toolrow/state's model-keys.ts), else TOOLROW_MODEL. The app and the CLI resolve it the same
// way, per call, so a change in Settings applies to the next message without a restart. Also what
// the Settings dialog needs: a check of what was entered, the provider's model list, a tiny test call.
import type { LanguageModelV4 } from '@ai-sdk/provider';
import { type AppState, type ModelSetting, readModelKey, type SavedModel } from '@toolrow/state';
import { modelErrorText } from './model-errors.ts';
import {
  connectModel,
  loadProvider,
  ModelConfigError,
  type ModelSpec,
  parseModelSpec,
  resolveModel,
} from './models.ts';

type Env = Readonly<Record<string, string | undefined>>;

export const MODEL_PROVIDERS = ['bedrock', 'openai-compatible', 'anthropic', 'openai'] as const;
export type ModelProvider = (typeof MODEL_PROVIDERS)[number];

/** Providers that cannot work without an API key. */
const KEY_REQUIRED: ReadonlySet<ModelProvider> = new Set(['anthropic', 'openai']);

const PROVIDER_NAMES: Record<ModelProvider, string> = {
  bedrock: 'Amazon Bedrock',
  'openai-compatible': 'OpenAI-compatible',
  anthropic: 'Anthropic',
  openai: 'OpenAI',
};

/** The setting as TOOLROW_MODEL would spell it: what the status bar and the CLI show. */
export function modelLabel(setting: ModelSetting): string {
  return setting.provider === 'openai-compatible'
    ? `openai-compatible:${setting.baseURL}#${setting.modelId}`
    : `${setting.provider}:${setting.modelId}`;
}

/** Where a provider is reached, checked; `modelId` may be empty only when `forList` (listing models). */
export function checkModelSetting(input: unknown, options: { forList?: boolean } = {}): ModelSetting {
  const value = (input ?? {}) as Record<string, unknown>;
  const text = (name: string): string | undefined => {
    const raw = value[name];
    if (raw === undefined || raw === null) return undefined;
    if (typeof raw !== 'string') throw new ModelConfigError(`${name} must be text.`);
    return raw.trim() || undefined;
  };
  const provider = text('provider');
  if (!provider || !(MODEL_PROVIDERS as readonly string[]).includes(provider)) {
    throw new ModelConfigError(
      `Pick a provider: ${MODEL_PROVIDERS.map((each) => `${each} (${PROVIDER_NAMES[each as ModelProvider]})`).join(', ')}.`,
    );
  }
  const modelId = text('modelId') ?? '';
  if (!modelId && !options.forList)
    throw new ModelConfigError('Pick a model (load the list, or type its id).');
  const setting: ModelSetting = { provider: provider as ModelProvider, modelId };
  if (provider === 'openai-compatible') {
    const baseURL = text('baseURL');
    if (!baseURL)
      throw new ModelConfigError(
        'An OpenAI-compatible server needs its base URL, e.g. http://127.0.0.1:11434/v1.',
      );
    // The same checks as TOOLROW_MODEL's form, so both read alike.
    const spec = parseModelSpec(`openai-compatible:${baseURL}#${modelId || 'x'}`, 'The base URL') as Extract<
      ModelSpec,
      { provider: 'openai-compatible' }
    >;
    setting.baseURL = spec.baseURL;
  }
  if (provider === 'bedrock') {
    const region = text('region');
    if (!region || !/^[a-z]{2}(-[a-z]+)+-\d$/.test(region))
      throw new ModelConfigError(
        `Amazon Bedrock needs the region the model is enabled in, e.g. us-east-1${region ? ` ('${region}' is not one)` : ''}.`,
      );
    setting.region = region;
    const awsProfile = text('awsProfile');
    if (awsProfile) {
      if (!/^[\w.+@-]{1,64}$/.test(awsProfile))
        throw new ModelConfigError(`'${awsProfile}' is not an AWS profile name.`);
      setting.awsProfile = awsProfile;
    }
  }
  return setting;
}

function specOf(setting: ModelSetting): ModelSpec {
  return setting.provider === 'openai-compatible'
    ? { provider: 'openai-compatible', baseURL: setting.baseURL ?? '', modelId: setting.modelId }
    : { provider: setting.provider, modelId: setting.modelId };
}

/** Connects a Settings choice; `apiKey` is the unsealed key, if any. */
export async function modelFromSetting(
  setting: ModelSetting,
  apiKey: string | undefined,
  options: { fetch?: typeof fetch } = {},
): Promise<LanguageModelV4> {
  if (KEY_REQUIRED.has(setting.provider) && !apiKey)
    throw new ModelConfigError(
      `${PROVIDER_NAMES[setting.provider]} needs an API key: enter it in Settings → Model.`,
    );
  return connectModel(specOf(setting), {
    label: `The model in Settings (${modelLabel(setting)})`,
    ...(setting.region ? { region: setting.region } : {}),
    ...(setting.awsProfile ? { awsProfile: setting.awsProfile } : {}),
    ...(apiKey ? { apiKey } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
}

export interface ProfileModel {
  model: LanguageModelV4;
  /** As TOOLROW_MODEL spells it. */
  label: string;
  /** Where it came from: the app's Settings for this profile, or the environment. */
  source: 'settings' | 'env';
  /** When the Settings choice was saved (undefined: from the environment). */
  savedAt?: Date;
}

/**
 * The model of a profile: saved in Settings, else TOOLROW_MODEL, else null (no model). Throws a
 * ModelConfigError that says what to fix when the one that applies cannot be used.
 */
export async function resolveProfileModel(options: {
  state: Pick<AppState, 'models'>;
  dataDir: string;
  profile: string;
  env: Env;
  fetch?: typeof fetch;
}): Promise<ProfileModel | null> {
  const saved = await options.state.models.get(options.profile);
  if (saved) return connectSaved(saved, options);
  if (!options.env.TOOLROW_MODEL?.trim()) return null;
  return {
    model: await resolveModel(options.env, options.fetch ? { fetch: options.fetch } : {}),
    label: options.env.TOOLROW_MODEL.trim(),
    source: 'env',
  };
}

async function connectSaved(
  saved: SavedModel,
  options: { dataDir: string; env: Env; fetch?: typeof fetch },
): Promise<ProfileModel> {
  const apiKey = await readModelKey(options.env, options.dataDir, saved.profile);
  return {
    model: await modelFromSetting(saved.setting, apiKey, options.fetch ? { fetch: options.fetch } : {}),
    label: modelLabel(saved.setting),
    source: 'settings',
    savedAt: saved.updatedAt,
  };
}

export interface ListedModel {
  id: string;
  /** A readable name, when the provider gives one. */
  name?: string;
}

const LIST_TIMEOUT_MS = 15_000;

async function getJson(
  url: string,
  headers: Record<string, string>,
  fetchImpl: typeof fetch,
): Promise<unknown> {
  let response: Response;
  try {
    response = await fetchImpl(url, { headers, signal: AbortSignal.timeout(LIST_TIMEOUT_MS) });
  } catch (error) {
    const reason = (error as { cause?: { message?: string } }).cause?.message ?? (error as Error).message;
    throw new ModelConfigError(
      `${url} did not answer (${reason}). Check the address and that the server runs.`,
    );
  }
  if (!response.ok) {
    const body = await response.text().catch(() => '');
    let said = body.slice(0, 300);
    try {
      const parsed = JSON.parse(body) as { error?: { message?: string } | string; message?: string };
      said =
        (typeof parsed.error === 'string' ? parsed.error : parsed.error?.message) ?? parsed.message ?? said;
    } catch {}
    const hint = response.status === 401 || response.status === 403 ? ' Check the API key.' : '';
    const reason = said.trim().replace(/\.+$/, '');
    throw new ModelConfigError(
      `${url} answered HTTP ${response.status}${reason ? `: ${reason}` : ''}.${hint}`,
    );
  }
  return response.json();
}

/**
 * The models a provider offers, read from it: `/models` of OpenAI and OpenAI-compatible servers,
 * Anthropic's `/v1/models`, Bedrock's foundation models and inference profiles in the region.
 */
export async function listModels(
  setting: ModelSetting,
  apiKey: string | undefined,
  options: { fetch?: typeof fetch } = {},
): Promise<ListedModel[]> {
  const fetchImpl = options.fetch ?? fetch;
  const byId = (models: ListedModel[]) => [...models].sort((a, b) => a.id.localeCompare(b.id));
  switch (setting.provider) {
    case 'openai-compatible':
    case 'openai': {
      if (setting.provider === 'openai' && !apiKey)
        throw new ModelConfigError('OpenAI needs an API key to list its models.');
      const base = setting.provider === 'openai' ? 'https://api.openai.com/v1' : (setting.baseURL ?? '');
      const body = (await getJson(
        `${base}/models`,
        apiKey ? { authorization: `Bearer ${apiKey}` } : {},
        fetchImpl,
      )) as {
        data?: { id?: unknown }[];
      };
      return byId(
        (body.data ?? []).flatMap((entry) => (typeof entry.id === 'string' ? [{ id: entry.id }] : [])),
      );
    }
    case 'anthropic': {
      if (!apiKey) throw new ModelConfigError('Anthropic needs an API key to list its models.');
      const body = (await getJson(
        'https://api.anthropic.com/v1/models?limit=1000',
        { 'x-api-key': apiKey, 'anthropic-version': '2023-06-01' },
        fetchImpl,
      )) as { data?: { id?: unknown; display_name?: unknown }[] };
      return byId(
        (body.data ?? []).flatMap((entry) =>
          typeof entry.id === 'string'
            ? [
                {
                  id: entry.id,
                  ...(typeof entry.display_name === 'string' ? { name: entry.display_name } : {}),
                },
              ]
            : [],
        ),
      );
    }
    case 'bedrock': {
      const label = `Listing Bedrock models in ${setting.region}`;
      const { BedrockClient, ListFoundationModelsCommand, ListInferenceProfilesCommand } = await loadProvider(
        '@aws-sdk/client-bedrock',
        label,
        () => import('@aws-sdk/client-bedrock'),
      );
      const { fromNodeProviderChain } = await loadProvider(
        '@aws-sdk/credential-providers',
        label,
        () => import('@aws-sdk/credential-providers'),
      );
      const client = new BedrockClient({
        region: setting.region as string,
        credentials: fromNodeProviderChain(setting.awsProfile ? { profile: setting.awsProfile } : {}),
      });
      try {
        const [foundation, profiles] = await Promise.all([
          client.send(new ListFoundationModelsCommand({ byOutputModality: 'TEXT' })),
          client.send(new ListInferenceProfilesCommand({ maxResults: 1000 })),
        ]);
        return [
          ...byId(
            (profiles.inferenceProfileSummaries ?? []).flatMap((entry) =>
              entry.inferenceProfileId
                ? [
                    {
                      id: entry.inferenceProfileId,
                      ...(entry.inferenceProfileName ? { name: entry.inferenceProfileName } : {}),
                    },
                  ]
                : [],
            ),
          ),
          ...byId(
            (foundation.modelSummaries ?? []).flatMap((entry) =>
              entry.modelId
                ? [
                    {
                      id: entry.modelId,
                      name: [entry.providerName, entry.modelName].filter(Boolean).join(' '),
                    },
                  ]
                : [],
            ),
          ),
        ];
      } catch (error) {
        throw new ModelConfigError(
          `Amazon Bedrock in ${setting.region} did not list its models: ${(error as Error).message}${setting.awsProfile ? ` (AWS profile '${setting.awsProfile}')` : ''}.`,
        );
      } finally {
        client.destroy();
      }
    }
  }
}

export type ModelTestResult =
  | { ok: true; ms: number; text: string }
  | { ok: false; ms: number; message: string };

/** One tiny call (a few output tokens): does this model answer, and how fast? */
export async function testModel(model: LanguageModelV4): Promise<ModelTestResult> {
  const { generateText } = await import('ai');
  const started = performance.now();
  try {
    const result = await generateText({
      model,
      prompt: 'Reply with the single word OK.',
      maxOutputTokens: 16,
      maxRetries: 0,
      abortSignal: AbortSignal.timeout(60_000),
    });
    return { ok: true, ms: Math.round(performance.now() - started), text: result.text.trim().slice(0, 200) };
  } catch (error) {
    return { ok: false, ms: Math.round(performance.now() - started), message: modelErrorText(error) };
  }
}
