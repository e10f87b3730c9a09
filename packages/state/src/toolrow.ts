import { type DataSource, type OpenDataSourceOptions, openDataSource } from '@toolrow/datasource';
import type { OpenStateOptions, ToolrowState } from './state.ts';
import { checkStateSettings, openStateStore, settled, wireState } from './state-impl.ts';

/** The user's data and Toolrow's own state, opened together: what the apps and the CLI hold. */
export interface Toolrow {
  readonly source: DataSource;
  readonly state: ToolrowState;
  /** Closes the state (after background exports), then the user's data. */
  close(): Promise<void>;
}

export interface OpenToolrowOptions {
  /** DATABASE_URL, TOOLROW_COMMIT_URL, TOOLROW_STATE_URL, TOOLROW_DATA_DIR, TOOLROW_EXPORTS_DIR (default: process.env). */
  env?: Readonly<Record<string, string | undefined>>;
  cwd?: string;
  /** The Toolrow data directory (wins over TOOLROW_DATA_DIR). */
  dataDir?: string;
  /** Options for the user's data (url, poolSize, …). */
  data?: Omit<OpenDataSourceOptions, 'env' | 'cwd' | 'dataDir'>;
  /** Options for the state store (url, exportsDir, …). */
  state?: Omit<OpenStateOptions, 'source' | 'env' | 'cwd' | 'dataDir'>;
}

/** Opens both at once (the embedded engines start in parallel: data in its worker, state here). */
export async function openToolrow(options: OpenToolrowOptions = {}): Promise<Toolrow> {
  const common = {
    ...(options.env ? { env: options.env } : {}),
    ...(options.cwd ? { cwd: options.cwd } : {}),
    ...(options.dataDir ? { dataDir: options.dataDir } : {}),
  };
  checkStateSettings({ ...options.state, ...common });
  const [data, store] = await Promise.allSettled([
    openDataSource({ ...options.data, ...common, readerRoleSetup: 'later' }),
    openStateStore({ ...options.state, ...common }),
  ]);
  if (data.status === 'rejected' || store.status === 'rejected') {
    if (data.status === 'fulfilled') await data.value.close().catch(() => {});
    if (store.status === 'fulfilled') await store.value.db.close().catch(() => {});
    throw data.status === 'rejected' ? data.reason : (store as PromiseRejectedResult).reason;
  }
  const source = data.value;
  let state: ToolrowState;
  try {
    state = wireState(store.value, { ...options.state, ...common, source });
  } catch (error) {
    await store.value.db.close().catch(() => {});
    await source.close().catch(() => {});
    throw error;
  }
  const toolrow = composeToolrow(source, state);
  try {
    // In this order: the reader role's setup writes the data's catalog, which must come after
    // interrupted commits are settled (see settled()).
    await settled(toolrow.state);
    await source.setUpReaderRole();
  } catch (error) {
    await toolrow.close().catch(() => {});
    throw error;
  }
  return toolrow;
}

/** One handle over both: closing it closes the state first, then the data. */
export function composeToolrow(source: DataSource, state: ToolrowState): Toolrow {
  let closing: Promise<void> | undefined;
  return {
    source,
    state,
    close() {
      closing ??= (async () => {
        try {
          await state.close();
        } finally {
          await source.close();
        }
      })();
      return closing;
    },
  };
}
