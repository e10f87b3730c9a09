// Export benchmark against a real peer: `psql \copy (SELECT …) TO … CSV` on the same PostgreSQL
// server, in the same run, alternated with the real command a user runs to export a table,
// `toolrow call startExport '{"table":…,"format":"csv"}'` (it waits for the file before it exits).
// Each command is its own process; its peak RSS is the kernel's high-water mark (VmHWM through
// `/usr/bin/time -v`, else sampled from /proc), with no heap cap, so what the export holds shows.
//
// Reported per size (BENCH_ROWS, default 100000,1000000): rows/s of psql and of Toolrow, the ratio,
// and Toolrow's peak RSS, with the data on PostgreSQL and Toolrow's state first as a new user has
// it (embedded SQLite in the data dir), then on the server (TOOLROW_STATE_URL); then the same
// command on embedded PGlite against Toolrow on PostgreSQL. "end to end" is each command's rows
// over its whole time; "export" takes out both commands' fixed start-up (each one exporting an
// empty table of the same columns, measured in the same run).
//
//   npm run bench -w @toolrow/datasource            (or: node bench/export.ts)
//   BENCH_ROWS=100000 BENCH_ROUNDS=1 node bench/export.ts
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { openDataSource } from '../src/index.ts';

const SIZES = (process.env.BENCH_ROWS ?? '100000,1000000')
  .split(',')
  .map((value) => Number(value.trim()))
  .filter((value) => Number.isInteger(value) && value > 0);
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 2));
const CLI = fileURLToPath(new URL('../../../apps/cli/bin/toolrow.js', import.meta.url));
const TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;

interface Run {
  ms: number;
  /** Peak resident set, MB. */
  peakMb: number;
}

function findPsql(): string | undefined {
  const onPath = spawnSync('psql', ['--version'], { stdio: 'ignore' });
  if (onPath.status === 0) return 'psql';
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  for (const version of readdirSync(root).sort().reverse()) {
    const candidate = join(root, version, 'bin', 'psql');
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}

/** Runs a command; its wall time and peak RSS (VmHWM). Fails on a non-zero exit. */
function measure(command: string, args: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const viaTime = TIME !== undefined;
    const started = performance.now();
    const child = viaTime
      ? spawn(TIME, ['-v', command, ...args], { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] })
      : spawn(command, args, { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    let stdout = '';
    let sampledKb = 0;
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    // Without /usr/bin/time: the kernel's high-water mark, read until the process is gone.
    const sampler = viaTime
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
      if (code !== 0) {
        reject(new Error(`${command} ${args.join(' ')} exited ${code}: ${stderr || stdout}`));
        return;
      }
      const kb = viaTime
        ? Number(/Maximum resident set size \(kbytes\): (\d+)/.exec(stderr)?.[1] ?? 0)
        : sampledKb;
      resolve({ ms, peakMb: kb / 1024 });
    });
  });
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

function tableSql(rows: number): string {
  return `DROP TABLE IF EXISTS bench_${rows};
    CREATE TABLE bench_${rows} AS
      SELECT g AS id, 'customer ' || g AS name, (g % 1000) / 7.0 AS amount,
             timestamptz '2026-01-01' + g * interval '1 second' AS at, g % 3 = 0 AS flag, md5(g::text) AS token
      FROM generate_series(1, ${rows}) AS g;
    ALTER TABLE bench_${rows} ADD PRIMARY KEY (id);`;
}

/** The export command: table `bench_<rows>` to CSV, waited for. Returns its run and checks the file. */
async function toolrowExport(rows: number, env: NodeJS.ProcessEnv, dataDir: string, round: number) {
  const file = `bench_${rows}-${round}-${Date.now()}.csv`;
  const run = await measure(
    process.execPath,
    [CLI, 'call', 'startExport', JSON.stringify({ table: `bench_${rows}`, format: 'csv', path: file })],
    env,
    dataDir,
  );
  const path = join(dataDir, 'exports', file);
  const size = (await stat(path)).size;
  // Header plus one line per row, at least: a command that wrote nothing must not look fast.
  if (rows > 0 && size < rows * 20) throw new Error(`${path} holds ${size} bytes for ${rows} rows`);
  await rm(path);
  return run;
}

const fmt = (value: number) => Math.round(value).toLocaleString('en-US');
const pad = (text: string, width: number) => text.padStart(width);

interface SizeResult {
  rows: number;
  psql?: number;
  /** psql exporting the empty table: its fixed start-up. */
  psqlEmpty?: number;
  command: Run;
  /** The same command on an empty table: its fixed start-up. */
  empty: Run;
}

