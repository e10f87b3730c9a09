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
  sql: sqlText
    .optional()
    .describe(
      "One SELECT whose result is the chart's data: aggregate here (GROUP BY), at most 5000 rows. Or give saved.",
    ),
  saved: textField(200)
    .optional()
    .describe('A saved query (listSavedSpecs) to chart instead of sql; a saved chart brings its own spec.'),
  spec: z
    .record(z.string(), z.unknown())
    .optional()
    .describe(
      "A Vega-Lite spec without data: mark ('bar', 'line', 'point', 'arc', 'area' …) and encoding (x, y, color, theta, size …), each {field: a result column, type?: 'quantitative'|'nominal'|'temporal'|'ordinal', aggregate?}; optional transform and title.",
    ),
  title: textField(200).optional().describe('A title for the chart (default: none, or the spec’s own).'),
});

type ChartInput = z.output<typeof chartInput>;
/** The input with its read and spec settled (a saved query's SQL, a saved chart's spec). */
type ResolvedChart = ChartInput & { sql: string; spec: Record<string, unknown> };

/** The read and the spec: given, or from a saved query (kind 'query', spec { sql, chart? }). */
async function resolveChart(input: ChartInput, ctx: ToolContext): Promise<ResolvedChart> {
  if ((input.sql === undefined) === (input.saved === undefined))
    throw new ToolError(
      'invalid-input',
      'drawChart',
      input.sql === undefined
        ? 'Give the read to chart: sql (one SELECT), or saved (a saved query listSavedSpecs names).'
        : 'Give sql or saved, not both: the chart has one read.',
    );
  if (input.sql !== undefined) {
    if (!input.spec)
      throw new ToolError(
        'invalid-input',
        'drawChart',
        'Give spec: the chart\'s mark and encoding ({"mark":"bar","encoding":{…}}).',
      );
    return { ...input, sql: input.sql, spec: input.spec };
  }
  const saved = await ctx.state.specs.get(input.saved as string);
  const stored = saved.spec as { sql?: unknown; chart?: unknown };
  if (saved.kind !== 'query' || typeof stored.sql !== 'string')
    throw new ToolError(
      'invalid-input',
      'drawChart',
      `The saved spec '${saved.name}' is a ${saved.kind}, not a query: chart a query (listSavedSpecs shows each one's kind), or give sql.`,
    );
  const spec =
    input.spec ??
    (typeof stored.chart === 'object' && stored.chart !== null
      ? (stored.chart as Record<string, unknown>)
      : undefined);
  if (!spec)
    throw new ToolError(
      'invalid-input',
      'drawChart',
      `The saved query '${saved.name}' has no chart: give spec (mark and encoding).`,
    );
  return { ...input, sql: stored.sql, spec };
}

function refusedChart(error: unknown): never {
  if (isChartRefusal(error)) throw new ToolError('refused', 'drawChart', error.message, { cause: error });
  throw error;
}

function specOf(input: ResolvedChart): Record<string, unknown> {
  return input.title ? { ...input.spec, title: input.title } : input.spec;
}

/** Checks what can be checked without reading: the statement, and a spec that reaches nothing. */
async function prepareChart(input: ChartInput, ctx: ToolContext): Promise<ChartInput> {
  const resolved = await resolveChart(input, ctx);
  await guardStatement('drawChart', resolved.sql, ctx);
  try {
    checkChartShape(specOf(resolved));
  } catch (error) {
    refusedChart(error);
  }
  return input;
}

export const drawChart = defineProposable({
  inputSchema: chartInput,
  prepare: prepareChart,
  label(input) {
    const mark = typeof input.spec?.mark === 'string' ? input.spec.mark : 'chart';
    const read = input.sql ? clipText(input.sql.replace(/\s+/g, ' '), 60) : `the saved query ${input.saved}`;
    return `Draw a ${mark} chart${input.title ? ` "${input.title}"` : ''} of: ${read}`;
  },
  async execute(raw, ctx) {
    const input = await resolveChart(raw, ctx);
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
      display: {
        kind: 'chart' as const,
        sql: statement.statement,
        // The spec as written (no data), what a saved chart keeps.
        chart: spec,
        spec: chart.spec,
      },
    };
  },
});
