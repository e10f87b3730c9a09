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
import { createExportRunner, rowBody } from '@toolrow/datasource-utils';
import type { ReadPool } from './read-pool.ts';
import { rowOf } from './rows.ts';
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
      const source = request.source as { table?: string; sql?: string };
      let from: string;
      let label: string;
      let recorded: Record<string, unknown>;
      if (source.sql !== undefined) {
        const { statement } = await queries.check(source.sql);
        from = `(${statement}\n)`;
        label = 'query';
        recorded = { sql: statement };
      } else {
        const table = await schema.resolveTable(source.table ?? '');
        from = quoteIdent(table.name);
        label = table.name;
        recorded = { table: table.qualifiedName };
      }
      const page = async (offset: number, signal?: AbortSignal) =>
        pool.ask(
          {
            kind: 'query',
            // rowid keeps a table's pages in one order; a query's order is its own.
            sql: `SELECT * FROM ${from} LIMIT ${PAGE} OFFSET ${offset}`,
            params: [],
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
              params: [],
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
