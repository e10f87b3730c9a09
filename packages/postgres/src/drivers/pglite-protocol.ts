// Messages between the main thread (pglite-thread.ts) and the PGlite worker (pglite-worker.ts).
// Everything here crosses the thread boundary by structured clone.

import type { Row } from '@toolrow/datasource';
import type { QueryResult, TextLines } from '../database.ts';

export interface WorkerInit {
  pgdata: string;
  /** Compiled wasm, shared with every worker of the process (WebAssembly.Module clones across threads). */
  modules: { pgliteWasmModule?: unknown; initdbWasmModule?: unknown };
  /** A dumped data directory to load into an empty pgdata instead of running initdb. */
  loadDataDir?: Uint8Array;
  /** postgresql.conf lines for the instance (the open option `embeddedSettings`). */
  settings?: string[];
}

export type WorkerRequest =
  /**
   * `guarded`: the caller may stop this statement when it overruns. The worker tells the main
   * thread when the statement starts, and only if the session is then in a READ ONLY transaction:
   * anything else is never armed, so a write is never stopped.
   */
  | { id: number; op: 'query'; sql: string; params: readonly unknown[]; guarded: boolean }
  | { id: number; op: 'exec'; sql: string }
  /** One statement whose rows' first column comes back as LF-terminated bytes (see pglite-lines.ts). */
  | { id: number; op: 'lines'; sql: string; guarded: boolean }
  | { id: number; op: 'close' };

/** An error as data: the class name, message, stack and every primitive field (code, hint, position, …). */
export interface WireError {
  name: string;
  message: string;
  stack?: string;
  fields: Record<string, string | number | boolean | null>;
}

export type WorkerMessage =
  | { type: 'ready' }
  | { type: 'failed'; error: WireError }
  /** A guarded statement is running inside a READ ONLY transaction: its timer may start. */
  | { type: 'armed'; id: number }
  | { type: 'result'; id: number; result: QueryResult<Row> | null }
  /** The answer to 'lines': the bytes' buffer is transferred, not copied. */
  | { type: 'lines'; id: number; lines: TextLines }
  | { type: 'error'; id: number; error: WireError }
  /** After each request: the bytes of the engine's wasm memory, which grows and never shrinks. */
  | { type: 'memory'; bytes: number };

export function toWireError(error: unknown): WireError {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error), fields: {} };
  const fields: WireError['fields'] = {};
  for (const [key, value] of Object.entries(error)) {
    if (value === null || ['string', 'number', 'boolean'].includes(typeof value)) {
      fields[key] = value as string | number | boolean | null;
    }
  }
  return { name: error.name, message: error.message, ...(error.stack ? { stack: error.stack } : {}), fields };
}
