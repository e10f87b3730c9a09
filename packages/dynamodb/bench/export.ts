// DynamoDB export benchmark against a real peer, in the same run: a plain paginated Scan written
// directly with the AWS SDK to an NDJSON file (with backpressure), and the real command a user
// runs, `toolrow call startExport '{"table":…,"format":"ndjson"}'` on a DynamoDB connection (it
// waits for the file before it exits). Each is its own process; its peak RSS is the process's own
// high-water mark (resourceUsage().maxRSS, printed at exit by a preloaded hook).
//
// Reported per size (BENCH_ITEMS, default 10000,100000): items/s of the peer and of Toolrow, the
// ratio, and both peak RSS; then how Toolrow's peak RSS grows from the smallest size to the largest.
// Needs DynamoDB Local: `. scripts/ci-dynamodb.sh` sets TOOLROW_TEST_DYNAMODB_URL.
//
//   npm run bench -w @toolrow/dynamodb            (or: node bench/export.ts)
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchTarget, timed } from './support.ts';

const SIZES = (process.env.BENCH_ITEMS ?? '10000,100000')
  .split(',')
  .map((value) => Number(value.trim()))
  .filter((value) => Number.isInteger(value) && value > 0);
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 2));
const CLI = fileURLToPath(new URL('../../../apps/cli/bin/toolrow.js', import.meta.url));

const { url, region, endpoint, client, fill } = benchTarget();

const PEER = fileURLToPath(new URL('./scan-peer.ts', import.meta.url));

const dir = await mkdtemp(join(tmpdir(), 'toolrow-ddb-bench-'));
const results: { size: number; peer: number; toolrow: number; peerMb: number; toolrowMb: number }[] = [];
try {
  for (const size of SIZES) {
    const table = `bench_${size}`;
    const filling = performance.now();
    await fill(table, size);
    console.error(
      `filled ${table} (${size.toLocaleString('en-US')} items) in ${((performance.now() - filling) / 1000).toFixed(1)} s`,
    );
    const env = {
      DATABASE_URL: url.href,
      TOOLROW_DATA_DIR: join(dir, 'data'),
      TOOLROW_CONNECTION: undefined,
    };
    let peerBest = Number.POSITIVE_INFINITY;
    let toolrowBest = Number.POSITIVE_INFINITY;
    let peerMb = 0;
    let toolrowMb = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const peer = await timed(
        [PEER, table, join(dir, `peer-${size}-${round}.ndjson`), region, endpoint],
        {},
        dir,
      );
      if (Number(peer.stdout.trim()) !== size)
        throw new Error(`the peer wrote ${peer.stdout.trim()} items, not ${size}`);
      peerBest = Math.min(peerBest, peer.ms);
      peerMb = Math.max(peerMb, peer.peakMb);
      const file = `toolrow-${size}-${round}.ndjson`;
      const ours = await timed(
        [CLI, 'call', 'startExport', JSON.stringify({ table, format: 'ndjson', path: file })],
        env,
        dir,
      );
      // The command exits once the file is whole: every item is a line of it.
      const lines = (await readFile(join(dir, 'data', 'exports', file), 'utf8'))
        .split('\n')
        .filter(Boolean).length;
      if (lines !== size) throw new Error(`Toolrow exported ${lines} items, not ${size}: ${ours.stdout}`);
      toolrowBest = Math.min(toolrowBest, ours.ms);
      toolrowMb = Math.max(toolrowMb, ours.peakMb);
    }
    results.push({
      size,
      peer: size / (peerBest / 1000),
      toolrow: size / (toolrowBest / 1000),
      peerMb,
      toolrowMb,
    });
  }
} finally {
  client.destroy();
  await rm(dir, { recursive: true, force: true });
}

console.log(
  '\nDynamoDB export, NDJSON, DynamoDB Local (end to end: each command from its start to its exit)\n',
);
console.log(
  '| items | plain SDK Scan (items/s) | toolrow call startExport (items/s) | ratio | peer peak RSS | Toolrow peak RSS |',
);
console.log('|---|---|---|---|---|---|');
for (const row of results) {
  console.log(
    `| ${row.size.toLocaleString('en-US')} | ${Math.round(row.peer).toLocaleString('en-US')} | ${Math.round(row.toolrow).toLocaleString('en-US')} | ${(row.toolrow / row.peer).toFixed(2)}× | ${row.peerMb.toFixed(0)} MB | ${row.toolrowMb.toFixed(0)} MB |`,
  );
}
if (results.length > 1) {
  const first = results[0]!;
  const last = results.at(-1)!;
  console.log(
    `\nToolrow's peak RSS from ${first.size.toLocaleString('en-US')} to ${last.size.toLocaleString('en-US')} items: ${first.toolrowMb.toFixed(0)} → ${last.toolrowMb.toFixed(0)} MB (${(last.toolrowMb / first.toolrowMb).toFixed(2)}×).`,
  );
}
