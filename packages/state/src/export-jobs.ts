import { APP_SCHEMA, type Database, type ExportJobStore } from '@toolrow/datasource';
import { toExportJob } from './app-state-impl.ts';

const S = APP_SCHEMA;

/** The export engine's job records, in Toolrow's own store. */
export function createExportJobStore(db: Database, get: ExportJobStore['get']): ExportJobStore {
  return {
    async create(job) {
      const result = await db.query(
        `INSERT INTO ${S}.export_jobs (id, profile, actor, state, format, path, source, rows_estimate)
         VALUES ($1, $2, $3, 'queued', $4, $5, $6::jsonb, $7) RETURNING *`,
        [job.id, job.profile, job.actor, job.format, job.path, JSON.stringify(job.source), job.rowsEstimate],
      );
      return toExportJob(result.rows[0]!);
    },
    async markRunning(id) {
      await db.query(
        `UPDATE ${S}.export_jobs SET state = 'running', started_at = now() WHERE id = $1 AND state = 'queued'`,
        [id],
      );
    },
    async progress(id, rowsDone, bytesWritten) {
      await db.query(`UPDATE ${S}.export_jobs SET rows_done = $2, bytes_written = $3 WHERE id = $1`, [
        id,
        rowsDone,
        bytesWritten,
      ]);
    },
    async finish(id, outcome) {
      if (db.closed) return;
      await db.query(
        `UPDATE ${S}.export_jobs SET state = $2, rows_done = $3, bytes_written = COALESCE($4, bytes_written),
                error = $5, finished_at = now() WHERE id = $1`,
        [id, outcome.state, outcome.rowsDone, outcome.bytesWritten ?? null, outcome.error],
      );
    },
    get,
  };
}
