import { describe, expect, it } from 'vitest';
import { bindChart } from './bind.ts';
import { svgToPng } from './png.ts';
import { renderSvg } from './render.ts';

const rows = {
  columns: ['status', 'total'],
  rows: [
    { status: 'paid', total: '1234.50' },
    { status: 'shipped', total: '99.99' },
    { status: 'refunded', total: '0.10' },
  ],
};

describe('renderSvg and svgToPng', () => {
  it('draws a bound chart to SVG with its axes and marks, and to a PNG', async () => {
    const chart = bindChart(
      { mark: 'bar', encoding: { x: { field: 'status' }, y: { field: 'total' } }, title: 'Totals' },
      rows,
    );
    const svg = await renderSvg(chart.spec);
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg).toContain('Totals');
    for (const status of ['paid', 'shipped', 'refunded']) expect(svg).toContain(status);
    // Three bars: Vega draws each as a path in the rect marks' group.
    const bars = svg.slice(svg.indexOf('class="mark-rect role-mark'));
    expect(bars.slice(0, bars.indexOf('</g>')).match(/<path /g)).toHaveLength(3);
    const png = svgToPng(svg);
    expect([...png.slice(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    expect(png.length).toBeGreaterThan(2000);
  });
});
