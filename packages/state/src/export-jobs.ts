import type { ExportJobStore } from '@toolrow/datasource';
import { toExportJob } from './repositories/export-jobs.ts';
import { nextValue, type StateDb } from './store/state-db.ts';

/** The export engine's job records, in Toolrow's own store. */
export function createExportJobStore(db: StateDb, get: ExportJobStore['get']): ExportJobStore {
  const { q, dialect } = db;
  return {
    async create(job) {
      const row = await q
        .insertInto('export_jobs')
        .values({
          id: job.id,
          profile: job.profile,
          actor: job.actor,
          state: 'queued',
          format: job.format,
          path: job.path,
          source: JSON.stringify(job.source),
          rows_estimate: job.rowsEstimate,
          seq: nextValue(dialect, 'export_jobs.seq'),
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return toExportJob(row);
    },
    async markRunning(id) {
      await q
        .updateTable('export_jobs')
        .set({ state: 'running', started_at: new Date() })
        .where('id', '=', id)
        .where('state', '=', 'queued')
        .execute();
    },
    async progress(id, rowsDone, bytesWritten) {
      await q
        .updateTable('export_jobs')
        .set({ rows_done: rowsDone, bytes_written: bytesWritten })
        .where('id', '=', id)
        .execute();
    },
    async finish(id, outcome) {
      if (db.closed) return;
      await q
        .updateTable('export_jobs')
        .set({
          state: outcome.state,
          rows_done: outcome.rowsDone,
          ...(outcome.bytesWritten == null ? {} : { bytes_written: outcome.bytesWritten }),
          error: outcome.error,
          finished_at: new Date(),
        })
        .where('id', '=', id)
        .execute();
    },
    get,
  };
}
