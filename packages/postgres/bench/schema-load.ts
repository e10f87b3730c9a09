// Schema load at 1,000 and 10,000 tables (four columns each, one index, one foreign key): Toolrow's
// full schema load (what every listTables, describeTable and findColumns reads from), against the
// same server answering one plain catalog query of the tables and their columns, in the same run.
// On PostgreSQL (TOOLROW_TEST_DATABASE_URL or DATABASE_URL: a role that may CREATE DATABASE); PGlite
// in memory at 1,000 tables beside it. Without a server, the PostgreSQL rows print as skipped.
//
//   node bench/schema-load.ts       (npm run bench -w @toolrow/datasource runs it)
import { openDataSource } from '../src/index.ts';
import { createTestDatabase } from '../src/testing.ts';

const SIZES = (process.env.BENCH_SCHEMA_TABLES ?? '1000,10000').split(',').map(Number);
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));
const adminUrl = process.env.TOOLROW_TEST_DATABASE_URL?.trim() || process.env.DATABASE_URL?.trim();

const PEER_SQL = `SELECT c.relname, n.nspname, a.attname, format_type(a.atttypid, a.atttypmod)
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
  JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
  WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f') AND n.nspname NOT IN ('pg_catalog', 'information_schema', 'toolrow_app')
  ORDER BY n.nspname, c.relname, a.attnum`;

/** The tables' DDL in batches of 500 (one transaction each: 10,000 at once exhaust the lock table). */
function ddl(tables: number): string[] {
  // In public: the schema the cache reads by default, as a user's tables usually are.
  const batches = [['CREATE TABLE bench_parent (id int PRIMARY KEY)']];
  for (let index = 0; index < tables - 1; index++) {
    if (batches.at(-1)!.length >= 1000) batches.push([]);
    batches
      .at(-1)!
      .push(
        `CREATE TABLE bench_t${index} (id int PRIMARY KEY, parent_id int REFERENCES bench_parent(id), label text, at timestamptz)`,
        `CREATE INDEX bench_t${index}_label ON bench_t${index} (label)`,
      );
  }
  return batches.map((batch) => batch.join(';\n'));
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function run(engine: 'postgres' | 'pglite', tables: number): Promise<void> {
  const database = engine === 'postgres' ? await createTestDatabase(adminUrl!, 'toolrow_bench_') : undefined;
  const options = database ? { url: database.url, env: {} } : { memory: true as const, env: {} };
  try {
    const source = await openDataSource(options);
    const toolrow: number[] = [];
    const peer: number[] = [];
    let createMs = 0;
    try {
      const started = performance.now();
      for (const batch of ddl(tables)) await source.db.exec(batch);
      createMs = performance.now() - started;
      for (let round = 0; round < ROUNDS; round++) {
        let at = performance.now();
        const snapshot = await source.schema.refresh();
        toolrow.push(performance.now() - at);
        if (snapshot.tables.length < tables)
          throw new Error(`loaded ${snapshot.tables.length} of ${tables} tables`);
        at = performance.now();
        await source.db.query(PEER_SQL);
        peer.push(performance.now() - at);
      }
    } finally {
      await source.close();
    }
    const ours = median(toolrow);
    const theirs = median(peer);
    console.log(
      `${engine.padEnd(8)} ${String(tables).padStart(6)} tables  schema load ${ours.toFixed(0).padStart(6)} ms   plain catalog query ${theirs.toFixed(0).padStart(5)} ms   ${(ours / theirs).toFixed(1)}×   (created in ${(createMs / 1000).toFixed(1)} s; median of ${ROUNDS})`,
    );
  } finally {
    await database?.drop();
  }
}

console.log('Schema load: Toolrow against one plain catalog query on the same database\n');
for (const tables of SIZES) {
  if (adminUrl) await run('postgres', tables);
  else
    console.log(
      `postgres ${String(tables).padStart(6)} tables  skipped: set TOOLROW_TEST_DATABASE_URL to a server`,
    );
}
await run('pglite', Math.min(...SIZES));
