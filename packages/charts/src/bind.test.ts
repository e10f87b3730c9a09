import { describe, expect, it } from 'vitest';
import { bindChart, type ChartRows } from './bind.ts';
import { isChartRefusal } from './refusal.ts';

const monthly: ChartRows = {
  columns: ['month', 'revenue', 'status', 'orders'],
  rows: [
    { month: '2026-01-01', revenue: '1234.50', status: 'paid', orders: 12 },
    { month: '2026-02-01', revenue: '99.99', status: 'paid', orders: 3 },
    { month: '2026-03-01', revenue: '0.10', status: 'refunded', orders: 1 },
  ],
};

function refusal(spec: unknown, rows: ChartRows = monthly, maxPoints?: number) {
  try {
    bindChart(spec, rows, maxPoints === undefined ? {} : { maxPoints });
  } catch (error) {
    if (isChartRefusal(error)) return error;
    throw error;
  }
  throw new Error('bindChart accepted the spec');
}

describe('bindChart', () => {
  it('binds the read as the only data, infers types from values and validates against Vega-Lite', () => {
    const chart = bindChart(
      { mark: 'line', encoding: { x: { field: 'month' }, y: { field: 'revenue' } } },
      monthly,
    );
    expect(chart.points).toBe(3);
    expect(chart.mark).toBe('line');
    expect(chart.encodings).toEqual({ x: 'month', y: 'revenue' });
    const spec = chart.spec as {
      encoding: Record<string, { type?: string; field?: string }[] & { type?: string }>;
      data: { values: Record<string, unknown>[] };
    };
    expect(spec.encoding.x?.type).toBe('temporal');
    expect(spec.encoding.y?.type).toBe('quantitative');
    expect(spec.data.values[0]).toMatchObject({ revenue: 1234.5, 'revenue (as stored)': '1234.50' });
    expect(chart.summary).toBe('A line chart (x: month, y: revenue) of 3 rows.');
  });

  it('keeps decimals exact where a person reads them: the tooltip shows the stored text', () => {
    const chart = bindChart(
      { mark: 'bar', encoding: { x: { field: 'status' }, y: { field: 'revenue' } } },
      monthly,
    );
    const tooltip = (chart.spec.encoding as { tooltip: { field: string; title: string }[] }).tooltip;
    expect(tooltip).toContainEqual({ field: 'revenue (as stored)', type: 'nominal', title: 'revenue' });
  });

  it('escapes a column whose name Vega-Lite would read as a path', () => {
    const rows: ChartRows = { columns: ['a.b', 'n'], rows: [{ 'a.b': 'x', n: 1 }] };
    const chart = bindChart({ mark: 'bar', encoding: { x: { field: 'a.b' }, y: { field: 'n' } } }, rows);
    expect((chart.spec.encoding as { x: { field: string } }).x.field).toBe('a\\.b');
  });

  it('accepts names the spec’s transforms make', () => {
    const chart = bindChart(
      {
        mark: 'bar',
        transform: [{ aggregate: [{ op: 'sum', field: 'orders', as: 'total' }], groupby: ['status'] }],
        encoding: { x: { field: 'status' }, y: { field: 'total', type: 'quantitative' } },
      },
      monthly,
    );
    expect(chart.encodings.y).toBe('total');
  });

  it.each([
    {
      name: 'a field that is no column',
      spec: { mark: 'bar', encoding: { x: { field: 'month' }, y: { field: 'revenu' } } },
      code: 'field',
      message: "'revenu' is not a column of the result: did you mean 'revenue'?",
    },
    {
      name: 'a quantitative encoding over text',
      spec: {
        mark: 'bar',
        encoding: { x: { field: 'month' }, y: { field: 'status', type: 'quantitative' } },
      },
      code: 'type',
      message: 'encoding.y.field \'status\' holds text (e.g. "paid"), not numbers',
    },
    {
      name: 'a sum of text',
      spec: { mark: 'bar', encoding: { x: { field: 'month' }, y: { field: 'status', aggregate: 'sum' } } },
      code: 'type',
      message: "count it (aggregate: 'count')",
    },
    {
      name: 'a temporal encoding over text',
      spec: { mark: 'line', encoding: { x: { field: 'status', type: 'temporal' }, y: { field: 'orders' } } },
      code: 'type',
      message: 'not dates, so it cannot be temporal',
    },
    {
      name: 'an unknown mark',
      spec: { mark: 'bars', encoding: { x: { field: 'status' } } },
      code: 'mark',
      message: "mark 'bars' is not a mark: did you mean 'bar'?",
    },
    {
      name: 'no mark',
      spec: { encoding: { x: { field: 'status' } } },
      code: 'mark',
      message: 'The spec has no mark',
    },
    {
      name: 'a channel Vega-Lite does not have',
      spec: { mark: 'bar', encoding: { x: { field: 'status' }, why: { field: 'orders' } } },
      code: 'schema',
      message: "Vega-Lite's schema refuses the spec at encoding: it has no property 'why'",
    },
    {
      name: 'a type Vega-Lite does not have',
      spec: { mark: 'bar', encoding: { x: { field: 'status', type: 'category' } } },
      code: 'schema',
      message: 'encoding.x.type',
    },
    { name: 'not an object', spec: [1, 2], code: 'schema', message: 'not an array' },
  ])('refuses $name, naming the field and the fix', ({ spec, code, message }) => {
    const error = refusal(spec);
    expect(error.code).toBe(code);
    expect(error.message).toContain(message);
  });

  it('refuses more points than the bound, saying how to aggregate, and never samples', () => {
    const error = refusal({ mark: 'point', encoding: { x: { field: 'orders' } } }, monthly, 2);
    expect(error.code).toBe('points');
    expect(error.message).toContain('more than 2 rows');
    expect(error.message).toContain('GROUP BY');
    const truncated = refusal(
      { mark: 'point', encoding: { x: { field: 'orders' } } },
      { ...monthly, truncated: true },
    );
    expect(truncated.code).toBe('points');
  });
});
