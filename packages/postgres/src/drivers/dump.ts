import type { Database } from '../database.ts';
import { CoreDatabase } from './core.ts';

/**
 * A fresh in-memory PGlite cluster, prepared by `prepare` and dumped: pass it as `loadDataDir` to
 * open many databases that start from it without running initdb (and whatever `prepare` did)
 * each time.
 */
export async function dumpEmbeddedDatabase(
  prepare: (db: Database) => Promise<void> = async () => {},
): Promise<Blob> {
  const { openPglite } = await import('./pglite.ts');
  const adapter = await openPglite({ dataDirSource: 'memory' });
  const db = new CoreDatabase(adapter);
  try {
    await prepare(db);
    return await adapter.instance.dumpDataDir('none');
  } finally {
    await db.close();
  }
}
