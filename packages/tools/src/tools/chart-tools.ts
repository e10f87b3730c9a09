// drawChart: the model writes the chart, never the data. The read goes through runQuery's path
// (every read-only layer, bounds, time limit, reads reported); @toolrow/charts checks the spec
// against the result and Vega-Lite's schema and binds the rows.
import {
  type BoundChart,
  bindChart,
  checkChartShape,
  isChartRefusal,
  MAX_CHART_POINTS,
} from '@toolrow/charts';
import { z } from 'zod';
import { clipText } from '../bounds.ts';
import type { ToolContext } from '../context.ts';
import { defineProposable } from '../define.ts';
import { ToolError } from '../errors.ts';
import { sqlText, textField } from '../schemas.ts';
import { guardStatement, readForTool } from './query-tools.ts';

const chartInput = z.strictObject({
  sql: sqlText.describe(
    "One SELECT whose result is the chart's data: aggregate here (GROUP BY), at most 5000 rows.",
  ),
  spec: z
    .record(z.string(), z.unknown())
    .describe(
      "A Vega-Lite spec without data: mark ('bar', 'line', 'point', 'arc', 'area' …) and encoding (x, y, color, theta, size …), each {field: a result column, type?: 'quantitative'|'nominal'|'temporal'|'ordinal', aggregate?}; optional transform and title.",
    ),
  title: textField(200).optional().describe('A title for the chart (default: none, or the spec’s own).'),
});

type ChartInput = z.output<typeof chartInput>;

function refusedChart(error: unknown): never {
  if (isChartRefusal(error)) throw new ToolError('refused', 'drawChart', error.message, { cause: error });
  throw error;
}

function specOf(input: ChartInput): Record<string, unknown> {
  return input.title ? { ...input.spec, title: input.title } : input.spec;
}

/** Checks what can be checked without reading: the statement, and a spec that reaches nothing. */
async function prepareChart(input: ChartInput, ctx: ToolContext): Promise<ChartInput> {
  await guardStatement('drawChart', input.sql, ctx);
  try {
    checkChartShape(specOf(input));
  } catch (error) {
    refusedChart(error);
  }
  return input;
}

export const drawChart = defineProposable({
  inputSchema: chartInput,
  prepare: prepareChart,
  label(input) {
    const mark = typeof input.spec.mark === 'string' ? input.spec.mark : 'chart';
    return `Draw a ${mark} chart${input.title ? ` "${input.title}"` : ''} of: ${clipText(input.sql.replace(/\s+/g, ' '), 60)}`;
  },
  async execute(input, ctx) {
    const spec = specOf(input);
    try {
      checkChartShape(spec);
    } catch (error) {
      refusedChart(error);
    }
    // One row past the bound says the result is too large to draw; it is never sampled.
    const { statement, result } = await readForTool('drawChart', input.sql, ctx, {
      maxRows: MAX_CHART_POINTS + 1,
    });
    if (result.truncatedBy === 'bytes' || result.truncatedBy === 'reads')
      throw new ToolError(
        'refused',
        'drawChart',
        `The read stopped before its end (${result.truncatedBy === 'bytes' ? 'its result is too large as text' : (result.readStop ?? 'the engine stopped reading')}), so a chart of it would mislead. Aggregate in the SQL (GROUP BY) or narrow it with WHERE.`,
      );
    const columns = result.fields.map((field) => field.name);
    let chart: BoundChart;
    try {
      chart = bindChart(spec, { columns, rows: result.rows });
    } catch (error) {
      refusedChart(error);
    }
    return {
      summary: chart.summary,
      mark: chart.mark,
      encodings: chart.encodings,
      points: chart.points,
      columns,
      // How each table was read, where the engine says (DynamoDB: GetItem, Query on which index, Scan).
      ...(result.reads ? { reads: result.reads } : {}),
      note: 'The chart is drawn for the user from these rows; its data is not repeated here. Describe what it shows in words if asked.',
      // For the surfaces (the app's card, the CLI's file, MCP's image and view); the model never reads it.
      display: { kind: 'chart' as const, sql: statement.statement, spec: chart.spec },
    };
  },
});
