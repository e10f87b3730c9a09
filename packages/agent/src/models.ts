// Providers are imported when a model is resolved, so importing the agent does not load the AWS
// SDK (and four provider packages) for code that never talks to a model. They are optional peer
// dependencies: a consumer installs only the provider its TOOLROW_MODEL names.
import type { LanguageModelV4 } from '@ai-sdk/provider';

/** A model setting that cannot work as given; the message names the variable to set. */
export class ModelConfigError extends Error {
  override name = 'ModelConfigError';
}

type Env = Readonly<Record<string, string | undefined>>;

export const MODEL_FORMS = [
  'bedrock:<model id>                  Amazon Bedrock with your AWS credentials (env, profile, SSO); needs AWS_REGION',
  'openai-compatible:<base URL>#<model>  Ollama, vLLM, LM Studio… (optional key: TOOLROW_OPENAI_COMPATIBLE_API_KEY)',
  'anthropic:<model>                   needs ANTHROPIC_API_KEY',
  'openai:<model>                      needs OPENAI_API_KEY',
] as const;

const FORMS_HELP = MODEL_FORMS.map((form) => `  ${form}`).join('\n');

/** What TOOLROW_MODEL names, parsed but not yet connected. */
export type ModelSpec =
  | { provider: 'bedrock'; modelId: string }
  | { provider: 'openai-compatible'; baseURL: string; modelId: string }
  | { provider: 'anthropic'; modelId: string }
  | { provider: 'openai'; modelId: string };

/** `name` is where the setting came from, for messages: TOOLROW_MODEL, or a flag like --model. */
export function parseModelSpec(value: string | undefined, name = 'TOOLROW_MODEL'): ModelSpec {
  const setting = value?.trim();
  if (!setting) {
    throw new ModelConfigError(
      `No model is configured. Set TOOLROW_MODEL to one of:\n${FORMS_HELP}\nfor example TOOLROW_MODEL=bedrock:anthropic.claude-haiku-4-5-20251001-v1:0`,
    );
  }
  const colon = setting.indexOf(':');
  const provider = colon < 0 ? setting : setting.slice(0, colon);
  const rest = colon < 0 ? '' : setting.slice(colon + 1).trim();
  const missing = (what: string) =>
    new ModelConfigError(`${name}=${setting} names no ${what}. Use ${provider}:<${what}>.`);
  switch (provider) {
    case 'bedrock':
    case 'anthropic':
    case 'openai':
      if (!rest) throw missing('model id');
      return { provider, modelId: rest };
    case 'openai-compatible': {
      const hash = rest.lastIndexOf('#');
      const baseURL = hash < 0 ? rest : rest.slice(0, hash);
      const modelId = hash < 0 ? '' : rest.slice(hash + 1).trim();
      if (!baseURL || !modelId) {
        throw new ModelConfigError(
          `${name}=${setting} must be openai-compatible:<base URL>#<model>, for example openai-compatible:http://127.0.0.1:11434/v1#qwen3:8b`,
        );
      }
      let url: URL;
      try {
        url = new URL(baseURL);
      } catch {
        throw new ModelConfigError(
          `${name} has '${baseURL}' as base URL, which is not a URL. Use e.g. http://127.0.0.1:11434/v1`,
        );
      }
      if (url.protocol !== 'http:' && url.protocol !== 'https:') {
        throw new ModelConfigError(`${name}'s base URL must be http:// or https://, not ${url.protocol}`);
      }
      return { provider, baseURL: baseURL.replace(/\/+$/, ''), modelId };
    }
    default:
      throw new ModelConfigError(
        `${name}=${setting} is not a form Toolrow knows. Use one of:\n${FORMS_HELP}`,
      );
  }
}

