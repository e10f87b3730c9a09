// A chart's MCP result: the spec with its data as structured content, the chart as a PNG for hosts
// that show images, and a text summary for clients that read text only.
import type { CallToolResult } from '@modelcontextprotocol/server';
import { svgToPng } from '@toolrow/charts/png';
import { renderSvg } from '@toolrow/charts/render';
import { DISPLAY_FIELD, outputForModel } from '@toolrow/tools';

interface ChartDisplay {
  kind: 'chart';
  spec: Record<string, unknown>;
}

export function chartDisplayOf(output: unknown): ChartDisplay | undefined {
  if (typeof output !== 'object' || output === null) return undefined;
  const display = (output as Record<string, unknown>)[DISPLAY_FIELD] as Partial<ChartDisplay> | undefined;
  return display?.kind === 'chart' && typeof display.spec === 'object'
    ? (display as ChartDisplay)
    : undefined;
}

/** The content blocks of a chart result: the summary as text, then the chart as a PNG image. */
export async function chartContent(
  output: Record<string, unknown>,
  display: ChartDisplay,
): Promise<CallToolResult['content']> {
  const png = svgToPng(await renderSvg(display.spec));
  return [
    { type: 'text', text: JSON.stringify(outputForModel(output)) },
    { type: 'image', data: Buffer.from(png).toString('base64'), mimeType: 'image/png' },
  ];
}
