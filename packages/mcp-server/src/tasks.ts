// MCP tasks (2025-11-25, experimental): a client that sends `tools/call` with a `task` for a tool
// listed with `execution.taskSupport` gets a task id at once instead of waiting, and follows the
// work with tasks/get (status, and what it is doing now), tasks/result (the tool's result, once
// there is one), tasks/cancel (the work stops: an export is cancelled and its file removed) and
// tasks/list. An export can outlast any client's request timeout this way.
//
// The 2026-07-28 era has no tasks in core: the same store serves its Tasks extension
// (io.modelcontextprotocol/tasks, SEP-2663), where the server turns a call into a task when the
// request declares the extension, and tasks/get carries the result (modernTaskOf).
//
// Tasks are kept per owner (the bearer token over HTTP, the connection over stdio): another owner
// is told a task does not exist. They live in this process, for their ttl after they were created.
import { randomUUID } from 'node:crypto';
import { type CallToolResult, ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';

export type McpTaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

/** A task as tasks/get shows it. */
export interface McpTask {
  taskId: string;
  status: McpTaskStatus;
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  /** How long after its creation the task and its result are kept, in ms. */
  ttl: number;
  /** How often to ask tasks/get, in ms. */
  pollInterval: number;
}

/** What the work of a task is given: the signal that stops it, and a way to say what it does now. */
export interface McpTaskWork {
  signal: AbortSignal;
  status(message: string): void;
}

export const DEFAULT_TASK_TTL_MS = 60 * 60_000;
export const MAX_TASK_TTL_MS = 24 * 60 * 60_000;
const MIN_TASK_TTL_MS = 60_000;
export const TASK_POLL_INTERVAL_MS = 500;
/** Tasks one owner may have working at once. */
export const MAX_WORKING_TASKS = 8;
/** Tasks one owner keeps (finished ones are dropped oldest first past this). */
const MAX_KEPT_TASKS = 100;
const PAGE_SIZE = 50;

/** The `_meta` key that ties a message to its task. */
export const RELATED_TASK_META = 'io.modelcontextprotocol/related-task';

/** The 2026-07-28 Tasks extension's identifier (in capabilities' `extensions`). */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** A task as the 2026-07-28 extension shows it: its result inlined once there is one. */
export interface ModernTask {
  taskId: string;
  status: McpTaskStatus;
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  ttlMs: number;
  pollIntervalMs: number;
  result?: CallToolResult & { resultType: 'complete' };
}

/**
 * The extension's view of a task: `ttlMs` and `pollIntervalMs`, and a finished call is `completed`
 * with its result inlined, a tool error included (`failed` is for JSON-RPC errors only there,
 * and a tool error is a result: isError).
 */
export function modernTaskOf({ task, result }: { task: McpTask; result?: CallToolResult }): ModernTask {
  const { ttl, pollInterval, ...rest } = task;
  const status = task.status === 'failed' && result ? 'completed' : task.status;
  return {
    ...rest,
    status,
    ttlMs: ttl,
    pollIntervalMs: pollInterval,
    // The original request's result as that era sends it: discriminated as complete.
    ...(status === 'completed' && result ? { result: { resultType: 'complete', ...result } } : {}),
  };
}

export interface McpTaskStore {
  /** Starts `work` as a task of `owner` and returns it (working). */
  start(
    owner: string,
    requested: { ttl?: number } | undefined,
    work: (run: McpTaskWork) => Promise<CallToolResult>,
  ): McpTask;
  get(owner: string, taskId: string): McpTask;
  /** The task and, once it has finished, its result (without waiting). */
  detail(owner: string, taskId: string): { task: McpTask; result?: CallToolResult };
  /** The task's result once it has one (waits while it works); an error for a cancelled task. */
  result(owner: string, taskId: string, signal?: AbortSignal): Promise<CallToolResult>;
  cancel(owner: string, taskId: string): McpTask;
  list(owner: string, cursor?: string): { tasks: McpTask[]; nextCursor?: string };
  /** Stops every task still working (the server is going away). */
  close(): void;
}

interface Entry {
  owner: string;
  task: McpTask;
  controller: AbortController;
  settled: Promise<void>;
  result?: CallToolResult;
  expiresAt: number;
}

export const isTerminal = (status: McpTaskStatus) =>
  status === 'completed' || status === 'failed' || status === 'cancelled';

function notFound(taskId: string): ProtocolError {
  return new ProtocolError(
    ProtocolErrorCode.InvalidParams,
    `No task ${taskId}: it never existed here, or its time to live ran out. Call the tool again to start a new one.`,
  );
}

const textOf = (result: CallToolResult) =>
  result.content.map((part) => (part.type === 'text' ? part.text : '')).join('');

export function createMcpTaskStore(options: { now?: () => number } = {}): McpTaskStore {
  const clock = options.now ?? Date.now;
  const entries = new Map<string, Entry>();

  const sweep = () => {
    const now = clock();
    for (const [id, entry] of entries) {
      if (isTerminal(entry.task.status) && now > entry.expiresAt) entries.delete(id);
    }
  };
  const entryOf = (owner: string, taskId: string): Entry => {
    sweep();
    const entry = entries.get(taskId);
    if (!entry || entry.owner !== owner) throw notFound(taskId);
    return entry;
  };
  const update = (entry: Entry, change: Partial<Pick<McpTask, 'status' | 'statusMessage'>>) => {
    if (isTerminal(entry.task.status)) return;
    entry.task = { ...entry.task, ...change, lastUpdatedAt: new Date(clock()).toISOString() };
  };
  const ownedBy = (owner: string) => [...entries.values()].filter((entry) => entry.owner === owner);

  return {
    start(owner, requested, work) {
      sweep();
      const own = ownedBy(owner);
      if (own.filter((entry) => !isTerminal(entry.task.status)).length >= MAX_WORKING_TASKS) {
        throw new ProtocolError(
          ProtocolErrorCode.InvalidRequest,
          `${MAX_WORKING_TASKS} tasks are already working for this client: wait for one to finish (tasks/get) or cancel one (tasks/cancel), then call again.`,
        );
      }
      const finished = own.filter((entry) => isTerminal(entry.task.status));
      for (const old of finished.slice(0, Math.max(0, own.length - MAX_KEPT_TASKS + 1)))
        entries.delete(old.task.taskId);

      const asked =
        typeof requested?.ttl === 'number' && requested.ttl > 0 ? requested.ttl : DEFAULT_TASK_TTL_MS;
      const ttl = Math.min(MAX_TASK_TTL_MS, Math.max(MIN_TASK_TTL_MS, Math.round(asked)));
      const now = clock();
      const at = new Date(now).toISOString();
      const controller = new AbortController();
      const entry: Entry = {
        owner,
        task: {
          taskId: randomUUID(),
          status: 'working',
          createdAt: at,
          lastUpdatedAt: at,
          ttl,
          pollInterval: TASK_POLL_INTERVAL_MS,
        },
        controller,
        settled: Promise.resolve(),
        expiresAt: now + ttl,
      };
      const related = { [RELATED_TASK_META]: { taskId: entry.task.taskId } };
      entry.settled = (async () => {
        let result: CallToolResult;
        try {
          result = await work({
            signal: controller.signal,
            status: (message) => update(entry, { statusMessage: message }),
          });
        } catch (error) {
          result = {
            isError: true,
            content: [{ type: 'text', text: error instanceof Error ? error.message : String(error) }],
          };
        }
        if (isTerminal(entry.task.status)) return;
        entry.result = { ...result, _meta: { ...result._meta, ...related } };
        // A tool error is a failed task; its text is the status message, so a client that reads
        // only tasks/get still learns why (and tasks/result still returns the whole result).
        update(
          entry,
          result.isError
            ? { status: 'failed', statusMessage: textOf(result) }
            : { status: 'completed', statusMessage: 'Done.' },
        );
      })();
      entries.set(entry.task.taskId, entry);
      return entry.task;
    },
    get(owner, taskId) {
      return entryOf(owner, taskId).task;
    },
    detail(owner, taskId) {
      const entry = entryOf(owner, taskId);
      return { task: entry.task, ...(entry.result ? { result: entry.result } : {}) };
    },
    async result(owner, taskId, signal) {
      const entry = entryOf(owner, taskId);
      if (!isTerminal(entry.task.status)) {
        await new Promise<void>((resolve, reject) => {
          const stop = () => reject(signal?.reason ?? new Error('tasks/result was cancelled'));
          if (signal?.aborted) return stop();
          signal?.addEventListener('abort', stop, { once: true });
          const settle = () => {
            signal?.removeEventListener('abort', stop);
            resolve();
          };
          void entry.settled.then(settle);
          entry.controller.signal.addEventListener('abort', settle, { once: true });
        });
      }
      if (entry.task.status === 'cancelled' || !entry.result) {
        throw new ProtocolError(
          ProtocolErrorCode.InvalidRequest,
          `Task ${taskId} was cancelled, so it has no result${entry.task.statusMessage ? `: ${entry.task.statusMessage}` : '.'}`,
        );
      }
      return entry.result;
    },
    cancel(owner, taskId) {
      const entry = entryOf(owner, taskId);
      if (isTerminal(entry.task.status)) {
        throw new ProtocolError(
          ProtocolErrorCode.InvalidParams,
          `Task ${taskId} is already ${entry.task.status}; there is nothing to cancel.`,
        );
      }
      update(entry, { status: 'cancelled', statusMessage: 'Cancelled by the client.' });
      entry.controller.abort(new Error('the client cancelled the task'));
      return entry.task;
    },
    list(owner, cursor) {
      sweep();
      const own = ownedBy(owner).map((entry) => entry.task);
      const start = cursor ? own.findIndex((task) => task.taskId === cursor) + 1 : 0;
      if (cursor && start === 0) {
        throw new ProtocolError(
          ProtocolErrorCode.InvalidParams,
          `Unknown cursor ${cursor}: list from the start.`,
        );
      }
      const page = own.slice(start, start + PAGE_SIZE);
      const next = own[start + PAGE_SIZE] ? page.at(-1)?.taskId : undefined;
      return { tasks: page, ...(next ? { nextCursor: next } : {}) };
    },
    close() {
      for (const entry of entries.values()) {
        if (!isTerminal(entry.task.status)) {
          update(entry, { status: 'cancelled', statusMessage: 'The server stopped.' });
          entry.controller.abort(new Error('the server stopped'));
        }
      }
    },
  };
}
