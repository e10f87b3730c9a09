import { describe, expect, it } from 'vitest';
import type { EvalRequest } from './corpus.ts';
import { grade, type TracedCall } from './grade.ts';
import { renderHtml } from './html.ts';
import { buildReport } from './report.ts';

describe('the HTML report', () => {
  it('is self-contained and escapes what users and models wrote', () => {
    const request: EvalRequest = {
      id: 'x',
      text: 'export <script>alert(1)</script> "now"',
      expect: ['startExport'],
      namesCapability: true,
    };
    const calls: TracedCall[] = [
      { tool: 'searchTools', outcome: 'ran', query: 'export <b>', found: ['startExport'] },
      { tool: 'startExport', outcome: 'failed', error: 'Invalid input: "table" <missing>' },
    ];
    const attempt = {
      run: 0,
      calls,
      ...grade(request, calls),
      steps: 3,
      inputTokens: 9000,
      outputTokens: 50,
      latencyMs: 10,
      text: '',
    };
    const html = renderHtml(
      buildReport([{ request, attempts: [attempt] }], {
        model: 'm<1>',
        mode: 'manual',
        runs: 1,
        startedAt: new Date(0),
        finishedAt: new Date(0),
      }),
    );
    expect(html).not.toContain('<script>');
    expect(html).toContain('export &#60;script&#62;alert(1)&#60;/script&#62; &#34;now&#34;');
    expect(html).toContain('title="Invalid input: &#34;table&#34; &#60;missing&#62;"');
    expect(html).toContain('<title>toolrow eval · m&#60;1&#62;</title>');
    expect(html).toMatch(/<svg id="chart-tools"[\s\S]*<svg id="chart-tokens"/);
    // Nothing is fetched: no external stylesheet, script, image or font.
    expect(html).not.toMatch(/\b(src|href)=|@import|url\(/);
  });
});
