// The worker thread that hosts one on-disk PGlite instance (see pglite-thread.ts). It runs one
// request at a time: the main thread serialises access, and PGlite is one connection anyway.
import { type MessagePort, parentPort, workerData } from 'node:worker_threads';
import { PGlite, type PGliteOptions } from '@electric-sql/pglite';
import type { QueryResult } from '../database.ts';
import type { Row } from '../types.ts';
import { toWireError, type WorkerInit, type WorkerMessage, type WorkerRequest } from './pglite-protocol.ts';
import { PARSERS } from './values.ts';

if (!parentPort) throw new Error('pglite-worker.ts runs as a worker thread of pglite-thread.ts.');
const port: MessagePort = parentPort;
const init = workerData as WorkerInit;
const post = (message: WorkerMessage) => port.postMessage(message);

function toResult(result: {
  rows: unknown[];
  fields: { name: string; dataTypeID: number }[];
  rowCount?: number;
  affectedRows?: number;
}): QueryResult<Row> {
  return {
    rows: result.rows as Row[],
    fields: result.fields.map((field) => ({ name: field.name, typeId: field.dataTypeID })),
    rowCount: result.rowCount ?? result.affectedRows ?? result.rows.length,
  };
}

/** Only a READ ONLY transaction may be stopped mid-statement: it changes no table, sequence or catalog. */
async function inReadOnlyTransaction(pglite: PGlite): Promise<boolean> {
  try {
    const { rows } = await pglite.query<{ ro: string }>(
      "SELECT current_setting('transaction_read_only') AS ro",
    );
    return rows[0]?.ro === 'on';
  } catch {
    // An aborted transaction refuses every statement; the guarded one fails the same way at once.
    return false;
  }
}

async function handle(pglite: PGlite, request: WorkerRequest): Promise<void> {
  try {
    switch (request.op) {
      case 'query': {
        if (request.guarded && (await inReadOnlyTransaction(pglite))) post({ type: 'armed', id: request.id });
        const result = await pglite.query(request.sql, request.params as unknown[]);
        post({ type: 'result', id: request.id, result: toResult(result) });
        break;
      }
      case 'exec':
        await pglite.exec(request.sql);
        post({ type: 'result', id: request.id, result: null });
        break;
      case 'close':
        await pglite.close();
        post({ type: 'result', id: request.id, result: null });
        port.close();
        break;
    }
  } catch (error) {
    post({ type: 'error', id: request.id, error: toWireError(error) });
  }
}

async function start(): Promise<void> {
  let pglite: PGlite;
  try {
    pglite = await PGlite.create({
      dataDir: init.pgdata,
      ...(init.loadDataDir ? { loadDataDir: new Blob([init.loadDataDir as Uint8Array<ArrayBuffer>]) } : {}),
      ...(init.modules as Pick<PGliteOptions, 'pgliteWasmModule' | 'initdbWasmModule'>),
      parsers: PARSERS,
    });
  } catch (error) {
    post({ type: 'failed', error: toWireError(error) });
    return;
  }
  port.on('message', (request: WorkerRequest) => void handle(pglite, request));
  post({ type: 'ready' });
}

void start();
