// drawChart on every engine: the read goes through runQuery's path (statement check, bounds,
// reads reported), the rows are bound as the chart's only data, and each refusal names the fix.
// The hostile-spec corpus is refused through the tool with a loopback listener counting requests.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostileSpecs } from '@toolrow/charts/hostile-specs';
import { renderSvg } from '@toolrow/charts/render';
import type { Toolrow } from '@toolrow/state';
import {
  dynamoTestStore,
  mariadbTestStore,
  type StoreEngine,
  sqliteTestStore,
  testStores,
} from '@toolrow/state/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isToolError, type ToolError } from '../errors.ts';
import { invokeTool } from '../registry.ts';
import { contextFor } from '../test-fixtures.ts';

const ENGINES: StoreEngine[] = [
  ...testStores(),
  ...[dynamoTestStore(), mariadbTestStore()].filter((store) => store !== undefined),
  sqliteTestStore(),
];

const PER_STATUS = 'SELECT status, count(*) AS n FROM orders GROUP BY status';
const BAR = { mark: 'bar', encoding: { x: { field: 'status' }, y: { field: 'n' } } };

interface ChartOutput {
  summary: string;
  points: number;
  columns: string[];
  reads?: unknown[];
  display: {
    kind: 'chart';
    sql: string;
    spec: { data: { values: Record<string, unknown>[] } } & Record<string, unknown>;
  };
}

let listener: Server;
let base: string;
const seen: string[] = [];
beforeAll(async () => {
  listener = createServer((request, response) => {
    seen.push(request.url ?? '');
    response.end('status,n\nfetched,1\n');
  });
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(listener.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => listener.close(() => resolve())));

describe.each(ENGINES)('drawChart on $name', ({ name, open }) => {
  let toolrow: Toolrow;
  beforeAll(async () => {
    toolrow = await open({ seed: { orders: 120 } });
  });
  afterAll(() => toolrow?.close());

  const draw = (input: Record<string, unknown>) =>
    invokeTool('drawChart', input, contextFor(toolrow)) as unknown as Promise<ChartOutput>;
  async function refusal(input: Record<string, unknown>): Promise<ToolError> {
    try {
      await draw(input);
    } catch (error) {
      if (isToolError(error)) return error;
      throw error;
    }
    throw new Error(`drawChart drew ${JSON.stringify(input)}`);
  }

  it('draws the read’s rows, and only those, as the chart’s data', async () => {
    const chart = await draw({ sql: PER_STATUS, spec: BAR, title: 'Orders per status' });
    const { rows } = (await invokeTool('runQuery', { sql: PER_STATUS }, contextFor(toolrow))) as unknown as {
      rows: { status: string; n: unknown }[];
    };
    expect(chart.points).toBe(rows.length);
    const values = chart.display.spec.data.values;
    expect(values.map((value) => value.status).sort()).toEqual(rows.map((row) => row.status).sort());
    expect(values.reduce((sum, value) => sum + Number(value.n), 0)).toBe(120);
    expect(chart.display.spec.title).toBe('Orders per status');
    expect(chart.summary).toMatch(/^A bar chart \(x: status, y: n\) of \d+ rows\.$/);
    if (name === 'dynamodb')
      expect(chart.reads, 'DynamoDB says how it read').toEqual([
        expect.objectContaining({ table: 'orders', operation: 'Scan' }),
      ]);
    const svg = await renderSvg(chart.display.spec);
    for (const row of rows) expect(svg).toContain(`>${row.status}<`);
    expect(JSON.stringify(chart)).not.toContain('undefined');
  });

  it('keeps stored decimals exact in the tooltip data', async () => {
    const sql = 'SELECT status, sum(total) AS revenue FROM orders GROUP BY status';
    const { rows } = (await invokeTool('runQuery', { sql }, contextFor(toolrow))) as unknown as {
      rows: { status: string; revenue: unknown }[];
    };
    const chart = await draw({
      sql,
      spec: { mark: 'bar', encoding: { x: { field: 'status' }, y: { field: 'revenue' } } },
    });
    for (const value of chart.display.spec.data.values) {
      const stored = rows.find((row) => row.status === value.status)?.revenue;
      if (typeof stored === 'string') expect(value['revenue (as stored)']).toBe(stored);
      else expect(value.revenue).toBe(stored);
    }
  });

  it.each([
    {
      name: 'a field that is no column',
      input: {
        sql: PER_STATUS,
        spec: { mark: 'bar', encoding: { x: { field: 'status' }, y: { field: 'nn' } } },
      },
      message: "'nn' is not a column of the result: did you mean 'n'?",
    },
    {
      name: 'a quantitative encoding over text',
      input: {
        sql: PER_STATUS,
        spec: { mark: 'bar', encoding: { x: { field: 'n' }, y: { field: 'status', type: 'quantitative' } } },
      },
      message: "'status' holds text",
    },
    {
      name: 'an unknown mark',
      input: { sql: PER_STATUS, spec: { ...BAR, mark: 'pie' } },
      message: "mark 'pie' is not a mark",
    },
    {
      name: 'more points than a chart draws',
      input: {
        sql: 'SELECT a.id AS x, b.id AS y FROM orders a CROSS JOIN orders b',
        spec: { mark: 'point', encoding: { x: { field: 'x' }, y: { field: 'y' } } },
      },
      message: 'more than 5000 rows',
    },
    {
      name: 'a write',
      input: { sql: "DELETE FROM orders WHERE status = 'paid'", spec: BAR },
      message: 'DELETE',
    },
  ])('refuses $name, naming the fix', async ({ input, message }) => {
    const error = await refusal(input);
    expect(['refused', 'failed']).toContain(error.code);
    expect(error.message).toContain(message);
  });

  it('charts a saved query, with its saved chart or a spec given; names what is missing', async () => {
    await toolrow.state.specs.save({
      name: 'per-status',
      kind: 'query',
      spec: { sql: PER_STATUS, chart: BAR },
    });
    await toolrow.state.specs.save({ name: 'per-status-sql', kind: 'query', spec: { sql: PER_STATUS } });
    await toolrow.state.specs.save({ name: 'paid-view', kind: 'view', spec: { table: 'orders' } });
    const direct = await draw({ sql: PER_STATUS, spec: BAR });
    const saved = await draw({ saved: 'per-status' });
    expect(saved.points).toBe(direct.points);
    expect(saved.display.sql).toBe(direct.display.sql);
    expect((await draw({ saved: 'per-status-sql', spec: BAR })).points).toBe(direct.points);
    expect((await refusal({ saved: 'per-status-sql' })).message).toContain(
      "'per-status-sql' has no chart: give spec",
    );
    expect((await refusal({ saved: 'paid-view' })).message).toContain("'paid-view' is a view, not a query");
    expect((await refusal({ spec: BAR })).message).toContain('Give the read to chart');
    expect((await refusal({ sql: PER_STATUS, saved: 'per-status', spec: BAR })).message).toContain(
      'not both',
    );
    expect((await refusal({ sql: PER_STATUS })).message).toContain('Give spec');
  });

  it('refuses the hostile-spec corpus through the tool, and nothing is fetched', async () => {
    for (const hostile of hostileSpecs(base)) {
      const error = await refusal({ sql: PER_STATUS, spec: hostile.spec });
      expect(error.code, hostile.name).toBe('refused');
    }
    expect(seen).toEqual([]);
  });
});
