// Exports of a table or a query, streamed from the server in one READ ONLY read: rows arrive as the
// file takes them (the connection pauses while the file is busy), so memory stays flat in the row
// count. The export's time limit and cancel reach the server through the read's signal (KILL).
import type {
  ExportEngine,
  ExportEngineOptions,
  ExportJobStore,
  QueryRunner,
  Row,
  SchemaCache,
} from '@toolrow/datasource';
import { resolveColumnIn } from '@toolrow/datasource';
import { createExportRunner, rowBody, validateFilter, validateSort } from '@toolrow/datasource-utils';
import { compileMysqlFilter, orderBy, rowOf } from './rows.ts';
import type { Cell, MysqlServer } from './server.ts';
import { quoteIdent, tableRef } from './sql.ts';

/** A read held open while its rows are consumed: the body's batches, ended or stopped by the consumer. */
async function openStream(
  server: MysqlServer,
  sql: string,
  params: readonly unknown[],
  signal: AbortSignal,
): Promise<{ columns: string[]; batches: AsyncIterable<Row[]> }> {
  let readFailed!: (error: unknown) => void;
  // The read's own end (a cancel, the time limit, a lost server) ends the batches too.
  const failed = new Promise<never>((_, reject) => {
    readFailed = reject;
  });
  failed.catch(() => {});
  return new Promise((resolve, reject) => {
    let handed = false;
    server
      .read(
        (session) =>
          new Promise<void>((finish, stop) => {
            const stream = session.stream(sql, params);
            stream.columns.then((columns) => {
              handed = true;
              async function* batches(): AsyncIterable<Row[]> {
                let ended = false;
                const iterator = stream.batches[Symbol.asyncIterator]();
                try {
                  for (;;) {
                    const next = await Promise.race([iterator.next(), failed]);
                    if (next.done) break;
                    yield next.value.map((cells: Cell[]) => rowOf(columns, cells));
                  }
                  ended = true;
                  finish();
                } catch (error) {
                  ended = true;
                  stop(error);
                  throw error;
                } finally {
                  // Stopped before its end: the read's connection is dropped, not left mid-result.
                  if (!ended) stop(new Error('the export stopped before its last row'));
                }
              }
              resolve({ columns, batches: batches() });
            }, stop);
          }),
        { timeoutMs: 0, signal },
      )
      .catch((error: unknown) => {
        readFailed(error);
        if (!handed) reject(error);
      });
  });
}

export function createMysqlExportEngine(
  server: MysqlServer,
  schema: SchemaCache,
  queries: QueryRunner,
  dir: string,
  jobs: ExportJobStore,
  options?: ExportEngineOptions,
): ExportEngine {
  return createExportRunner({
    dir,
    jobs,
    ...(options ? { engineOptions: options } : {}),
    async plan(request) {
      const source = request.source;
      let select: string;
      let count: string;
      let params: unknown[] = [];
      let label: string;
      let recorded: Record<string, unknown>;
      if ('sql' in source) {
        const { statement } = await queries.check(source.sql);
        select = `${statement}\n`;
        count = `SELECT COUNT(*) FROM (${statement}\n) AS toolrow_export`;
        label = 'query';
        recorded = { sql: statement };
      } else {
        const table = await schema.resolveTable(source.table ?? '');
        validateFilter(table, source.filter);
        validateSort(table, source.sort);
        const columns =
          source.columns && source.columns.length > 0
            ? source.columns.map((name) => resolveColumnIn(table, name))
            : table.columns;
        const where = compileMysqlFilter(table, source.filter);
        params = where.params;
        select = `SELECT ${columns.map((column) => quoteIdent(column.name)).join(', ')} FROM ${tableRef(table)} WHERE ${where.sql}${orderBy(table, source.sort, true)}`;
        count = `SELECT COUNT(*) FROM ${tableRef(table)} WHERE ${where.sql}`;
        label = table.name;
        recorded = { ...source, table: table.qualifiedName };
      }
      return {
        label,
        source: recorded,
        async estimate(signal) {
          const answer = await server.read(
            (session) => session.rows(count, params, { maxRows: 1, maxBytes: 1024, maxValueBytes: 1024 }),
            { timeoutMs: 0, ...(signal ? { signal } : {}) },
          );
          return Number(answer.rows[0]?.[0] ?? 0);
        },
        async write(format, signal) {
          const { columns, batches } = await openStream(server, select, params, signal);
          return rowBody(format, columns, batches);
        },
      };
    },
  });
}