/** Rows/s of the export alone; undefined when start-up varied by more than the export took. */
function exportRate(result: SizeResult): number | undefined {
  const ms = result.command.ms - result.empty.ms;
  return ms > result.command.ms * 0.1 ? result.rows / (ms / 1000) : undefined;
}

const NOISE = 'n/a (start-up varied more than the export took; raise BENCH_ROUNDS)';
const ratio = (a: number | undefined, b: number | undefined) =>
  a === undefined || b === undefined ? NOISE : `${(a / b).toFixed(2)}×`;

async function benchEngine(
  label: string,
  env: NodeJS.ProcessEnv,
  dataDir: string,
  psql?: { bin: string; url: string },
): Promise<SizeResult[]> {
  const results: SizeResult[] = [];
  // The first command in a fresh data dir creates Toolrow's state: not part of any export.
  await toolrowExport(0, env, dataDir, -1);
  for (const rows of SIZES) {
    const psqlRuns: number[] = [];
    const psqlEmptyRuns: number[] = [];
    const commandRuns: Run[] = [];
    const emptyRuns: Run[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      if (psql) {
        const target = join(dataDir, `psql-${rows}.csv`);
        const run = await measure(
          psql.bin,
          [psql.url, '-X', '-q', '-c', `\\copy (SELECT * FROM bench_${rows}) TO '${target}' CSV HEADER`],
          process.env,
          dataDir,
        );
        psqlRuns.push(run.ms);
        await rm(target);
        const empty = await measure(
          psql.bin,
          [psql.url, '-X', '-q', '-c', `\\copy (SELECT * FROM bench_0) TO '${target}' CSV HEADER`],
          process.env,
          dataDir,
        );
        psqlEmptyRuns.push(empty.ms);
        await rm(target);
      }
      commandRuns.push(await toolrowExport(rows, env, dataDir, round));
      emptyRuns.push(await toolrowExport(0, env, dataDir, round));
    }
    const pick = (runs: Run[]): Run => ({
      ms: median(runs.map((run) => run.ms)),
      peakMb: Math.max(...runs.map((run) => run.peakMb)),
    });
    results.push({
      rows,
      ...(psql ? { psql: median(psqlRuns), psqlEmpty: median(psqlEmptyRuns) } : {}),
      command: pick(commandRuns),
      empty: pick(emptyRuns),
    });
  }
  console.log(`\n${label}: CSV export, median of ${ROUNDS} alternated round(s), peak RSS = max VmHWM`);
  for (const result of results) {
    const command = result.rows / (result.command.ms / 1000);
    const exporting = exportRate(result);
    const peer =
      result.psql !== undefined
        ? (() => {
            const psqlRate = result.rows / (result.psql / 1000);
            const psqlMs = result.psql - (result.psqlEmpty ?? 0);
            const psqlExport = psqlMs > result.psql * 0.1 ? result.rows / (psqlMs / 1000) : undefined;
            return `  psql \\copy ${pad(fmt(psqlRate), 10)} rows/s | Toolrow/psql: end to end ${(command / psqlRate).toFixed(2)}×, export ${ratio(exporting, psqlExport)}`;
          })()
        : '';
    console.log(
      `  ${pad(fmt(result.rows), 9)} rows  toolrow ${pad((result.command.ms / 1000).toFixed(2), 6)} s (start-up ${(result.empty.ms / 1000).toFixed(2)} s) ${pad(fmt(command), 9)} rows/s, export ${pad(exporting === undefined ? 'n/a' : fmt(exporting), 9)} rows/s  peak RSS ${result.command.peakMb.toFixed(0)} MB (empty table: ${result.empty.peakMb.toFixed(0)} MB)${peer}`,
    );
  }
  if (results.length > 1) {
    const first = results[0]!;
    const last = results.at(-1)!;
    console.log(
      `  ${fmt(last.rows)}/${fmt(first.rows)} rows: ${(last.rows / first.rows).toFixed(0)}× the rows, ${(last.command.peakMb / first.command.peakMb).toFixed(2)}× the peak RSS`,
    );
  }
  return results;
}

async function made(dir: string): Promise<string> {
  const { mkdir } = await import('node:fs/promises');
  await mkdir(dir, { recursive: true, mode: 0o700 });
  return dir;
}

