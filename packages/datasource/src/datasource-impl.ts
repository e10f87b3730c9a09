import { mkdir } from 'node:fs/promises';
import { isAbsolute, join, resolve } from 'node:path';
import { createAppState } from './app-state-impl.ts';
import type { DataSource, OpenDataSourceOptions } from './datasource.ts';
import { openDatabase, resolveConnectionConfig } from './engines/open.ts';
import { createExportEngine } from './exports-impl.ts';
import { migrate } from './migrations.ts';
import { createRowReader } from './rows-impl.ts';
import { createSchemaCache } from './schema-load.ts';
import { seedSampleShop } from './seed.ts';
import { createStaging } from './staging-impl.ts';

/** Hooks run after the connection closes (the test helper drops its database here). */
export interface InternalOpenOptions extends OpenDataSourceOptions {
  onClose?: () => Promise<void>;
}

/** Opens the database the environment names, runs the migrations and wires every part. */
export async function openDataSource(options: InternalOpenOptions = {}): Promise<DataSource> {
  const env = options.env ?? process.env;
  const config = resolveConnectionConfig(options);
  const db = await openDatabase(options);
  try {
    if (options.migrate !== false) await migrate(db);
    const exportsOption = options.exportsDir ?? (env.TOOLROW_EXPORTS_DIR?.trim() || undefined);
    const exportsDir = exportsOption
      ? isAbsolute(exportsOption)
        ? exportsOption
        : resolve(options.cwd ?? process.cwd(), exportsOption)
      : join(config.dataDir, 'exports');
    await mkdir(exportsDir, { recursive: true });
    const schema = createSchemaCache(db);
    const activeConnection = {
      name: options.connectionName ?? 'default',
      engine: db.engine,
      description: db.description,
    };
    const app = createAppState(db, { activeConnection });
    const exports = createExportEngine(db, schema, exportsDir);
    let closing: Promise<void> | undefined;
    const ds: DataSource = {
      db,
      app,
      schema,
      rows: createRowReader(db, schema),
      staging: createStaging(db, schema),
      exports,
      dataDir: config.dataDir,
      async seed(seedOptions) {
        const result = await seedSampleShop(db, seedOptions);
        if (!result.alreadySeeded) await schema.refresh({ analyze: true });
        return result;
      },
      close() {
        closing ??= (async () => {
          await exports.idle();
          await db.close();
          await options.onClose?.();
        })();
        return closing;
      },
    };
    return ds;
  } catch (error) {
    await db.close().catch(() => {});
    throw error;
  }
}
