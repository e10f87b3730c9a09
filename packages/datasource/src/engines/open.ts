import type { ConnectionConfig, Database, OpenDatabaseOptions } from '../database.ts';

/** Decides the engine: url option, else DATABASE_URL (postgres:// or postgresql://), else PGlite in the data dir. */
export function resolveConnectionConfig(_options: OpenDatabaseOptions = {}): ConnectionConfig {
  throw new Error('not implemented');
}

/** Opens the connection (no migrations: openDataSource runs those). */
export async function openDatabase(_options: OpenDatabaseOptions = {}): Promise<Database> {
  throw new Error('not implemented');
}
