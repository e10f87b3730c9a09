// The chart as an MCP Apps view (the io.modelcontextprotocol/ui extension): drawChart is listed
// with `_meta.ui.resourceUri` for clients that declare the extension, and the view's HTML is a
// ui:// resource. The view draws what the tool result carries (the PNG, and the rows as stored in
// a table), speaks the extension's postMessage protocol itself, and its CSP loads nothing.
import type { Tool } from '@modelcontextprotocol/server';
import { DISPLAY_FIELD } from '@toolrow/tools';

export const UI_EXTENSION = 'io.modelcontextprotocol/ui';
export const VIEW_MIME_TYPE = 'text/html;profile=mcp-app';
export const CHART_VIEW_URI = 'ui://toolrow/chart';

/** Whether the client declared the extension with HTML views (its `mimeTypes`, when it lists any). */
export function clientTakesViews(capabilities: unknown): boolean {
  const extension = (capabilities as { extensions?: Record<string, { mimeTypes?: unknown }> } | undefined)
    ?.extensions?.[UI_EXTENSION];
  if (!extension) return false;
  return !Array.isArray(extension.mimeTypes) || extension.mimeTypes.includes(VIEW_MIME_TYPE);
}

/** A tool draws a chart when its output schema carries a chart display: derived, not listed. */
export function drawsChart(tool: Pick<Tool, 'outputSchema'>): boolean {
  const display = (
    tool.outputSchema?.properties as
      | Record<string, { properties?: { kind?: { const?: unknown } } }>
      | undefined
  )?.[DISPLAY_FIELD];
  return display?.properties?.kind?.const === 'chart';
}

/** The listing a view-taking client gets: each chart tool linked to the view. */
export function withChartView(tools: readonly Tool[]): Tool[] {
  return tools.map((tool) =>
    drawsChart(tool) ? { ...tool, _meta: { ...tool._meta, ui: { resourceUri: CHART_VIEW_URI } } } : tool,
  );
}

export const CHART_VIEW_RESOURCE = {
  uri: CHART_VIEW_URI,
  name: 'chart-view',
  title: 'Toolrow chart',
  description: "A chart drawChart drew: the image, and the read's rows as stored.",
  mimeType: VIEW_MIME_TYPE,
  // Nothing to allow: the view reaches no origin (the extension's CSP metadata, empty on purpose).
  _meta: { ui: { csp: { connectDomains: [], resourceDomains: [] }, prefersBorder: true } },
};

// The view's script: ui/initialize, then draw each tool result the host sends. Text goes in with
// textContent, the image as a data: URL of the PNG the server drew; nothing is fetched.
const VIEW_SCRIPT = `
(() => {
  const status = document.getElementById('status');
  const image = document.getElementById('chart');
  const table = document.getElementById('rows');
  let nextId = 1;
  const pending = new Map();
  const send = (message) => window.parent.postMessage({ jsonrpc: '2.0', ...message }, '*');
  const request = (method, params) =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      send({ id, method, params });
    });
  function draw(result) {
    const png = (result.content || []).find((block) => block.type === 'image' && block.mimeType === 'image/png');
    const output = result.structuredContent || {};
    if (result.isError || !png) {
      const text = (result.content || []).find((block) => block.type === 'text');
      status.textContent = text ? text.text : 'No chart in this result.';
      return;
    }
    image.src = 'data:image/png;base64,' + png.data;
    image.alt = output.summary || 'A chart';
    image.hidden = false;
    status.textContent = output.summary || '';
    const values = (((output.display || {}).spec || {}).data || {}).values || [];
    const columns = output.columns || [];
    table.replaceChildren();
    const head = table.createTHead().insertRow();
    for (const column of columns) head.appendChild(document.createElement('th')).textContent = column;
    const body = table.createTBody();
    for (const value of values.slice(0, 200)) {
      const row = body.insertRow();
      for (const column of columns) {
        const stored = value[column + ' (as stored)'];
        const shown = stored !== undefined ? stored : value[column];
        row.insertCell().textContent = shown === null || shown === undefined ? '' : String(shown);
      }
    }
    table.hidden = columns.length === 0;
  }
  window.addEventListener('message', (event) => {
    if (event.source !== window.parent) return;
    const message = event.data;
    if (!message || message.jsonrpc !== '2.0') return;
    if (message.id !== undefined && message.method === undefined) {
      const waiting = pending.get(message.id);
      pending.delete(message.id);
      if (waiting) message.error ? waiting.reject(message.error) : waiting.resolve(message.result);
      return;
    }
    if (message.method === 'ui/notifications/tool-result') draw(message.params || {});
    else if (message.id !== undefined) send({ id: message.id, result: {} });
  });
  request('ui/initialize', {
    appInfo: { name: 'toolrow-chart', version: '1' },
    appCapabilities: {},
    protocolVersion: '2026-01-26',
  }).then(() => send({ method: 'ui/notifications/initialized', params: {} }));
})();
`;

/** The view's HTML: one file, its own CSP, no external script, style, font or image. */
export function chartViewHtml(): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src 'unsafe-inline'">
<title>Toolrow chart</title>
<style>
  body { font: 13px system-ui, sans-serif; margin: 8px; color: #222; }
  img { max-width: 100%; height: auto; display: block; }
  table { border-collapse: collapse; margin-top: 8px; font-variant-numeric: tabular-nums; }
  th, td { border: 1px solid #ddd; padding: 2px 6px; text-align: left; }
</style>
</head>
<body>
<img id="chart" hidden alt="">
<p id="status">Waiting for the chart…</p>
<table id="rows" hidden></table>
<script>${VIEW_SCRIPT}</script>
</body>
</html>
`;
}
