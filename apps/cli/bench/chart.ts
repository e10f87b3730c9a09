// A chart end to end through the CLI, as a user draws one: `toolrow call drawChart … --out
// chart.svg` over a GROUP BY of 100,000 orders, against the peer doing the same by hand in the
// same run: `toolrow call runQuery` for the rows, vega-lite's own `vl2vg` to compile the spec
// with them, and Vega's renderer to SVG (what vega-cli's vg2svg runs). Each step is its own
// process, timed from start to exit; the peer's time is the sum of its three. On PGlite (a data
// dir seeded by `toolrow db seed`, as a new user has it) and, with TOOLROW_TEST_DYNAMODB_URL set,
// on DynamoDB Local (100,000 items). Goal (issue 59): at most 1.3× the peer's sum.
//
//   npm run bench -w toolrow      (CHART_BENCH_ROWS=N, default 100000; CHART_BENCH_ROUNDS, default 3)
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchTarget, timed } from '../../../packages/dynamodb/bench/support.ts';

const ROWS = Number(process.env.CHART_BENCH_ROWS ?? 100_000);
const ROUNDS = Math.max(1, Number(process.env.CHART_BENCH_ROUNDS ?? 3));
const CLI = fileURLToPath(new URL('../bin/toolrow.js', import.meta.url));
const RENDER = fileURLToPath(new URL('./vega-render.mjs', import.meta.url));
// vega-lite exports no package.json; its schema sits in build/, beside bin/.
const VL2VG = join(
  dirname(createRequire(import.meta.url).resolve('vega-lite/vega-lite-schema.json')),
  '..',
  'bin',
  'vl2vg',
);
const SPEC = { mark: 'bar', encoding: { x: { field: 'g' }, y: { field: 'revenue' } } };

interface Side {
  ms: number;
  peakMb: number;
}

async function bench(label: string, env: Record<string, string | undefined>, sql: string, dir: string) {
  let ours: Side = { ms: Number.POSITIVE_INFINITY, peakMb: 0 };
  let peer: Side & { parts: number[] } = { ms: Number.POSITIVE_INFINITY, peakMb: 0, parts: [] };
  for (let round = 0; round < ROUNDS; round++) {
    const drawn = await timed(
      [CLI, 'call', 'drawChart', JSON.stringify({ sql, spec: SPEC }), '--out', join(dir, 'ours.svg')],
      env,
      dir,
    );
    ours = { ms: Math.min(ours.ms, drawn.ms), peakMb: Math.max(ours.peakMb, drawn.peakMb) };
    const read = await timed([CLI, 'call', 'runQuery', JSON.stringify({ sql })], env, dir);
    const { rows } = JSON.parse(read.stdout) as { rows: Record<string, unknown>[] };
    const values = rows.map((row) => ({ ...row, revenue: Number(row.revenue) }));
    await writeFile(
      join(dir, 'peer.vl.json'),
      JSON.stringify({
        $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
        width: 560,
        height: 320,
        mark: 'bar',
        encoding: { x: { field: 'g', type: 'nominal' }, y: { field: 'revenue', type: 'quantitative' } },
        data: { values },
      }),
    );
    const compiled = await timed([VL2VG, join(dir, 'peer.vl.json'), join(dir, 'peer.vg.json')], {}, dir);
    const rendered = await timed([RENDER, join(dir, 'peer.vg.json'), join(dir, 'peer.svg')], {}, dir);
    const sum = read.ms + compiled.ms + rendered.ms;
    if (sum < peer.ms)
      peer = {
        ms: sum,
        peakMb: Math.max(read.peakMb, compiled.peakMb, rendered.peakMb),
        parts: [read.ms, compiled.ms, rendered.ms],
      };
  }
  const svg = await readFile(join(dir, 'ours.svg'), 'utf8');
  if (!svg.startsWith('<svg')) throw new Error('drawChart wrote no SVG');
  console.log(
    `\nA chart of a GROUP BY over ${ROWS.toLocaleString('en-US')} rows, ${label} (end to end, best of ${ROUNDS})\n`,
  );
  console.log(
    '| | runQuery + vl2vg + Vega to SVG (the peer) | toolrow call drawChart --out chart.svg | ratio |',
  );
  console.log('|---|---|---|---|');
  console.log(
    `| time | ${(peer.ms / 1000).toFixed(2)} s (${peer.parts.map((part) => (part / 1000).toFixed(2)).join(' + ')}) | ${(ours.ms / 1000).toFixed(2)} s | ${(ours.ms / peer.ms).toFixed(2)}× (goal ≤ 1.3×) |`,
  );
  console.log(
    `| peak RSS | ${peer.peakMb.toFixed(0)} MB (the largest step) | ${ours.peakMb.toFixed(0)} MB | |`,
  );
}

const dir = await mkdtemp(join(tmpdir(), 'toolrow-chart-bench-'));
try {
  // PGlite, as a new user has it: a data dir, the sample shop seeded by the CLI.
  const pglite = { TOOLROW_DATA_DIR: join(dir, 'pglite'), DATABASE_URL: '', TOOLROW_CONNECTION: undefined };
  const seeding = performance.now();
  await timed([CLI, 'db', 'seed', '--orders', String(ROWS)], pglite, dir);
  console.error(
    `seeded ${ROWS.toLocaleString('en-US')} orders in ${((performance.now() - seeding) / 1000).toFixed(1)} s`,
  );
  await bench(
    'PGlite',
    pglite,
    'SELECT status AS g, count(*) AS n, sum(total) AS revenue FROM orders GROUP BY status ORDER BY status',
    dir,
  );
  if (process.env.TOOLROW_TEST_DYNAMODB_URL) {
    const { url, fill, client } = benchTarget();
    try {
      const filling = performance.now();
      await fill('chart_items', ROWS);
      console.error(
        `filled ${ROWS.toLocaleString('en-US')} items in ${((performance.now() - filling) / 1000).toFixed(1)} s`,
      );
      const dynamo = {
        DATABASE_URL: url.href,
        TOOLROW_DATA_DIR: join(dir, 'dynamodb'),
        TOOLROW_CONNECTION: undefined,
      };
      await bench(
        'DynamoDB Local',
        dynamo,
        'SELECT category AS g, count(*) AS n, sum(price) AS revenue FROM chart_items GROUP BY category ORDER BY category',
        dir,
      );
    } finally {
      client.destroy();
    }
  } else console.log('\nDynamoDB Local: SKIPPED (set TOOLROW_TEST_DYNAMODB_URL)');
} finally {
  await rm(dir, { recursive: true, force: true });
}
