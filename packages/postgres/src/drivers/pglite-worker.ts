// The worker thread that hosts one on-disk PGlite instance (see pglite-thread.ts). It runs one
// request at a time: the main thread serialises access, and PGlite is one connection anyway.
import { type MessagePort, parentPort, workerData } from 'node:worker_threads';
import { PGlite, type PGliteOptions, protocol } from '@electric-sql/pglite';
import type { Row } from '@toolrow/datasource';
import type { QueryResult } from '../database.ts';
import { pgliteLines } from './pglite-lines.ts';
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

const SHOW_READ_ONLY = protocol.serialize.query('SHOW transaction_read_only');
const DATA_ROW = 0x44; // 'D'

/**
 * Only a READ ONLY transaction may be stopped mid-statement: it changes no table, sequence or
 * catalog. Asked of Postgres before every guarded statement, in the raw protocol (a tenth of a
 * parsed query's cost). An aborted transaction answers with an error instead: not armed, and the
 * guarded statement fails at once anyway.
 */
async function inReadOnlyTransaction(pglite: PGlite): Promise<boolean> {
  let reply: Uint8Array;
  try {
    reply = await pglite.execProtocolRaw(SHOW_READ_ONLY);
  } catch {
    return false;
  }
  const view = new DataView(reply.buffer, reply.byteOffset, reply.byteLength);
  for (let at = 0; at + 5 <= reply.byteLength; at += 1 + view.getInt32(at + 1)) {
    if (reply[at] !== DATA_ROW) continue;
    // DataRow: type, length, column count (int16), value length (int32), value.
    const length = view.getInt32(at + 7);
    return length === 2 && reply[at + 11] === 0x6f && reply[at + 12] === 0x6e; // 'on'
  }
  return false;
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
      case 'lines': {
        if (request.guarded && (await inReadOnlyTransaction(pglite))) post({ type: 'armed', id: request.id });
        const lines = await pgliteLines(pglite, request.sql);
        port.postMessage({ type: 'lines', id: request.id, lines } satisfies WorkerMessage, [
          lines.bytes.buffer as ArrayBuffer,
        ]);
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
      ...(init.settings ? { postgresqlconf: init.settings } : {}),
      ...(init.modules as Pick<PGliteOptions, 'pgliteWasmModule' | 'initdbWasmModule'>),
      parsers: PARSERS,
    });
  } catch (error) {
    post({ type: 'failed', error: toWireError(error) });
    return;
  }
  // One request at a time, in order: the guard check and its statement must not interleave with another.
  let queue = Promise.resolve();
  const memory = () => (pglite.Module as { HEAPU8?: Uint8Array } | undefined)?.HEAPU8?.byteLength ?? 0;
  port.on('message', (request: WorkerRequest) => {
    queue = queue
      .then(() => handle(pglite, request))
      .then(() => {
        if (request.op !== 'close') post({ type: 'memory', bytes: memory() });
      });
  });
  post({ type: 'ready' });
}

void start();
