// Cold start of the commands that only read the catalog, against the floor: `node -e 0` on the
// same Node, measured in the same run. Each sample is a fresh process (spawn to exit); the
// commands take turns in every round, so machine load falls on all of them alike, and the
// medians are compared. Goal (issue 11): `toolrow catalog` within 3× of `node -e 0`.
// Then a command that reads the data, as a new user runs it over their own server: `toolrow call
// listTables '{}'` with DATABASE_URL set and Toolrow's state embedded (a fresh data dir), against
// `toolrow catalog`, with its peak RSS (issue 22: ≤ 2× catalog, ≤ 150 MB). Needs
// TOOLROW_TEST_DATABASE_URL (a role that may CREATE DATABASE); without it that part is skipped.
//
//   npm run bench -w toolrow        (COLD_START_RUNS=N for more rounds; default 15)
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const bin = fileURLToPath(new URL('../bin/toolrow.js', import.meta.url));
const counter = fileURLToPath(new URL('./count-modules.mjs', import.meta.url));
const runs = Number(process.env.COLD_START_RUNS ?? 15);

const commands: { label: string; args: string[]; env?: Record<string, string> }[] = [
  { label: 'node -e 0', args: ['-e', '0'] },
  { label: 'toolrow catalog', args: [bin, 'catalog'] },
  { label: 'toolrow catalog --json', args: [bin, 'catalog', '--json'] },
  { label: 'toolrow search-tools', args: [bin, 'search-tools', 'export this as CSV'] },
  { label: 'toolrow help', args: [bin, 'help'] },
  // The bin keeps Node's compile cache; this is a start that finds none (a first run ever).
  { label: 'catalog, no compile cache', args: [bin, 'catalog'], env: { NODE_DISABLE_COMPILE_CACHE: '1' } },
];

function once(args: string[], env: NodeJS.ProcessEnv = process.env): number {
  const start = performance.now();
  const result = spawnSync(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'], env });
  const elapsed = performance.now() - start;
  if (result.status !== 0)
    throw new Error(
      `${args.join(' ')} exited with ${result.status}: ${result.stderr.toString().slice(0, 500)}`,
    );
  return elapsed;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
};

// Warm the file system cache once, so the first sample of each is not the disk.
for (const command of commands) once(command.args, { ...process.env, ...command.env });
const samples = new Map(commands.map((command) => [command.label, [] as number[]]));
for (let round = 0; round < runs; round++) {
  const order = round % 2 === 0 ? commands : [...commands].reverse();
  for (const command of order)
    samples.get(command.label)!.push(once(command.args, { ...process.env, ...command.env }));
}

const scratch = mkdtempSync(join(tmpdir(), 'toolrow-cold-start-'));
function modulesOf(
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
): { modules: number; packages: string[] } {
  const file = join(scratch, 'count.json');
  once(['--import', counter, ...args], { ...env, TOOLROW_MODULE_COUNT: file });
  return JSON.parse(readFileSync(file, 'utf8'));
}

const floor = median(samples.get('node -e 0')!);
console.log(`Cold start, spawn to exit (median of ${runs} alternated runs; Node ${process.versions.node})`);
for (const command of commands) {
  const ms = median(samples.get(command.label)!);
  const loaded =
    command.label === 'node -e 0'
      ? ''
      : (() => {
          const { modules, packages } = modulesOf(command.args);
          return `  ${String(modules).padStart(4)} modules${packages.length ? ` (${packages.join(', ')})` : ''}`;
        })();
  const ratio = command.label === 'node -e 0' ? '  (the floor)' : `  ${(ms / floor).toFixed(2)}× node -e 0`;
  console.log(`  ${command.label.padEnd(26)} ${ms.toFixed(0).padStart(6)} ms${ratio}${loaded}`);
}
const catalogRatio = median(samples.get('toolrow catalog')!) / floor;
console.log(`\ntoolrow catalog / node -e 0 = ${catalogRatio.toFixed(2)}× (goal ≤ 3×)`);

// ── A command that reads the data: the state embedded, the data on a server ────────────────
const adminUrl = process.env.TOOLROW_TEST_DATABASE_URL?.trim();
if (!adminUrl) {
  console.log('\ntoolrow call listTables over PostgreSQL: SKIPPED (set TOOLROW_TEST_DATABASE_URL)');
} else {
  const { createTestDatabase } = await import('@toolrow/postgres/testing');
  const database = await createTestDatabase(adminUrl, 'toolrow_bench_');
  const dataDir = mkdtempSync(join(tmpdir(), 'toolrow-cold-data-'));
  const env = {
    ...process.env,
    DATABASE_URL: database.url,
    TOOLROW_DATA_DIR: join(dataDir, '.toolrow'),
    TOOLROW_STATE_URL: '',
  };
  const listTables = [bin, 'call', 'listTables', '{}'];
  try {
    once(listTables, env); // the first command makes the data dir and the state: a one-time cost
    const pair = { catalog: [] as number[], listTables: [] as number[] };
    for (let round = 0; round < runs; round++) {
      const first = round % 2 === 0;
      if (first) pair.catalog.push(once([bin, 'catalog']));
      pair.listTables.push(once(listTables, env));
      if (!first) pair.catalog.push(once([bin, 'catalog']));
    }
    const peak = spawnSync('/usr/bin/time', ['-f', '%M', process.execPath, ...listTables], {
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const peakMb = Number(peak.stderr.toString().trim().split('\n').at(-1)) / 1024;
    const { modules, packages } = modulesOf(listTables, env);
    const [catalogMs, listMs] = [median(pair.catalog), median(pair.listTables)];
    console.log(
      `\ntoolrow call listTables, data on PostgreSQL, state embedded (median of ${runs} alternated runs)\n` +
        `  toolrow catalog            ${catalogMs.toFixed(0).padStart(6)} ms\n` +
        `  toolrow call listTables    ${listMs.toFixed(0).padStart(6)} ms  ${(listMs / catalogMs).toFixed(2)}× toolrow catalog (goal ≤ 2×), peak RSS ${Number.isFinite(peakMb) ? peakMb.toFixed(0) : '?'} MB (goal ≤ 150 MB)  ${modules} modules (${packages.slice(0, 8).join(', ')})`,
    );
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
    await database.drop();
  }
}
rmSync(scratch, { recursive: true, force: true });
