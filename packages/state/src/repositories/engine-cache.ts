// What engines learnt of their connections (DynamoDB: each table's sampled schema), kept in the
// state store so every process on it — the app, each CLI call, MCP servers — reuses it.
import type { EngineCache } from '@toolrow/datasource';
import { date, type StateDb } from '../store/state-db.ts';

export function createEngineCache(db: StateDb): EngineCache {
  const { q } = db;
  return {
    async get(key) {
      const row = await q
        .selectFrom('engine_cache')
        .select(['value', 'saved_at'])
        .where('key', '=', key)
        .executeTakeFirst();
      return row ? { value: row.value, savedAt: date(row.saved_at) } : undefined;
    },
    async set(key, value) {
      const now = new Date();
      await q
        .insertInto('engine_cache')
        .values({ key, value, saved_at: now })
        .onConflict((conflict) => conflict.column('key').doUpdateSet({ value, saved_at: now }))
        .execute();
    },
  };
}
