// A read that runs past the statement timeout is stopped, and the model is told how to make it
// cheaper (not to check its names). Only engines that enforce timeouts: a PostgreSQL server, and
// on-disk PGlite, whose worker is stopped and restarted. In-memory PGlite cannot stop a statement.
import type { DataSource } from '@toolrow/datasource';
import type { Toolrow, ToolrowState } from '@toolrow/state';
import { pgliteOnDiskStores, testStores } from '@toolrow/state/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invokeTool } from '../registry.ts';
import { contextFor } from '../test-fixtures.ts';

const engines = [...testStores().filter((engine) => engine.name === 'postgres'), pgliteOnDiskStores];

describe.each(engines)('runQuery timeout on $name', ({ open }) => {
  let toolrow: Toolrow;
  let source: DataSource;
  let state: ToolrowState;
  beforeAll(async () => {
    toolrow = await open({ seed: { orders: 50 } });
    ({ source, state } = toolrow);
  });
  afterAll(() => toolrow?.close());

  it('stops the runaway read and names the way out; the next query works', async () => {
    const ctx = contextFor(toolrow, { limits: { statementTimeoutMs: 300 } });
    await expect(
      invokeTool('runQuery', { sql: 'SELECT count(*) FROM generate_series(1, 1000000000) a' }, ctx),
    ).rejects.toThrow(/ran longer than 0\.3 s and was stopped\. Make it cheaper: .*explainQuery/);
    const after = await invokeTool('runQuery', { sql: 'SELECT count(*) AS n FROM orders' }, ctx);
    expect(Number(after.rows[0]?.n)).toBe(50);
  });
});
