// Exports of a SQLite table or query: pages of rows from a read worker (each page bounded by the
// export's signal), written by the shared row body (CSV, NDJSON, JSON).
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
import type { ReadPool } from './read-pool.ts';
import { compileSqliteFilter, orderBy, rowOf } from './rows.ts';
import { quoteIdent } from './sql.ts';

const PAGE = 5000;

export function createSqliteExportEngine(
  pool: ReadPool,
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
      // What one page selects (before LIMIT/OFFSET), what counts it, and their parameters.
      let select: string;
      let from: string;
      let params: unknown[] = [];
      let label: string;
      let recorded: Record<string, unknown>;
      if ('sql' in source) {
        const { statement } = await queries.check(source.sql);
        from = `(${statement}\n)`;
        select = `SELECT * FROM ${from}`;
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
        const where = compileSqliteFilter(table, source.filter);
        params = where.params;
        from = `${quoteIdent(table.name)} WHERE ${where.sql}`;
        // The sort, then the key (or rowid): pages of one total order, so OFFSET never repeats a row.
        select = `SELECT ${columns.map((column) => quoteIdent(column.name)).join(', ')} FROM ${from}${orderBy(table, source.sort, true)}`;
        label = table.name;
        recorded = { ...source, table: table.qualifiedName };
      }
      const page = async (offset: number, signal?: AbortSignal) =>
        pool.ask(
          {
            kind: 'query',
            // A query's order is its own.
            sql: `${select} LIMIT ${PAGE} OFFSET ${offset}`,
            params,
            maxRows: PAGE,
            maxBytes: Number.MAX_SAFE_INTEGER,
            maxValueBytes: Number.MAX_SAFE_INTEGER,
          },
          'rows',
          signal ? { signal } : {},
        );
      return {
        label,
        source: recorded,
        async estimate(signal) {
          const answer = await pool.ask(
            {
              kind: 'query',
              sql: `SELECT count(*) FROM ${from}`,
              params,
              maxRows: 1,
              maxBytes: 1024,
              maxValueBytes: 1024,
            },
            'rows',
            signal ? { signal } : {},
          );
          return Number(answer.rows[0]?.[0] ?? 0);
        },
        async write(format, signal) {
          const first = await page(0, signal);
          async function* batches(): AsyncIterable<Row[]> {
            let current = first;
            let offset = 0;
            for (;;) {
              if (current.rows.length > 0) yield current.rows.map((values) => rowOf(first.columns, values));
              if (current.rows.length < PAGE) return;
              offset += PAGE;
              current = await page(offset, signal);
            }
          }
          return rowBody(format, first.columns, batches());
        },
      };
    },
  });
}
