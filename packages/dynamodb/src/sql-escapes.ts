// The escape corpus of SQL over DynamoDB: statements that would read the machine's files, write
// files, reach the network, load extensions, loosen DuckDB's settings or write inside DuckDB, in
// plain, nested, stacked and disguised forms. Every SQL-taking path must leave all of it without
// effect with each layer alone (src/sql/escapes.test.ts; the app's paths in apps/server, MCP in apps/cli).
//
// Placeholders, filled per run: {SECRET} a CSV file holding the secret, {SECRET_JSON} a JSON one,
// {DIR} their folder, {OUT} a folder that must stay empty, {NET} an HTTP server that counts hits.
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export type EscapeEffect = 'read-file' | 'write-file' | 'network' | 'extension' | 'settings' | 'write';

export interface Escape {
  category: EscapeEffect;
  sql: string;
}

const of = (category: EscapeEffect, sqls: readonly string[]): Escape[] =>
  sqls.map((sql) => ({ category, sql }));

export const SQL_ESCAPES: readonly Escape[] = [
  ...of('read-file', [
    "SELECT * FROM read_csv('{SECRET}')",
    "SELECT * FROM read_csv_auto('{SECRET}')",
    "SELECT * FROM read_csv(['{SECRET}'], header = false)",
    "SELECT * FROM '{SECRET}'",
    'SELECT * FROM "{SECRET}"',
    "SELECT content FROM read_text('{SECRET}')",
    "SELECT content FROM read_blob('{SECRET}')",
    "SELECT * FROM read_json_auto('{SECRET_JSON}')",
    "SELECT * FROM read_json('{SECRET_JSON}')",
    "SELECT * FROM read_ndjson_objects('{SECRET_JSON}')",
    "SELECT * FROM parquet_scan('{SECRET}')",
    "SELECT * FROM sniff_csv('{SECRET}')",
    "SELECT * FROM glob('{DIR}/*')",
    "SELECT * FROM query_table('{SECRET}')",
    "SELECT * FROM query('SELECT * FROM read_text(''{SECRET}'')')",
    "SELECT * FROM orders WHERE id IN (SELECT 1 FROM read_csv('{SECRET}'))",
    "WITH s AS (SELECT * FROM read_csv('{SECRET}')) SELECT * FROM s",
    "SELECT (SELECT content FROM read_text('{SECRET}')) AS c",
    "SELECT o.id, t.content FROM orders o, LATERAL (SELECT content FROM read_text('{SECRET}')) t",
    "SELECT * FROM orders UNION ALL SELECT * FROM read_csv('{SECRET}')",
    "SeLeCt * FrOm ReAd_CsV('{SECRET}')",
    "SELECT * FROM /* look away */ read_csv /* here */ ('{SECRET}')",
    'SELECT * FROM "read_csv"(\'{SECRET}\')',
    "SELECT * FROM main.read_csv('{SECRET}')",
    "SELECT * FROM read_csv('{SECRET}') AS orders",
    // A CTE named like the file hides it only inside its own scope.
    `SELECT * FROM '{SECRET}' WHERE 1 IN (WITH "{SECRET}" AS (SELECT 1) SELECT 1 FROM "{SECRET}")`,
    `SELECT * FROM orders WHERE EXISTS (WITH "{SECRET}" AS (SELECT 1) SELECT 1) AND id IN (SELECT 1 FROM '{SECRET}')`,
    'SELECT * FROM duckdb_settings()',
    'SELECT * FROM duckdb_secrets()',
    'SELECT * FROM duckdb_extensions()',
    'SELECT * FROM duckdb_databases()',
    'SELECT * FROM pragma_database_list()',
    "SELECT current_setting('home_directory') AS home",
    "SELECT * FROM which_secret('s3://bucket/key', 's3')",
  ]),
  ...of('write-file', [
    "COPY (SELECT 42) TO '{OUT}/a.csv'",
    "COPY orders TO '{OUT}/b.csv'",
    "COPY (SELECT * FROM orders) TO '{OUT}/c.parquet' (FORMAT parquet)",
    "EXPORT DATABASE '{OUT}/db'",
    "ATTACH '{OUT}/x.db' AS x",
    "ATTACH '{OUT}/y.db' AS y; CREATE TABLE y.t AS SELECT 1",
    "SELECT 1; COPY (SELECT 42) TO '{OUT}/d.csv'",
    "SELECT 1 AS a; COPY (SELECT 2) TO '{OUT}/e.csv';",
    "WITH x AS (SELECT 1) SELECT * FROM x; COPY (SELECT 1) TO '{OUT}/f.csv'",
    "/* a comment first */ COPY (SELECT 1) TO '{OUT}/g.csv'",
    "CREATE TABLE t AS SELECT 1 AS one; COPY t TO '{OUT}/h.csv'",
    "SELECT * FROM orders;\nCOPY (SELECT * FROM orders) TO '{OUT}/i.json'",
    "copy (select 42) to '{OUT}/j.csv' (header)",
    "SET temp_directory = '{OUT}/spill'",
    "IMPORT DATABASE '{DIR}'",
  ]),
  ...of('network', [
    "SELECT * FROM read_csv('{NET}/a.csv')",
    "SELECT * FROM '{NET}/b.csv'",
    "SELECT content FROM read_text('{NET}/c.txt')",
    "SELECT * FROM read_parquet('{NET}/d.parquet')",
    "SELECT * FROM read_json('{NET}/e.json')",
    "ATTACH '{NET}/f.db' AS remote",
    "INSTALL httpfs FROM '{NET}'",
    "FORCE INSTALL httpfs FROM '{NET}'",
    "SET custom_extension_repository = '{NET}'; INSTALL httpfs",
    "SELECT 1; INSTALL httpfs FROM '{NET}'",
  ]),
  ...of('extension', [
    'INSTALL httpfs',
    'LOAD httpfs',
    "LOAD '{OUT}/evil.duckdb_extension'",
    'INSTALL json; LOAD json',
    'SET autoload_known_extensions = true',
    'SET autoinstall_known_extensions = true',
    'SET allow_unsigned_extensions = true',
    'SET allow_community_extensions = true',
    'INSTALL sqlite; LOAD sqlite',
  ]),
  ...of('settings', [
    'SET enable_external_access = true',
    'SET GLOBAL enable_external_access = true',
    'RESET enable_external_access',
    "SET memory_limit = '64GB'",
    "PRAGMA memory_limit = '64GB'",
    'SET threads = 64',
    'SET lock_configuration = false',
    'RESET lock_configuration',
    "SET TimeZone = 'America/New_York'",
    "SET GLOBAL TimeZone = 'Asia/Tokyo'",
    'PRAGMA enable_profiling',
    "SET VARIABLE sneaky = 'x'",
    'CALL pragma_version()',
    'SELECT 1; SET enable_external_access = true',
    "SELECT current_setting('enable_external_access') AS open",
  ]),
  ...of('write', [
    "INSERT INTO orders (id, status) VALUES (999999, 'forged')",
    "UPDATE orders SET status = 'forged'",
    'DELETE FROM orders',
    'DROP TABLE orders',
    'TRUNCATE orders',
    'CREATE TABLE sneaky AS SELECT * FROM orders',
    'CREATE VIEW sneaky AS SELECT 1',
    'CREATE MACRO sneaky(a) AS a',
    "CREATE SECRET sneaky (TYPE s3, KEY_ID 'x', SECRET 'y')",
    "CREATE PERSISTENT SECRET sneaky2 (TYPE s3, KEY_ID 'x', SECRET 'y')",
    'PREPARE p AS SELECT 1; EXECUTE p',
    'BEGIN; SELECT 1; COMMIT',
    'CHECKPOINT',
    'VACUUM',
    'ANALYZE',
    'DETACH memory',
    'USE memory',
    'WITH x AS (DELETE FROM orders RETURNING *) SELECT * FROM x',
    'SELECT * FROM orders; DELETE FROM orders',
    'INSERT INTO orders SELECT * FROM orders',
  ]),
];

