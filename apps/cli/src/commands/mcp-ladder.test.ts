// `toolrow mcp --stdio` as a real child process follows the profile's mode: beside a running app
// (found in <data dir>/app.json) a Manual-mode call waits in the app's approval inbox until the
// user answers through the app's route; without an app it is refused, saying what to do.
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type { McpApprovalRequest } from '@toolrow/mcp-server';
import { type StartedApp, startApp } from '@toolrow/server';
import { openToolrow } from '@toolrow/state';
import { createTestEnvironment, TEST_SEED_NOW, type TestEnvironment } from '@toolrow/state/testing';
import { describeWithService } from '@toolrow/test-services';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { TOOLROW_BIN } from '../testing.ts';

const textOf = (result: { content?: unknown }) =>
  ((result.content as { text?: string }[] | undefined) ?? []).map((part) => part.text).join('');

async function stdio(env: Record<string, string | undefined>, cwd: string) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [TOOLROW_BIN, 'mcp', '--stdio', '--scope', 'tables:full'],
    env: { PATH: process.env.PATH ?? '', ...(env as Record<string, string>) },
    cwd,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const client = new Client({ name: 'cli-ladder-test', version: '0' });
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

describeWithService('postgres', 'toolrow mcp --stdio and the profile mode (PostgreSQL)', () => {
  let environment: TestEnvironment;
  let app: StartedApp | undefined;

  beforeAll(async () => {
    environment = await createTestEnvironment('postgres');
    const toolrow = await openToolrow({ env: environment.env, cwd: environment.cwd });
    try {
      await toolrow.source.seed!({ orders: 40, now: TEST_SEED_NOW });
      await toolrow.state.profiles.setMode('default', 'manual');
    } finally {
      await toolrow.close();
    }
  }, 120_000);

  afterAll(async () => {
    await app?.close();
    await environment?.cleanup();
  });

  it('Manual without an app: a gated call is refused at once, saying to start the app', async () => {
    const { client, stderr } = await stdio(environment.env, environment.cwd);
    try {
      const result = await client.callTool({ name: 'countRows', arguments: { table: 'orders' } });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain('There is no Toolrow app running to ask the user in');
      // Silent tools are not gated: they run.
      expect((await client.callTool({ name: 'listTables', arguments: {} })).isError).toBeFalsy();
    } finally {
      await client.close();
    }
    expect(stderr()).toContain('in manual mode; no Toolrow app is running');
  }, 60_000);

  it('Manual beside the app: the call waits in its inbox and runs after the approve route', async () => {
    app = await startApp({
      env: environment.env,
      cwd: environment.cwd,
      port: 0,
      build: false,
      out: () => {},
      err: () => {},
    });
    const inbox = app.server.approvals;
    const { client, stderr } = await stdio(environment.env, environment.cwd);
    try {
      const asked = new Promise<McpApprovalRequest>((resolve) => {
        const stop = inbox.subscribe((event) => {
          if (event.type === 'asked') {
            stop();
            resolve(event.request);
          }
        });
      });
      const call = client.callTool({ name: 'countRows', arguments: { table: 'orders' } });
      const request = await asked;
      // The name the client declared, beside the one it is known by here.
      expect(request).toMatchObject({ client: 'cli-ladder-test (stdio)', tool: 'countRows', mode: 'manual' });
      const answered = await fetch(`${app.url}/api/mcp/approvals/${request.id}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${app.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ approved: true }),
      });
      expect(answered.status).toBe(200);
      const result = await call;
      expect(result.isError, textOf(result)).toBeFalsy();
      expect(result.structuredContent).toMatchObject({ count: 40 });

      const denied = new Promise<McpApprovalRequest>((resolve) => {
        const stop = inbox.subscribe((event) => {
          if (event.type === 'asked') {
            stop();
            resolve(event.request);
          }
        });
      });
      const refused = client.callTool({ name: 'openTable', arguments: { table: 'orders' } });
      expect(inbox.answer((await denied).id, { approved: false })).toBe(true);
      expect((await refused).isError).toBe(true);
    } finally {
      await client.close();
    }
    expect(stderr()).toContain("wait in the app's approval inbox");
    const audit = (await app.toolrow.state.audit.list({ limit: 100 }))
      .filter((entry) => entry.decidedBy === 'mcp:stdio')
      .sort((a, b) => a.id - b.id)
      .map((entry) => [entry.tool, entry.decision]);
    expect(audit).toEqual([
      ['countRows', 'denied'],
      ['countRows', 'asked'],
      ['countRows', 'approved'],
      ['openTable', 'asked'],
      ['openTable', 'denied'],
    ]);
  }, 120_000);
});
