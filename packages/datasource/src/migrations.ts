import type { Database } from './database.ts';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** Applies the pending app-state migrations in one transaction each; returns the versions applied. */
export async function migrate(_db: Database): Promise<number[]> {
  throw new Error('not implemented');
}
