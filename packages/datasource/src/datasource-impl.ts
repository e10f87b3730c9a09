import type { WriterInfo } from './changes.ts';
import { createChangeWriter } from './changes-impl.ts';
import type { Database } from './database.ts';
import type { DataSource, OpenDataSourceOptions } from './datasource.ts';
import { openDatabase, resolveConnectionConfig } from './engines/open.ts';
import { describeUrl, parsePostgresUrl } from './engines/postgres.ts';
import { prepareReaderRole, READER_ROLE, type ReaderRoleStatus } from './reader-role.ts';
import { createRowReader } from './rows-impl.ts';
import { createSchemaCache } from './schema-load.ts';
import { seedSampleShop } from './seed.ts';

/** Hooks run after the connection closes (the test helper drops its database here). */
export interface InternalOpenOptions extends OpenDataSourceOptions {
  onClose?: () => Promise<void>;
}

/** Opens the user's data the environment names and wires every part. Creates nothing in it. */
export async function openDataSource(options: InternalOpenOptions = {}): Promise<DataSource> {
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
    const ds: DataSource = {
      // PGlite is PostgreSQL compiled to wasm: the same dialect, the same tools.
      engine: 'postgres',
      db,
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
