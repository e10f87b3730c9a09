// SQL over DynamoDB against a real peer, in the same run: a GROUP BY over every item of a table, as
// a user runs it (`toolrow call runQuery '{"sql":"select category, count(*), sum(price) … group by
// category"}'` on a DynamoDB connection, with a new user's settings), against a bare 4-segment
// parallel Scan of the same table with the AWS SDK (bench/scan4-peer.ts). Both are processes, timed
// from start to exit; peak RSS is each process's own. Toolrow's answer is checked against the sums
// computed from the generated items.
//
// Reported per size (BENCH_GROUP_ITEMS, default 100000,300000): both times, the ratio, both peak
// RSS (Toolrow's with its DuckDB process). Past the default read bound (100,000 items) the
// connection's URL raises it as a user would (maxItemsRead=400000), the only setting changed.
//   npm run bench -w @toolrow/dynamodb            (or: node bench/group-by.ts)
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchItem, benchTarget, timed } from './support.ts';

const SIZES = (process.env.BENCH_GROUP_ITEMS ?? '100000,300000').split(',').map(Number);
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));
const CLI = fileURLToPath(new URL('../../../apps/cli/bin/toolrow.js', import.meta.url));
const PEER = fileURLToPath(new URL('./scan4-peer.ts', import.meta.url));

async function bench(ITEMS: number) {
  const table = `group_${ITEMS}`;
  const sql = `select category, count(*) as items, sum(price) as revenue, avg(qty) as mean_qty from ${table} group by category order by category`;

  // The answer, from the items as generated: cents add up exactly.
  const expected = new Map<string, { items: number; cents: bigint }>();
  for (let id = 1; id <= ITEMS; id++) {
    const item = benchItem(id);
    const entry = expected.get(item.category!.S!) ?? { items: 0, cents: 0n };
    entry.items++;
    entry.cents += BigInt(Math.round(Number(item.price!.N) * 100));
    expected.set(item.category!.S!, entry);
  }

  const dir = await mkdtemp(join(tmpdir(), 'toolrow-ddb-group-'));
  try {
    const filling = performance.now();
    await fill(table, ITEMS);
    console.error(
      `filled ${table} (${ITEMS.toLocaleString('en-US')} items) in ${((performance.now() - filling) / 1000).toFixed(1)} s`,
    );
    const connection = new URL(url.href);
    if (ITEMS > 100_000) connection.searchParams.set('maxItemsRead', '400000');
    // Each round: a fresh data dir (a new user's first statement: the cold figure), then the same
    // statement again in it (the warm one).
    const envOf = (round: number) => ({
      DATABASE_URL: connection.href,
      TOOLROW_DATA_DIR: join(dir, `data-${round}`),
      TOOLROW_CONNECTION: undefined,
    });
    let peer = { ms: Number.POSITIVE_INFINITY, peakMb: 0 };
    let ours = { ms: Number.POSITIVE_INFINITY, peakMb: 0 };
    let cold = { ms: Number.POSITIVE_INFINITY, peakMb: 0 };
    let parts: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const env = envOf(round);
      const scanned = await timed([PEER, table, region, endpoint], {}, dir);
      if (Number(scanned.stdout.trim()) !== ITEMS)
        throw new Error(`the peer read ${scanned.stdout.trim()} items, not ${ITEMS}`);
      peer = { ms: Math.min(peer.ms, scanned.ms), peakMb: Math.max(peer.peakMb, scanned.peakMb) };
      const first = await timed([CLI, 'call', 'runQuery', JSON.stringify({ sql })], env, dir);
      cold = { ms: Math.min(cold.ms, first.ms), peakMb: Math.max(cold.peakMb, first.peakMb) };
      const grouped = await timed([CLI, 'call', 'runQuery', JSON.stringify({ sql })], env, dir);
      const output = JSON.parse(grouped.stdout) as {
        rows: { category: string; items: unknown; revenue: unknown }[];
      };
      for (const row of output.rows) {
        const want = expected.get(row.category);
        const cents = BigInt(
          String(row.revenue)
            .replace('.', '')
            .replace(/^(-?)0+(?=\d)/, '$1'),
        );
        if (!want || Number(row.items) !== want.items || cents !== want.cents)
          throw new Error(
            `wrong answer for ${row.category}: ${JSON.stringify(row)} (want ${want?.items} items, ${want?.cents} cents)`,
          );
      }
      if (output.rows.length !== expected.size)
        throw new Error(`${output.rows.length} groups, not ${expected.size}`);
      if (grouped.peakMb > ours.peakMb) parts = grouped.peaksMb;
      ours = { ms: Math.min(ours.ms, grouped.ms), peakMb: Math.max(ours.peakMb, grouped.peakMb) };
    }
    console.log(
      `\nSQL GROUP BY over DynamoDB, DynamoDB Local, ${ITEMS.toLocaleString('en-US')} items${ITEMS > 100_000 ? ' (maxItemsRead=400000 in the URL)' : ''} (end to end, best of ${ROUNDS})\n`,
    );
    console.log('| | bare 4-segment SDK Scan | toolrow call runQuery (GROUP BY) | ratio |');
    console.log('|---|---|---|---|');
    console.log(
      `| time, cold (a fresh data dir) | ${(peer.ms / 1000).toFixed(2)} s | ${(cold.ms / 1000).toFixed(2)} s | ${(cold.ms / peer.ms).toFixed(2)}× |`,
    );
    console.log(
      `| time, warm (the same again) | ${(peer.ms / 1000).toFixed(2)} s | ${(ours.ms / 1000).toFixed(2)} s | ${(ours.ms / peer.ms).toFixed(2)}× |`,
    );
    console.log(`| peak RSS, cold | ${peer.peakMb.toFixed(0)} MB | ${cold.peakMb.toFixed(0)} MB | |`);
    console.log(
      `| peak RSS | ${peer.peakMb.toFixed(0)} MB | ${ours.peakMb.toFixed(0)} MB (${parts.map((each) => each.toFixed(0)).join(' + ')}: the command, its DuckDB process) | |`,
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const { url, region, endpoint, client, fill } = benchTarget();
try {
  for (const size of SIZES) await bench(size);
} finally {
  client.destroy();
}
