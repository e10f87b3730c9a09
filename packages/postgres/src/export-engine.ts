import {
  DataSourceError,
  type ExportEngine,
  type ExportEngineOptions,
  type ExportFormat,
  type ExportJobStore,
  type ExportRequest,
  resolveColumnIn,
  type SchemaCache,
} from '@toolrow/datasource';
import { createExportRunner } from '@toolrow/datasource-utils';
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

export function createExportEngine(
  db: Database,
  schema: SchemaCache,
  dir: string,
  jobs: ExportJobStore,
  options: ExportEngineOptions = {},
): ExportEngine {
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
        // PostgreSQL names every field's type: typeId is always there.
        const described: ExportColumn[] = fields.map((field) => ({
          ...field,
          typeId: field.typeId ?? 0,
          category: category.get(field.typeId ?? 0) ?? 'X',
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

  return createExportRunner({
    dir,
    jobs,
    engineOptions: options,
    async plan(request) {
      const planned = await plan(request);
      return {
        label: planned.label,
        source: planned.source,
        estimate: (signal) => estimate(planned.sql, planned.params, signal),
        unit: 'rows',
        narrow: 'Narrow the query (WHERE, fewer columns)',
        async write(format, signal) {
          const layout = await layOut(planned, format, request, signal);
          return { head: layout.header, chunks: layout.source, take: layout.take, tail: layout.footer };
        },
      };
    },
  });
}
