// What the tool layer costs on top of the database, measured in one run on an in-memory PGlite
// with the sample shop, and reported as ratios so the numbers mean the same on any machine:
//   guard      checkReadOnlySql on a join + GROUP BY, against a `select 1` round trip;
//   runQuery   invokeTool('runQuery') of an aggregate, against the same SQL through db.query;
//   cap        runQuery of a whole large table (capped at 50 rows) against a 50-row query:
//              time and heap growth stay near 1x because the cursor fetches limit + 1 rows,
//              while db.query of the whole table (no cap) shows what the cap saves.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkReadOnlySql, sqlDatabaseOf } from '@toolrow/postgres';
import { openToolrow } from '@toolrow/state';
import { invokeTool } from '../src/registry.ts';

const ORDERS = Number(process.env.BENCH_ORDERS ?? 20_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 200);
const JOIN_SQL =
  'select c.country, o.status, count(*) as n, sum(o.total) as total from orders o join customers c on c.id = o.customer_id group by 1, 2 order by 3 desc';

/** Mean ms per call of `a` and `b`, interleaved so load on a shared machine hits both alike. */
async function paired(
  rounds: number,
  a: () => Promise<unknown>,
  b: () => Promise<unknown>,
): Promise<[number, number]> {
  for (let i = 0; i < Math.min(10, rounds); i++) {
    await a();
    await b();
  }
  let totalA = 0;
  let totalB = 0;
  for (let i = 0; i < rounds; i++) {
    let started = performance.now();
    await a();
    totalA += performance.now() - started;
    started = performance.now();
    await b();
    totalB += performance.now() - started;
  }
  return [totalA / rounds, totalB / rounds];
}

function heapUsed(): number {
  globalThis.gc?.();
  return process.memoryUsage().heapUsed;
}

async function heapGrowth(fn: () => Promise<unknown>): Promise<number> {
  const before = heapUsed();
  let peak = before;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().heapUsed);
  }, 1);
  const result = await fn();
  peak = Math.max(peak, process.memoryUsage().heapUsed);
  clearInterval(timer);
  void result;
  return Math.max(1, peak - before);
}

const dir = await mkdtemp(join(tmpdir(), 'toolrow-tools-bench-'));
const toolrow = await openToolrow({ dataDir: dir, env: {}, data: { memory: true }, state: { memory: true } });
const { source, state } = toolrow;
try {
  await source.seed!({ orders: ORDERS, now: new Date('2026-06-01T00:00:00Z') });
  const ctx = { source, state, profile: 'bench', actor: 'agent' as const };

  const [roundTrip, guard] = await paired(
    ROUNDS,
    () => sqlDatabaseOf(source).query('select 1'),
    () => checkReadOnlySql(JOIN_SQL),
  );
  const [raw, tool] = await paired(
    ROUNDS / 4,
    () => sqlDatabaseOf(source).query(JOIN_SQL),
    () => invokeTool('runQuery', { sql: JOIN_SQL }, ctx),
  );

  const small = 'select * from order_items order by id limit 50';
  const whole = 'select * from order_items';
  const [smallTime, cappedTime] = await paired(
    20,
    () => invokeTool('runQuery', { sql: small, limit: 50 }, ctx),
    () => invokeTool('runQuery', { sql: whole, limit: 50 }, ctx),
  );
  const smallHeap = await heapGrowth(() => invokeTool('runQuery', { sql: small, limit: 50 }, ctx));
  const cappedHeap = await heapGrowth(() => invokeTool('runQuery', { sql: whole, limit: 50 }, ctx));
  const uncappedHeap = await heapGrowth(() => sqlDatabaseOf(source).query(whole));
  const items = await sqlDatabaseOf(source).query<{ n: unknown }>('select count(*) as n from order_items');

  const ratio = (value: number) => `${value.toFixed(2)}x`;
  console.log(
    `@toolrow/tools bench (PGlite in memory, ${ORDERS} orders, ${String(items.rows[0]?.n)} order_items)`,
  );
  console.log(`guard parse of a join+group by      ${ratio(guard / roundTrip)} a select-1 round trip`);
  console.log(`runQuery (guard, read-only cursor,  ${ratio(tool / raw)} the same SQL through db.query`);
  console.log('  history, shaping) of that query');
  console.log(
    `runQuery of the whole table, cap 50 ${ratio(cappedTime / smallTime)} the time of a 50-row query`,
  );
  console.log(`  heap growth                       ${ratio(cappedHeap / smallHeap)} a 50-row query`);
  console.log(
    `db.query of the whole table         ${ratio(uncappedHeap / smallHeap)} a 50-row runQuery's heap (what the cap saves)`,
  );
} finally {
  await toolrow.close();
  await rm(dir, { recursive: true, force: true });
}
