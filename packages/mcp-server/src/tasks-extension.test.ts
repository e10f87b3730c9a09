// The 2026-07-28 Tasks extension (io.modelcontextprotocol/tasks, SEP-2663) with its official
// requester, @modelcontextprotocol/ext-tasks, over a real socket on a real database: a client that
// declares the extension gets an export as a task, follows it with tasks/get and cancels it with
// tasks/cancel; a client that does not declare it is served as before.
import type { Client } from '@modelcontextprotocol/client';
import {
  createTaskSessionFromClient,
  type RawClientDispatch,
  type TaskEnabledSession,
} from '@modelcontextprotocol/ext-tasks/client';
import { DEFAULT_PROFILE } from '@toolrow/datasource';
import type { Toolrow } from '@toolrow/state';
import { testStores } from '@toolrow/state/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectExportCancelled, serveExporters, TEN_MILLION_ROWS } from '../test/fixture.ts';
import { connectHttp } from '../test/helpers.ts';
import type { RunningMcpHttp } from './http.ts';
import { TASKS_EXTENSION } from './tasks.ts';

const MODERN = '2026-07-28';

/**
 * The requester's raw path for task traffic, as a host supplies it: one JSON-RPC POST per request
 * with the era's standard headers (the SDK client's codec refuses these shapes on 2026-07-28).
 */
