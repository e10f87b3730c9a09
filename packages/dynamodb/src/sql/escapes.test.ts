// The escape corpus (src/sql-escapes.ts) against each layer of SQL over DynamoDB alone, through
// every path the engine offers a statement: check (validateQuery), plan (explainQuery), run
// (runQuery, the workbench) and export (startExport).
//   check    DuckDB's parser deciding it is one SELECT over known tables, with no file, table or
//            system function; the sandbox switched off (DuckDB with its defaults).
//   sandbox  DuckDB with external access off, no extension loading, its settings locked; the check
//            switched off (every statement reaches DuckDB as written).
//   control  both off: the same statements do read the secret and write files, so the tests above
//            could fail.
// After every statement: no output holds the secret or names its files, the output folder is
// empty, the network server was never asked; after all of them DuckDB's settings are as they were
// and DynamoDB holds what it held.
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { type DataSourceWith, isDataSourceError } from '@toolrow/datasource';
import { createMemoryExportJobStore } from '@toolrow/datasource-utils';
import { describeWithService } from '@toolrow/test-services';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { dynamoTestUrl, freshDynamoUrl } from '../../test/dynamodb-local.ts';
import { createClients } from '../clients.ts';
import { openDynamoDataSource } from '../source.ts';
import { createEscapeHarness, type EscapeHarness, SQL_ESCAPES } from '../sql-escapes.ts';
import { parseDynamoUrl } from '../url.ts';

const NOW = new Date('2026-11-15T00:00:00Z');
const PATHS = ['check', 'plan', 'run', 'export'] as const;
type Path = (typeof PATHS)[number];
type Outcome = 'refused' | 'failed' | 'ran';

let root: string;
let harness: EscapeHarness;
let url: string;

async function dynamoFingerprint(): Promise<string> {
  const clients = createClients(parseDynamoUrl(url));
  try {
    const hash = createHash('sha256');
    for (const table of ['customers', 'products', 'orders', 'order_items']) {
      const items = (await clients.read.send(new ScanCommand({ TableName: table }))).Items ?? [];
      hash.update(JSON.stringify(items.map((item) => JSON.stringify(item)).sort()));
    }
    return hash.digest('hex');
  } finally {
    clients.close();
  }
}

/** One statement through every path; what each did, and what came out of it. */
async function attempt(
  ds: DataSourceWith,
  exports: ReturnType<DataSourceWith['createExportEngine']>,
  sql: string,
) {
  const outcomes: Partial<Record<Path, Outcome>> = {};
  const outputs: string[] = [];
  const classify = (error: unknown): Outcome =>
    isDataSourceError(error) &&
    ['permission', 'invalid-filter', 'unknown-table', 'unknown-column'].includes(error.code)
      ? 'refused'
      : 'failed';
  for (const path of PATHS) {
    try {
      if (path === 'check') await ds.queries.check!(sql);
      else if (path === 'plan') outputs.push(JSON.stringify(await ds.queries.plan(sql)));
      else if (path === 'run') outputs.push(JSON.stringify(await ds.queries.run(sql, { maxRows: 100 })));
      else {
        const job = await exports.run({ source: { sql }, format: 'csv', actor: 'agent' });
        if (job.state === 'done') outputs.push(await readFile(job.path, 'utf8'));
        else throw new Error(job.error ?? job.state);
      }
      outcomes[path] = 'ran';
    } catch (error) {
      outcomes[path] = classify(error);
      // An error's text is output too: it must not carry the secret either.
      outputs.push(String((error as Error)?.message ?? error));
    }
  }
  return { outcomes, output: outputs.join('\n') };
}

const SETTINGS_PROBE =
  "SELECT current_setting('enable_external_access') AS external, current_setting('lock_configuration') AS locked, current_setting('memory_limit') AS memory, current_setting('threads') AS threads, current_setting('TimeZone') AS zone, current_setting('autoload_known_extensions') AS autoload, current_setting('allow_unsigned_extensions') AS unsigned";

