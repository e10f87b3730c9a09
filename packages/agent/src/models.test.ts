import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { INLINE_TOOLS } from '@toolrow/catalog';
import { describe, expect, it } from 'vitest';
import { createAgent } from './agent.ts';
import { isMissingPackage, loadProvider, ModelConfigError, parseModelSpec, resolveModel } from './models.ts';
import { FAKE_COMPLETION_USAGE, fakeOpenAIServer, memoryGateStore, recordingBackend } from './testing.ts';

describe('TOOLROW_MODEL', () => {
  it.each([
    [undefined, /No model is configured\. Set TOOLROW_MODEL to one of:/],
    ['', /Set TOOLROW_MODEL/],
    ['gemini:flash', /TOOLROW_MODEL=gemini:flash is not a form Toolrow knows/],
    ['bedrock:', /names no model id\. Use bedrock:<model id>/],
    ['anthropic', /names no model id/],
    ['openai-compatible:http://127.0.0.1:11434/v1', /must be openai-compatible:<base URL>#<model>/],
    ['openai-compatible:not a url#m', /'not a url' as base URL, which is not a URL/],
    ['openai-compatible:ftp://host/v1#m', /must be http:\/\/ or https:\/\//],
  ])('%j is refused with a message naming what to set', (value, message) => {
    expect(() => parseModelSpec(value)).toThrow(ModelConfigError);
    expect(() => parseModelSpec(value)).toThrow(message);
  });

  it('names the flag a value came from, not TOOLROW_MODEL (toolrow eval --model)', () => {
    expect(() => parseModelSpec('bogus', '--model')).toThrow(/^--model=bogus is not a form Toolrow knows/);
    expect(() => parseModelSpec('openai-compatible:not a url#m', '--model')).toThrow(
      /^--model has 'not a url'/,
    );
  });

  it.each([
    ['bedrock:anthropic.claude-haiku', { provider: 'bedrock', modelId: 'anthropic.claude-haiku' }],
    [
      'bedrock:us.anthropic.claude-3-5-haiku-20241022-v1:0',
      { provider: 'bedrock', modelId: 'us.anthropic.claude-3-5-haiku-20241022-v1:0' },
    ],
    [
      'openai-compatible:http://127.0.0.1:11434/v1/#qwen3:8b',
      { provider: 'openai-compatible', baseURL: 'http://127.0.0.1:11434/v1', modelId: 'qwen3:8b' },
    ],
    ['anthropic:claude-haiku-4-5', { provider: 'anthropic', modelId: 'claude-haiku-4-5' }],
    ['openai:gpt-5-mini', { provider: 'openai', modelId: 'gpt-5-mini' }],
  ])('parses %s', (value, spec) => {
    expect(parseModelSpec(value)).toEqual(spec);
  });

  it.each([
    [{ TOOLROW_MODEL: 'anthropic:claude-haiku-4-5' }, /set ANTHROPIC_API_KEY/],
    [{ TOOLROW_MODEL: 'openai:gpt-5-mini' }, /set OPENAI_API_KEY/],
    [{ TOOLROW_MODEL: 'bedrock:anthropic.claude-haiku' }, /set AWS_REGION/],
  ])('a missing credential names the variable: %j', async (env, message) => {
    await expect(resolveModel(env)).rejects.toThrow(message);
  });

  it('resolves keyed providers when the key is there', async () => {
    const anthropic = await resolveModel({
      TOOLROW_MODEL: 'anthropic:claude-haiku-4-5',
      ANTHROPIC_API_KEY: 'k',
    });
    expect(anthropic.modelId).toBe('claude-haiku-4-5');
    const openai = await resolveModel({ TOOLROW_MODEL: 'openai:gpt-5-mini', OPENAI_API_KEY: 'k' });
    expect(openai.modelId).toBe('gpt-5-mini');
  });
});

describe('Bedrock', () => {
  // A child process: the AWS SDK loads there as it does for `toolrow chat` (vitest's module
  // runner cannot load @smithy's extensionless ESM). No network: the chain fails locally.
  it('without credentials, the first request fails with a message naming what to set', async () => {
    const script = `
      import { generateText } from 'ai';
      import { resolveModel } from ${JSON.stringify(join(import.meta.dirname, 'models.ts'))};
      const model = await resolveModel(process.env);
      try { await generateText({ model, prompt: 'hi', maxRetries: 0 }); console.log('no error'); }
      catch (error) { console.log(error.message); }`;
    const env: Record<string, string | undefined> = {
      ...process.env,
      TOOLROW_MODEL: 'bedrock:anthropic.claude-3-haiku-20240307-v1:0',
      AWS_REGION: 'us-east-1',
      AWS_PROFILE: 'toolrow-test-no-such-profile',
      AWS_CONFIG_FILE: '/nonexistent/config',
      AWS_SHARED_CREDENTIALS_FILE: '/nonexistent/credentials',
      AWS_EC2_METADATA_DISABLED: 'true',
    };
    for (const name of [
      'AWS_ACCESS_KEY_ID',
      'AWS_SECRET_ACCESS_KEY',
      'AWS_SESSION_TOKEN',
      'AWS_BEARER_TOKEN_BEDROCK',
    ]) {
      delete env[name];
    }
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--conditions=@toolrow/source', '--input-type=module', '-e', script],
      { env, cwd: join(import.meta.dirname, '..') },
    );
    expect(stdout).toContain('Amazon Bedrock found no AWS credentials');
    expect(stdout).toMatch(
      /Set AWS_PROFILE .* or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_BEARER_TOKEN_BEDROCK/,
    );
  }, 30_000);
});

describe('openai-compatible over a real socket', () => {
  it('runs a turn: the request carries the inline core, the found tool the next step, and usage comes back', async () => {
    const server = await fakeOpenAIServer([
      [{ tool: 'searchTools', input: { query: 'export this as CSV' }, id: 'call_s' }],
      (request) =>
        request.tools?.some((tool) => tool.function.name === 'startExport')
          ? [{ tool: 'startExport', input: { table: 'orders', format: 'csv' }, id: 'call_x' }]
          : [{ text: 'startExport was not offered' }],
      [{ text: 'Export started.' }],
    ]);
    try {
      const model = await resolveModel({ TOOLROW_MODEL: `openai-compatible:${server.url}#tiny-model` });
      const backend = recordingBackend();
      const agent = createAgent({ model, backend, store: memoryGateStore('full-auto') });
      const result = await agent.runTurn([{ role: 'user', content: 'export orders as csv' }], {
        profileId: 'p',
      });
      expect(result.text).toBe('Export started.');
      expect(server.requests[0]!.model).toBe('tiny-model');
      expect(server.requests[0]!.tools!.map((tool) => tool.function.name)).toEqual([...INLINE_TOOLS]);
      expect(backend.calls.map((call) => call.name)).toEqual(['startExport']);
      expect(result.usage).toEqual({
        inputTokens: FAKE_COMPLETION_USAGE.prompt * 3,
        outputTokens: FAKE_COMPLETION_USAGE.completion * 3,
        cachedInputTokens: FAKE_COMPLETION_USAGE.cached * 3,
      });
    } finally {
      await server.close();
    }
  });

  it('streams a turn through the same provider', async () => {
    const server = await fakeOpenAIServer([[{ text: 'Hello from the stream.' }]]);
    try {
      const model = await resolveModel({ TOOLROW_MODEL: `openai-compatible:${server.url}#tiny-model` });
      const agent = createAgent({ model, backend: recordingBackend(), store: memoryGateStore() });
      const response = await agent.streamTurn(
        [{ id: 'u', role: 'user', parts: [{ type: 'text', text: 'hi' }] }],
        {
          profileId: 'p',
        },
      );
      const body = await response.text();
      expect(body).toContain('Hello from the stream.');
      expect(body).toContain(`"cachedInputTokens":${FAKE_COMPLETION_USAGE.cached}`);
      expect(server.requests[0]!.stream).toBe(true);
    } finally {
      await server.close();
    }
  });
});

describe('providers are optional peer dependencies', () => {
  it('names the package to install when the import finds nothing', async () => {
    // A specifier that no workspace installs: Node's real "Cannot find package" error.
    const missing = '@toolrow-missing/provider';
    const failure = loadProvider(missing, 'TOOLROW_MODEL=anthropic:claude', () => import(missing));
    await expect(failure).rejects.toBeInstanceOf(ModelConfigError);
    await expect(failure).rejects.toThrow(
      `TOOLROW_MODEL=anthropic:claude needs the package ${missing}, which is not installed. Install it beside @toolrow/agent: npm install ${missing}`,
    );
  });

  it('passes other failures through: a provider that is there but breaks is not "missing"', async () => {
    const broken = new Error("Cannot find module './internal.js' imported from @ai-sdk/openai/dist/index.js");
    await expect(loadProvider('@ai-sdk/anthropic', 'anthropic:x', () => Promise.reject(broken))).rejects.toBe(
      broken,
    );
    expect(isMissingPackage(broken, '@ai-sdk/openai')).toBe(false);
  });

  it('loads an installed provider', async () => {
    const module = await loadProvider('@ai-sdk/anthropic', 'anthropic:x', () => import('@ai-sdk/anthropic'));
    expect(typeof module.createAnthropic).toBe('function');
  });
});