function rawDispatchTo(url: URL, token: string): RawClientDispatch {
  let nextId = 0;
  return async (message, options) => {
    const request: { jsonrpc: string; id: string; method?: unknown; params?: Record<string, unknown> } = {
      jsonrpc: '2.0',
      id: `raw-${++nextId}`,
      ...(message as Record<string, unknown>),
    };
    const params = request.params ?? {};
    const name = params.name ?? params.taskId;
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${token}`,
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        'MCP-Protocol-Version': MODERN,
        'Mcp-Method': String(request.method),
        ...(typeof name === 'string' ? { 'Mcp-Name': name } : {}),
      },
      body: JSON.stringify(request),
      ...(options?.signal ? { signal: options.signal } : {}),
    });
    const text = await response.text();
    // A JSON answer, or an SSE stream whose last data line is the answer.
    const json = response.headers.get('content-type')?.includes('text/event-stream')
      ? text
          .split('\n')
          .filter((line) => line.startsWith('data:'))
          .map((line) => JSON.parse(line.slice(5)) as { id?: unknown })
          .find((each) => each.id === request.id)
      : (JSON.parse(text) as { id?: unknown });
    const answer = json as { result?: unknown; error?: { code: number; message: string } } | undefined;
    if (!answer) throw new Error(`No answer to ${String(request.method)} (HTTP ${response.status}): ${text}`);
    return answer.error
      ? { kind: 'error', error: answer.error }
      : { kind: 'result', result: answer.result as never };
  };
}

describe.each(testStores())('$name: exports as tasks of the 2026-07-28 Tasks extension', ({ open }) => {
  let toolrow: Toolrow;
  let server: RunningMcpHttp;
  let tokens: Record<'tasker' | 'onlooker', string>;
  let close: (() => Promise<void>) | undefined;
  const clients: Client[] = [];

  beforeAll(async () => {
    ({ toolrow, server, tokens, close } = await serveExporters(open, ['tasker', 'onlooker'] as const));
  }, 120_000);
  afterAll(async () => {
    for (const client of clients) await client.close();
    await close?.();
  });

  async function sessionFor(token: string): Promise<TaskEnabledSession> {
    const client = await connectHttp(server.url, token, 'auto');
    clients.push(client);
    return createTaskSessionFromClient(client, {
      endpointId: `toolrow-${token.slice(-6)}`,
      rawDispatch: rawDispatchTo(server.url, token),
      v2RequestFraming: {
        protocolVersion: MODERN,
        clientInfo: { name: 'ext-tasks-test', version: '0.0.0' },
        clientCapabilities: {},
      },
    });
  }

  it('server/discover declares the extension', async () => {
    const client = await connectHttp(server.url, tokens.tasker, 'auto');
    clients.push(client);
    expect(client.getProtocolEra()).toBe('modern');
    expect(client.getServerCapabilities()?.extensions?.[TASKS_EXTENSION]).toEqual({});
  });

  it('a ten-million-row export is a task: tasks/get shows rows rising; tasks/cancel stops it, the job says cancelled and its file is gone', async () => {
    const session = await sessionFor(tokens.tasker);
    const onlooker = await sessionFor(tokens.onlooker);
    try {
      const execution = await session.callTool('startExport', { sql: TEN_MILLION_ROWS, format: 'csv' });
      expect(execution.kind).toBe('task');
      if (execution.kind !== 'task') return;
      const taskId = execution.handle.taskId;
      // Another token's client is told there is no such task.
      await expect(onlooker.task(taskId).snapshot()).rejects.toThrow(/No task/);

      const rows: number[] = [];
      let jobId: string | undefined;
      const controller = session.task(taskId);
      while (rows.length < 2 || rows.at(-1)! === 0) {
        const view = await controller.snapshot();
        expect(view.status).toBe('working');
        expect(view.suggestedPollIntervalMs).toBeGreaterThan(0);
        const written = /Export (\S+): (\d+) rows written/.exec(view.statusMessage ?? '');
        if (written) {
          jobId = written[1];
          rows.push(Number(written[2]));
        }
        await new Promise((resolve) => setTimeout(resolve, view.suggestedPollIntervalMs));
      }
      expect(rows.every((value, index) => index === 0 || value >= rows[index - 1]!)).toBe(true);
      await execution.cancel();
      const { outcome } = await execution.settle();
      expect(outcome.status).toBe('cancelled');
      expect((await controller.snapshot()).status).toBe('cancelled');
      await expectExportCancelled(toolrow, jobId!);
      // A second cancel is acknowledged (cancel is cooperative), and changes nothing.
      await controller.cancel();
      expect((await controller.snapshot()).status).toBe('cancelled');
    } finally {
      await session.close();
      await onlooker.close();
    }
  }, 120_000);

  it("a finished export's task carries the tool's own result, the job followed to its end", async () => {
    const session = await sessionFor(tokens.tasker);
    try {
      const execution = await session.callTool('startExport', {
        sql: 'SELECT g FROM generate_series(1, 500) AS g',
        format: 'json',
      });
      expect(execution.kind).toBe('task');
      const { outcome } = await execution.settle();
      expect(outcome.status).toBe('completed');
      const result = (outcome as { result: { structuredContent?: unknown; isError?: boolean } }).result;
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toMatchObject({ state: 'done', rowsDone: 500 });
    } finally {
      await session.close();
    }
  }, 60_000);

  it('a call the ladder refuses is a completed task whose result is the refusal (isError), as the extension says of tool errors', async () => {
    await toolrow.state.profiles.setMode(DEFAULT_PROFILE, 'manual');
    const session = await sessionFor(tokens.tasker);
    try {
      const execution = await session.callTool('startExport', { sql: 'SELECT 1 AS one', format: 'csv' });
      expect(execution.kind).toBe('task');
      const { outcome } = await execution.settle();
      expect(outcome.status).toBe('completed');
      const result = (outcome as { result: { isError?: boolean; content: { text?: string }[] } }).result;
      expect(result.isError).toBe(true);
      expect(result.content[0]?.text).toContain('There is no Toolrow app running to ask the user in');
    } finally {
      await session.close();
      await toolrow.state.profiles.setMode(DEFAULT_PROFILE, 'full-auto');
    }
  }, 60_000);

  it('a client that does not declare the extension gets the job at once, as before', async () => {
    const client = await connectHttp(server.url, tokens.tasker, 'auto');
    clients.push(client);
    const plain = await client.callTool({
      name: 'startExport',
      arguments: { sql: 'SELECT 1 AS one', format: 'csv' },
    });
    expect(plain).not.toHaveProperty('taskId');
    expect(plain.structuredContent).toMatchObject({ id: expect.any(String) });
  });
});
