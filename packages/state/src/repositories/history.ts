// The query history: every statement the user or the agent ran, with its outcome.
import type { Actor, Row } from '@toolrow/datasource';
import type { QueryHistoryEntry } from '../app-types.ts';
import { date, type StateDb } from '../store/state-db.ts';
import type { ListOptions } from './checks.ts';

import { checkActor, limitOf } from './checks.ts';

/** What the store keeps of history. */
export interface HistoryRepository {
  add(entry: Omit<QueryHistoryEntry, 'id' | 'createdAt'>): Promise<QueryHistoryEntry>;
  list(options?: ListOptions): Promise<QueryHistoryEntry[]>;
}

const toHistory = (row: Row): QueryHistoryEntry => ({
  id: Number(row.id),
  profile: row.profile as string,
  actor: row.actor as Actor,
  sql: row.sql as string,
  rowCount: row.row_count === null ? null : Number(row.row_count),
  durationMs: row.duration_ms === null ? null : Number(row.duration_ms),
  error: (row.error as string | null) ?? null,
  createdAt: date(row.created_at),
});

export function createHistory(db: StateDb): HistoryRepository {
  const { q } = db;
  return {
    async add(entry) {
      checkActor(entry.actor, 'actor');
      const row = await q
        .insertInto('query_history')
        .values({
          profile: entry.profile,
          actor: entry.actor,
          sql: entry.sql,
          row_count: entry.rowCount,
          duration_ms: entry.durationMs,
          error: entry.error,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return toHistory(row);
    },
    async list(options) {
      const { limit, offset } = limitOf(options);
      const rows = await q
        .selectFrom('query_history')
        .selectAll()
        .$if(options?.profile != null, (qb) => qb.where('profile', '=', options!.profile!))
        .$if(options?.actor != null, (qb) => qb.where('actor', '=', options!.actor!))
        .orderBy('id', 'desc')
        .limit(limit)
        .offset(offset)
        .execute();
      return rows.map(toHistory);
    },
  };
}
