// What the DynamoDB benchmarks share: a region of their own on DynamoDB Local, a table of generated
// items filled in parallel, and a process timed from its start to its exit with its peak RSS (its
// own high-water mark, resourceUsage().maxRSS, printed at exit by a preloaded hook).
import { spawn } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type AttributeValue,
  BatchWriteItemCommand,
  CreateTableCommand,
  DynamoDBClient,
  waitUntilTableExists,
} from '@aws-sdk/client-dynamodb';

/** Printed at exit by every Node process of a command (through NODE_OPTIONS, so its children too). */
const RSS_HOOK_SOURCE = `process.on('exit',()=>process.stderr.write('\\nmaxRSS '+process.resourceUsage().maxRSS+'\\n'))`;
const RSS_HOOK = join(mkdtempSync(join(tmpdir(), 'toolrow-rss-')), 'rss-hook.mjs');
writeFileSync(RSS_HOOK, RSS_HOOK_SOURCE);

export const CATEGORIES = ['tools', 'garden', 'kitchen', 'books', 'toys'];

/** One generated item: a number key, strings, exact decimals, an instant, a set, a sparse note. */
export function benchItem(id: number): Record<string, AttributeValue> {
  return {
    id: { N: String(id) },
    name: { S: `Item ${id} of the bench, a name of some length` },
    category: { S: CATEGORIES[id % 5]! },
    price: { N: ((id % 9973) / 100 + 1).toFixed(2) },
    qty: { N: String(id % 97) },
    created_at: { S: new Date(1_700_000_000_000 + id * 60_000).toISOString() },
    tags: { SS: ['a', `t${id % 11}`] },
    ...(id % 7 === 0 ? { note: { S: 'fragile, handle with care' } } : {}),
  };
}

export function benchTarget() {
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

  /** Creates `table` (key: id) and writes `count` generated items, 8 batch writers at once. */
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
            PutRequest: { Item: benchItem(start + index) },
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

  return { url, region, endpoint, client, fill };
}

/**
 * Runs `node <args>` as its own process: its time from start to exit, its stdout, and its peak RSS
 * — with the Node processes it starts (Toolrow's DuckDB process) added in: each one's own peak,
 * summed, an upper bound of what the command held at once.
 */
export async function timed(args: string[], env: Record<string, string | undefined>, cwd: string) {
  const started = performance.now();
  const child = spawn(process.execPath, args, {
    env: {
      ...process.env,
      ...env,
      NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import ${RSS_HOOK}`.trim(),
    },
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
  const peaks = [...stderr.matchAll(/maxRSS (\d+)/g)].map((match) => Number(match[1]));
  const rss = peaks.length > 0 ? peaks.reduce((sum, each) => sum + each, 0) / 1024 : Number.NaN;
  return { ms, peakMb: rss, stdout, peaksMb: peaks.map((each) => each / 1024) };
}
