// Worker-thread overhead benchmark: on-disk PGlite hosted in a worker thread (what openDatabase
// uses, so a runaway read can be stopped) against the same engine in the calling thread (what it
// used before), on two data directories loaded from the same dump. Each workload alternates the
// two for several rounds; the report is the median time per call and the worker/in-thread ratio.
//
//   node bench/pglite-worker.ts       (npm run bench -w @toolrow/datasource runs it after the export bench)
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreDatabase } from '../src/drivers/core.ts';
import { openPglite } from '../src/drivers/pglite.ts';
import { openPgliteThread } from '../src/drivers/pglite-thread.ts';
import { pgliteSnapshot } from '../src/testing-impl.ts';

const ROUNDS = 7;

interface Workload {
  name: string;
  calls: number;
  run(db: CoreDatabase): Promise<unknown>;
}

const WORKLOADS: Workload[] = [
  { name: 'SELECT 1 (one round trip)', calls: 2000, run: (db) => db.query('SELECT 1 AS one') },
  {
    name: 'point lookup by primary key',
    calls: 2000,
    run: (db) => db.query('SELECT * FROM items WHERE id = $1', [Math.floor(Math.random() * 10_000) + 1]),
  },
  {
    name: '1000 rows (6 columns incl. timestamptz, numeric)',
    calls: 200,
    run: (db) => db.query('SELECT * FROM items WHERE id <= 1000'),
  },
  {
    name: 'readQuery, 50 rows (5 statements, timer armed)',
    calls: 500,
    run: (db) =>
      db.readQuery('SELECT * FROM items ORDER BY id LIMIT 50', [], { maxRows: 50, timeoutMs: 10_000 }),
  },
  {
    name: 'write transaction (BEGIN, INSERT, COMMIT)',
    calls: 500,
    run: (db) =>
      db.transaction((tx) => tx.query("INSERT INTO items (label, amount, at) VALUES ('bench', 1.5, now())")),
  },
];

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function timePerCall(db: CoreDatabase, workload: Workload): Promise<number> {
  const started = performance.now();
  for (let call = 0; call < workload.calls; call++) await workload.run(db);
  return (performance.now() - started) / workload.calls;
}

async function main(): Promise<void> {
  const work = await mkdtemp(join(tmpdir(), 'toolrow-bench-worker-'));
  try {
    const loadDataDir = await pgliteSnapshot('empty', '1');
    const inThread = new CoreDatabase(
      await openPglite({ pgdata: join(work, 'in-thread'), dataDirSource: 'bench', loadDataDir }),
    );
    const inWorker = new CoreDatabase(
      await openPgliteThread({ pgdata: join(work, 'worker'), dataDirSource: 'bench', loadDataDir }),
    );
    for (const db of [inThread, inWorker]) {
      await db.exec(`CREATE TABLE items (id serial PRIMARY KEY, label text, amount numeric, at timestamptz, flag boolean, doc jsonb);
        INSERT INTO items (label, amount, at, flag, doc)
          SELECT 'item ' || g, g / 7.0, timestamptz '2026-01-01' + g * interval '1 minute', g % 2 = 0, jsonb_build_object('g', g)
          FROM generate_series(1, 10000) AS g;`);
      await db.exec('VACUUM ANALYZE items');
    }
    console.log('\nPGlite on disk: worker thread vs calling thread (median of %d rounds)', ROUNDS);
    for (const workload of WORKLOADS) {
      const times = { thread: [] as number[], worker: [] as number[] };
      await timePerCall(inThread, { ...workload, calls: Math.ceil(workload.calls / 10) }); // warm-up
      await timePerCall(inWorker, { ...workload, calls: Math.ceil(workload.calls / 10) });
      for (let round = 0; round < ROUNDS; round++) {
        times.thread.push(await timePerCall(inThread, workload));
        times.worker.push(await timePerCall(inWorker, workload));
      }
      const [thread, worker] = [median(times.thread), median(times.worker)];
      console.log(
        `  ${workload.name.padEnd(52)} in-thread ${thread.toFixed(3).padStart(7)} ms  worker ${worker
          .toFixed(3)
          .padStart(7)} ms  ratio ${(worker / thread).toFixed(2)}x`,
      );
    }
    await Promise.all([inThread.close(), inWorker.close()]);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

await main();
