// Rendering 10,000 points to SVG and PNG: Toolrow's path (bindChart's checks and binding, then
// renderSvg and svgToPng) against Vega's own pipeline on the same spec and rows (vega-lite's
// compile and Vega's View.toSVG with Vega's default loader: what `vl2svg` runs, without the
// node-canvas binary vega-cli needs, which downloads from GitHub at install and cannot be
// installed here). Each side runs in a fresh process, taking turns; medians and peak RSS compared.
//
//   npm run bench -w @toolrow/charts     (CHART_BENCH_RUNS=N, default 7)
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const runs = Number(process.env.CHART_BENCH_RUNS ?? 7);
const POINTS = 10_000;
const self = fileURLToPath(import.meta.url);

async function child(kind: 'toolrow-svg' | 'toolrow-png' | 'vega-svg'): Promise<void> {
  const rows = Array.from({ length: POINTS }, (_, index) => ({
    x: index,
    y: ((index * 7919) % 1000) / 10,
    total: `${(index * 37) % 10_000}.${String(index % 100).padStart(2, '0')}`,
  }));
  const spec = { mark: 'point', encoding: { x: { field: 'x' }, y: { field: 'total' } } };
  const started = performance.now();
  if (kind === 'vega-svg') {
    const { compile } = await import('vega-lite');
    const { parse, View, loader } = await import('vega');
    const values = rows.map((row) => ({ ...row, total: Number(row.total) }));
    const full = {
      $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
      width: 560,
      height: 320,
      ...spec,
      encoding: { x: { field: 'x', type: 'quantitative' }, y: { field: 'total', type: 'quantitative' } },
      data: { values },
    };
    const view = new View(parse(compile(full as never).spec), { renderer: 'none', loader: loader() });
    const svg = await view.toSVG();
    view.finalize();
    if (svg.length < 1000) throw new Error('vega drew nothing');
  } else {
    const { bindChart } = await import('../src/bind.ts');
    const { renderSvg } = await import('../src/render.ts');
    const chart = bindChart(spec, { columns: ['x', 'y', 'total'], rows }, { maxPoints: POINTS });
    const svg = await renderSvg(chart.spec);
    if (kind === 'toolrow-png') {
      const { svgToPng } = await import('../src/png.ts');
      if (svgToPng(svg).length < 1000) throw new Error('resvg drew nothing');
    }
  }
  const elapsed = performance.now() - started;
  process.stdout.write(JSON.stringify({ elapsed, maxRssKb: process.resourceUsage().maxRSS }));
}

function sample(kind: string): { elapsed: number; maxRssKb: number } {
  const result = spawnSync(process.execPath, ['--conditions=@toolrow/source', self, kind], {
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(`${kind} failed: ${result.stderr.slice(0, 800)}`);
  return JSON.parse(result.stdout);
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

if (process.argv[2]) {
  await child(process.argv[2] as 'toolrow-svg');
} else {
  const kinds = ['vega-svg', 'toolrow-svg', 'toolrow-png'] as const;
  const samples = Object.fromEntries(
    kinds.map((kind) => [kind, [] as { elapsed: number; maxRssKb: number }[]]),
  );
  for (let round = 0; round < runs; round++)
    for (const kind of round % 2 === 0 ? kinds : [...kinds].reverse()) samples[kind]!.push(sample(kind));
  const summary = Object.fromEntries(
    kinds.map((kind) => [
      kind,
      {
        ms: Math.round(median(samples[kind]!.map((entry) => entry.elapsed))),
        peakRssMb: Math.round(Math.max(...samples[kind]!.map((entry) => entry.maxRssKb)) / 1024),
      },
    ]),
  );
  const vega = summary['vega-svg']!;
  const svg = summary['toolrow-svg']!;
  const png = summary['toolrow-png']!;
  console.log(`Rendering ${POINTS.toLocaleString('en-US')} points, median of ${runs} fresh processes:`);
  console.log(`  Vega's own (compile + View.toSVG)        ${vega.ms} ms, peak RSS ${vega.peakRssMb} MB`);
  console.log(
    `  Toolrow SVG (checks + bind + renderSvg)  ${svg.ms} ms, peak RSS ${svg.peakRssMb} MB  (${(svg.ms / vega.ms).toFixed(2)}×)`,
  );
  console.log(
    `  Toolrow PNG (… + resvg)                  ${png.ms} ms, peak RSS ${png.peakRssMb} MB  (${(png.ms / vega.ms).toFixed(2)}× Vega's SVG)`,
  );
}
