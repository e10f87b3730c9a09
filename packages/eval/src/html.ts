import { type EvalReport, percent, type ToolFigures } from './report.ts';

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

const PASS = '#2f9e44';
const SEARCH = '#1971c2';
const INPUT = '#868e96';
const OUTPUT = '#f08c00';

/** Horizontal bars, two per tool: success and search rate (0..1). */
function toolChart(tools: readonly ToolFigures[]): string {
  const rowHeight = 26;
  const labelWidth = 170;
  const barWidth = 420;
  const height = tools.length * rowHeight + 30;
  const bars = tools
    .map((tool, index) => {
      const y = 24 + index * rowHeight;
      const pass = tool.passRate * barWidth;
      const search = tool.searchRate * barWidth;
      const tag = tool.visibility === 'discoverable' ? ' ◆' : '';
      return [
        `<text x="${labelWidth - 8}" y="${y + 13}" text-anchor="end" class="label">${escapeHtml(tool.tool)}${tag}</text>`,
        `<rect x="${labelWidth}" y="${y}" width="${pass.toFixed(1)}" height="10" fill="${PASS}"><title>${escapeHtml(tool.tool)}: passed ${percent(tool.passRate)} of ${tool.attempts}</title></rect>`,
        `<rect x="${labelWidth}" y="${y + 11}" width="${search.toFixed(1)}" height="8" fill="${SEARCH}"><title>${escapeHtml(tool.tool)}: searched in ${percent(tool.searchRate)}</title></rect>`,
        `<text x="${labelWidth + barWidth + 8}" y="${y + 13}" class="value">${percent(tool.passRate)} · ${percent(tool.searchRate)}</text>`,
      ].join('');
    })
    .join('\n');
  const grid = [0, 0.25, 0.5, 0.75, 1]
    .map((tick) => {
      const x = labelWidth + tick * barWidth;
      return `<line x1="${x}" y1="18" x2="${x}" y2="${height - 6}" class="grid"/><text x="${x}" y="12" text-anchor="middle" class="tick">${percent(tick)}</text>`;
    })
    .join('');
  return `<svg id="chart-tools" role="img" aria-label="Success and search rate per tool" viewBox="0 0 ${labelWidth + barWidth + 110} ${height}" width="${labelWidth + barWidth + 110}" height="${height}">${grid}${bars}</svg>`;
}

/** Vertical stacked bars: mean input and output tokens per request. */
function tokenChart(report: EvalReport): string {
  const requests = report.requests;
  const max = Math.max(1, ...requests.map((r) => (r.meanInputTokens ?? 0) + (r.meanOutputTokens ?? 0)));
  const barWidth = Math.max(3, Math.min(18, Math.floor(900 / Math.max(1, requests.length))));
  const chartHeight = 180;
  const width = requests.length * barWidth + 60;
  const bars = requests
    .map((request, index) => {
      const x = 50 + index * barWidth;
      const input = ((request.meanInputTokens ?? 0) / max) * chartHeight;
      const output = ((request.meanOutputTokens ?? 0) / max) * chartHeight;
      const title = `<title>${escapeHtml(request.id)}: ${Math.round(request.meanInputTokens ?? 0)} in, ${Math.round(request.meanOutputTokens ?? 0)} out</title>`;
      return `<rect x="${x}" y="${(10 + chartHeight - input).toFixed(1)}" width="${barWidth - 1}" height="${input.toFixed(1)}" fill="${INPUT}">${title}</rect><rect x="${x}" y="${(10 + chartHeight - input - output).toFixed(1)}" width="${barWidth - 1}" height="${output.toFixed(1)}" fill="${OUTPUT}">${title}</rect>`;
    })
    .join('');
  const axis = `<text x="44" y="16" text-anchor="end" class="tick">${Math.round(max).toLocaleString('en-US')}</text><text x="44" y="${10 + chartHeight}" text-anchor="end" class="tick">0</text><line x1="50" y1="${10 + chartHeight}" x2="${width}" y2="${10 + chartHeight}" class="grid"/>`;
  return `<svg id="chart-tokens" role="img" aria-label="Tokens per request" viewBox="0 0 ${width} ${chartHeight + 20}" width="${width}" height="${chartHeight + 20}">${axis}${bars}</svg>`;
}

