// MCP tasks (2025-11-25) with the client most desktop clients run today (the TypeScript SDK v1,
// its experimental tasks API) over a real socket, on a real database: an export runs as a task,
// is followed by polling and cancelled with tasks/cancel; a task is its token's alone.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { DEFAULT_PROFILE } from '@toolrow/datasource';
import type { Toolrow } from '@toolrow/state';
import { testStores } from '@toolrow/state/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectExportCancelled, serveExporters, TEN_MILLION_ROWS } from '../test/fixture.ts';
import type { RunningMcpHttp } from './http.ts';
import {
  createMcpTaskStore,
  MAX_WORKING_TASKS,
  modernTaskOf,
  RELATED_TASK_META,
  TASK_POLL_INTERVAL_MS,
} from './tasks.ts';

async function connectV1(url: URL, token: string): Promise<Client> {
  const client = new Client({ name: 'tasks-test', version: '0.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(url, {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}

describe.each(testStores())('$name: exports as MCP tasks (SDK v1 client over HTTP)', ({ open }) => {
  let toolrow: Toolrow;
  let server: RunningMcpHttp;
  let token: string;
  let other: string;
  let close: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    const served = await serveExporters(open, ['tasker', 'onlooker'] as const);
    ({ toolrow, server, close } = served);
    token = served.tokens.tasker;
    other = served.tokens.onlooker;
  }, 120_000);
  afterAll(() => close?.());

  it('the export tools are offered as tasks, and only they', async () => {
    const client = await connectV1(server.url, token);
    try {
      expect(client.getServerCapabilities()?.tasks).toEqual({
        list: {},
        cancel: {},
        requests: { tools: { call: {} } },
      });
      const { tools } = await client.listTools();
      const asTasks = tools.filter((tool) => tool.execution?.taskSupport === 'optional');
      expect(asTasks.map((tool) => tool.name)).toEqual(['startExport']);
      expect(tools.filter((tool) => tool.execution && tool.name !== 'startExport')).toEqual([]);
    } finally {
      await client.close();
    }
  });

  it('a ten-million-row export runs as a task: its status shows rows rising; tasks/cancel stops it, the job says cancelled and its file is gone', async () => {
    const client = await connectV1(server.url, token);
    const onlooker = await connectV1(server.url, other);
    try {
      await client.listTools();
      let taskId: string | undefined;
      let jobId: string | undefined;
      const rows: number[] = [];
      const statuses: string[] = [];
      let failure: Error | undefined;
      for await (const message of client.experimental.tasks.callToolStream({
        name: 'startExport',
        arguments: { sql: TEN_MILLION_ROWS, format: 'csv' },
      })) {
        if (message.type === 'taskCreated') {
          taskId = message.task.taskId;
          expect(message.task.status).toBe('working');
          // Another token's client is told there is no such task, and cannot cancel it.
          await expect(onlooker.experimental.tasks.getTask(taskId)).rejects.toThrow(/No task/);
          await expect(onlooker.experimental.tasks.cancelTask(taskId)).rejects.toThrow(/No task/);
        }
        if (message.type === 'taskStatus') {
          statuses.push(message.task.status);
          const written = /Export (\S+): (\d+) rows written/.exec(message.task.statusMessage ?? '');
          if (written) {
            jobId = written[1];
            rows.push(Number(written[2]));
            // Rows are being written: the user stops it.
            if (Number(written[2]) > 0 && message.task.status === 'working')
              await client.experimental.tasks.cancelTask(taskId!);
          }
        }
        if (message.type === 'error') failure = message.error;
        expect(message.type).not.toBe('result');
      }
      expect(failure?.message).toMatch(/cancelled/);
      expect(statuses.at(-1)).toBe('cancelled');
      expect(rows.length).toBeGreaterThan(0);
      expect(rows.every((value, index) => index === 0 || value >= rows[index - 1]!)).toBe(true);
      await expectExportCancelled(toolrow, jobId!);
      // The task stays cancelled, has no result, and cannot be cancelled twice.
      expect((await client.experimental.tasks.getTask(taskId!)).status).toBe('cancelled');
      await expect(client.experimental.tasks.getTaskResult(taskId!)).rejects.toThrow(/cancelled/);
      await expect(client.experimental.tasks.cancelTask(taskId!)).rejects.toThrow(/already cancelled/);
    } finally {
      await client.close();
      await onlooker.close();
    }
  }, 120_000);

  it("a finished task's result is the tool's own, tied to its task, and tasks/list shows it", async () => {
    const client = await connectV1(server.url, token);
    try {
      await client.listTools();
      let taskId: string | undefined;
      let result: Record<string, unknown> | undefined;
      for await (const message of client.experimental.tasks.callToolStream({
        name: 'startExport',
        arguments: { sql: 'SELECT g FROM generate_series(1, 500) AS g', format: 'json' },
      })) {
        if (message.type === 'taskCreated') taskId = message.task.taskId;
        if (message.type === 'result') result = message.result as Record<string, unknown>;
        if (message.type === 'error') throw message.error;
      }
      // The task followed the job to its end, as a call with a progressToken does.
      expect(result?.structuredContent).toMatchObject({ state: 'done', rowsDone: 500 });
      expect((result?._meta as Record<string, unknown> | undefined)?.[RELATED_TASK_META]).toEqual({ taskId });
      expect((await client.experimental.tasks.getTask(taskId!)).status).toBe('completed');
      const { tasks } = await client.experimental.tasks.listTasks();
      expect(tasks.map((task) => task.taskId)).toContain(taskId);
      // A client that asks for no task gets today's behaviour: the job, at once.
      const plain = await client.callTool({
        name: 'startExport',
        arguments: { sql: 'SELECT 1 AS one', format: 'csv' },
      });
      expect(plain.structuredContent).toMatchObject({ id: expect.any(String) });
    } finally {
      await client.close();
    }
  }, 60_000);

  it('a call the ladder refuses is a failed task whose status says why and what to do', async () => {
    await toolrow.state.profiles.setMode(DEFAULT_PROFILE, 'manual');
    const client = await connectV1(server.url, token);
    try {
      await client.listTools();
      let last: { status: string; statusMessage?: string } | undefined;
      for await (const message of client.experimental.tasks.callToolStream({
        name: 'startExport',
        arguments: { sql: 'SELECT 1 AS one', format: 'csv' },
      })) {
        if (message.type === 'taskStatus') last = message.task;
        expect(message.type).not.toBe('result');
      }
      expect(last?.status).toBe('failed');
      expect(last?.statusMessage).toContain('There is no Toolrow app running to ask the user in');
    } finally {
      await client.close();
      await toolrow.state.profiles.setMode(DEFAULT_PROFILE, 'full-auto');
    }
  }, 60_000);
});

describe('the task store', () => {
  const done = async () => ({ content: [{ type: 'text' as const, text: 'ok' }] });

  it("shows a task in the 2026-07-28 extension's shape: a tool error is a completed task with its result", async () => {
    const store = createMcpTaskStore();
    const failing = store.start('a', { ttl: 60_000 }, async () => ({
      isError: true,
      content: [{ type: 'text' as const, text: 'refused' }],
    }));
    const working = store.start('a', undefined, () => new Promise<never>(() => {}));
    await store.result('a', failing.taskId);
    expect(modernTaskOf(store.detail('a', failing.taskId))).toMatchObject({
      status: 'completed',
      ttlMs: 60_000,
      pollIntervalMs: TASK_POLL_INTERVAL_MS,
      result: { resultType: 'complete', isError: true, content: [{ type: 'text', text: 'refused' }] },
    });
    expect(store.get('a', failing.taskId).status).toBe('failed');
    const shown = modernTaskOf(store.detail('a', working.taskId));
    expect(shown).toMatchObject({ status: 'working' });
    expect(shown).not.toHaveProperty('result');
    expect(shown).not.toHaveProperty('ttl');
    store.cancel('a', working.taskId);
    expect(modernTaskOf(store.detail('a', working.taskId))).not.toHaveProperty('result');
    expect(() => store.detail('b', working.taskId)).toThrow(/No task/);
  });

  it.each([
    ['no ttl asked', undefined, 60 * 60_000],
    ['a minute', { ttl: 60_000 }, 60_000],
    ['less than a minute is a minute', { ttl: 5 }, 60_000],
    ['more than a day is a day', { ttl: 10 * 24 * 60 * 60_000 }, 24 * 60 * 60_000],
    ['a negative ttl is the default', { ttl: -1 }, 60 * 60_000],
  ])('ttl: %s', (_, requested, kept) => {
    const store = createMcpTaskStore();
    expect(store.start('a', requested, done).ttl).toBe(kept);
  });

  it('a finished task is dropped once its ttl has run out', async () => {
    let now = 1_000_000;
    const store = createMcpTaskStore({ now: () => now });
    const task = store.start('a', { ttl: 60_000 }, done);
    await store.result('a', task.taskId);
    now += 60_001;
    expect(() => store.get('a', task.taskId)).toThrow(/No task/);
  });

  it(`an owner has at most ${MAX_WORKING_TASKS} tasks working; another owner is not held back`, () => {
    const store = createMcpTaskStore();
    const never = () => new Promise<never>(() => {});
    for (let index = 0; index < MAX_WORKING_TASKS; index++) store.start('a', undefined, never);
    expect(() => store.start('a', undefined, never)).toThrow(/already working/);
    expect(store.start('b', undefined, never).status).toBe('working');
    store.close();
    expect(store.list('a').tasks.every((task) => task.status === 'cancelled')).toBe(true);
  });

  it('a tool error is a failed task; a thrown one too, with its message', async () => {
    const store = createMcpTaskStore();
    const refused = store.start('a', undefined, async () => ({
      isError: true,
      content: [{ type: 'text', text: 'no, because' }],
    }));
    const thrown = store.start('a', undefined, async () => {
      throw new Error('the database went away');
    });
    expect((await store.result('a', refused.taskId)).isError).toBe(true);
    expect(store.get('a', refused.taskId)).toMatchObject({ status: 'failed', statusMessage: 'no, because' });
    await store.result('a', thrown.taskId);
    expect(store.get('a', thrown.taskId)).toMatchObject({
      status: 'failed',
      statusMessage: 'the database went away',
    });
  });

  it('cancel aborts the work and settles a waiting tasks/result', async () => {
    const store = createMcpTaskStore();
    let aborted = false;
    const task = store.start('a', undefined, ({ signal }) => {
      signal.addEventListener('abort', () => {
        aborted = true;
      });
      return new Promise<never>(() => {});
    });
    const waiting = store.result('a', task.taskId);
    expect(store.cancel('a', task.taskId).status).toBe('cancelled');
    expect(aborted).toBe(true);
    await expect(waiting).rejects.toThrow(/cancelled/);
  });

  it('lists page by page, with a cursor', async () => {
    const store = createMcpTaskStore();
    const ids: string[] = [];
    for (let index = 0; index < 60; index++) {
      const { taskId } = store.start('a', undefined, done);
      await store.result('a', taskId);
      ids.push(taskId);
    }
    const first = store.list('a');
    expect(first.tasks).toHaveLength(50);
    const second = store.list('a', first.nextCursor);
    expect(second.nextCursor).toBeUndefined();
    expect([...first.tasks, ...second.tasks].map((task) => task.taskId)).toEqual(ids);
    expect(() => store.list('a', 'nonsense')).toThrow(/Unknown cursor/);
  });
});
