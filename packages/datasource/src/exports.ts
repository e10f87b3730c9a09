import type { Filter, Sort } from './filter-types.ts';
import type { Actor } from './types.ts';

export const EXPORT_FORMATS = ['csv', 'json', 'ndjson'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];
export type ExportState = 'queued' | 'running' | 'done' | 'failed' | 'cancelled';

export interface ExportJob {
  id: string;
  profile: string;
  actor: Actor;
  state: ExportState;
  format: ExportFormat;
  /** Absolute path of the file, always inside the exports folder. */
  path: string;
  /** What is exported: { table, filter?, sort?, columns? } or { sql }. */
  source: Record<string, unknown>;
  rowsDone: number;
  /** Rows expected (planner estimate or count); null when unknown. */
  rowsEstimate: number | null;
  bytesWritten: number;
  error: string | null;
  createdAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
}

/**
 * Where the engine records its jobs. The export itself reads the user's data; its job records are
 * Toolrow's own state, kept elsewhere (@toolrow/state implements this over its store).
 */
export interface ExportJobStore {
  create(
    job: Pick<ExportJob, 'id' | 'profile' | 'actor' | 'format' | 'path' | 'source' | 'rowsEstimate'>,
  ): Promise<ExportJob>;
  /** queued → running (a no-op when the job is no longer queued). */
  markRunning(id: string): Promise<void>;
  progress(id: string, rowsDone: number, bytesWritten: number): Promise<void>;
  finish(
    id: string,
    outcome: {
      state: 'done' | 'failed' | 'cancelled';
      rowsDone: number;
      bytesWritten?: number;
      error: string | null;
    },
  ): Promise<void>;
  /** Throws DataSourceError 'not-found'. */
  get(id: string): Promise<ExportJob>;
}

/** What to export: a table (optionally filtered/sorted/narrowed), or one read-only SELECT. */
export type ExportSource =
  | { table: string; filter?: Filter; sort?: Sort[]; columns?: string[] }
  | {
      /**
       * One read in the connection's language. The engine reads it through its read-only layers;
       * callers taking it from a model or a person pass it through the language's check first.
       */
      sql: string;
      params?: unknown[];
    };

export interface ExportRequest {
  source: ExportSource;
  format: ExportFormat;
  /**
   * File name or relative path inside the exports folder (default: "<table or query>-<time>.<format>").
   * Anything resolving outside the folder (.., absolute paths, symlinks) is refused.
   */
  path?: string;
  /** Replace an existing file (default false: an existing file is an error). */
  overwrite?: boolean;
  actor: Actor;
  profile?: string;
  /** Rows per FETCH (default 2000). */
  batchSize?: number;
  /** Stop the export after this long, in ms (default: the engine's time limit). */
  timeLimitMs?: number;
  /**
   * start: stops the preparation (the plan's row estimate); once start has returned, the job runs
   * on in the background — stop it with cancel. run: also cancels the job, as cancel does.
   * Aborted before the job is created: DataSourceError code 'aborted', and no job.
   */
  signal?: AbortSignal;
}

export interface ExportEngine {
  /** The folder every export file goes under (absolute). */
  readonly dir: string;
  /** Resolves and checks a requested path (throws DataSourceError 'export-path'); does not create it. */
  resolvePath(requested: string): Promise<string>;
  /** Creates the job and starts it in the background; returns the queued job (poll with status). */
  start(request: ExportRequest): Promise<ExportJob>;
  /** Runs an export to the end and returns the finished job (state done, or failed with error). */
  run(request: ExportRequest): Promise<ExportJob>;
  /** The job with its progress (rowsDone of rowsEstimate). Throws DataSourceError 'not-found'. */
  status(id: string): Promise<ExportJob>;
  /** Stops a running export (state cancelled, partial file removed). */
  cancel(id: string): Promise<ExportJob>;
  /** Resolves when every background export has settled (for shutdown and tests). */
  idle(): Promise<void>;
}

export interface ExportEngineOptions {
  /**
   * Wall-clock limit of one export in ms (default 30 minutes): a query that runs away is stopped,
   * the partial file removed, and the job fails with a message saying how to raise it.
   */
  timeLimitMs?: number;
  /** Where the limit is configured, for that message (e.g. "TOOLROW_EXPORT_TIME_LIMIT"). */
  timeLimitSource?: string;
}

export const DEFAULT_EXPORT_TIME_LIMIT_MS = 30 * 60 * 1000;