beforeAll(async () => {
  if (!dynamoTestUrl) return;
  root = await mkdtemp(join(tmpdir(), 'toolrow-sql-escapes-'));
  harness = await createEscapeHarness();
  url = freshDynamoUrl();
  const seeder = await openDynamoDataSource({ url, dataDir: root });
  await seeder.seed({ orders: 20, now: NOW });
  await seeder.close();
}, 120_000);

afterAll(async () => {
  await harness?.close();
  if (root) await rm(root, { recursive: true, force: true });
});

it(`the corpus holds at least 90 statements of every kind (${SQL_ESCAPES.length})`, () => {
  expect(SQL_ESCAPES.length).toBeGreaterThanOrEqual(90);
  expect(new Set(SQL_ESCAPES.map((entry) => entry.category))).toEqual(
    new Set(['read-file', 'write-file', 'network', 'extension', 'settings', 'write']),
  );
  expect(new Set(SQL_ESCAPES.map((entry) => entry.sql)).size).toBe(SQL_ESCAPES.length);
});

describeWithService('dynamodb', 'each layer alone', () => {
  it.each([
    ['check', { sandbox: false }],
    ['sandbox', { statementCheck: false }],
  ] as const)(
    'the %s layer alone leaves every statement without effect, on every path',
    async (layer, layers) => {
      const before = await dynamoFingerprint();
      const dataDir = await mkdtemp(join(root, `${layer}-`));
      const ds = await openDynamoDataSource({ url, dataDir, layers });
      const exports = ds.createExportEngine(join(dataDir, 'exports'), createMemoryExportJobStore());
      try {
        await ds.schema.refresh();
        const settingsBefore = layer === 'sandbox' ? (await ds.queries.run(SETTINGS_PROBE)).rows : [];
        const escaped: string[] = [];
        const notRefused: string[] = [];
        for (const entry of SQL_ESCAPES) {
          const sql = harness.fill(entry.sql);
          const { outcomes, output } = await attempt(ds, exports, sql);
          const found = await harness.effects(output);
          if (found.length > 0) escaped.push(`${entry.sql}: ${found.join('; ')}`);
          // The check alone must refuse on every path, before DuckDB sees the statement.
          if (layer === 'check' && PATHS.some((path) => outcomes[path] !== 'refused'))
            notRefused.push(`${entry.sql}: ${JSON.stringify(outcomes)}`);
          await harness.reset();
        }
        expect(escaped).toEqual([]);
        expect(notRefused).toEqual([]);
        if (layer === 'sandbox') expect((await ds.queries.run(SETTINGS_PROBE)).rows).toEqual(settingsBefore);
        expect(await dynamoFingerprint()).toBe(before);
      } finally {
        await ds.close();
      }
    },
    600_000,
  );

  it('without both layers the same statements do escape (so the tests above could fail)', async () => {
    const dataDir = await mkdtemp(join(root, 'control-'));
    const ds = await openDynamoDataSource({
      url,
      dataDir,
      layers: { sandbox: false, statementCheck: false },
    });
    try {
      await ds.schema.refresh();
      const read = await ds.queries.run(harness.fill("SELECT * FROM read_csv('{SECRET}')"));
      expect(await harness.effects(JSON.stringify(read.rows))).toEqual(['the secret was read']);
      await ds.queries.run(harness.fill("SELECT 1; COPY (SELECT 42) TO '{OUT}/control.csv'")).catch(() => {});
      expect(await harness.effects('')).toEqual(['files written: control.csv']);
      await harness.reset();
      const glob = await ds.queries.run(harness.fill("SELECT * FROM glob('{DIR}/*')"));
      expect(await harness.effects(JSON.stringify(glob.rows))).toEqual(['the secret folder was listed']);
    } finally {
      await harness.reset();
      await ds.close();
    }
  });
});
