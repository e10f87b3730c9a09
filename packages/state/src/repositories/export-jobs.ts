// Export jobs as the app lists them.
import { type Actor, DataSourceError, type ExportJob, type Row } from '@toolrow/datasource';
import { date, dateOrNull, jsonValue, type StateDb } from '../store/state-db.ts';
import type { ListOptions } from './checks.ts';

import { limitOf } from './checks.ts';

/** What the store keeps of exportJobs. */
export interface ExportJobRepository {
  /** Throws DataSourceError 'not-found'. */
  get(id: string): Promise<ExportJob>;
  list(options?: ListOptions): Promise<ExportJob[]>;
}

export const toExportJob = (row: Row): ExportJob => ({
  id: row.id as string,
  profile: row.profile as string,
  actor: row.actor as Actor,
  state: row.state as ExportJob['state'],
  format: row.format as ExportJob['format'],
  path: row.path as string,
  source: jsonValue<Record<string, unknown>>(row.source),
  rowsDone: Number(row.rows_done),
  rowsEstimate: row.rows_estimate === null ? null : Number(row.rows_estimate),
  bytesWritten: Number(row.bytes_written),
  error: (row.error as string | null) ?? null,
  createdAt: date(row.created_at),
  startedAt: dateOrNull(row.started_at),
  finishedAt: dateOrNull(row.finished_at),
});

export function createExportJobs(db: StateDb): ExportJobRepository {
  const { q } = db;
  return {
    async get(id) {
      const row = await q.selectFrom('export_jobs').selectAll().where('id', '=', id).executeTakeFirst();
      if (!row) {
        throw new DataSourceError(
          'not-found',
          `No export job with id '${id}'. List the jobs to see their ids.`,
        );
      }
      return toExportJob(row);
    },
    async list(options) {
      const { limit, offset } = limitOf(options);
      const rows = await q
        .selectFrom('export_jobs')
        .selectAll()
        .$if(options?.profile != null, (qb) => qb.where('profile', '=', options!.profile!))
        .$if(options?.actor != null, (qb) => qb.where('actor', '=', options!.actor!))
        .orderBy('seq', 'desc')
        .limit(limit)
        .offset(offset)
        .execute();
      return rows.map(toExportJob);
    },
  };
}
