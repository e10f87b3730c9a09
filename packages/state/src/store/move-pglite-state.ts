// Releases up to 0.1 kept the embedded state in a PGlite cluster (<dataDir>/state). The first
// start of this release moves it into SQLite, once: every row of every table, in one transaction,
// into a file that takes the final name only when complete. The old cluster is kept beside it,
// renamed, until the user deletes it.
import { existsSync } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { APP_SCHEMA, DataSourceError } from '@toolrow/datasource';
import { openDatabase } from '@toolrow/postgres';
import { sql } from 'kysely';
import { migrate } from './migrations.ts';
import { openSqliteStore } from './state-db.ts';

/** Where releases up to 0.1 kept the embedded state, and where it goes once moved. */
export const PGLITE_STATE_DIR = 'state';
export const PGLITE_STATE_MOVED_DIR = 'state.pglite-moved';

/** Whether a data dir holds state a release up to 0.1 left in PGlite, not yet moved. */
export function hasPgliteState(dataDir: string, target: string): boolean {
  return !existsSync(target) && existsSync(join(dataDir, PGLITE_STATE_DIR, 'PG_VERSION'));
}

/** Copies the PGlite state of `dataDir` into a new SQLite store at `target`. */
export async function movePgliteState(
  dataDir: string,
  target: string,
  notice: (message: string) => void,
): Promise<{ rows: number; movedTo: string }> {
  const legacyDir = join(dataDir, PGLITE_STATE_DIR);
  const movedTo = join(dataDir, PGLITE_STATE_MOVED_DIR);
  notice(
    `Moving Toolrow's state from PGlite (${legacyDir}) to SQLite (${target}). This happens once and takes a few seconds.`,
  );
  const partial = `${target}.moving`;
  for (const file of [partial, `${partial}-wal`, `${partial}-shm`]) await rm(file, { force: true });
  const legacy = await openDatabase({
    env: {},
    dataDir,
    pgdata: legacyDir,
    pgdataSource: "TOOLROW_DATA_DIR (Toolrow's state of an earlier release)",
    worker: false,
  });
  let rows = 0;
  try {
    const version = await legacy
      .query<{ v: number | null }>(`SELECT max(version) AS v FROM ${APP_SCHEMA}.schema_migrations`)
      .then((result) => Number(result.rows[0]?.v ?? 0))
      .catch(() => 0);
    if (version !== 8) {
      throw new DataSourceError(
        'config',
        `The state in ${legacyDir} is at version ${version}; this release moves only what Toolrow 0.1 left (version 8). Open it once with Toolrow 0.1 to bring it there, or move the folder aside to start with a new state.`,
      );
    }
    const store = await openSqliteStore(partial);
    try {
      await migrate(store);
      const tables = (
        await sql<{ name: string }>`SELECT name FROM sqlite_schema WHERE type = 'table'
          AND name NOT LIKE 'sqlite_%' AND name <> 'schema_migrations' ORDER BY name`.execute(store.q)
      ).rows.map((table) => table.name);
      await store.q.transaction().execute(async (tx) => {
        // Tables copy in any order; references are checked at COMMIT.
        await sql`PRAGMA defer_foreign_keys = ON`.execute(tx);
        for (const table of tables) {
          const columns = (
            await legacy.query<{ column_name: string; data_type: string; column_default: string | null }>(
              'SELECT column_name, data_type, column_default FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2',
              [APP_SCHEMA, table],
            )
          ).rows;
          const wanted = new Set(
            (await sql<{ name: string }>`SELECT name FROM pragma_table_info(${table})`.execute(tx)).rows.map(
              (column) => column.name,
            ),
          );
          // JSON as its text: numbers and key order exactly as stored.
          const select = columns
            .filter((column) => wanted.has(column.column_name))
            .map(({ column_name: name, data_type: type }) =>
              type === 'json' || type === 'jsonb' ? `"${name}"::text AS "${name}"` : `"${name}"`,
            );
          if (select.length === 0) continue;
          const found = await legacy.query<Record<string, unknown>>(
            `SELECT ${select.join(', ')} FROM ${APP_SCHEMA}."${table}"`,
          );
          for (let start = 0; start < found.rows.length; start += 200) {
            await tx
              .insertInto(table as never)
              .values(found.rows.slice(start, start + 200) as never)
              .execute();
          }
          rows += found.rows.length;
          // Ids go on from the sequence, not from the largest id left: an id handed out once (a
          // staged change since committed) is never handed out again.
          if (
            wanted.has('id') &&
            columns.some((c) => c.column_name === 'id' && c.column_default?.startsWith('nextval('))
          ) {
            const used = await legacy.query<{ n: string | null }>(
              `SELECT CASE WHEN is_called THEN last_value END AS n FROM ${APP_SCHEMA}."${table}_id_seq"`,
            );
            const last = Number(used.rows[0]?.n ?? 0);
            await sql`DELETE FROM sqlite_sequence WHERE name = ${table}`.execute(tx);
            await sql`INSERT INTO sqlite_sequence (name, seq) VALUES (${table}, ${last})`.execute(tx);
          }
        }
      });
    } finally {
      await store.close();
    }
  } catch (error) {
    await legacy.close().catch(() => {});
    for (const file of [partial, `${partial}-wal`, `${partial}-shm`]) await rm(file, { force: true });
    if (error instanceof DataSourceError) throw error;
    throw new DataSourceError(
      'config',
      `Could not move Toolrow's state from ${legacyDir} to SQLite: ${(error as Error).message}. Nothing was lost: the PGlite state is untouched, and the next start tries again.`,
      { cause: error },
    );
  }
  await legacy.close();
  await rename(partial, target);
  await rename(legacyDir, movedTo);
  notice(
    `Moved ${rows} rows of Toolrow's state to ${target}. The old PGlite state is kept in ${movedTo}; delete that folder once you are happy.`,
  );
  return { rows, movedTo };
}
