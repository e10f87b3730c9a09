// The security boundaries, on both engines: read-only queries, staging-only writes, contained exports.
import { lstat, mkdir, readdir, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { DataSource } from '@toolrow/datasource';
import { checkReadOnlySql, sqlDatabaseOf } from '@toolrow/postgres';
import type { Toolrow } from '@toolrow/state';
import { testStores } from '@toolrow/state/testing';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ToolError } from './errors.ts';
import { WRITE_SCOPE_TOOLS } from './generated/write-scopes.ts';
import { invokeTool } from './registry.ts';
import { contextFor, dataFingerprint, writeForms } from './test-fixtures.ts';

async function toolError(promise: Promise<unknown>, what = ''): Promise<ToolError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ToolError) return error;
    throw error;
  }
  throw new Error(`the call succeeded ${what}`);
}

describe.each(testStores())('security boundaries on $name', ({ open }) => {
  let ds: Toolrow;
  let before: Record<string, string>;

  beforeAll(async () => {
    ds = await open({ seed: { orders: 120 } });
    before = await dataFingerprint(ds.source);
  }, 120_000);
  afterAll(async () => {
    await ds?.close();
  });

  it('runQuery, explainQuery, validateQuery and SQL exports refuse generated write forms, and no data changes', async () => {
    const ctx = contextFor(ds);
    await fc.assert(
      fc.asyncProperty(writeForms(), async (sql) => {
        const query = await toolError(invokeTool('runQuery', { sql }, ctx));
        expect(query.code).toBe('refused');
        expect((await toolError(invokeTool('explainQuery', { sql }, ctx))).code).toBe('refused');
        const validation = await invokeTool('validateQuery', { sql }, ctx);
        expect(validation.ok).toBe(false);
        expect((await toolError(invokeTool('startExport', { sql, format: 'csv' }, ctx))).code).toBe(
          'refused',
        );
      }),
      { numRuns: 150 },
    );
    expect(await dataFingerprint(ds.source)).toEqual(before);
  });

  it('PostgreSQL itself refuses the write forms the guard would let through (READ ONLY transaction)', async () => {
    // Defence in depth: run each form straight on the read-only path, as if the guard had missed it.
    await fc.assert(
      fc.asyncProperty(writeForms(), async (sql) => {
        await expect(checkReadOnlySql(sql)).rejects.toThrow();
        await expect(sqlDatabaseOf(ds.source).readQuery(sql, [], { maxRows: 5 })).rejects.toThrow();
      }),
      { numRuns: 100 },
    );
    expect(await dataFingerprint(ds.source)).toEqual(before);
  });

  it('every stage tool stages and leaves every table untouched', async () => {
    const ctx = contextFor(ds);
    const ids = await invokeTool('runQuery', { sql: 'select id from orders order by id limit 3' }, ctx);
    const [first, second] = ids.rows.map((row) => row.id as number);
    const inputs: Record<(typeof WRITE_SCOPE_TOOLS.staging)[number], unknown> = {
      stageInsertRows: {
        table: 'customers',
        rows: [{ name: 'Staged Person', email: 'staged@example.com', city: 'Oslo', country: 'NO' }],
      },
      stageUpdateRows: {
        table: 'orders',
        updates: [{ key: { id: first }, values: { status: 'cancelled' } }],
      },
      stageDeleteRows: { table: 'orders', keys: [second] },
    };
    const stagedBefore = (await ds.state.staging.list()).length;
    for (const tool of WRITE_SCOPE_TOOLS.staging) {
      const output = (await invokeTool(tool, inputs[tool], ctx)) as { staged: number };
      expect(output.staged, tool).toBeGreaterThan(0);
    }
    expect((await ds.state.staging.list()).length).toBe(stagedBefore + WRITE_SCOPE_TOOLS.staging.length);
    expect(await dataFingerprint(ds.source)).toEqual(before);
    await ds.state.staging.discard();
  });

  it('startExport refuses every path outside the exports folder and writes nothing', async () => {
    const ctx = contextFor(ds);
    const dir = ds.state.exports.dir;
    await mkdir(dir, { recursive: true });
    await symlink('/tmp', join(dir, 'escape')).catch(() => undefined);
    const outside = [
      '../orders.csv',
      '../../orders.csv',
      'a/../../orders.csv',
      '/tmp/orders.csv',
      '/etc/passwd',
      'escape/orders.csv',
      'escape',
      '..',
      '.',
      '',
      'sub/../../x.csv',
      `${dir}/../orders.csv`,
      'orders.csv\u0000.txt',
    ];
    const listingBefore = await readdir(dir);
    for (const path of outside) {
      const error = await toolError(
        invokeTool('startExport', { table: 'orders', format: 'csv', path }, ctx),
        path,
      );
      expect(['refused', 'invalid-input'], `${JSON.stringify(path)}: ${error.message}`).toContain(error.code);
    }
    await ds.state.exports.idle();
    expect(await readdir(dir)).toEqual(listingBefore);
    expect((await lstat(join(dir, 'escape'))).isSymbolicLink()).toBe(true);
  });
});
