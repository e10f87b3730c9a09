import { randomBytes } from 'node:crypto';
import { createWriteStream, type WriteStream } from 'node:fs';
import { lstat, mkdir, realpath, unlink } from 'node:fs/promises';
import { basename, dirname, extname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { pipeline } from 'node:stream/promises';
import {
  abortedError,
  DataSourceError,
  DEFAULT_EXPORT_TIME_LIMIT_MS,
  DEFAULT_PROFILE,
  EXPORT_FORMATS,
  type ExportEngine,
  type ExportEngineOptions,
  type ExportFormat,
  type ExportJob,
  type ExportJobStore,
  type ExportRequest,
  isActor,
  resolveColumnIn,
  resolveExportPath,
  type SchemaCache,
} from '@toolrow/datasource';
import type { Database, TextLines } from './database.ts';
import { trimStatement } from './drivers/core.ts';
import {
  COPY_LINES,
  csvHeader,
  csvLineSelect,
  csvRecords,
  csvSelect,
  type ExportColumn,
  jsonArrayRecords,
  jsonLineSelect,
  ndjsonRecords,
  type Piece,
} from './export-format.ts';
import { compileFilter, compileSort } from './filters.ts';
import { tableRef } from './row-reader.ts';
import { quoteIdent } from './sql.ts';
import { inlineParams } from './sql-inline.ts';

const DEFAULT_LINES_BATCH = 5000;
const PROGRESS_EVERY_MS = 250;

function exists(path: string): Promise<boolean> {
  return lstat(path).then(
    () => true,
    () => false,
  );
}

function stamp(date: Date): string {
  return date.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
}

interface Layout {
  source: AsyncIterable<Uint8Array>;
  header: string;
  take: (chunk: Uint8Array) => Piece;
  footer: () => string;
}

function buildSelect(
  copy: boolean,
  statement: string,
  format: ExportFormat,
  columns: ExportColumn[],
): string {
  if (format !== 'csv') return jsonLineSelect(statement, columns);
  return copy ? csvSelect(statement, columns) : csvLineSelect(statement, columns);
}

async function* linesOf(batches: AsyncIterable<TextLines>): AsyncGenerator<Uint8Array> {
  for await (const batch of batches) yield batch.bytes;
}

/** COPY_LINES writes JSON lines unchanged unless one needed quoting, which a JSON line never does. */
async function* unquotedLines(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  for await (const chunk of chunks) {
    if (chunk.indexOf(1) >= 0) {
      throw new DataSourceError(
        'export',
        'The database quoted a JSON line it was to write unchanged (a control character in the output). Please report this; export as CSV meanwhile.',
      );
    }
    yield chunk;
  }
}

interface Plan {
  sql: string;
  params: unknown[];
  label: string;
  source: Record<string, unknown>;
}

/** The abort reason of an export stopped at its time limit (a cancel has none). */
class ExportTimeLimit extends Error {
  readonly ms: number;
  constructor(ms: number) {
    super(`the export's time limit of ${ms} ms passed`);
    this.ms = ms;
  }
}

function describeDuration(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  if (ms < 120_000) return `${Math.round(ms / 100) / 10} s`;
  return `${Math.round(ms / 6000) / 10} min`;
}

export function createExportEngine(
  db: Database,
  schema: SchemaCache,
  dir: string,
  jobs: ExportJobStore,
  options: ExportEngineOptions = {},
): ExportEngine {
  const root = resolve(dir);
  const defaultLimit = options.timeLimitMs ?? DEFAULT_EXPORT_TIME_LIMIT_MS;
  const limitSource = options.timeLimitSource ?? 'the timeLimitMs option';
  const running = new Map<string, { controller: AbortController; done: Promise<void> }>();

  async function plan(request: ExportRequest): Promise<Plan> {
    const source = request.source as Record<string, unknown>;
    if (typeof source !== 'object' || source === null) {
      throw new DataSourceError(
        'export',
        'An export source is { table, filter?, sort?, columns? } or { sql }.',
      );
    }
    if ('table' in source && typeof source.table === 'string') {
      const table = await schema.resolveTable(source.table);
      const columns =
        Array.isArray(source.columns) && source.columns.length > 0
          ? (source.columns as string[]).map((name) => resolveColumnIn(table, name))
          : table.columns;
      const where = compileFilter(
        table,
        request.source && 'filter' in request.source ? request.source.filter : undefined,
      );
      const order = compileSort(table, 'sort' in request.source ? request.source.sort : undefined);
      return {
        sql: `SELECT ${columns.map((column) => quoteIdent(column.name)).join(', ')} FROM ${tableRef(table)} WHERE ${where.sql}${order ? ` ORDER BY ${order}` : ''}`,
        params: where.params,
        label: table.name,
        source: { ...source, table: table.qualifiedName },
      };
    }
    if ('sql' in source && typeof source.sql === 'string' && source.sql.trim() !== '') {
      return {
        sql: source.sql,
        params: (source.params as unknown[] | undefined) ?? [],
        label: 'query',
        source: { sql: source.sql },
      };
    }
    throw new DataSourceError(
      'export',
      'An export source is { table, filter?, sort?, columns? } or { sql } (one SELECT).',
    );
  }

  async function estimate(sql: string, params: unknown[], signal?: AbortSignal): Promise<number | null> {
    try {
      const result = await db.readOnly(
        (tx) => tx.query<{ 'QUERY PLAN': unknown }>(`EXPLAIN (FORMAT JSON) ${sql}`, params),
        { timeoutMs: 5000, ...(signal ? { signal } : {}) },
      );
      const raw = result.rows[0]?.['QUERY PLAN'];
      const parsed = (typeof raw === 'string' ? JSON.parse(raw) : raw) as { Plan: { 'Plan Rows': number } }[];
      const rows = parsed[0]?.Plan['Plan Rows'];
      return typeof rows === 'number' ? Math.round(rows) : null;
    } catch {
      return null;
    }
  }

  /**
   * The columns of the statement (DECLARE + FETCH 0 runs nothing), then the statement that writes
   * the file's records and where its bytes come from: COPY on PostgreSQL, FETCHed lines elsewhere.
   */
  async function layOut(
    planned: Plan,
    format: ExportFormat,
    request: ExportRequest,
    signal: AbortSignal,
  ): Promise<Layout> {
    const statement = trimStatement(planned.sql);
    const copy = db.copySupported;
    // COPY takes no parameters: they go into the text as literals.
    const copyStatement = copy ? inlineParams(statement, planned.params) : statement;
    const columns = await db.readOnly(
      async (tx) => {
        await tx.query(`DECLARE toolrow_export_probe NO SCROLL CURSOR FOR ${statement}`, planned.params);
        const { fields } = await tx.query('FETCH FORWARD 0 FROM toolrow_export_probe');
        await tx.query('CLOSE toolrow_export_probe');
        const types = await tx.query<{ oid: number; category: string }>(
          'SELECT oid::int AS oid, typcategory::text AS category FROM pg_catalog.pg_type WHERE oid = ANY($1::oid[])',
          [[...new Set(fields.map((field) => field.typeId))]],
        );
        const category = new Map(types.rows.map((row) => [row.oid, row.category]));
        const described: ExportColumn[] = fields.map((field) => ({
          ...field,
          category: category.get(field.typeId) ?? 'X',
        }));
        const select = buildSelect(copy, copyStatement, format, described);
        // The text COPY will run, parsed alone over the extended protocol: one statement, a query.
        if (copy) {
          await tx.query(`DECLARE toolrow_export_check NO SCROLL CURSOR FOR ${select}`);
          await tx.query('CLOSE toolrow_export_check');
        }
        return { described, select };
      },
      { timeoutMs: 30_000, signal },
    );
    const { described, select } = columns;
    const source: AsyncIterable<Uint8Array> = copy
      ? db.copyOut(
          `COPY (${select}
) TO STDOUT ${format === 'csv' ? '(FORMAT csv)' : COPY_LINES}`,
          {
            signal,
          },
        )
      : linesOf(
          db.textLines(select, planned.params, {
            batchSize: request.batchSize ?? DEFAULT_LINES_BATCH,
            signal,
          }),
        );
    if (format === 'csv') {
      return { source, header: csvHeader(described), take: csvRecords(), footer: () => '' };
    }
    const checked = copy ? unquotedLines(source) : source;
    if (format === 'ndjson') return { source: checked, header: '', take: ndjsonRecords(), footer: () => '' };
    const array = jsonArrayRecords();
    return { source: checked, header: array.header, take: array.take, footer: array.footer };
  }

  async function prepare(request: ExportRequest): Promise<{ job: ExportJob; plan: Plan }> {
    if (request.signal?.aborted) throw abortedError();
    if (!(EXPORT_FORMATS as readonly string[]).includes(request.format)) {
      throw new DataSourceError(
        'export',
        `Export format must be one of ${EXPORT_FORMATS.join(', ')}, got '${request.format}'.`,
      );
    }
    if (!isActor(request.actor)) {
      throw new DataSourceError(
        'misuse',
        `An export needs an actor: 'user', 'agent' or 'mcp:<token name>', got '${request.actor}'.`,
      );
    }
    const planned = await plan(request);
    const id = `exp_${randomBytes(5).toString('hex')}`;
    let requested = request.path ?? `${planned.label}-${stamp(new Date())}-${id.slice(4)}.${request.format}`;
    if (extname(requested) === '') requested = `${requested}.${request.format}`;
    const path = await resolveExportPath(root, requested);
    if (!request.overwrite && (await exists(path))) {
      // Name a free one: the tools that reach this cannot overwrite, so "overwrite" is no advice.
      const extension = extname(requested);
      const stem = requested.slice(0, requested.length - extension.length);
      let free: string | undefined;
      for (let n = 2; n < 100 && free === undefined; n++) {
        const candidate = `${stem}-${n}${extension}`;
        if (!(await exists(await resolveExportPath(root, candidate)))) free = candidate;
      }
      throw new DataSourceError(
        'export-path',
        `The file '${relative(root, path)}' exists already in the exports folder, and an export never replaces a file. Pick another name${free ? `, e.g. '${free}'` : ''}.`,
      );
    }
    const rowsEstimate = await estimate(planned.sql, planned.params, request.signal);
    // The estimate swallows its errors (an export runs without one): an abort must still stop here.
    if (request.signal?.aborted) throw abortedError();
    const job = await jobs.create({
      id,
      profile: request.profile ?? DEFAULT_PROFILE,
      actor: request.actor,
      format: request.format,
      path,
      source: planned.source,
      rowsEstimate,
    });
    return { job, plan: planned };
  }

  async function execute(
    job: ExportJob,
    planned: Plan,
    request: ExportRequest,
    signal: AbortSignal,
    limitMs: number,
  ): Promise<void> {
    // Also checked between batches: a database on this thread (in-memory PGlite) can hold the
    // event loop so long that the timer fires only after the rows are all in.
    const deadline = Date.now() + limitMs;
    const progress = (rowsDone: number, bytes: number) => jobs.progress(job.id, rowsDone, bytes);
    let stream: WriteStream | undefined;
    let rowsDone = 0;
    try {
      await jobs.markRunning(job.id);
      const layout = await layOut(planned, job.format, request, signal);
      await mkdir(dirname(job.path), { recursive: true, mode: 0o700 });
      // The directories now exist: check again that none of them is a link out.
      await resolveExportPath(root, relative(root, job.path));
      if (request.overwrite) await unlink(job.path).catch(() => {});
      // 0600: an export holds the user's rows, wherever the exports folder is.
      stream = createWriteStream(job.path, { flags: 'wx', mode: 0o600, highWaterMark: 256 * 1024 });
      await new Promise<void>((resolveOpen, reject) => {
        stream!.once('open', () => resolveOpen());
        stream!.once('error', reject);
      });
      const file = stream;
      let lastReport = Date.now();
      // The database's bytes go to the file as the file takes them: pipeline pulls the next chunk
      // only when the write stream has room, and the source (a COPY socket, a FETCH) waits meanwhile.
      async function* body(): AsyncGenerator<Uint8Array> {
        if (layout.header !== '') yield Buffer.from(layout.header);
        for await (const chunk of layout.source) {
          if (Date.now() > deadline) throw new ExportTimeLimit(limitMs);
          const piece = layout.take(chunk);
          rowsDone += piece.rows;
          if (piece.bytes.length > 0) yield piece.bytes;
          if (Date.now() - lastReport >= PROGRESS_EVERY_MS) {
            lastReport = Date.now();
            await progress(rowsDone, file.bytesWritten + file.writableLength);
          }
        }
        const footer = layout.footer();
        if (footer !== '') yield Buffer.from(footer);
      }
      await pipeline(body, file);
      await jobs.finish(job.id, {
        state: 'done',
        rowsDone,
        bytesWritten: stream.bytesWritten,
        error: null,
      });
    } catch (error) {
      if (stream && !stream.closed)
        await new Promise<void>((done) => stream!.destroy() && stream!.once('close', () => done()));
      if (stream) await unlink(job.path).catch(() => {});
      const timedOut =
        error instanceof ExportTimeLimit || (signal.aborted && signal.reason instanceof ExportTimeLimit);
      const cancelled = signal.aborted && !timedOut;
      const message = timedOut
        ? `stopped at its time limit of ${describeDuration(limitMs)} after ${rowsDone} rows; the partial file was removed. Narrow the query (WHERE, fewer columns), or raise the limit (${limitSource})`
        : cancelled
          ? 'cancelled; the partial file was removed'
          : `${(error as Error).message}${stream ? '; the partial file was removed' : ''}`;
      // The store may be closing with the process; the file is gone either way.
      await jobs
        .finish(job.id, { state: cancelled ? 'cancelled' : 'failed', rowsDone, error: message })
        .catch(() => {});
    }
  }

  function launch(
    job: ExportJob,
    planned: Plan,
    request: ExportRequest,
    follow?: AbortSignal,
  ): Promise<void> {
    const controller = new AbortController();
    const abort = () => controller.abort();
    follow?.addEventListener('abort', abort, { once: true });
    if (follow?.aborted) abort();
    const limit = request.timeLimitMs ?? defaultLimit;
    const timer = setTimeout(() => controller.abort(new ExportTimeLimit(limit)), limit);
    timer.unref?.();
    const done = execute(job, planned, request, controller.signal, limit).finally(() => {
      clearTimeout(timer);
      running.delete(job.id);
      follow?.removeEventListener('abort', abort);
    });
    running.set(job.id, { controller, done });
    return done;
  }

  const status = (id: string): Promise<ExportJob> => jobs.get(id);

  return {
    dir: root,
    resolvePath: (requested) => resolveExportPath(root, requested),
    async start(request) {
      const { job, plan: planned } = await prepare(request);
      void launch(job, planned, request);
      return job;
    },
    async run(request) {
      const { job, plan: planned } = await prepare(request);
      await launch(job, planned, request, request.signal);
      return status(job.id);
    },
    status,
    async cancel(id) {
      const entry = running.get(id);
      if (entry) {
        entry.controller.abort();
        await entry.done;
      }
      return status(id);
    },
    async idle() {
      while (running.size > 0) await Promise.allSettled([...running.values()].map((entry) => entry.done));
    },
  };
}
