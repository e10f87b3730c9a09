// What every engine's exporter shares: where an export file may go, the job's life (progress,
// cancel, the time limit, no partial file), and jobs kept in memory.
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
  type Row,
} from '@toolrow/datasource';

function refuse(requested: string, why: string): DataSourceError {
  return new DataSourceError(
    'export-path',
    `Export path '${requested}' is refused: ${why}. Give a file name or a relative path inside the exports folder.`,
  );
}

function inside(dir: string, target: string): boolean {
  const rel = relative(dir, target);
  return rel !== '' && !rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel);
}

/** The real path of the deepest existing ancestor of `target`, with the missing tail appended. */
async function realTarget(target: string): Promise<string> {
  const missing: string[] = [];
  let current = target;
  while (true) {
    try {
      const real = await realpath(current);
      return missing.length > 0 ? join(real, ...missing.reverse()) : real;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      const parent = dirname(current);
      if (parent === current) return target;
      missing.push(basename(current));
      current = parent;
    }
  }
}

/** Resolves a requested export path inside dir; throws DataSourceError 'export-path' when it escapes. */
export async function resolveExportPath(dir: string, requested: string): Promise<string> {
  if (typeof requested !== 'string' || requested.trim() === '')
    throw refuse(String(requested), 'it is empty');
  if (requested.includes('\u0000')) throw refuse(requested, 'it contains a NUL character');
  const root = resolve(dir);
  const target = resolve(root, requested);
  if (!inside(root, target)) {
    throw refuse(
      requested,
      isAbsolute(requested)
        ? 'an absolute path outside the exports folder'
        : 'it leads outside the exports folder',
    );
  }
  const realRoot = await realpath(root).catch(() => root);
  const real = await realTarget(target);
  if (!inside(realRoot, real))
    throw refuse(requested, 'it goes through a symbolic link that leads outside the exports folder');
  const stat = await lstat(target).catch(() => undefined);
  if (stat?.isSymbolicLink()) throw refuse(requested, 'the file is a symbolic link');
  if (stat?.isDirectory()) throw refuse(requested, 'it is a directory');
  return target;
}

/**
 * Export jobs kept in this process only: for an export engine used without Toolrow's state store
 * (scripts, benchmarks, the data layer's own tests). The app records its jobs in @toolrow/state.
 */
export function createMemoryExportJobStore(): ExportJobStore {
  const jobs = new Map<string, ExportJob>();
  const update = (id: string, patch: Partial<ExportJob>) => {
    const job = jobs.get(id);
    if (job) jobs.set(id, { ...job, ...patch });
  };
  return {
    async create(job) {
      const created: ExportJob = {
        ...job,
        state: 'queued',
        rowsDone: 0,
        bytesWritten: 0,
        error: null,
        createdAt: new Date(),
        startedAt: null,
        finishedAt: null,
      };
      jobs.set(job.id, created);
      return { ...created };
    },
    async markRunning(id) {
      if (jobs.get(id)?.state === 'queued') update(id, { state: 'running', startedAt: new Date() });
    },
    async progress(id, rowsDone, bytesWritten) {
      update(id, { rowsDone, bytesWritten });
    },
    async finish(id, outcome) {
      update(id, {
        state: outcome.state,
        rowsDone: outcome.rowsDone,
        ...(outcome.bytesWritten !== undefined ? { bytesWritten: outcome.bytesWritten } : {}),
        error: outcome.error,
        finishedAt: new Date(),
      });
    },
    async get(id) {
      const job = jobs.get(id);
      if (!job) throw new DataSourceError('not-found', `No export job with id '${id}'.`);
      return { ...job };
    },
  };
}

/** A piece of an export file: its bytes, and the records it completes. */
export interface ExportPiece {
  bytes: Uint8Array;
  rows: number;
}

/**
 * An export file's body as an engine hands it over: its chunks as it reads them (COPY's bytes, a
 * page of items, a batch of rows), each turned into bytes by `take` as the file takes them — no
 * copy or extra step per chunk, which at a chunk per row would be most of an export's time.
 */
