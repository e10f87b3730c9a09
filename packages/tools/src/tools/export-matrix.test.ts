// startExport writes what it was asked for, on every engine: a table's filter, sort and columns,
// and a SQL read. Each file is compared with the same rows read through the engine's own
// readers (countRows, runQuery), so an export that ignores any part of the request fails here.
import { readFile } from 'node:fs/promises';
import type { Toolrow } from '@toolrow/state';
import {
  dynamoTestStore,
  mariadbTestStore,
  type StoreEngine,
  sqliteTestStore,
  testStores,
} from '@toolrow/state/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isToolError } from '../errors.ts';
import { invokeTool } from '../registry.ts';
import { contextFor } from '../test-fixtures.ts';

const ENGINES: StoreEngine[] = [
  ...testStores(),
  ...[dynamoTestStore(), mariadbTestStore()].filter((store) => store !== undefined),
  sqliteTestStore(),
];

const PAID = [{ column: 'status', op: 'eq', value: 'paid' }];

describe.each(ENGINES)(
  'startExport on $name writes the filter, sort, columns and SQL it was given',
  ({ name, open }) => {
    let toolrow: Toolrow;
    beforeAll(async () => {
      toolrow = await open({ seed: { orders: 120 } });
    });
    afterAll(() => toolrow?.close());

    async function exported(input: Record<string, unknown>): Promise<Record<string, unknown>[]> {
      const ctx = contextFor(toolrow);
      const started = (await invokeTool('startExport', { format: 'ndjson', ...input }, ctx)) as {
        id: string;
      };
      await toolrow.state.exports.idle();
      const job = await toolrow.state.exports.status(started.id);
      expect(job.error, `export ${JSON.stringify(input)}`).toBeNull();
      expect(job.state).toBe('done');
      const text = await readFile(job.path, 'utf8');
      return text
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as Record<string, unknown>);
    }

    it('a filter: only the matching rows, as many as countRows counts', async () => {
      const { count } = (await invokeTool(
        'countRows',
        { table: 'orders', filter: PAID },
        contextFor(toolrow),
      )) as {
        count: number;
      };
      expect(count).toBeGreaterThan(0);
      const rows = await exported({ table: 'orders', filter: PAID });
      expect(rows).toHaveLength(count);
      expect(new Set(rows.map((row) => row.status))).toEqual(new Set(['paid']));
    });

    it('columns: only those, in the order asked', async () => {
      const rows = await exported({ table: 'orders', columns: ['status', 'id'] });
      expect(rows.length).toBeGreaterThan(100);
      for (const row of rows) expect(Object.keys(row)).toEqual(['status', 'id']);
    });

    it('a sort: rows in that order, or a refusal naming it where the engine keeps key order', async () => {
      const request = { table: 'orders', sort: ['total desc'], columns: ['id', 'total'] };
      if (name === 'dynamodb') {
        const error = await invokeTool(
          'startExport',
          { format: 'ndjson', ...request },
          contextFor(toolrow),
        ).then(
          () => undefined,
          (caught: unknown) => caught,
        );
        expect(isToolError(error) || error instanceof Error).toBe(true);
        expect(String((error as Error).message)).toMatch(/sort/);
        return;
      }
      const rows = await exported(request);
      expect(rows.length).toBeGreaterThan(100);
      const totals = rows.map((row) => Number(row.total));
      expect(totals).toEqual([...totals].sort((a, b) => b - a));
      // Paged reads of a sorted table see each row once.
      expect(new Set(rows.map((row) => String(row.id))).size).toBe(rows.length);
    });

    it('SQL: the read’s own rows', async () => {
      const sql = "SELECT id, status FROM orders WHERE status = 'paid'";
      const { rows: read } = (await invokeTool('runQuery', { sql }, contextFor(toolrow))) as {
        rows: Record<string, unknown>[];
      };
      const rows = await exported({ sql });
      const ids = (list: Record<string, unknown>[]) => list.map((row) => String(row.id)).sort();
      expect(ids(rows)).toEqual(ids(read));
      expect(new Set(rows.map((row) => row.status))).toEqual(new Set(['paid']));
    });
  },
);