/** The surroundings an escape would reach: a secret on disk, a folder to write to, a server to call. */
export interface EscapeHarness {
  /** The secret both files hold: it must appear in no output. */
  token: string;
  /** A corpus statement with its placeholders filled. */
  fill(sql: string): string;
  /** What shows an escape in an output (and on disk, and on the network) since the last reset. */
  effects(output: string): Promise<string[]>;
  /** Empties the output folder and the request count. */
  reset(): Promise<void>;
  close(): Promise<void>;
}

export async function createEscapeHarness(): Promise<EscapeHarness> {
  const token = `TOPSECRET-${createHash('sha256').update(randomBytes(16)).digest('hex').slice(0, 12)}`;
  const root = await mkdtemp(join(tmpdir(), 'toolrow-sql-escapes-'));
  const secretDir = join(root, 'secrets');
  const outDir = join(root, 'out');
  await mkdir(secretDir);
  await mkdir(outDir);
  const csv = join(secretDir, 'secret.csv');
  const json = join(secretDir, 'secret.json');
  await writeFile(csv, `name,value\nsecret,${token}\n`);
  await writeFile(json, `{"secret": "${token}"}\n`);
  // A file no statement names: seeing its name means the folder was listed.
  const hidden = `hidden-${randomBytes(6).toString('hex')}.key`;
  await writeFile(join(secretDir, hidden), token);
  let hits = 0;
  const server = createServer((_request, response) => {
    hits++;
    response.end(`name,value\nsecret,${token}\n`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const netUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return {
    token,
    fill: (sql) =>
      sql
        .replaceAll('{SECRET_JSON}', json)
        .replaceAll('{SECRET}', csv)
        .replaceAll('{DIR}', secretDir)
        .replaceAll('{OUT}', outDir)
        .replaceAll('{NET}', netUrl),
    async effects(output) {
      const found: string[] = [];
      if (output.includes(token)) found.push('the secret was read');
      if (output.includes(hidden)) found.push('the secret folder was listed');
      const written = (await readdir(outDir, { recursive: true })).map(String);
      if (written.length > 0) found.push(`files written: ${written.join(', ')}`);
      if (hits > 0) found.push(`${hits} network requests`);
      return found;
    },
    async reset() {
      await rm(outDir, { recursive: true, force: true });
      await mkdir(outDir);
      hits = 0;
    },
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(root, { recursive: true, force: true });
    },
  };
}
