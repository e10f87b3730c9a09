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
import { spawn } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type AttributeValue,
  BatchWriteItemCommand,
  CreateTableCommand,
  DynamoDBClient,
  waitUntilTableExists,
} from '@aws-sdk/client-dynamodb';

const SIZES = (process.env.BENCH_ITEMS ?? '10000,100000')
  .split(',')
  .map((value) => Number(value.trim()))
  .filter((value) => Number.isInteger(value) && value > 0);
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 2));
const CLI = fileURLToPath(new URL('../../../apps/cli/bin/toolrow.js', import.meta.url));
const RSS_HOOK = `data:text/javascript,process.on('exit',()=>process.stderr.write('\\nmaxRSS '+process.resourceUsage().maxRSS+'\\n'))`;

const base = process.env.TOOLROW_TEST_DYNAMODB_URL;
if (!base) {
  console.error(
    'Set TOOLROW_TEST_DYNAMODB_URL (`. scripts/ci-dynamodb.sh` starts DynamoDB Local and sets it).',
  );
  process.exit(1);
}
const url = new URL(base);
url.searchParams.set('region', `zz-bench-${randomInt(1_000_000_000)}`);
const region = url.searchParams.get('region')!;
const endpoint = `http://${url.host}`;
const client = new DynamoDBClient({
  region,
  endpoint,
  credentials: { accessKeyId: 'toolrowlocal', secretAccessKey: 'toolrowlocal' },
});

function item(id: number): Record<string, AttributeValue> {
  return {
    id: { N: String(id) },
    name: { S: `Item ${id} of the bench, a name of some length` },
    category: { S: ['tools', 'garden', 'kitchen', 'books', 'toys'][id % 5]! },
    price: { N: ((id % 9973) / 100 + 1).toFixed(2) },
    qty: { N: String(id % 97) },
    created_at: { S: new Date(1_700_000_000_000 + id * 60_000).toISOString() },
    tags: { SS: ['a', `t${id % 11}`] },
    ...(id % 7 === 0 ? { note: { S: 'fragile, handle with care' } } : {}),
  };
}

async function fill(table: string, count: number): Promise<void> {
  await client.send(
    new CreateTableCommand({
      TableName: table,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'N' }],
      KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
    }),
  );
  await waitUntilTableExists({ client, maxWaitTime: 60 }, { TableName: table });
  let next = 1;
  const worker = async () => {
    while (next <= count) {
      const start = next;
      next += 25;
      let requests: Record<string, { PutRequest: { Item: Record<string, AttributeValue> } }[]> = {
        [table]: Array.from({ length: Math.min(25, count - start + 1) }, (_, index) => ({
          PutRequest: { Item: item(start + index) },
        })),
      };
      while (Object.keys(requests).length > 0) {
        const result = await client.send(new BatchWriteItemCommand({ RequestItems: requests }));
        requests = (result.UnprocessedItems ?? {}) as typeof requests;
      }
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
}

const PEER = fileURLToPath(new URL('./scan-peer.ts', import.meta.url));

async function timed(args: string[], env: Record<string, string | undefined>, cwd: string) {
  const started = performance.now();
  const child = spawn(process.execPath, ['--import', RSS_HOOK, ...args], {
    env: { ...process.env, ...env },
    cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  const ms = performance.now() - started;
  if (code !== 0) throw new Error(`${args.join(' ')} failed (${code}): ${stderr}`);
  const rss = Number(/maxRSS (\d+)/.exec(stderr)?.[1] ?? Number.NaN) / 1024;
  return { ms, peakMb: rss, stdout };
}

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
