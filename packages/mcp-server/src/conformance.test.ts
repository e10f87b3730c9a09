// The official MCP conformance suite (@modelcontextprotocol/conformance, `conformance server`)
// against Toolrow's HTTP endpoint with the real tools on a real database. Every scenario that
// applies to what Toolrow declares runs here and must pass with no failure and no warning; the
// ones that do not apply (they call the suite's own fixture tools, prompts and resources) are
// listed with why in README.md, and this file checks that list against the suite's.
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { openToolrow, type Toolrow } from '@toolrow/state';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWidgets } from '../test/fixture.ts';
import { createMcpHttpHandler, type RunningMcpHttp, serveMcpHttp } from './http.ts';
import { createToken } from './tokens.ts';
import { createToolrowBackend } from './toolrow-backend.ts';

const run = promisify(execFile);
const CLI = join(
  dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/conformance/package.json')),
  'dist/index.js',
);

/** The scenarios that apply: Toolrow declares tools, resources and logging, with 2025-era sessions. */
export const APPLICABLE = [
  'server-initialize',
  'ping',
  'logging-set-level',
  'tools-list',
  'resources-list',
  'dns-rebinding-protection',
  'server-sse-multiple-streams',
] as const;

/** Why each other scenario does not apply (README.md lists the same). */
export const NOT_APPLICABLE: Record<string, string> = {
  'completion-complete':
    'calls the fixture prompt test_prompt_with_arguments; Toolrow declares no completions',
  'tools-call-simple-text': 'calls the fixture tool test_simple_text',
  'tools-call-image': 'calls the fixture tool test_image_content; no Toolrow tool returns images',
  'tools-call-audio': 'calls the fixture tool test_audio_content; no Toolrow tool returns audio',
  'tools-call-embedded-resource': 'calls the fixture tool test_embedded_resource',
  'tools-call-mixed-content': 'calls the fixture tool test_multiple_content_types',
  'tools-call-with-logging':
    'calls the fixture tool test_tool_with_logging (Toolrow logging: logging-set-level, and ladder.test.ts)',
  'tools-call-error':
    'calls the fixture tool test_error_handling (Toolrow tool errors: http.test.ts, toolrow.test.ts)',
  'tools-call-with-progress':
    'calls the fixture tool test_tool_with_progress (Toolrow progress: ladder.test.ts, protocol.test.ts)',
  'tools-call-sampling': 'calls the fixture tool test_sampling; Toolrow never asks the client for sampling',
  'tools-call-elicitation':
    'calls the fixture tool test_elicitation (Toolrow elicitation: ladder.test.ts, stdio-ladder.test.ts)',
  'elicitation-sep1034-defaults': 'calls the fixture tool test_elicitation_sep1034_defaults',
  'elicitation-sep1330-enums': 'calls the fixture tool test_elicitation_sep1330_enums',
  'resources-read-text':
    'reads the fixture resource test://static-text (Toolrow resources: protocol.test.ts)',
  'resources-read-binary': 'reads the fixture resource test://static-binary; Toolrow resources are JSON text',
  'resources-templates-read': 'reads the fixture template test://template/{id}/data',
  'resources-subscribe':
    'Toolrow declares no resource subscriptions (schemas change rarely; re-read instead)',
  'resources-unsubscribe': 'Toolrow declares no resource subscriptions',
  'prompts-list': 'Toolrow declares no prompts',
  'prompts-get-simple': 'Toolrow declares no prompts',
  'prompts-get-with-args': 'Toolrow declares no prompts',
  'prompts-get-embedded-resource': 'Toolrow declares no prompts',
  'prompts-get-with-image': 'Toolrow declares no prompts',
  // Pending in the suite (not in its active set):
  'json-schema-2020-12':
    'pending in the suite; calls the fixture tool json_schema_2020_12_tool (Toolrow lists 2020-12 schemas: tools-list)',
  'server-sse-polling':
    'pending in the suite; calls the fixture tool test_reconnection (priming, retry and replay: sessions.test.ts)',
};

describe('the MCP conformance suite against Toolrow over HTTP (real tools, PGlite)', () => {
  let toolrow: Toolrow;
  let server: RunningMcpHttp;

  beforeAll(async () => {
    toolrow = await openToolrow({ env: {}, data: { memory: true }, state: { memory: true } });
    await createWidgets(toolrow);
    const { token } = await createToken(toolrow.state.tokens, { scope: 'tables:full', name: 'conformance' });
    const handler = createMcpHttpHandler({
      backend: createToolrowBackend({ source: toolrow.source, state: toolrow.state }),
      tokens: toolrow.state.tokens,
    });
    // The suite's server scenarios send no credentials (its auth scenarios test clients), so the
    // token is added here; the bearer gate itself is tested in http.test.ts and toolrow.test.ts.
    server = await serveMcpHttp(
      {
        ...handler,
        fetch(request) {
          const headers = new Headers(request.headers);
          headers.set('authorization', `Bearer ${token}`);
          return handler.fetch(
            new Request(request.url, {
              method: request.method,
              headers,
              body: request.body,
              duplex: 'half',
            } as RequestInit),
          );
        },
      },
      0,
    );
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    await toolrow?.close();
  });

  it('every scenario of the suite is either run here or listed as not applicable', async () => {
    const { stdout } = await run(process.execPath, [CLI, 'list']);
    const server = stdout.slice(stdout.indexOf('Server scenarios'), stdout.indexOf('Client scenarios'));
    const names = [...server.matchAll(/^\s+- ([a-z0-9-]+)/gm)].map((match) => match[1]);
    expect(names.length).toBeGreaterThan(10);
    for (const name of names) {
      expect(
        (APPLICABLE as readonly string[]).includes(name!) || name! in NOT_APPLICABLE,
        `${name} is neither run nor listed`,
      ).toBe(true);
    }
  });

  it.each(APPLICABLE)('%s passes with no warning', async (scenario) => {
    const result = await run(
      process.execPath,
      [CLI, 'server', '--url', server.url.href, '--scenario', scenario],
      {
        env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
      },
    ).catch((error: { stdout?: string; stderr?: string; code?: number }) => error);
    const output = `${result.stdout ?? ''}${result.stderr ?? ''}`;
    expect('code' in result ? result.code : 0, output).toBe(0);
    const summary = /Passed: (\d+)\/(\d+), (\d+) failed, (\d+) warnings/.exec(output);
    expect(summary, output).not.toBeNull();
    const [, passed, total, failed, warnings] = summary!.map(Number);
    expect({ failed, warnings }, output).toEqual({ failed: 0, warnings: 0 });
    expect(passed).toBe(total);
    expect(total).toBeGreaterThan(0);
    if (scenario === 'server-sse-multiple-streams') {
      // Both of its checks ran: three concurrent POSTs on one session, each answered as a stream.
      expect(total, output).toBe(2);
      expect(output).not.toContain('SSE streaming is optional');
    }
  });
});
