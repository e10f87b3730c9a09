// The SQL engine of DynamoDB connections: DuckDB in this process, with no way out. It reaches no
// file, network or extension (external access off, no extension autoload or install), and its
// configuration is locked before any statement of the user's runs, so no SET or PRAGMA reopens
// it. It holds only the items Toolrow's read client fetched for one query, in tables it builds;
// nothing in it can reach DynamoDB. Loaded on the first SQL query: nothing else pays for it.
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { DataSourceError } from '@toolrow/datasource';
import { SANDBOX_SETTINGS } from './sandbox-settings.ts';

/** Test switch: the sandbox's settings left off, to test the other layers alone. */
export interface SandboxSwitches {
  sandbox?: boolean;
}

export interface Sandbox {
  /** A fresh connection: its temporary tables are its own and go with it. */
  connect(): Promise<DuckDBConnection>;
  close(): void;
}

export async function openSandbox(switches: SandboxSwitches = {}): Promise<Sandbox> {
  let duckdb: typeof import('@duckdb/node-api');
  try {
    duckdb = await import('@duckdb/node-api');
  } catch (error) {
    throw new DataSourceError(
      'config',
      `SQL over DynamoDB needs DuckDB (@duckdb/node-api), which could not be loaded on this platform: ${(error as Error).message}. PartiQL still works.`,
      { cause: error },
    );
  }
  const instance: DuckDBInstance = await duckdb.DuckDBInstance.create(
    ':memory:',
    switches.sandbox === false ? { threads: '2' } : { ...SANDBOX_SETTINGS },
  );
  if (switches.sandbox !== false) {
    const setup = await instance.connect();
    try {
      // Instants in UTC whatever the machine's zone, then no setting changes again.
      await setup.run("SET TimeZone = 'UTC'").catch(() => {});
      await setup.run('SET lock_configuration = true');
    } finally {
      setup.closeSync();
    }
  }
  return {
    connect: () => instance.connect(),
    close: () => instance.closeSync(),
  };
}