export interface ExportBody<Chunk = unknown> {
  /** Written first (a CSV header, '['). */
  head?: string;
  chunks: AsyncIterable<Chunk>;
  /** One chunk as the file's bytes and the records it completes. */
  take(chunk: Chunk): ExportPiece;
  /** Written once every chunk is ('\n]'). */
  tail?(): string;
  /** Called when the body ends, is stopped or fails (a result to close). */
  close?(): void;
}

/** One export an engine has planned: what its job records, and the file's bytes once it runs. */
export interface PlannedExport {
  /** The default file name's first part: a table's name, or 'query'. */
  label: string;
  /** What the job records as its source (the names resolved, the statement checked). */
  source: Record<string, unknown>;
  /** Records expected, when the engine can tell before it starts (null: unknown). */
  estimate?(signal?: AbortSignal): Promise<number | null>;
  /**
   * The file's body: what the engine reads and how each chunk becomes bytes; reading stops when
   * `signal` aborts. Called once the job runs: an error here (a bad column) fails the job.
   */
  write(format: ExportFormat, signal: AbortSignal): Promise<ExportBody>;
  /** What the time-limit message counts ('rows', 'items'). */
  unit?: string;
  /** Its advice for an export that ran out of time ('Narrow the query (WHERE, fewer columns)'). */
  narrow?: string;
}

/** The abort reason of an export stopped at its time limit (a cancel has none). */
class ExportTimeLimit extends Error {
  readonly ms: number;
  constructor(ms: number) {
    super(`the export's time limit of ${ms} ms passed`);
    this.ms = ms;
  }
}

const PROGRESS_EVERY_MS = 250;

function describeDuration(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  if (ms < 120_000) return `${Math.round(ms / 100) / 10} s`;
  return `${Math.round(ms / 6000) / 10} min`;
}

function stamp(date: Date): string {
  return date.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
}

function exists(path: string): Promise<boolean> {
  return lstat(path).then(
    () => true,
    () => false,
  );
}

/**
 * An export engine's job life, the same on every engine: the request checked, the path inside the
 * exports folder and never over a file, the job recorded, the bytes written as the file takes them
 * (0600) with progress that only rises, cancel, the time limit, and no partial file left when it
 * stops. The engine plans each export and hands over its bytes; nothing else.
 */
