// How soon `toolrow mcp --stdio` answers initialize, as a desktop client starts it, against a bare
// MCP SDK server over stdio measured in the same run (issue 25: within 1.5×). Each sample is a new
// process: spawn, send initialize, time the answer, hang up. The runs alternate, so load falls on
// both alike, and the medians are compared. Toolrow runs with a new user's settings: the embedded
// database in a data dir that a first start made (that first start, which seeds, is shown apart).
//
//   npm run bench:stdio -w toolrow        (STDIO_RUNS=N rounds; default 9)
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const bin = fileURLToPath(new URL('../bin/toolrow.js', import.meta.url));
const bare = fileURLToPath(new URL('./bare-stdio.mjs', import.meta.url));
const runs = Number(process.env.STDIO_RUNS ?? 9);
const INITIALIZE = `${JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '0' } },
})}\n`;

/** Milliseconds from spawn to the initialize answer on stdout. */
function initialize(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const child = spawn(process.execPath, args, { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    let answered = false;
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.stdout.on('data', (chunk: Buffer) => {
      if (answered || !chunk.toString().includes('"id":1')) return;
      answered = true;
      const elapsed = performance.now() - start;
      child.stdin.end();
      child.once('exit', () => resolve(elapsed));
    });
    child.once('exit', (code) => {
      if (!answered)
        reject(new Error(`${args.join(' ')} exited ${code} before answering: ${stderr.slice(0, 500)}`));
    });
    child.stdin.write(INITIALIZE);
  });
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};

const dir = mkdtempSync(join(tmpdir(), 'toolrow-stdio-bench-'));
const env = {
  ...process.env,
  TOOLROW_DATA_DIR: join(dir, '.toolrow'),
  DATABASE_URL: '',
  TOOLROW_STATE_URL: '',
};
try {
  const firstStart = await initialize([bin, 'mcp', '--stdio'], env);
  const samples = { bare: [] as number[], toolrow: [] as number[] };
  for (let round = 0; round < runs; round++) {
    if (round % 2 === 0) samples.bare.push(await initialize([bare], process.env));
    samples.toolrow.push(await initialize([bin, 'mcp', '--stdio'], env));
    if (round % 2 === 1) samples.bare.push(await initialize([bare], process.env));
  }
  const [bareMs, toolrowMs] = [median(samples.bare), median(samples.toolrow)];
  console.log(
    `\ninitialize over stdio (median of ${runs} alternated runs, a new process each)\n` +
      `  bare MCP SDK server       ${bareMs.toFixed(0).padStart(6)} ms\n` +
      `  toolrow mcp --stdio       ${toolrowMs.toFixed(0).padStart(6)} ms  ${(toolrowMs / bareMs).toFixed(2)}× the bare server (goal ≤ 1.5×)\n` +
      `  its first start ever      ${firstStart.toFixed(0).padStart(6)} ms  (makes the data dir; the sample shop seeds after initialize)`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
