// Export benchmark against a real peer: `mariadb --batch --quick -e "SELECT * FROM …"` (the client
// streaming rows to a file, unbuffered) on the same MariaDB server, in the same run, alternated with
// the command a user runs, `toolrow call startExport '{"table":…,"format":"csv"}'` with DATABASE_URL
// naming the server and Toolrow's state as a new user has it (SQLite in a fresh data dir). Each
// command is its own process; peak RSS is the kernel's high-water mark (`/usr/bin/time -v`, else
// sampled from /proc). "export" takes out both commands' fixed start-up (each exporting an empty
// table of the same columns in the same run).
//
//   TOOLROW_TEST_MARIADB_URL=mariadb://… npm run bench -w @toolrow/mysql
//   BENCH_ROWS=100000 BENCH_ROUNDS=1 node --conditions=@toolrow/source bench/export.ts
import { spawn } from 'node:child_process';
import { createWriteStream, existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createMysqlTestDatabase } from '../src/testing.ts';

const SIZES = (process.env.BENCH_ROWS ?? '100000,1000000')
  .split(',')
  .map((value) => Number(value.trim()))
  .filter((value) => Number.isInteger(value) && value >= 0);
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 2));
const CLI = fileURLToPath(new URL('../../../apps/cli/bin/toolrow.js', import.meta.url));
const TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;

interface Run {
  ms: number;
  peakMb: number;
}

function measure(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  cwd: string,
  out?: string,
): Promise<Run> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const argv = TIME ? ['-v', command, ...args] : args;
    const child = spawn(TIME ?? command, argv, { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    let sampledKb = 0;
    const sink = out ? createWriteStream(out) : undefined;
    if (sink) child.stdout.pipe(sink);
    else child.stdout.resume();
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const sampler = TIME
      ? undefined
      : setInterval(() => {
          try {
            const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
            sampledKb = Math.max(sampledKb, Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0));
          } catch {}
        }, 10);
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = performance.now() - started;
      if (sampler) clearInterval(sampler);
      if (code !== 0) return reject(new Error(`${command} ${args.join(' ')} exited ${code}: ${stderr}`));
      const kb = TIME
        ? Number(/Maximum resident set size \(kbytes\): (\d+)/.exec(stderr)?.[1] ?? 0)
        : sampledKb;
      const done = () => resolve({ ms, peakMb: kb / 1024 });
      if (sink) sink.end(done);
      else done();
    });
  });
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};
const fmt = (value: number) => Math.round(value).toLocaleString('en-US');

async function main(): Promise<void> {
  const admin = process.env.TOOLROW_TEST_MARIADB_URL?.trim();
  if (!admin) {
    console.log(
      '\nexport bench on MariaDB and its mariadb-client peer: SKIPPED (set TOOLROW_TEST_MARIADB_URL; `. scripts/ci-mariadb.sh` starts a server).',
    );
    return;
  }
  const db = await createMysqlTestDatabase(admin, 'toolrow_bench_');
  const dir = await mkdtemp(join(tmpdir(), 'toolrow-mysql-bench-'));
  try {
    for (const rows of new Set([0, ...SIZES])) {
      await db.admin(`CREATE TABLE bench_${rows} (id INT PRIMARY KEY, name VARCHAR(40) NOT NULL, amount DECIMAL(12,2) NOT NULL,
        at DATETIME NOT NULL, flag BOOLEAN NOT NULL, token CHAR(32) NOT NULL) ENGINE=InnoDB`);
      if (rows > 0)
        await db.admin(`INSERT INTO bench_${rows} SELECT seq, CONCAT('customer ', seq), (seq % 1000) / 7,
          '2026-01-01' + INTERVAL seq SECOND, seq % 3 = 0, MD5(seq) FROM seq_1_to_${rows}`);
    }
    const url = new URL(db.url);
    const env = {
      ...process.env,
      DATABASE_URL: db.url,
      TOOLROW_DATA_DIR: join(dir, '.toolrow'),
      TOOLROW_STATE_URL: '',
      TOOLROW_COMMIT_URL: '',
    };
    const client = (rows: number, round: number) =>
      measure(
        'mariadb',
        [
          '--no-defaults',
          `--host=${url.hostname}`,
          `--port=${url.port}`,
          `--user=${decodeURIComponent(url.username)}`,
          '--batch',
          '--quick',
          db.name,
          '-e',
          `SELECT * FROM bench_${rows}`,
        ],
        { ...process.env, MYSQL_PWD: decodeURIComponent(url.password) },
        dir,
        join(dir, `client-${rows}-${round}.tsv`),
      );
    const toolrow = async (rows: number, round: number) => {
      const file = `bench_${rows}-${round}-${Date.now()}.csv`;
      const run = await measure(
        process.execPath,
        [CLI, 'call', 'startExport', JSON.stringify({ table: `bench_${rows}`, format: 'csv', path: file })],
        env,
        dir,
      );
      const path = join(dir, '.toolrow', 'exports', file);
      const size = (await stat(path).catch(() => stat(join(dir, 'exports', file)))).size;
      if (rows > 0 && size < rows * 20) throw new Error(`${file} holds ${size} bytes for ${rows} rows`);
      return run;
    };
    // The first command in a fresh data dir makes Toolrow's state: not part of any export.
    await toolrow(0, -1);
    console.log(
      `\nMariaDB: CSV export against mariadb --batch --quick, median of ${ROUNDS} alternated round(s)`,
    );
    for (const rows of SIZES) {
      const peer: Run[] = [];
      const peerEmpty: Run[] = [];
      const ours: Run[] = [];
      const oursEmpty: Run[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        peer.push(await client(rows, round));
        peerEmpty.push(await client(0, round));
        ours.push(await toolrow(rows, round));
        oursEmpty.push(await toolrow(0, round));
      }
      const [p, pe, o, oe] = [peer, peerEmpty, ours, oursEmpty].map((runs) =>
        median(runs.map((run) => run.ms)),
      ) as [number, number, number, number];
      const peakMb = Math.max(...ours.map((run) => run.peakMb));
      const endToEnd = (p / o).toFixed(2);
      const exporting = o - oe > 0 && p - pe > 0 ? ((p - pe) / (o - oe)).toFixed(2) : 'n/a';
      console.log(
        `  ${fmt(rows).padStart(9)} rows: mariadb ${fmt(rows / (p / 1000))} rows/s, toolrow ${fmt(rows / (o / 1000))} rows/s — ${endToEnd}× end to end, ${exporting}× with start-ups taken out; toolrow peak RSS ${peakMb.toFixed(0)} MB (mariadb ${Math.max(...peer.map((run) => run.peakMb)).toFixed(0)} MB)`,
      );
    }
  } finally {
    await db.drop();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
