// Exports of a table (a Scan in parallel segments, or a Query) or a PartiQL SELECT to CSV, NDJSON or
// JSON: pages go to the file as it takes them (memory flat in the item count), with progress,
// cancel and a time limit; a stopped export leaves no partial file.
import { randomBytes } from 'node:crypto';
import { createWriteStream, type WriteStream } from 'node:fs';
import { access, mkdir, unlink } from 'node:fs/promises';
import { dirname, extname, relative, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import {
  type AttributeValue,
  type DynamoDBClient,
  ExecuteStatementCommand,
  ScanCommand,
} from '@aws-sdk/client-dynamodb';
import {
  DataSourceError,
  DEFAULT_EXPORT_TIME_LIMIT_MS,
  DEFAULT_PROFILE,
  type ExportEngine,
  type ExportEngineOptions,
  type ExportFormat,
  type ExportJob,
  type ExportJobStore,
  type ExportRequest,
  isActor,
  isDataSourceError,
  resolveExportPath,
  type SchemaCache,
  type TableInfo,
} from '@toolrow/datasource';
import { planRead, type ReadPlan } from './expressions.ts';
import { merge, type Pages } from './pages.ts';
import { checkReadOnlyPartiql } from './partiql-guard.ts';
import { projectionOrder } from './queries.ts';
import { keysFor, readItems } from './rows.ts';
import type { KeyMap } from './schema.ts';
import type { SqlRows, SqlRunner } from './sql/runner.ts';
import { attributeJson, itemJson } from './values.ts';

/** Segments a whole-table Scan is read in at once (DynamoDB's parallel scan). */
export const SCAN_SEGMENTS = 4;
/**
 * Items a segment reads per request: a page in flight per segment is what the export holds, so a
 * page well under DynamoDB's 1 MB keeps the memory of four at once small, whatever the item count.
 */
export const SCAN_PAGE_ITEMS = 1000;
const PROGRESS_EVERY_MS = 250;

interface Plan {
  label: string;
  source: Record<string, unknown>;
  /** The CSV header (a table's attributes; a query's are those of its first page). */
  columns?: string[];
  rowsEstimate: number | null;
  /** Items, as a table read or a PartiQL statement gives them. */
  pages?(signal: AbortSignal): Pages;
  /** Rows of a SQL statement's result. */
  rows?(signal: AbortSignal): Promise<SqlRows>;
}

/** Items a SQL export may read from DynamoDB (its time limit bounds it too). */
const EXPORT_MAX_ITEMS = 10_000_000;

class ExportTimeLimit extends Error {}

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

export function createDynamoExportEngine(
  client: DynamoDBClient,
  schema: SchemaCache,
  keys: KeyMap,
  dir: string,
  jobs: ExportJobStore,
  options: ExportEngineOptions = {},
  sql?: SqlRunner,
): ExportEngine {
  const root = resolve(dir);
  const defaultLimit = options.timeLimitMs ?? DEFAULT_EXPORT_TIME_LIMIT_MS;
  const running = new Map<string, { controller: AbortController; done: Promise<void> }>();

  async function plan(request: ExportRequest): Promise<Plan> {
    const source = request.source as Record<string, unknown> | null;
    if (source && typeof source.table === 'string') {
      const table = await schema.resolveTable(source.table);
      const filter = 'filter' in request.source ? request.source.filter : undefined;
      if ('sort' in request.source && (request.source.sort?.length ?? 0) > 0) {
        throw new DataSourceError('export', 'sort: a DynamoDB export is in key order; leave the sort out.');
      }
      const read = planRead(table, keysFor(keys, table), filter);
      const wanted =
        Array.isArray(source.columns) && source.columns.length > 0 ? (source.columns as string[]) : undefined;
      const columns = (wanted ?? table.columns.map((column) => column.name)).map(
        (name) => schema.resolveColumn(table, name).name,
      );
      return {
        label: table.name,
        source: { ...source, table: table.name },
        columns,
        rowsEstimate: read.operation === 'Scan' && !read.filter ? table.rowEstimate : null,
        pages: (signal) => tablePages(table, read, signal),
      };
    }
    if (source && typeof source.sql === 'string' && source.sql.trim() !== '' && sql) {
      // SQL, as runQuery takes it; a statement that is PartiQL and not SQL runs as PartiQL below.
      let checked: { statement: string } | undefined;
      try {
        checked = await sql.check!(source.sql);
      } catch (error) {
        // Only a statement DuckDB cannot parse may be PartiQL; one the SQL check refuses stays refused.
        if (!isDataSourceError(error, 'invalid-filter')) throw error;
        let partiql = false;
        try {
          checkReadOnlyPartiql(source.sql);
          partiql = true;
        } catch {
          // neither
        }
        if (!partiql) throw error;
      }
      if (checked) {
        const statement = checked.statement;
        return {
          label: 'query',
          source: { sql: statement },
          rowsEstimate: null,
          rows: (signal) => sql.stream(statement, { signal, maxItemsRead: EXPORT_MAX_ITEMS }),
        };
      }
    }
    if (source && typeof source.sql === 'string' && source.sql.trim() !== '') {
      // The statement check again: an export may be asked for by a model.
      const { statement } = checkReadOnlyPartiql(source.sql);
      const listed = projectionOrder(statement);
      return {
        label: 'query',
        source: { sql: statement },
        // The columns the SELECT lists, in its order (SELECT *: the first item's).
        ...(listed.length > 0 ? { columns: listed } : {}),
        rowsEstimate: null,
        pages: (signal) => statementPages(statement, signal),
      };
    }
    throw new DataSourceError(
      'export',
      'An export source is { table, filter?, columns? } or { sql } (one SELECT).',
    );
  }

  async function* tablePages(table: TableInfo, read: ReadPlan, signal: AbortSignal): Pages {
    if (read.operation === 'Query') {
      for await (const page of readItems(client, table, read, { signal })) yield page.items;
      return;
    }
    yield* merge(
      Array.from({ length: SCAN_SEGMENTS }, (_, segment) => scanSegment(table, read, segment, signal)),
    );
  }

  async function* scanSegment(table: TableInfo, read: ReadPlan, segment: number, signal: AbortSignal): Pages {
    let start: Record<string, AttributeValue> | undefined;
    do {
      const page = await client.send(
        new ScanCommand({
          TableName: table.name,
          Segment: segment,
          TotalSegments: SCAN_SEGMENTS,
          Limit: SCAN_PAGE_ITEMS,
          ...(read.filter ? { FilterExpression: read.filter } : {}),
          ...(Object.keys(read.names).length > 0 ? { ExpressionAttributeNames: read.names } : {}),
          ...(Object.keys(read.values).length > 0 ? { ExpressionAttributeValues: read.values } : {}),
          ...(start ? { ExclusiveStartKey: start } : {}),
        }),
        { abortSignal: signal },
      );
      yield page.Items ?? [];
      start = page.LastEvaluatedKey;
    } while (start);
  }

  async function* statementPages(statement: string, signal: AbortSignal): Pages {
    let next: string | undefined;
    do {
      const page = await client.send(
        new ExecuteStatementCommand({ Statement: statement, ...(next ? { NextToken: next } : {}) }),
        { abortSignal: signal },
      );
      yield (page.Items ?? []) as Record<string, AttributeValue>[];
      next = page.NextToken;
    } while (next);
  }

  async function prepare(request: ExportRequest): Promise<{ job: ExportJob; plan: Plan }> {
    if (request.signal?.aborted)
      throw new DataSourceError('aborted', 'The export was cancelled before it started.');
    if (!isActor(request.actor)) {
      throw new DataSourceError(
        'misuse',
        `An export needs an actor: 'user', 'agent' or 'mcp:<token name>', got '${request.actor}'.`,
      );
    }
    const planned = await plan(request);
    const id = `exp_${randomBytes(5).toString('hex')}`;
    let requested =
      request.path ??
      `${planned.label}-${new Date().toISOString().replace(/[:.]/g, '-')}-${id.slice(4)}.${request.format}`;
    if (extname(requested) === '') requested = `${requested}.${request.format}`;
    const path = await resolveExportPath(root, requested);
    if (!request.overwrite && (await exists(path))) {
      throw new DataSourceError(
        'export-path',
        `The file '${relative(root, path)}' exists already in the exports folder, and an export never replaces a file. Pick another name.`,
      );
    }
    const job = await jobs.create({
      id,
      profile: request.profile ?? DEFAULT_PROFILE,
      actor: request.actor,
      format: request.format,
      path,
      source: planned.source,
      rowsEstimate: planned.rowsEstimate,
    });
    return { job, plan: planned };
  }

  async function execute(
    job: ExportJob,
    planned: Plan,
    request: ExportRequest,
    signal: AbortSignal,
    limitMs: number,
  ) {
    const deadline = Date.now() + limitMs;
    let stream: WriteStream | undefined;
    let rowsDone = 0;
    try {
      await jobs.markRunning(job.id);
      await mkdir(dirname(job.path), { recursive: true, mode: 0o700 });
      await resolveExportPath(root, relative(root, job.path));
      if (request.overwrite) await unlink(job.path).catch(() => {});
      stream = createWriteStream(job.path, { flags: 'wx', mode: 0o600, highWaterMark: 256 * 1024 });
      await new Promise<void>((opened, failed) => {
        stream!.once('open', () => opened());
        stream!.once('error', failed);
      });
      const file = stream;
      let lastReport = Date.now();
      const report = async () => {
        if (Date.now() > deadline) throw new ExportTimeLimit();
        if (Date.now() - lastReport >= PROGRESS_EVERY_MS) {
          lastReport = Date.now();
          await jobs.progress(job.id, rowsDone, file.bytesWritten + file.writableLength);
        }
      };
      // pipeline pulls the next page only when the file has room: reads wait for the disk.
      async function* body(): AsyncGenerator<Buffer> {
        if (planned.rows) {
          const result = await planned.rows(signal);
          try {
            const format = rowFormatter(job.format, result.columns, result.numeric);
            yield Buffer.from(format.head);
            for await (const rows of result.batches) {
              let text = '';
              for (const row of rows) text += format.record(row, rowsDone++ === 0);
              if (text !== '') yield Buffer.from(text);
              await report();
            }
            yield Buffer.from(format.tail);
          } finally {
            result.close();
          }
          return;
        }
        const format = formatter(job.format, planned.columns);
        yield Buffer.from(format.head);
        for await (const items of planned.pages!(signal)) {
          let text = '';
          for (const item of items) text += format.record(item, rowsDone++ === 0);
          if (text !== '') yield Buffer.from(text);
          await report();
        }
        yield Buffer.from(format.tail);
      }
      await pipeline(body, file, { signal });
      await jobs.finish(job.id, { state: 'done', rowsDone, bytesWritten: stream.bytesWritten, error: null });
    } catch (error) {
      if (stream && !stream.closed)
        await new Promise<void>((done) => stream!.destroy() && stream!.once('close', () => done()));
      if (stream) await unlink(job.path).catch(() => {});
      const timedOut =
        error instanceof ExportTimeLimit || (signal.aborted && signal.reason instanceof ExportTimeLimit);
      const cancelled = signal.aborted && !timedOut;
      const message = timedOut
        ? `stopped at its time limit after ${rowsDone} items; the partial file was removed. Narrow the export (a key filter), or raise the limit (${options.timeLimitSource ?? 'the timeLimitMs option'})`
        : cancelled
          ? 'cancelled; the partial file was removed'
          : `${(error as Error).message}${stream ? '; the partial file was removed' : ''}`;
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
    const timer = setTimeout(() => controller.abort(new ExportTimeLimit()), limit);
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
      const { job, plan: planned } = await prepare(request);
      void launch(job, planned, request);
      return job;
    },
    async run(request) {
      const { job, plan: planned } = await prepare(request);
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

/** A SQL result row as JSON: a number column's values as JSON numbers with their exact digits. */
function rowJson(columns: string[], numeric: boolean[], row: unknown[]): string {
  return `{${columns
    .map((name, index) => {
      const value = row[index];
      const text =
        value === null || value === undefined
          ? 'null'
          : numeric[index] && (typeof value === 'string' || typeof value === 'number')
            ? String(value)
            : JSON.stringify(value);
      return `${JSON.stringify(name)}:${text}`;
    })
    .join(',')}}`;
}

function rowFormatter(format: ExportFormat, columns: string[], numeric: boolean[]) {
  switch (format) {
    case 'ndjson':
      return { head: '', tail: '', record: (row: unknown[]) => `${rowJson(columns, numeric, row)}\n` };
    case 'json':
      return {
        head: '[',
        tail: ']\n',
        record: (row: unknown[], first: boolean) =>
          `${first ? '\n' : ',\n'}${rowJson(columns, numeric, row)}`,
      };
    case 'csv':
      return {
        head: `${columns.map(cell).join(',')}\r\n`,
        tail: '',
        record: (row: unknown[]) =>
          `${row
            .map((value) =>
              value === null || value === undefined
                ? ''
                : cell(typeof value === 'string' ? value : JSON.stringify(value)),
            )
            .join(',')}\r\n`,
      };
  }
}

/** A CSV field: a string as it is, a number's digits, anything nested as plain JSON. */
function field(value: AttributeValue | undefined): string {
  if (value === undefined || value.NULL !== undefined) return '';
  return cell(value.S ?? attributeJson(value));
}

function cell(text: string): string {
  return /[",\r\n]|^\s|\s$/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

type Item = Record<string, AttributeValue>;

function formatter(format: ExportFormat, columns: string[] | undefined) {
  let header: string[] | undefined = columns;
  switch (format) {
    case 'ndjson':
      return { head: '', tail: '', record: (item: Item) => `${itemJson(item)}\n` };
    case 'json':
      return {
        head: '[',
        tail: ']\n',
        record: (item: Item, first: boolean) => `${first ? '\n' : ',\n'}${itemJson(item)}`,
      };
    case 'csv':
      return {
        get head() {
          return header ? `${header.map(cell).join(',')}\r\n` : '';
        },
        tail: '',
        record(item: Item, first: boolean) {
          // A query's columns are those of its first item (a table's come from its schema).
          let prefix = '';
          if (!header) {
            header = Object.keys(item);
            if (first) prefix = `${header.map(cell).join(',')}\r\n`;
          }
          return `${prefix}${header.map((name) => field(item[name])).join(',')}\r\n`;
        },
      };
  }
}
