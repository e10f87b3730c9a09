// The reading processes of one SQLite file (read-child.ts). Each read takes a process of its own
// (up to MAX_WORKERS, then it waits its turn); a read that passes its time limit or is cancelled is
// stopped by SIGKILL, the one way to stop a node:sqlite statement inside SQLite's C code.
import { type ChildProcess, fork } from 'node:child_process';
import { abortedError, DataSourceError } from '@toolrow/datasource';
import type { ReadLayers, WorkerAnswer, WorkerReply, WorkerRequest } from './read-protocol.ts';

const MAX_WORKERS = 4;
const MAX_IDLE = 1;

function childEntry(): URL {
  return new URL(import.meta.url.endsWith('.ts') ? './read-child.ts' : './read-child.js', import.meta.url);
}

type Worker = ChildProcess;

/**
 * Every reading process of this Node process. A process busy inside SQLite hears nothing of its
 * parent until the statement ends, so when the parent exits it kills them: none runs on orphaned.
 */
const living = new Set<Worker>();
let killOnExit = false;
function track(worker: Worker): void {
  living.add(worker);
  worker.once('exit', () => living.delete(worker));
  if (killOnExit) return;
  killOnExit = true;
  process.once('exit', () => {
    for (const each of living) each.kill('SIGKILL');
  });
}

export interface ReadOptions {
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** An error the worker's SQLite raised, with SQLite's words. */
export class SqliteError extends Error {
  override name = 'SqliteError';
  readonly errcode: number | undefined;
  constructor(message: string, errcode?: number) {
    super(message);
    this.errcode = errcode;
  }
}

export interface ReadPool {
  ask<A extends WorkerAnswer['kind']>(
    request: WorkerRequest,
    expect: A,
    options?: ReadOptions,
  ): Promise<Extract<WorkerAnswer, { kind: A }>>;
  close(): Promise<void>;
}

export function createReadPool(path: string, layers: ReadLayers): ReadPool {
  const idle: Worker[] = [];
  const waiting: (() => void)[] = [];
  let live = 0;
  let closed = false;

  const busy = new Set<Worker>();
  const spawn = () =>
    fork(childEntry(), [JSON.stringify({ path, layers })], {
      execArgv: [],
      // Nothing of the parent's environment (credentials) reaches a process that runs statements.
      env: { PATH: process.env.PATH ?? '' },
      serialization: 'advanced',
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });

  async function take(): Promise<Worker> {
    for (;;) {
      if (closed) throw new DataSourceError('connection', `The SQLite connection to ${path} is closed.`);
      const worker = idle.pop();
      if (worker) {
        busy.add(worker);
        return worker;
      }
      if (live < MAX_WORKERS) {
        live++;
        const fresh = spawn();
        track(fresh);
        busy.add(fresh);
        return fresh;
      }
      await new Promise<void>((resolve) => waiting.push(resolve));
    }
  }

  function give(worker: Worker, healthy: boolean): void {
    busy.delete(worker);
    if (healthy && !closed && idle.length < MAX_IDLE) {
      idle.push(worker);
      // An idle reader keeps no process of the user's alive.
      worker.unref();
      worker.channel?.unref();
    } else {
      live--;
      worker.kill('SIGKILL');
    }
    waiting.shift()?.();
  }

  return {
    async ask(request, expect, options = {}) {
      const { signal, timeoutMs = 0 } = options;
      if (signal?.aborted) throw abortedError();
      const worker = await take();
      worker.ref();
      worker.channel?.ref();
      return await new Promise((resolve, reject) => {
        let timer: NodeJS.Timeout | undefined;
        const finish = (healthy: boolean) => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          worker.off('message', onMessage);
          worker.off('error', onError);
          worker.off('exit', onExit);
          worker.stderr?.off('data', onStderr);
          give(worker, healthy);
        };
        const onMessage = (reply: WorkerReply) => {
          finish(true);
          if (!reply.ok) reject(new SqliteError(reply.error.message, reply.error.errcode));
          else if (reply.answer.kind !== expect)
            reject(new Error(`the read worker answered ${reply.answer.kind}, not ${expect}`));
          else resolve(reply.answer as never);
        };
        const onError = (error: Error) => {
          finish(false);
          reject(
            new DataSourceError('connection', `The SQLite read worker failed: ${error.message}`, {
              cause: error,
            }),
          );
        };
        const onExit = (code: number | null, signal: string | null) =>
          onError(
            new Error(`it exited (${signal ?? code})${stderr ? `: ${stderr.trim().slice(-400)}` : ''}`),
          );
        const onAbort = () => {
          finish(false);
          reject(abortedError());
        };
        let stderr = '';
        const onStderr = (chunk: Buffer) => {
          stderr += chunk.toString();
        };
        worker.stderr?.on('data', onStderr);
        worker.on('message', onMessage);
        worker.once('error', onError);
        worker.once('exit', onExit);
        // It may have fired while this waited for a process.
        if (signal?.aborted) {
          onAbort();
          return;
        }
        signal?.addEventListener('abort', onAbort, { once: true });
        if (timeoutMs > 0) {
          timer = setTimeout(() => {
            finish(false);
            reject(
              new DataSourceError(
                'timeout',
                `The read ran longer than ${timeoutMs / 1000} s and was stopped (its reading process was ended).`,
              ),
            );
          }, timeoutMs);
        }
        worker.send(request);
      });
    },
    async close() {
      closed = true;
      for (const resolve of waiting.splice(0)) resolve();
      for (const worker of [...idle.splice(0), ...busy]) worker.kill('SIGKILL');
      busy.clear();
    },
  };
}