export function createExportRunner(options: {
  dir: string;
  jobs: ExportJobStore;
  engineOptions?: ExportEngineOptions;
  plan(request: ExportRequest): Promise<PlannedExport>;
}): ExportEngine {
  const { jobs } = options;
  const root = resolve(options.dir);
  const defaultLimit = options.engineOptions?.timeLimitMs ?? DEFAULT_EXPORT_TIME_LIMIT_MS;
  const limitSource = options.engineOptions?.timeLimitSource ?? 'the timeLimitMs option';
  const running = new Map<string, { controller: AbortController; done: Promise<void> }>();

  async function prepare(request: ExportRequest): Promise<{ job: ExportJob; planned: PlannedExport }> {
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
    if (typeof request.source !== 'object' || request.source === null) {
      throw new DataSourceError(
        'export',
        'An export source is { table, filter?, sort?, columns? } or { sql }.',
      );
    }
    const planned = await options.plan(request);
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
    const rowsEstimate = (await planned.estimate?.(request.signal)) ?? null;
    // An estimate may swallow its errors (an export runs without one): an abort must still stop here.
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
    return { job, planned };
  }

  async function execute(
    job: ExportJob,
    planned: PlannedExport,
    request: ExportRequest,
    signal: AbortSignal,
    limitMs: number,
  ) {
    // Also checked between pieces: an engine on this thread (in-memory PGlite) can hold the event
    // loop so long that the timer fires only after the rows are all in.
    const deadline = Date.now() + limitMs;
    let stream: WriteStream | undefined;
    let rowsDone = 0;
    let written: ExportBody | undefined;
    let closed = false;
    // Once, whether the body ran to its end, failed, or never started (the file could not be made).
    const close = () => {
      if (closed) return;
      closed = true;
      written?.close?.();
    };
    try {
      await jobs.markRunning(job.id);
      written = await planned.write(job.format, signal);
      const handed = written;
      await mkdir(dirname(job.path), { recursive: true, mode: 0o700 });
      // The directories now exist: check again that none of them is a link out.
      await resolveExportPath(root, relative(root, job.path));
      if (request.overwrite) await unlink(job.path).catch(() => {});
      // 0600: an export holds the user's rows, wherever the exports folder is.
      stream = createWriteStream(job.path, { flags: 'wx', mode: 0o600, highWaterMark: 256 * 1024 });
      await new Promise<void>((opened, failed) => {
        stream!.once('open', () => opened());
        stream!.once('error', failed);
      });
      const file = stream;
      let lastReport = Date.now();
      // The engine's bytes go to the file as the file takes them: pipeline pulls the next piece
      // only when the write stream has room, and the engine's read waits meanwhile.
      async function* body(): AsyncGenerator<Uint8Array> {
        try {
          if (handed.head) yield Buffer.from(handed.head);
          for await (const chunk of handed.chunks) {
            if (Date.now() > deadline) throw new ExportTimeLimit(limitMs);
            if (signal.aborted) throw signal.reason ?? abortedError();
            const piece = handed.take(chunk);
            rowsDone += piece.rows;
            if (piece.bytes.length > 0) yield piece.bytes;
            if (Date.now() - lastReport >= PROGRESS_EVERY_MS) {
              lastReport = Date.now();
              await jobs.progress(job.id, rowsDone, file.bytesWritten + file.writableLength);
            }
          }
          const tail = handed.tail?.();
          if (tail) yield Buffer.from(tail);
        } finally {
          close();
        }
      }
      await pipeline(body, file);
      await jobs.finish(job.id, { state: 'done', rowsDone, bytesWritten: stream.bytesWritten, error: null });
    } catch (error) {
      close();
      if (stream && !stream.closed)
        await new Promise<void>((done) => stream!.destroy() && stream!.once('close', () => done()));
      if (stream) await unlink(job.path).catch(() => {});
      const timedOut =
        error instanceof ExportTimeLimit || (signal.aborted && signal.reason instanceof ExportTimeLimit);
      const cancelled = signal.aborted && !timedOut;
      const message = timedOut
        ? `stopped at its time limit of ${describeDuration(limitMs)} after ${rowsDone} ${planned.unit ?? 'rows'}; the partial file was removed. ${planned.narrow ?? 'Narrow the export'}, or raise the limit (${limitSource})`
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
    planned: PlannedExport,
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

  return {
    dir: root,
    resolvePath: (requested) => resolveExportPath(root, requested),
    async start(request) {
      const { job, planned } = await prepare(request);
      void launch(job, planned, request);
      return job;
    },
    async run(request) {
      const { job, planned } = await prepare(request);
      await launch(job, planned, request, request.signal);
      return jobs.get(job.id);
    },
    status: (id) => jobs.get(id),
    async cancel(id) {
      const entry = running.get(id);
      if (entry) {
        entry.controller.abort();
        await entry.done;
      }
      return jobs.get(id);
    },
    async idle() {
      while (running.size > 0) await Promise.allSettled([...running.values()].map((entry) => entry.done));
    },
  };
}

function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  const text =
    typeof value === 'string' ? value : value instanceof Date ? value.toISOString() : JSON.stringify(value);
  return /[",\r\n]|^\s|\s$/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/**
 * An engine that hands over plain rows gets its export body from this: CSV (a header of `columns`),
 * NDJSON or a JSON array, a piece per batch of rows.
 */
export function rowBody(
  format: ExportFormat,
  columns: readonly string[],
  batches: AsyncIterable<readonly Row[]>,
): ExportBody<readonly Row[]> {
  const json = (row: Row) =>
    JSON.stringify(Object.fromEntries(columns.map((name) => [name, row[name] ?? null])));
  let first = true;
  return {
    head: format === 'csv' ? `${columns.map(csvCell).join(',')}\r\n` : format === 'json' ? '[' : '',
    chunks: batches,
    take(rows) {
      let text = '';
      for (const row of rows) {
        if (format === 'csv') text += `${columns.map((name) => csvCell(row[name])).join(',')}\r\n`;
        else if (format === 'ndjson') text += `${json(row)}\n`;
        else text += `${first ? '\n' : ',\n'}${json(row)}`;
        first = false;
      }
      return { bytes: Buffer.from(text), rows: rows.length };
    },
    tail: () => (format === 'json' ? ']\n' : ''),
  };
}
