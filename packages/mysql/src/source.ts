// A MySQL or MariaDB database behind the engine-neutral DataSource: reads through three layers that
// each hold alone (the statement check, a READ ONLY transaction on a pinned session, a SELECT-only
// account), commits through the writer's account.
import type {
  DataSourceWith,
  ExportEngineOptions,
  ExportJobStore,
  ReadLayer,
  WriterInfo,
} from '@toolrow/datasource';
import { createSnapshotCache, DataSourceError } from '@toolrow/datasource';
import { createMysqlChangeWriter } from './changes.ts';
import { createMysqlExportEngine } from './exports.ts';
import { MYSQL_FEATURES } from './features.ts';
import { createQueryRunner } from './queries.ts';
import { checkAccount } from './reader-account.ts';
import { createRowReader } from './rows.ts';
import { loadMysqlSchema } from './schema.ts';
import { seedMysqlShop } from './seed.ts';
import { ALL_LAYERS, type MysqlLayers, openServer } from './server.ts';
import { describeAddress, type MysqlAddress, mysqlAddressOf } from './url.ts';

export interface OpenMysqlOptions {
  address: MysqlAddress;
  /** Where the URL came from, for messages ('DATABASE_URL', "the connection 'shop'"). */
  field?: string;
  /** The account commits (and the seed) go through; absent, the URL's own. */
  commitUrl?: string;
  commitSource?: WriterInfo['source'];
  dataDir?: string;
  layers?: Partial<MysqlLayers>;
}

export async function openMysqlDataSource(
  options: OpenMysqlOptions,
): Promise<DataSourceWith<'changes' | 'createExportEngine' | 'seed'>> {
  const field = options.field ?? 'url';
  const layers = { ...ALL_LAYERS, ...options.layers };
  const { address } = options;
  const commitSource = options.commitSource ?? 'TOOLROW_COMMIT_URL';
  const commitAddress = options.commitUrl ? mysqlAddressOf(options.commitUrl, commitSource) : undefined;
  if (commitAddress && commitAddress.database !== address.database)
    throw new DataSourceError(
      'config',
      `${commitSource} names the database '${commitAddress.database}', and ${field} '${address.database}': commits must reach the database the reads show.`,
    );
  const server = await openServer({ address, layers, field });
  let writer = server;
  try {
    if (commitAddress)
      writer = await openServer({ address: commitAddress, layers, field: commitSource, connectionLimit: 2 });
  } catch (error) {
    await server.close();
    throw error;
  }
  const description = describeAddress(address, server.flavor);
  const schema = createSnapshotCache(() =>
    server.withSession((connection) => loadMysqlSchema(connection, address.database)),
  );
  const queries = createQueryRunner(server, schema, address.database, layers.check);
  const writerInfo: WriterInfo = commitAddress
    ? { description: describeAddress(commitAddress, writer.flavor), source: commitSource }
    : { description, source: field === 'DATABASE_URL' ? 'DATABASE_URL' : 'option' };
  const changes = createMysqlChangeWriter({ writer, writerInfo, schema, ownsWriter: writer !== server });
  try {
    await schema.refresh();
  } catch (error) {
    await changes.close();
    await server.close();
    throw error;
  }
  const readLayers = async (): Promise<ReadLayer[]> => {
    const account = await server.withSession(checkAccount).catch((error: Error) => ({
      readOnly: false,
      beyond: [`unknown (SHOW GRANTS failed: ${error.message})`],
    }));
    return [
      {
        layer: 'statement check',
        active: layers.check,
        detail: `one SELECT (or WITH … SELECT) as ${server.flavor}'s grammar reads it; no INTO, locking read, variable assignment, executable comment, SLEEP, LOAD_FILE, lock or stored function, no other database`,
      },
      {
        layer: 'read-only transaction',
        active: layers.readOnlyTransaction,
        detail: `every read in START TRANSACTION READ ONLY, its session's sql_mode, time zone and character set pinned, under ${server.flavor === 'MariaDB' ? 'max_statement_time' : 'max_execution_time'}, stopped by KILL on cancel`,
      },
      {
        layer: 'SELECT-only account',
        active: account.readOnly,
        detail: account.readOnly
          ? `${address.user} may only SELECT`
          : `${address.user} may also ${account.beyond.join(', ')}: \`toolrow db setup-roles\` prints the GRANTs of a SELECT-only account for DATABASE_URL (commits then go through TOOLROW_COMMIT_URL)`,
      },
    ];
  };
  return {
    engine: 'mysql',
    driver: 'mysql',
    features: MYSQL_FEATURES,
    description,
    dataDir: options.dataDir ?? '',
    schema,
    rows: createRowReader(server, schema),
    queries,
    changes,
    createExportEngine: (dir: string, jobs: ExportJobStore, exportOptions?: ExportEngineOptions) =>
      createMysqlExportEngine(server, schema, queries, dir, jobs, exportOptions),
    readLayers,
    async connectionNotes() {
      const notes = [`${server.flavor} ${server.version}`];
      if ((await schema.get()).tables.length === 0)
        notes.push(`${address.database} holds no tables yet (toolrow db seed makes the sample shop).`);
      return notes;
    },
    async seed(seedOptions) {
      const result = await seedMysqlShop(writer, address.database, seedOptions);
      if (!result.alreadySeeded) await schema.refresh();
      return result;
    },
    async close() {
      await changes.close();
      await server.close();
    },
  };
}
