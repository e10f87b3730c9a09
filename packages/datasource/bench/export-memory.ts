// Export benchmark: a 10k-row and a 1M-row table export (CSV, streamed through a cursor), each in
// its own child process, on PGlite (a data dir on disk, as users run it) and on PostgreSQL when
// TOOLROW_TEST_DATABASE_URL or DATABASE_URL is set. Reports rows/s and the peak RSS growth of the
// 1M export as a ratio of the 10k export's: near 1 means memory does not grow with the row count.
//
//   npm run bench -w @toolrow/datasource            (or: node bench/export-memory.ts)
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openDataSource } from '../src/index.ts';

const SIZES = [10_000, 1_000_000];
const SAMPLE_MS = 5;
// A fixed heap cap for every child: V8 otherwise defers major GCs and RSS tracks garbage, not
// what the export holds. A 1M-row export that held its rows would not fit and would fail here.
const HEAP_MB = 96;

interface Measurement {
  engine: string;
  rows: number;
  ms: number;
  baselineRss: number;
  peakRss: number;
  bytes: number;
}

type Target = { engine: 'pglite'; dataDir: string } | { engine: 'postgres'; url: string };

function openTarget(target: Target, exportsDir: string) {
  return target.engine === 'pglite'
    ? openDataSource({ env: {}, dataDir: target.dataDir, exportsDir })
    : openDataSource({ env: {}, url: target.url, exportsDir });
}

async function child(target: Target, rows: number, exportsDir: string): Promise<void> {
  const ds = await openTarget(target, exportsDir);
  (globalThis as { gc?: () => void }).gc?.();
  const baselineRss = process.memoryUsage.rss();
  let peakRss = baselineRss;
  const timer = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage.rss());
  }, SAMPLE_MS);
  const started = performance.now();
  const job = await ds.exports.run({
    source: { table: `bench_${rows}` },
    format: 'csv',
    actor: 'user',
    batchSize: 2000,
  });
  const ms = performance.now() - started;
  clearInterval(timer);
  peakRss = Math.max(peakRss, process.memoryUsage.rss());
  if (job.state !== 'done' || job.rowsDone !== rows)
    throw new Error(`export ended ${job.state} after ${job.rowsDone} rows: ${job.error}`);
  await rm(job.path);
  await ds.close();
  const result: Measurement = {
    engine: target.engine,
    rows,
    ms,
    baselineRss,
    peakRss,
    bytes: job.bytesWritten,
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

function runChild(target: Target, rows: number, exportsDir: string): Promise<Measurement> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [
        '--expose-gc',
        `--max-old-space-size=${HEAP_MB}`,
        fileURLToPath(import.meta.url),
        '--child',
        JSON.stringify({ target, rows, exportsDir }),
      ],
      { maxBuffer: 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`benchmark child failed: ${stderr || error.message}`));
        else resolve(JSON.parse(stdout.trim().split('\n').at(-1)!) as Measurement);
      },
    );
  });
}

async function prepare(target: Target, exportsDir: string): Promise<void> {
  const ds = await openTarget(target, exportsDir);
  for (const rows of SIZES) {
    await ds.db.exec(`DROP TABLE IF EXISTS bench_${rows};
      CREATE TABLE bench_${rows} AS
        SELECT g AS id, 'customer ' || g AS name, (g % 1000) / 7.0 AS amount,
               timestamptz '2026-01-01' + g * interval '1 second' AS at, g % 3 = 0 AS flag, md5(g::text) AS token
        FROM generate_series(1, ${rows}) AS g;
      ALTER TABLE bench_${rows} ADD PRIMARY KEY (id);`);
    // A table that has been around: hint bits set and statistics known, so the export's first read
    // does not also pay for (and count the memory of) rewriting every page.
    await ds.db.exec(`VACUUM ANALYZE bench_${rows}`);
    await ds.db.exec('CHECKPOINT');
  }
  await ds.close();
}

const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);

async function main(): Promise<void> {
  const work = await mkdtemp(join(tmpdir(), 'toolrow-bench-'));
  const url = process.env.TOOLROW_TEST_DATABASE_URL || process.env.DATABASE_URL;
  const targets: Target[] = [{ engine: 'pglite', dataDir: join(work, 'data') }];
  if (url) targets.push({ engine: 'postgres', url });
  try {
    for (const target of targets) {
      const exportsDir = join(work, 'exports');
      await prepare(target, exportsDir);
      const [small, large] = [
        await runChild(target, SIZES[0]!, exportsDir),
        await runChild(target, SIZES[1]!, exportsDir),
      ];
      const growth = (m: Measurement) => Math.max(m.peakRss - m.baselineRss, 1);
      console.log(`\n${target.engine}: CSV export through a cursor`);
      for (const m of [small, large]) {
        console.log(
          `  ${String(m.rows).padStart(9)} rows  ${(m.ms / 1000).toFixed(2).padStart(7)} s  ${Math.round(
            m.rows / (m.ms / 1000),
          )
            .toLocaleString('en-US')
            .padStart(9)} rows/s  ${mb(m.bytes).padStart(7)} MB written  peak RSS +${mb(growth(m))} MB`,
        );
      }
      console.log(
        `  1M/10k: ${SIZES[1]! / SIZES[0]!}x the rows, ${(growth(large) / growth(small)).toFixed(2)}x the peak RSS growth, ${(large.ms / small.ms).toFixed(1)}x the time`,
      );
      if (target.engine === 'postgres') {
        const ds = await openTarget(target, exportsDir);
        for (const rows of SIZES) await ds.db.exec(`DROP TABLE IF EXISTS bench_${rows}`);
        await ds.close();
      }
    }
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

const childIndex = process.argv.indexOf('--child');
if (childIndex >= 0) {
  const { target, rows, exportsDir } = JSON.parse(process.argv[childIndex + 1]!) as {
    target: Target;
    rows: number;
    exportsDir: string;
  };
  await child(target, rows, exportsDir);
} else {
  await main();
}
