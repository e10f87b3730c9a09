// TPC-H at scale factor 0.01 on DynamoDB Local: its 22 queries, as DuckDB's tpch extension runs
// them, through runQuery's engine path and through an export, each compared with plain DuckDB
// over the same data. The data is written with the AWS SDK alone (another tool's items: numbers as
// N, dates as ISO text), so what Toolrow reads is what any DynamoDB user has.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import type { DataSourceWith } from '@toolrow/datasource';
import { createMemoryExportJobStore } from '@toolrow/datasource-utils';
import { describeWithService } from '@toolrow/test-services';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { bareClient } from '../../test/bare-sdk.ts';
import { type CountingProxy, countingProxy } from '../../test/counting-proxy.ts';
import { freshDynamoUrl } from '../../test/dynamodb-local.ts';
import { generateTpch, loadIntoDuckdb, loadIntoDynamo } from '../../test/tpch.ts';
import { TPCH_QUERIES } from '../../test/tpch-queries.ts';
import { openDynamoDataSource } from '../source.ts';

/**
 * A value as both engines must give it: exact digits (decimals without the zeros a scale adds)
 * except where the reference's column is a double, which compares to 12 significant digits.
 */
function normalize(value: unknown, double: boolean): unknown {
  if (value === null || value === undefined) return null;
  if (double) return Number(Number(value).toPrecision(12)).toString();
  if (typeof value === 'bigint' || typeof value === 'number') return String(value);
  if (typeof value === 'string' && /^-?\d+\.\d+$/.test(value)) return value.replace(/\.?0+$/, '');
  return value;
}

const rowsOf = (rows: readonly (readonly unknown[])[], doubles: readonly boolean[]) =>
  rows.map((row) => row.map((value, index) => normalize(value, doubles[index] ?? false)));

describeWithService('dynamodb', 'TPC-H (SF 0.01) over DynamoDB answers as DuckDB does', () => {
  let dir: string;
  let dynamo: DataSourceWith;
  let reference: DuckDBConnection;
  let instance: DuckDBInstance;
  let exports: ReturnType<DataSourceWith['createExportEngine']>;
  let proxy: CountingProxy;
  /** Items each query read through runQuery, counted at the proxy (keys asked for, items evaluated). */
  const itemsRead = new Map<number, number>();

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'toolrow-tpch-'));
    const url = freshDynamoUrl();
    const tables = generateTpch(0.01);
    const client = bareClient(url);
    instance = await DuckDBInstance.create(':memory:');
    reference = await instance.connect();
    await reference.run("SET TimeZone = 'UTC'");
    await Promise.all([loadIntoDynamo(client, tables), loadIntoDuckdb(reference, tables)]);
    client.destroy();
    proxy = await countingProxy(url);
    dynamo = await openDynamoDataSource({ url: proxy.url, dataDir: dir });
    await dynamo.schema.refresh();
    exports = dynamo.createExportEngine(join(dir, 'exports'), createMemoryExportJobStore());
  }, 600_000);

  afterAll(async () => {
    await dynamo?.close();
    await proxy?.close();
    reference?.closeSync();
    instance?.closeSync();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it.each(TPCH_QUERIES.map((sql, index) => [index + 1, sql] as const))(
    'Q%i through runQuery and through an export',
    async (number, sql) => {
      const expected = await reference.runAndReadAll(sql);
      const names = expected.columnNames();
      const doubles = expected.columnTypes().map((type) => /^(DOUBLE|FLOAT)$/.test(String(type)));
      const want = rowsOf(expected.getRowsJson() as unknown[][], doubles);

      proxy.take();
      const result = await dynamo.queries.run(sql, { maxRows: 10_000, timeoutMs: 300_000 });
      itemsRead.set(
        number,
        proxy
          .take()
          .filter((request) => ['GetItem', 'BatchGetItem', 'Query', 'Scan'].includes(request.operation))
          .reduce((sum, request) => sum + (request.keys ?? request.items), 0),
      );
      expect(result.truncated).toBe(false);
      expect(result.fields.map((field) => field.name)).toEqual(names);
      expect(
        rowsOf(
          result.rows.map((row) => names.map((name) => row[name])),
          doubles,
        ),
      ).toEqual(want);

      const job = await exports.run({ source: { sql }, format: 'ndjson', actor: 'user' });
      expect(job.error).toBeNull();
      expect(job.state).toBe('done');
      const text = await readFile(job.path, 'utf8');
      const exported = text
        .split('\n')
        .filter((line) => line.trim() !== '')
        // Numbers as the file writes them (their digits), not as a double reads them.
        .map(
          (line) =>
            JSON.parse(line, ((_key: string, value: unknown, context?: { source?: string }) =>
              typeof value === 'number' ? (context?.source ?? value) : value) as never) as Record<
              string,
              unknown
            >,
        );
      expect(
        rowsOf(
          exported.map((row) => names.map((name) => row[name])),
          doubles,
        ),
      ).toEqual(want);
    },
    600_000,
  );

  it('Q2, Q17 and Q20 read at most 10,000 items together: filtered small tables pin the big ones', () => {
    const total = [2, 17, 20].reduce((sum, number) => sum + (itemsRead.get(number) ?? Number.NaN), 0);
    expect(total).toBeLessThanOrEqual(10_000);
  });
});