async function main(): Promise<void> {
  if (SIZES.length === 0) throw new Error('BENCH_ROWS names no row count (e.g. BENCH_ROWS=100000,1000000).');
  const work = await mkdtemp(join(tmpdir(), 'toolrow-bench-export-'));
  const url = process.env.TOOLROW_TEST_DATABASE_URL || process.env.DATABASE_URL;
  const psql = findPsql();
  const baseEnv = { ...process.env };
  delete baseEnv.DATABASE_URL;
  delete baseEnv.TOOLROW_STATE_URL;
  delete baseEnv.TOOLROW_EXPORTS_DIR;
  let onPostgres: SizeResult[] | undefined;
  const created: string[] = [];
  const admin = url ? new pg.Client({ connectionString: url }) : undefined;
  try {
    if (!url)
      console.log(
        '\nexport bench on PostgreSQL and its psql peer: SKIPPED (set TOOLROW_TEST_DATABASE_URL or DATABASE_URL).',
      );
    else if (!psql)
      console.log(
        '\nexport bench on PostgreSQL and its psql peer: SKIPPED (no psql on PATH or in /usr/lib/postgresql/*/bin).',
      );
    else {
      await admin!.connect();
      const suffix = `${process.pid}_${Date.now().toString(36)}`;
      const names = { data: `toolrow_bench_data_${suffix}`, state: `toolrow_bench_state_${suffix}` };
      for (const name of Object.values(names)) {
        await admin!.query(`CREATE DATABASE ${name}`);
        created.push(name);
      }
      const dataUrl = new URL(url);
      dataUrl.pathname = `/${names.data}`;
      const stateUrl = new URL(url);
      stateUrl.pathname = `/${names.state}`;
      const ds = await openDataSource({ env: {}, url: dataUrl.href });
      for (const rows of [0, ...SIZES]) await ds.db.exec(tableSql(rows));
      for (const rows of [0, ...SIZES]) await ds.db.exec(`VACUUM ANALYZE bench_${rows}`);
      await ds.close();
      const peer = { bin: psql, url: dataUrl.href };
      // What a new user has: their data on their server, Toolrow's state embedded in a new data dir.
      const newUserDir = join(work, 'postgres-new-user');
      onPostgres = await benchEngine(
        'PostgreSQL data, state as a new user has it (SQLite in the data dir)',
        { ...baseEnv, DATABASE_URL: dataUrl.href, TOOLROW_DATA_DIR: newUserDir },
        await made(newUserDir),
        peer,
      );
      // A team deployment: the data and Toolrow's own state both on the server.
      const teamDir = join(work, 'postgres-team');
      await benchEngine(
        'PostgreSQL data and state (TOOLROW_STATE_URL)',
        {
          ...baseEnv,
          DATABASE_URL: dataUrl.href,
          TOOLROW_STATE_URL: stateUrl.href,
          TOOLROW_DATA_DIR: teamDir,
        },
        await made(teamDir),
        peer,
      );
    }

    const dataDir = join(work, 'pglite');
    const ds = await openDataSource({ env: {}, dataDir });
    for (const rows of [0, ...SIZES]) await ds.db.exec(tableSql(rows));
    for (const rows of [0, ...SIZES]) await ds.db.exec(`VACUUM ANALYZE bench_${rows}`);
    await ds.db.exec('CHECKPOINT');
    await ds.close();
    const pgliteEnv = { ...baseEnv, TOOLROW_DATA_DIR: dataDir };
    const onPglite = await benchEngine(
      'embedded PGlite (data and state in the data dir)',
      pgliteEnv,
      dataDir,
    );
    // The trade Toolrow declines by default (see the seed bench): V8 optimising PGlite's wasm.
    const onPgliteOptimizing = await benchEngine(
      'embedded PGlite, V8 optimising its wasm (TOOLROW_PGLITE_OPTIMIZE_WASM=1)',
      { ...pgliteEnv, TOOLROW_PGLITE_OPTIMIZE_WASM: '1' },
      dataDir,
    );
    if (onPostgres) {
      for (const [name, runs] of [
        ['PGlite', onPglite],
        ['PGlite, V8 optimising', onPgliteOptimizing],
      ] as const) {
        for (const [index, result] of runs.entries()) {
          const peer = onPostgres[index]!;
          console.log(
            `  ${pad(fmt(result.rows), 9)} rows  ${name}/PostgreSQL: export ${ratio(exportRate(result), exportRate(peer))} the rows/s, ${(result.command.peakMb / peer.command.peakMb).toFixed(2)}× the peak RSS`,
          );
        }
      }
    } else console.log('  (no PostgreSQL run to compare PGlite with)');
  } finally {
    for (const name of created)
      await admin!.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
    await admin?.end().catch(() => {});
    await rm(work, { recursive: true, force: true });
  }
}

await main();
