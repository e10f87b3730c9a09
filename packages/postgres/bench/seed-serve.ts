// Seed and start benchmarks on embedded PGlite against PostgreSQL, measured in the same run with
// the real commands a user runs:
//   seed:  `toolrow db seed --orders N --reset` (BENCH_SEED_ORDERS, default 50000): wall time and
//          peak RSS (VmHWM), PGlite against PostgreSQL;
//   serve: `toolrow serve --port 0 --no-build` on an already seeded database, from spawn to the
//          first answered API request (GET /api/tables), and its peak RSS then, PGlite against
//          PostgreSQL.
// Each as a new user has it (Toolrow's state embedded: SQLite in the data dir), and PostgreSQL also
// with the state on the server (TOOLROW_STATE_URL). PGlite also with V8 optimising its wasm
// (TOOLROW_PGLITE_OPTIMIZE_WASM=1), the trade Toolrow declines by default.
// Without a PostgreSQL server (TOOLROW_TEST_DATABASE_URL or DATABASE_URL) the peer runs are
// skipped with a note and only PGlite's figures print.
//
//   node bench/seed-serve.ts          (npm run bench -w @toolrow/datasource runs it)
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

const ORDERS = Number(process.env.BENCH_SEED_ORDERS ?? 50_000);
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 2));
const CLI = fileURLToPath(new URL('../../../apps/cli/bin/toolrow.js', import.meta.url));
const TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;
const TOKEN = 'bench-token-0123456789abcdef0123456789';

interface Run {
  ms: number;
  peakMb: number;
}

/** A command to its end: wall time and peak RSS (VmHWM). */
function measure(args: string[], target: Target): Promise<Run> {
  const { env, dir: cwd } = target;
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const command = [process.execPath, ...(target.nodeFlags ?? []), CLI, ...args];
    const child = TIME
      ? spawn(TIME, ['-v', ...command], { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] })
      : spawn(command[0]!, command.slice(1), { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    let sampledKb = 0;
    child.stdout.resume();
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
      if (sampler) clearInterval(sampler);
      if (code !== 0) {
        reject(new Error(`toolrow ${args.join(' ')} exited ${code}: ${stderr.slice(-2000)}`));
        return;
      }
      const kb = TIME
        ? Number(/Maximum resident set size \(kbytes\): (\d+)/.exec(stderr)?.[1] ?? 0)
        : sampledKb;
      resolve({ ms: performance.now() - started, peakMb: kb / 1024 });
    });
  });
}

