import { APP_SCHEMA, type QueryRunner, type SchemaCache, type WriterInfo } from '@toolrow/datasource';
import { createChangeWriter } from './change-writer.ts';
import type { Database } from './database.ts';
import { openDatabase, resolveConnectionConfig } from './drivers/open.ts';
import { describeUrl, parsePostgresUrl } from './drivers/postgres-url.ts';
import { createExportEngine } from './export-engine.ts';
import { POSTGRES_FEATURES } from './features.ts';
import { describeReadLayers, prepareReaderRole, READER_ROLE, type ReaderRoleStatus } from './reader-role.ts';
import { createRowReader } from './row-reader.ts';
import { createSchemaCache } from './schema-load.ts';
import { seedSampleShop } from './seed.ts';
import type { OpenDataSourceOptions, SqlDataSource } from './sql-source.ts';
import { checkPostgresStatement } from './statement-check.ts';

/** Hooks run after the connection closes (the test helper drops its database here). */
export interface InternalOpenOptions extends OpenDataSourceOptions {
  onClose?: () => Promise<void>;
}

/** Opens the user's data the environment names and wires every part. Creates nothing in it. */
export async function openDataSource(options: InternalOpenOptions = {}): Promise<SqlDataSource> {
  const env = options.env ?? process.env;
  const config = resolveConnectionConfig(options);
  const commitUrl = options.commitUrl ?? (env.TOOLROW_COMMIT_URL?.trim() || undefined);
  const commitSource = options.commitUrl !== undefined ? 'option' : 'TOOLROW_COMMIT_URL';
  if (commitUrl !== undefined)
    parsePostgresUrl(commitUrl, commitSource === 'option' ? 'the commitUrl option' : 'TOOLROW_COMMIT_URL');
  const db = await openDatabase(options);
  try {
    let readerRole: ReaderRoleStatus = {
      role: READER_ROLE,
      state: 'missing',
      detail: 'not set up yet (the data source was opened with readerRoleSetup: later)',
    };
    let settingUp: Promise<ReaderRoleStatus> | undefined;
    const schema = createSchemaCache(db);
    const ownWriter = commitUrl !== undefined && config.engine === 'postgres';
    const writer: WriterInfo = ownWriter
      ? { description: `PostgreSQL ${describeUrl(new URL(commitUrl))}`, source: commitSource }
      : {
          description: db.description,
          source:
            config.engine === 'postgres'
              ? config.source === 'option'
                ? 'option'
                : 'DATABASE_URL'
              : 'embedded',
        };
    const changes = createChangeWriter({
      db,
      schema,
      writer,
      ownsWriter: ownWriter,
      openWriter: async (): Promise<Database> =>
        ownWriter ? openDatabase({ url: commitUrl, env: {}, poolSize: 1 }) : db,
    });
    let closing: Promise<void> | undefined;
    const ds: SqlDataSource = {
      // PGlite is PostgreSQL compiled to wasm: the same dialect, the same tools.
      engine: 'postgres',
      features: POSTGRES_FEATURES,
      driver: db.engine,
      description: db.description,
      db,
      queries: sqlQueries(db, schema),
      readLayers: () => describeReadLayers(db, readerRole),
      connectionNotes: () => legacyStateNotes(db),
      createExportEngine: (dir, jobs, exportOptions) =>
        createExportEngine(db, schema, dir, jobs, exportOptions),
      schema,
      rows: createRowReader(db, schema),
      changes,
      get readerRole() {
        return readerRole;
      },
      setUpReaderRole() {
        settingUp ??= prepareReaderRole(db, env).then((status) => {
          readerRole = status;
          return status;
        });
        return settingUp;
      },
      dataDir: config.dataDir,
      async seed(seedOptions) {
        const result = await seedSampleShop(db, seedOptions);
        if (!result.alreadySeeded) await schema.refresh({ analyze: true });
        return result;
      },
      close() {
        closing ??= (async () => {
          await changes.close();
          await db.close();
          await options.onClose?.();
        })();
        return closing;
      },
    };
    if (options.readerRoleSetup !== 'later') await ds.setUpReaderRole();
    return ds;
  } catch (error) {
    await db.close().catch(() => {});
    throw error;
  }
}

const PLAN_COST = /cost=([\d.]+)\.\.([\d.]+) rows=(\d+)/;

/** Reads in SQL: through the read-only transaction (and the reader role, when there is one). */
function sqlQueries(db: Database, schema: SchemaCache): QueryRunner {
  return {
    language: {
      name: 'SQL',
      dialect: 'PostgreSQL',
      example: 'select status, count(*) from orders group by status',
    },
    check: (text, options) => checkPostgresStatement(schema, text, options),
    run: (statement, options) => db.readQuery(statement, [], options),
    async plan(statement, options) {
      // A newline before nothing: a trailing line comment cannot swallow anything after it.
      const result = await db.readOnly(
        (tx) => tx.query<{ 'QUERY PLAN': string }>(`EXPLAIN (COSTS true) ${statement}\n`),
        options,
      );
      const lines = result.rows.map((row) => row['QUERY PLAN']);
      const top = PLAN_COST.exec(lines[0] ?? '');
      return {
        lines,
        ...(top ? { totalCost: Number(top[2]), estimatedRows: Number(top[3]) } : {}),
        note: 'Estimated plan only (no ANALYZE): nothing was run. "Seq Scan" on a large table under a selective WHERE suggests a missing index.',
      };
    },
  };
}

/** Versions before the split kept Toolrow's state in the user's database; it is no longer read. */
async function legacyStateNotes(db: Database): Promise<string[]> {
  const found = await db.query<{ found: boolean }>(
    'SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1) AS found',
    [APP_SCHEMA],
  );
  return found.rows[0]?.found
    ? [
        `your database still holds a ${APP_SCHEMA} schema from an older Toolrow; it is no longer used (DROP SCHEMA ${APP_SCHEMA} CASCADE removes it)`,
      ]
    : [];
}
