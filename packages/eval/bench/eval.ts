// `toolrow eval` over the whole corpus with a model that answers at once (a scripted OpenAI-
// compatible server on 127.0.0.1 that knows each request's right tool), so what is measured is
// Toolrow: a fresh state and a fresh run of the agent loop and the real tools per request, over
// the one sample shop in memory. The real command a user runs, as its own process: wall time and
// peak RSS (VmHWM). The peer is the same command with one request, measured in the same run: the
// fixed cost (start, seeding the shop) the corpus's time is compared against.
//
//   npm run bench -w @toolrow/eval        (BENCH_EVAL_LIMIT=N runs the first N requests only)
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CORPUS } from '../src/corpus.ts';
import { searchingModel, startChatServer } from '../src/testing.ts';

const CLI = fileURLToPath(new URL('../../../apps/cli/bin/toolrow.js', import.meta.url));
const TIME = '/usr/bin/time';
const LIMIT = Number(process.env.BENCH_EVAL_LIMIT ?? CORPUS.length);

interface Run {
  ms: number;
  peakMb: number;
}

function run(args: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(TIME, ['-v', process.execPath, CLI, ...args], {
      env,
      cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stdout.resume();
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = performance.now() - started;
      if (code !== 0)
        return reject(new Error(`toolrow ${args.join(' ')} exited ${code}: ${stderr.slice(-2000)}`));
      const kb = Number(/Maximum resident set size \(kbytes\): (\d+)/.exec(stderr)?.[1] ?? 0);
      resolve({ ms, peakMb: kb / 1024 });
    });
  });
}

if (!existsSync(TIME)) throw new Error(`${TIME} is needed for peak RSS (Debian: apt-get install time).`);
const server = await startChatServer(searchingModel());
const cwd = await mkdtemp(join(tmpdir(), 'toolrow-bench-eval-'));
try {
  const env = {
    ...process.env,
    TOOLROW_MODEL: `openai-compatible:${server.baseURL}#oracle`,
    TOOLROW_DATA_DIR: join(cwd, '.toolrow'),
    DATABASE_URL: '',
    TOOLROW_STATE_URL: '',
  };
  const one = await run(['eval', '--limit', '1'], env, cwd);
  const all = await run(['eval', '--limit', String(LIMIT)], env, cwd);
  const perRequest = (all.ms - one.ms) / Math.max(1, LIMIT - 1);
  console.log(`toolrow eval, a model that answers at once (${server.requests.length} chat requests served)`);
  console.log(
    `  1 request:    ${(one.ms / 1000).toFixed(1)} s, peak RSS ${one.peakMb.toFixed(0)} MB (the fixed cost: start, seed the shop)`,
  );
  console.log(
    `  ${LIMIT} requests: ${(all.ms / 1000).toFixed(1)} s, peak RSS ${all.peakMb.toFixed(0)} MB; ${perRequest.toFixed(0)} ms per request beyond the first; ${(all.ms / one.ms).toFixed(2)}× the 1-request run`,
  );
  console.log(
    `  goal (whole corpus ≤ 60 s, ≤ 500 MB): ${LIMIT === CORPUS.length ? (all.ms <= 60_000 && all.peakMb <= 500 ? 'met' : 'NOT met') : `not measured (BENCH_EVAL_LIMIT=${LIMIT} of ${CORPUS.length})`}`,
  );
} finally {
  await server.close();
  await rm(cwd, { recursive: true, force: true });
}
