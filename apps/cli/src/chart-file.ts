// `toolrow call drawChart … --out chart.svg|chart.png`: the chart drawn headless in Node, with
// Vega's SVG renderer and resvg for PNG (its binary ships inside its npm package).
import { writeFile } from 'node:fs/promises';
import { extname, resolve } from 'node:path';
import { svgToPng } from '@toolrow/charts/png';
import { renderSvg } from '@toolrow/charts/render';
import { DISPLAY_FIELD } from '@toolrow/tools';
import { UsageError } from './command.ts';

export type ChartFormat = 'svg' | 'png';

/** The format --out names by its extension, refused before anything runs. */
export function chartFormatOf(path: string): ChartFormat {
  const extension = extname(path).toLowerCase();
  if (extension === '.svg') return 'svg';
  if (extension === '.png') return 'png';
  throw new UsageError(
    `--out writes a chart as .svg or .png; '${path}' ends in '${extension || 'no extension'}'. Try --out chart.svg.`,
  );
}

/** The chart a tool's output carries for the surfaces, if it has one. */
function chartSpecOf(output: unknown): Record<string, unknown> | undefined {
  const display = (output as Record<string, unknown> | null)?.[DISPLAY_FIELD] as
    | { kind?: string; spec?: Record<string, unknown> }
    | undefined;
  return display?.kind === 'chart' ? display.spec : undefined;
}

/**
 * Writes the output's chart to `path` and returns the output as printed: its display replaced by
 * where the file is (the data is in the file, not on the terminal).
 */
export async function writeChartFile(
  tool: string,
  output: unknown,
  path: string,
): Promise<Record<string, unknown>> {
  const spec = chartSpecOf(output);
  if (!spec)
    throw new UsageError(`--out writes a chart, and ${tool}'s output has none: call drawChart with --out.`);
  const svg = await renderSvg(spec);
  const target = resolve(path);
  await writeFile(target, chartFormatOf(path) === 'svg' ? svg : svgToPng(svg));
  const { [DISPLAY_FIELD]: _display, ...rest } = output as Record<string, unknown>;
  return { ...rest, written: target };
}
