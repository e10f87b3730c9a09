// Bounds that hold whatever the statement calls: a function that allocates outside DuckDB's
// memory_limit (range(), repeat()) or runs long inside one call is stopped in its own process,
// within the time limit and a few seconds, and this process does not grow; rows made from no
// table are bounded in an export too.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type DataSourceWith, isDataSourceError } from '@toolrow/datasource';
import { createMemoryExportJobStore } from '@toolrow/datasource-utils';
import { describeWithService } from '@toolrow/test-services';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { freshDynamoUrl } from '../../test/dynamodb-local.ts';
import { openDynamoDataSource } from '../source.ts';
import { MAX_GENERATED_ROWS } from './runner.ts';

const MB = 1024 * 1024;
const TIME_LIMIT_MS = 20_000;

describeWithService('dynamodb', 'SQL over DynamoDB: bounds that hold', () => {
  let dir: string;
  let ds: DataSourceWith;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'toolrow-sql-bounds-'));
    ds = await openDynamoDataSource({ url: freshDynamoUrl(), dataDir: dir });
    await ds.seed({ orders: 20, now: new Date('2026-11-15T00:00:00Z') });
    await ds.schema.refresh();
  }, 120_000);

  afterAll(async () => {
    await ds?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it.each([
    ['select len(range(100000000)) as n', /memory/],
    ["select length(repeat('x', 2000000000)) as n", /memory|cannot run|too large|exceeds/i],
    ['select count(*) as n from orders, (select unnest(range(20000000)) as x)', /memory|time limit/],
    ['select count(*) as n from range(1000000) a, range(1000000) b', /time limit/],
  ])(
    '%s is stopped, this process unmoved',
    async (sql, message) => {
      const rssBefore = process.memoryUsage.rss();
      let peak = rssBefore;
      const watch = setInterval(() => {
        peak = Math.max(peak, process.memoryUsage.rss());
      }, 20);
      const started = performance.now();
      const error = await ds.queries
        .run(sql, { timeoutMs: TIME_LIMIT_MS })
        .catch((caught: unknown) => caught)
        .finally(() => clearInterval(watch));
      const elapsed = performance.now() - started;
      expect(isDataSourceError(error), String(error)).toBe(true);
      expect((error as Error).message).toMatch(message);
      expect(elapsed).toBeLessThan(TIME_LIMIT_MS + 5000);
      expect((peak - rssBefore) / MB).toBeLessThan(500);
      // The next statement runs as usual.
      expect((await ds.queries.run('select count(*) as n from orders')).rows).toEqual([{ n: '20' }]);
    },
    60_000,
  );

  it(`an export of rows made from no table stops at ${MAX_GENERATED_ROWS.toLocaleString('en-US')} rows`, async () => {
    const exports = ds.createExportEngine(join(dir, 'exports'), createMemoryExportJobStore());
    const job = await exports.run({
      source: { sql: `select * from range(${MAX_GENERATED_ROWS + 10})` },
      format: 'csv',
      actor: 'user',
    });
    expect(job.state).toBe('failed');
    expect(job.error).toMatch(/reads no table and made more than 1,000,000 rows/);
  }, 120_000);
});
