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
import { createExportEngine, createMemoryExportJobStore, openDataSource } from '../src/index.ts';

const SIZES = [10_000, 1_000_000];
const SAMPLE_MS = 5;
// A fixed heap cap for every child: V8 otherwise defers major GCs and RSS tracks garbage, not
// what the export holds. A 1M-row export that held its rows would not fit and would fail here.
const HEAP_MB = 96;

interface Measurement {
  engine: string;
  rows: number;
  /** Exports of the table run one after another in the same process. */
  repeat: number;
  ms: number;
  baselineRss: number;
  peakRss: number;
  bytes: number;
}

type Target = { engine: 'pglite'; dataDir: string } | { engine: 'postgres'; url: string };

async function openTarget(target: Target, exportsDir: string) {
  const ds = await (target.engine === 'pglite'
    ? openDataSource({ env: {}, dataDir: target.dataDir })
    : openDataSource({ env: {}, url: target.url }));
  // Job records in memory: this measures the export itself, not the state store.
  const exports = createExportEngine(ds.db, ds.schema, exportsDir, createMemoryExportJobStore());
  return Object.assign(ds, { exports });
}

async function child(target: Target, rows: number, repeat: number, exportsDir: string): Promise<void> {
  const ds = await openTarget(target, exportsDir);
  (globalThis as { gc?: () => void }).gc?.();
  const baselineRss = process.memoryUsage.rss();
  let peakRss = baselineRss;
  const timer = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage.rss());
  }, SAMPLE_MS);
  const started = performance.now();
  let bytes = 0;
  for (let pass = 0; pass < repeat; pass++) {
    const job = await ds.exports.run({
      source: { table: `bench_${rows}` },
      format: 'csv',
      actor: 'user',
      batchSize: 2000,
    });
    if (job.state !== 'done' || job.rowsDone !== rows)
      throw new Error(`export ended ${job.state} after ${job.rowsDone} rows: ${job.error}`);
    bytes += job.bytesWritten;
    await rm(job.path);
  }
  const ms = performance.now() - started;
  clearInterval(timer);
  peakRss = Math.max(peakRss, process.memoryUsage.rss());
  await ds.close();
  const result: Measurement = {
    engine: target.engine,
    rows: rows * repeat,
    repeat,
    ms,
    baselineRss,
    peakRss,
    bytes,
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

function runChild(target: Target, rows: number, exportsDir: string, repeat = 1): Promise<Measurement> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [
        '--expose-gc',
        `--max-old-space-size=${HEAP_MB}`,
        fileURLToPath(import.meta.url),
        '--child',
        JSON.stringify({ target, rows, repeat, exportsDir }),
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
      const small = await runChild(target, SIZES[0]!, exportsDir);
      const large = await runChild(target, SIZES[1]!, exportsDir);
      // The same 1M export three times in one process: memory that held rows would grow again.
      const triple = await runChild(target, SIZES[1]!, exportsDir, 3);
      const growth = (m: Measurement) => Math.max(m.peakRss - m.baselineRss, 1);
      console.log(`\n${target.engine}: CSV export through a cursor`);
      for (const m of [small, large, triple]) {
        console.log(
          `  ${String(m.rows).padStart(9)} rows${m.repeat > 1 ? ` (${m.repeat}× ${m.rows / m.repeat})` : ''}  ${(m.ms / 1000).toFixed(2).padStart(7)} s  ${Math.round(
            m.rows / (m.ms / 1000),
          )
            .toLocaleString('en-US')
            .padStart(9)} rows/s  ${mb(m.bytes).padStart(7)} MB written  peak RSS +${mb(growth(m))} MB`,
        );
      }
      console.log(
        `  1M/10k: ${SIZES[1]! / SIZES[0]!}x the rows, ${(growth(large) / growth(small)).toFixed(2)}x the peak RSS growth, ${(large.ms / small.ms).toFixed(1)}x the time`,
      );
      console.log(
        `  3M (3×1M)/1M: 3x the rows, ${(growth(triple) / growth(large)).toFixed(2)}x the peak RSS growth`,
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
  const { target, rows, repeat, exportsDir } = JSON.parse(process.argv[childIndex + 1]!) as {
    target: Target;
    rows: number;
    repeat: number;
    exportsDir: string;
  };
  await child(target, rows, repeat, exportsDir);
} else {
  await main();
}
