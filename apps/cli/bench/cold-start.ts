// Cold start of the commands that only read the catalog, against the floor: `node -e 0` on the
// same Node, measured in the same run. Each sample is a fresh process (spawn to exit); the
// commands take turns in every round, so machine load falls on all of them alike, and the
// medians are compared. Goal (issue 11): `toolrow catalog` within 3× of `node -e 0`.
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
function modulesOf(args: string[]): { modules: number; packages: string[] } {
  const file = join(scratch, 'count.json');
  once(['--import', counter, ...args], { ...process.env, TOOLROW_MODULE_COUNT: file });
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
rmSync(scratch, { recursive: true, force: true });
const catalogRatio = median(samples.get('toolrow catalog')!) / floor;
console.log(`\ntoolrow catalog / node -e 0 = ${catalogRatio.toFixed(2)}× (goal ≤ 3×)`);