/** Whether `error` says that `specifier` itself (not something it imports) could not be found. */
export function isMissingPackage(error: unknown, specifier: string): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  const notFound =
    code === 'ERR_MODULE_NOT_FOUND' ||
    code === 'MODULE_NOT_FOUND' ||
    /Cannot find (package|module)|Failed to (load|resolve)/i.test(error.message);
  // Node quotes the specifier ("Cannot find package '@ai-sdk/openai' imported from …"); Vite does not.
  return (
    notFound &&
    [`'${specifier}'`, `"${specifier}"`, ` ${specifier} `].some((form) => ` ${error.message} `.includes(form))
  );
}

/**
 * Runs a provider's `import()` (a literal at each call site, so bundlers and the type checker see
 * it) and turns "package not found" into a ModelConfigError naming the package to install.
 */
export async function loadProvider<T>(
  specifier: string,
  /** How the setting reads in the message: TOOLROW_MODEL=…, or the Settings choice. */
  label: string,
  load: () => Promise<T>,
): Promise<T> {
  try {
    return await load();
  } catch (error) {
    if (!isMissingPackage(error, specifier)) throw error;
    throw new ModelConfigError(
      `${label} needs the package ${specifier}, which is not installed. Install it beside @toolrow/agent: npm install ${specifier}`,
      { cause: error },
    );
  }
}

export interface ResolveModelOptions {
  /** For tests: the fetch the provider uses. */
  fetch?: typeof fetch;
  /** Where TOOLROW_MODEL's value came from, for messages (default 'TOOLROW_MODEL'; e.g. '--model'). */
  settingName?: string;
}

/** What a provider needs besides the model: where, and with which credentials. */
export interface ModelConnection {
  /** Bedrock: the region (required). */
  region?: string;
  /** Bedrock: the AWS profile (default: the standard chain). */
  awsProfile?: string;
  /** Anthropic, OpenAI (required); OpenAI-compatible (optional); Bedrock: an API key instead of AWS credentials. */
  apiKey?: string;
  /** For tests: the fetch the provider uses. */
  fetch?: typeof fetch;
  /** How the setting reads in messages (TOOLROW_MODEL=…, or the Settings choice). */
  label: string;
  /** Bedrock: what to do when no AWS credentials are found (default: check the AWS profile). */
  credentialsHint?: string;
}

/**
 * Connects a parsed model to its provider. The caller has checked that what the provider needs
 * is there (and says where to set it); a missing region or key here is a plain error.
 */
export async function connectModel(spec: ModelSpec, connection: ModelConnection): Promise<LanguageModelV4> {
  const { label } = connection;
  const fetchOption = connection.fetch ? { fetch: connection.fetch } : {};
  switch (spec.provider) {
    case 'bedrock': {
      const { region } = connection;
      if (!region) throw new ModelConfigError(`${label}: Amazon Bedrock needs a region.`);
      const { createAmazonBedrock } = await loadProvider(
        '@ai-sdk/amazon-bedrock',
        label,
        () => import('@ai-sdk/amazon-bedrock'),
      );
      if (connection.apiKey) {
        return createAmazonBedrock({ region, apiKey: connection.apiKey, ...fetchOption })(spec.modelId);
      }
      const { fromNodeProviderChain } = await loadProvider(
        '@aws-sdk/credential-providers',
        label,
        () => import('@aws-sdk/credential-providers'),
      );
      const profile = connection.awsProfile;
      const chain = fromNodeProviderChain(profile ? { profile } : {});
      return createAmazonBedrock({
        region,
        ...fetchOption,
        credentialProvider: async () => {
          try {
            const credentials = await chain();
            return {
              accessKeyId: credentials.accessKeyId,
              secretAccessKey: credentials.secretAccessKey,
              ...(credentials.sessionToken ? { sessionToken: credentials.sessionToken } : {}),
            };
          } catch (error) {
            const hint =
              connection.credentialsHint ??
              (profile
                ? `Check the AWS profile '${profile}' in ~/.aws/config (run \`aws sso login --profile ${profile}\` for SSO)`
                : 'Set up AWS credentials (an AWS profile, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY)');
            throw new ModelConfigError(
              `Amazon Bedrock found no AWS credentials (${(error as Error).message}). ${hint}.`,
            );
          }
        },
      })(spec.modelId);
    }
    case 'openai-compatible': {
      const { createOpenAICompatible } = await loadProvider(
        '@ai-sdk/openai-compatible',
        label,
        () => import('@ai-sdk/openai-compatible'),
      );
      return createOpenAICompatible({
        name: 'openai-compatible',
        baseURL: spec.baseURL,
        includeUsage: true,
        ...(connection.apiKey ? { apiKey: connection.apiKey } : {}),
        ...fetchOption,
      }).chatModel(spec.modelId);
    }
    case 'anthropic': {
      if (!connection.apiKey) throw new ModelConfigError(`${label} needs an API key.`);
      const { createAnthropic } = await loadProvider(
        '@ai-sdk/anthropic',
        label,
        () => import('@ai-sdk/anthropic'),
      );
      return createAnthropic({ apiKey: connection.apiKey, ...fetchOption })(spec.modelId);
    }
    case 'openai': {
      if (!connection.apiKey) throw new ModelConfigError(`${label} needs an API key.`);
      const { createOpenAI } = await loadProvider('@ai-sdk/openai', label, () => import('@ai-sdk/openai'));
      return createOpenAI({ apiKey: connection.apiKey, ...fetchOption }).chat(spec.modelId);
    }
  }
}