/** `toolrow serve` from spawn to its first answered request, and its peak RSS; then stopped with SIGTERM. */
function serveToFirstResponse(target: Target): Promise<Run> {
  const { env, dir: cwd } = target;
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(
      process.execPath,
      [...(target.nodeFlags ?? []), CLI, 'serve', '--port', '0', '--no-build'],
      {
        env: { ...env, TOOLROW_APP_TOKEN: TOKEN },
        cwd,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let output = '';
    let done = false;
    const finish = (error: Error | undefined, ms?: number) => {
      if (done) return;
      done = true;
      let peakMb = 0;
      try {
        const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
        peakMb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
      } catch {}
      child.kill('SIGTERM');
      child.once('close', () => (error ? reject(error) : resolve({ ms: ms!, peakMb })));
    };
    const onData = async (chunk: Buffer) => {
      output += chunk.toString();
      const match = /Toolrow is running at (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (!match || done) return;
      child.stdout.off('data', onData);
      try {
        const response = await fetch(`${match[1]}/api/tables`, {
          headers: { authorization: `Bearer ${TOKEN}` },
        });
        if (!response.ok) throw new Error(`GET /api/tables answered ${response.status}`);
        await response.json();
        finish(undefined, performance.now() - started);
      } catch (error) {
        finish(error as Error);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.on('close', (code) => {
      if (!done) {
        done = true;
        reject(new Error(`toolrow serve exited ${code} before answering: ${output.slice(-2000)}`));
      }
    });
  });
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

interface Target {
  label: string;
  env: NodeJS.ProcessEnv;
  dir: string;
  nodeFlags?: string[];
}

async function main(): Promise<void> {
  const work = await mkdtemp(join(tmpdir(), 'toolrow-bench-seed-'));
  const url = process.env.TOOLROW_TEST_DATABASE_URL || process.env.DATABASE_URL;
  const base = { ...process.env };
  for (const name of [
    'DATABASE_URL',
    'TOOLROW_STATE_URL',
    'TOOLROW_EXPORTS_DIR',
    'TOOLROW_PORT',
    'TOOLROW_MCP',
  ])
    delete base[name];
  const admin = url ? new pg.Client({ connectionString: url }) : undefined;
  const created: string[] = [];
  try {
    const targets: Target[] = [];
    const pgliteDir = join(work, 'pglite');
    await mkdir(pgliteDir, { recursive: true, mode: 0o700 });
    targets.push({ label: 'PGlite', env: { ...base, TOOLROW_DATA_DIR: pgliteDir }, dir: pgliteDir });
    // PGlite's peak is one V8 TurboFan compile of one huge Postgres function (about 600 MB of
    // compiler memory); Toolrow keeps PGlite's wasm on the baseline compiler unless asked not to.
    const optimizingDir = join(work, 'pglite-optimizing');
    await mkdir(optimizingDir, { recursive: true, mode: 0o700 });
    targets.push({
      label: 'PGlite, V8 optimising wasm',
      env: { ...base, TOOLROW_DATA_DIR: optimizingDir, TOOLROW_PGLITE_OPTIMIZE_WASM: '1' },
      dir: optimizingDir,
    });
    if (url) {
      await admin!.connect();
      const suffix = `${process.pid}_${Date.now().toString(36)}`;
      const data = `toolrow_bench_seed_${suffix}`;
      const state = `toolrow_bench_seedstate_${suffix}`;
      for (const name of [data, state]) {
        await admin!.query(`CREATE DATABASE ${name}`);
        created.push(name);
      }
      const at = (name: string) => {
        const target = new URL(url);
        target.pathname = `/${name}`;
        return target.href;
      };
      const dir = join(work, 'postgres');
      await mkdir(dir, { recursive: true, mode: 0o700 });
      // The peer: the same commands over a server, the state as a new user has it (embedded).
      targets.push({
        label: 'PostgreSQL',
        env: { ...base, DATABASE_URL: at(data), TOOLROW_DATA_DIR: dir },
        dir,
      });
      const teamDir = join(work, 'postgres-team');
      await mkdir(teamDir, { recursive: true, mode: 0o700 });
      targets.push({
        label: 'PostgreSQL, TOOLROW_STATE_URL',
        env: { ...base, DATABASE_URL: at(data), TOOLROW_STATE_URL: at(state), TOOLROW_DATA_DIR: teamDir },
        dir: teamDir,
      });
    } else
      console.log(
        '\nseed/serve peer on PostgreSQL: SKIPPED (set TOOLROW_TEST_DATABASE_URL or DATABASE_URL); only PGlite figures follow.',
      );

    // A first command in each place creates the data directory and Toolrow's state: not measured.
    for (const target of targets) await measure(['db', 'info'], target);
    // What the command costs before any seeding: `db info` opens the same databases.
    const baselines = new Map<string, Run>();
    for (const target of targets) baselines.set(target.label, await measure(['db', 'info'], target));

    const seeds = new Map<string, Run[]>(targets.map((target) => [target.label, []]));
    const serves = new Map<string, Run[]>(targets.map((target) => [target.label, []]));
    for (let round = 0; round < ROUNDS; round++) {
      for (const target of targets) {
        seeds
          .get(target.label)!
          .push(await measure(['db', 'seed', '--orders', String(ORDERS), '--reset'], target));
      }
      for (const target of targets) serves.get(target.label)!.push(await serveToFirstResponse(target));
    }
    const seedOf = (label: string) => {
      const runs = seeds.get(label)!;
      return { ms: median(runs.map((run) => run.ms)), peakMb: Math.max(...runs.map((run) => run.peakMb)) };
    };
    console.log(
      `\nseed: toolrow db seed --orders ${ORDERS} --reset, median of ${ROUNDS}, peak RSS = max VmHWM`,
    );
    for (const target of targets) {
      const run = seedOf(target.label);
      console.log(
        `  ${target.label.padEnd(28)} ${(run.ms / 1000).toFixed(2).padStart(7)} s  peak RSS ${run.peakMb.toFixed(0)} MB  (toolrow db info: ${(baselines.get(target.label)!.ms / 1000).toFixed(2)} s, ${baselines.get(target.label)!.peakMb.toFixed(0)} MB)`,
      );
    }
    const serveOf = (label: string) => {
      const runs = serves.get(label)!;
      return { ms: median(runs.map((run) => run.ms)), peakMb: Math.max(...runs.map((run) => run.peakMb)) };
    };
    console.log(
      `\nserve: toolrow serve to the first answered GET /api/tables, median of ${ROUNDS}, peak RSS then`,
    );
    for (const target of targets) {
      const run = serveOf(target.label);
      console.log(
        `  ${target.label.padEnd(28)} ${(run.ms / 1000).toFixed(2).padStart(7)} s  peak RSS ${run.peakMb.toFixed(0)} MB`,
      );
    }
    if (targets.some((target) => target.label === 'PostgreSQL')) {
      const peer = seedOf('PostgreSQL');
      const peerServe = serveOf('PostgreSQL');
      console.log('');
      for (const target of targets.filter((t) => t.label !== 'PostgreSQL')) {
        const lite = seedOf(target.label);
        const serve = serveOf(target.label);
        console.log(
          `  ${target.label} / PostgreSQL: seed ${(lite.ms / peer.ms).toFixed(2)}× the time, ${(lite.peakMb / peer.peakMb).toFixed(2)}× the peak RSS; serve ${(serve.ms / peerServe.ms).toFixed(2)}× the time to first response, ${(serve.peakMb / peerServe.peakMb).toFixed(2)}× the peak RSS`,
        );
      }
    }
  } finally {
    for (const name of created)
      await admin!.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
    await admin?.end().catch(() => {});
    await rm(work, { recursive: true, force: true });
  }
}

await main();
