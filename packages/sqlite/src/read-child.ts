// A child process holding one read-only SQLite connection. node:sqlite is synchronous and has no
// interrupt: a statement runs inside SQLite's C code, where even a worker thread's terminate() does
// not reach it. A process of its own blocks nothing else and is stopped at its limit by SIGKILL
// (read-pool.ts). It imports nothing but Node and the protocol beside it.
import { DatabaseSync, type StatementSync, constants as sqlite } from 'node:sqlite';
import {
  FOLD_FUNCTION,
  type ReadLayers,
  type WorkerAnswer,
  type WorkerRequest,
  type WorkerValue,
} from './read-protocol.ts';

const { path, layers } = JSON.parse(process.argv[2] ?? '{}') as { path: string; layers: ReadLayers };

const db = new DatabaseSync(path, {
  readOnly: layers.readOnlyOpen,
  // load_extension is off unless a connection asks for it; Toolrow's never does.
  allowExtension: false,
  timeout: 5000,
});
// SQLite's own allocations stop here (a sort or a huge string fails instead of growing the process).
db.exec('PRAGMA hard_heap_limit = 268435456');
if (layers.queryOnly) db.exec('PRAGMA query_only = ON');
// SQLite's LIKE and lower() fold ASCII alone: the filter language's "any case" folds every
// letter (Å as å) with this, as PostgreSQL's ILIKE does.
db.function(FOLD_FUNCTION, { deterministic: true }, (value) =>
  value === null ? null : String(value).toLowerCase(),
);

/** What a read may do: read tables, call functions other than load_extension, recurse. */
const ALLOWED = new Set([sqlite.SQLITE_SELECT, sqlite.SQLITE_READ, sqlite.SQLITE_RECURSIVE]);
const DENIED_FUNCTIONS = new Set(['load_extension', 'readfile', 'writefile', 'edit', 'fts3_tokenizer']);
/** Tables a statement being prepared reads (its check asks), or undefined when none is. */
let reading: Set<string> | undefined;
let refusal: string | undefined;
// Always set, so a check learns the tables a statement reads; it denies only as the layer.
db.setAuthorizer((action, first, second) => {
  if (action === sqlite.SQLITE_READ && first) reading?.add(first);
  if (!layers.authorizer || ALLOWED.has(action)) return sqlite.SQLITE_OK;
  if (action === sqlite.SQLITE_FUNCTION && !DENIED_FUNCTIONS.has((second ?? '').toLowerCase()))
    return sqlite.SQLITE_OK;
  refusal = actionName(action, first, second);
  return sqlite.SQLITE_DENY;
});

function actionName(action: number, first: string | null, second: string | null): string {
  const name = Object.entries(sqlite).find(
    ([key, value]) => value === action && key.startsWith('SQLITE_') && !key.startsWith('SQLITE_CHANGESET'),
  )?.[0];
  const what = (name ?? `action ${action}`)
    .replace(/^SQLITE_/, '')
    .replaceAll('_', ' ')
    .toLowerCase();
  return [what, first, second].filter(Boolean).join(' ');
}

/** A value as JSON can carry it: integers past 2^53 as their digits, blobs as \x and hex (as PostgreSQL prints bytea). */
function carried(value: unknown): WorkerValue {
  if (typeof value === 'bigint')
    return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER)
      ? Number(value)
      : value.toString();
  if (value instanceof Uint8Array) return `\\x${Buffer.from(value).toString('hex')}`;
  return value as WorkerValue;
}

function prepare(sql: string): StatementSync {
  refusal = undefined;
  try {
    const statement = db.prepare(sql);
    statement.setReadBigInts(true);
    return statement;
  } catch (error) {
    throw refusal ? new Error(`not authorized: ${refusal}`) : error;
  }
}

function answer(request: WorkerRequest): WorkerAnswer {
  switch (request.kind) {
    case 'tables': {
      reading = new Set();
      try {
        const statement = prepare(request.sql);
        return {
          kind: 'tables',
          tables: [...reading],
          columns: statement.columns().map((column) => column.name),
        };
      } finally {
        reading = undefined;
      }
    }
    case 'plan': {
      const rows = prepare(`EXPLAIN QUERY PLAN ${request.sql}\n`).all() as {
        id: bigint;
        parent: bigint;
        detail: string;
      }[];
      const depth = new Map<string, number>();
      return {
        kind: 'plan',
        lines: rows.map((row) => {
          const level = (depth.get(String(row.parent)) ?? -1) + 1;
          depth.set(String(row.id), level);
          return `${'  '.repeat(level)}${row.detail}`;
        }),
      };
    }
    case 'query': {
      const statement = prepare(request.sql);
      const columns = statement.columns().map((column) => column.name);
      statement.setReturnArrays(true);
      const rows: WorkerValue[][] = [];
      const oversized: { row: number; column: string; bytes: number }[] = [];
      let bytes = 0;
      let truncatedBy: 'rows' | 'bytes' | undefined;
      for (const raw of statement.iterate(...(request.params as never[])) as Iterable<unknown[]>) {
        if (rows.length >= request.maxRows) {
          truncatedBy = 'rows';
          break;
        }
        const row = raw.map((value, index) => {
          const shown = carried(value);
          const size = typeof shown === 'string' ? Buffer.byteLength(shown) : 8;
          if (size > request.maxValueBytes) {
            oversized.push({ row: rows.length, column: columns[index]!, bytes: size });
            return null;
          }
          bytes += size;
          return shown;
        });
        rows.push(row);
        if (bytes > request.maxBytes) {
          truncatedBy = 'bytes';
          break;
        }
      }
      return { kind: 'rows', columns, rows, ...(truncatedBy ? { truncatedBy } : {}), oversized };
    }
  }
}

process.on('message', (request: WorkerRequest) => {
  try {
    process.send!({ ok: true, answer: answer(request) });
  } catch (error) {
    const { message, code, errcode } = error as { message: string; code?: string; errcode?: number };
    process.send!({
      ok: false,
      error: { message, ...(code ? { code } : {}), ...(errcode ? { errcode } : {}) },
    });
  }
});
// The parent gone, so is the reason to read.
process.on('disconnect', () => process.exit(0));