/**
 * The language model TOOLROW_MODEL names. Throws ModelConfigError, naming the variable to set,
 * when the setting or a required credential is missing. Bedrock credentials come from the standard
 * AWS chain (environment, shared profile incl. SSO, container and instance roles) when first used.
 */
export async function resolveModel(env: Env, options: ResolveModelOptions = {}): Promise<LanguageModelV4> {
  const spec = parseModelSpec(env.TOOLROW_MODEL, options.settingName);
  const label = `${options.settingName ?? 'TOOLROW_MODEL'}=${env.TOOLROW_MODEL?.trim() ?? ''}`;
  const common = { label, ...(options.fetch ? { fetch: options.fetch } : {}) };
  switch (spec.provider) {
    case 'bedrock': {
      const region = env.AWS_REGION ?? env.AWS_DEFAULT_REGION;
      if (!region) {
        throw new ModelConfigError(
          'Amazon Bedrock needs a region: set AWS_REGION (for example AWS_REGION=us-east-1) to where the model is enabled.',
        );
      }
      return connectModel(spec, {
        ...common,
        region,
        ...(env.AWS_BEARER_TOKEN_BEDROCK ? { apiKey: env.AWS_BEARER_TOKEN_BEDROCK } : {}),
        ...(env.AWS_PROFILE ? { awsProfile: env.AWS_PROFILE } : {}),
        credentialsHint:
          'Set AWS_PROFILE to a configured profile (after `aws sso login` for SSO), or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_BEARER_TOKEN_BEDROCK',
      });
    }
    case 'openai-compatible':
      return connectModel(spec, {
        ...common,
        ...(env.TOOLROW_OPENAI_COMPATIBLE_API_KEY ? { apiKey: env.TOOLROW_OPENAI_COMPATIBLE_API_KEY } : {}),
      });
    case 'anthropic':
      if (!env.ANTHROPIC_API_KEY) {
        throw new ModelConfigError(
          `TOOLROW_MODEL=anthropic:${spec.modelId} needs an API key: set ANTHROPIC_API_KEY.`,
        );
      }
      return connectModel(spec, { ...common, apiKey: env.ANTHROPIC_API_KEY });
    case 'openai':
      if (!env.OPENAI_API_KEY) {
        throw new ModelConfigError(
          `TOOLROW_MODEL=openai:${spec.modelId} needs an API key: set OPENAI_API_KEY.`,
        );
      }
      return connectModel(spec, { ...common, apiKey: env.OPENAI_API_KEY });
  }
}