/** A self-contained page (inline CSS and SVG, no script, nothing fetched) the user opens in a browser. */
export function renderHtml(report: EvalReport): string {
  const s = report.summary;
  const tools = report.tools.filter((tool) => tool.attempts > 0);
  const card = (label: string, value: string, detail = '') =>
    `<div class="card"><div class="big">${escapeHtml(value)}</div><div>${escapeHtml(label)}</div><div class="muted">${escapeHtml(detail)}</div></div>`;
  const requestRows = report.requests
    .map((request) => {
      const failed = request.attempts.find((a) => !a.pass);
      const calls =
        request.attempts[0]?.calls
          .map((call) => `${call.tool}${call.outcome === 'ran' ? '' : ` (${call.outcome})`}`)
          .join(' → ') ?? '';
      return `<tr class="${request.passRate === 1 ? 'ok' : 'bad'}"><td class="mono">${escapeHtml(request.id)}</td><td>${escapeHtml(request.text)}</td><td class="mono">${escapeHtml(request.tools.join(', '))}</td><td>${percent(request.passRate)}</td><td>${request.needsSearch ? percent(request.searchRate) : '–'}</td><td class="mono">${escapeHtml(calls)}</td><td>${escapeHtml(failed?.reason ?? '')}</td></tr>`;
    })
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>toolrow eval · ${escapeHtml(report.model)}</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#212529;background:#fff}
h1{font-size:20px;margin:0 0 4px}h2{font-size:16px;margin:28px 0 8px}
.muted{color:#868e96;font-size:12px}.cards{display:flex;gap:12px;flex-wrap:wrap}
.card{border:1px solid #dee2e6;border-radius:6px;padding:10px 14px;min-width:150px}.big{font-size:22px;font-weight:600}
.label{font-size:12px;fill:#212529}.value,.tick{font-size:11px;fill:#495057}.grid{stroke:#e9ecef}
table{border-collapse:collapse;font-size:12px;margin-top:8px}td,th{border-bottom:1px solid #e9ecef;padding:4px 8px;text-align:left;vertical-align:top}
tr.bad td:first-child{border-left:3px solid #e03131}tr.ok td:first-child{border-left:3px solid ${PASS}}
.mono{font-family:ui-monospace,monospace}.key span{display:inline-block;width:10px;height:10px;margin:0 4px 0 12px}
</style></head><body>
<h1>toolrow eval · ${escapeHtml(report.model)}</h1>
<div class="muted">${escapeHtml(report.mode)} mode · ${report.requests.length} requests × ${report.runs} run(s) · ${escapeHtml(report.startedAt)} → ${escapeHtml(report.finishedAt)}</div>
<div class="cards" style="margin-top:16px">
${card('passed', percent(s.passRate), `${s.attempts} attempts`)}
${card('inline requests passed', percent(s.inline.passRate), `${s.inline.attempts} attempts`)}
${card('search-needing passed', percent(s.discoverable.passRate), `${s.discoverable.attempts} attempts`)}
${card('searched when needed', percent(s.discoverable.searchRate), 'the request needed a discoverable tool')}
${card('wrong-twin picks', String(s.wrongTwinPicks), `${s.unaskedWrites} unasked writes`)}
${card('refusals', String(s.refusals), `${s.recovered} recovered`)}
${card('tokens per attempt', `${Math.round(s.meanInputTokens ?? 0).toLocaleString('en-US')} in`, `${Math.round(s.meanOutputTokens ?? 0).toLocaleString('en-US')} out · ${s.meanSteps.toFixed(1)} steps · p50 ${s.latencyP50Ms} ms`)}
</div>
<h2>Success and search rate per tool</h2>
<div class="key muted"><span style="background:${PASS}"></span>passed<span style="background:${SEARCH}"></span>searched · ◆ discoverable</div>
${toolChart(tools)}
<h2>Tokens per request</h2>
<div class="key muted"><span style="background:${INPUT}"></span>input<span style="background:${OUTPUT}"></span>output (mean over runs)</div>
${tokenChart(report)}
<h2>Requests</h2>
<table><thead><tr><th>id</th><th>request</th><th>expected</th><th>passed</th><th>searched</th><th>calls (run 1)</th><th>why it failed</th></tr></thead>
<tbody>
${requestRows}
</tbody></table>
</body></html>
`;
}
