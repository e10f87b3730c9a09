// A SQLite file behind the engine-neutral DataSource: reads in worker threads through four read-only
// layers that each hold alone, commits on a connection of their own.

import { existsSync } from 'node:fs';
import type { DataSourceWith, ExportEngineOptions, ExportJobStore, ReadLayer } from '@toolrow/datasource';
import { createSnapshotCache, DataSourceError } from '@toolrow/datasource';
import { createSqliteChangeWriter } from './changes.ts';
import { createSqliteExportEngine } from './exports.ts';
import { SQLITE_FEATURES } from './features.ts';
import { createQueryRunner } from './queries.ts';
import { createReadPool } from './read-pool.ts';
import type { ReadLayers } from './read-protocol.ts';
import { createRowReader } from './rows.ts';
import { loadSqliteSchema } from './schema.ts';
import { seedSqliteShop } from './seed.ts';

/** The read-only layers; a test switches some off to show each of the others holds alone. */
export interface SqliteLayers extends ReadLayers {
  /** The statement check (QueryRunner.check's own text check). */
  check: boolean;
}

export const ALL_LAYERS: SqliteLayers = {
  check: true,
  readOnlyOpen: true,
  queryOnly: true,
  authorizer: true,
};

export interface OpenSqliteOptions {
  /** The database file (absolute). */
  path: string;
  /** Where the URL came from, for messages ('DATABASE_URL', "the connection 'books'"). */
  field?: string;
  dataDir?: string;
  layers?: Partial<SqliteLayers>;
}

export async function openSqliteDataSource(
  options: OpenSqliteOptions,
): Promise<DataSourceWith<'changes' | 'createExportEngine' | 'seed'>> {
  const { path } = options;
  if (!existsSync(path))
    throw new DataSourceError(
      'config',
      `${options.field ?? 'url'}: there is no SQLite file at ${path}. Point the URL at an existing database file (Toolrow reads a database; \`sqlite3 ${path} 'VACUUM'\` makes an empty one).`,
    );
  const layers = { ...ALL_LAYERS, ...options.layers };
  const pool = createReadPool(path, layers);
  const schema = createSnapshotCache(async () => loadSqliteSchema(path));
  const queries = createQueryRunner(pool, schema, layers.check);
  const changes = createSqliteChangeWriter({ path, schema });
  // The file must be readable now: a wrong path or a file that is not SQLite fails the open.
  try {
    await schema.refresh();
  } catch (error) {
    await pool.close();
    throw error;
  }
  const readLayers = async (): Promise<ReadLayer[]> => [
    {
      layer: 'statement check',
      active: layers.check,
      detail: 'one SELECT, WITH or VALUES; no write, ATTACH, VACUUM, PRAGMA or load_extension anywhere',
    },
    {
      layer: 'read-only open',
      active: layers.readOnlyOpen,
      detail: 'reads open the file read-only (SQLITE_OPEN_READONLY)',
    },
    {
      layer: 'query_only',
      active: layers.queryOnly,
      detail: 'PRAGMA query_only on every reading connection',
    },
    {
      layer: 'authorizer',
      active: layers.authorizer,
      detail: 'SQLite allows reading tables and calling functions, and denies every other action',
    },
  ];
  return {
    engine: 'sqlite',
    driver: 'sqlite',
    features: SQLITE_FEATURES,
    description: `SQLite ${path}`,
    dataDir: options.dataDir ?? '',
    schema,
    rows: createRowReader(pool, schema),
    queries,
    changes,
    createExportEngine: (dir: string, jobs: ExportJobStore, exportOptions?: ExportEngineOptions) =>
      createSqliteExportEngine(pool, schema, queries, dir, jobs, exportOptions),
    readLayers,
    async connectionNotes() {
      const tables = (await schema.get()).tables;
      return tables.length === 0
        ? [`${path} holds no tables yet (toolrow db seed makes the sample shop).`]
        : [];
    },
    async seed(seedOptions) {
      const result = await seedSqliteShop(path, seedOptions);
      if (!result.alreadySeeded) await schema.refresh();
      return result;
    },
    async close() {
      await changes.close();
      await pool.close();
    },
  };
}
