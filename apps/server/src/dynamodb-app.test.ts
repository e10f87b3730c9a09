// The app over a DynamoDB connection (AWS's DynamoDB Local), in Chromium: the table view says how
// each read was done (a Scan, or a Query on the index a filter serves), and the workbench reads
// PartiQL and refuses a write.
import { randomInt } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openToolrow, type Toolrow } from '@toolrow/state';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  api,
  collectPageErrors,
  ensureBundle,
  launchBrowser,
  SEED_NOW,
  startTestServer,
  type TestServer,
} from './test-support.ts';

const dynamoUrl = process.env.TOOLROW_TEST_DYNAMODB_URL;
if (!dynamoUrl && process.env.CI === 'true')
  throw new Error('CI must set TOOLROW_TEST_DYNAMODB_URL (scripts/ci-dynamodb.sh starts DynamoDB Local).');

describe.runIf(dynamoUrl)('the app on DynamoDB', () => {
  let dir: string;
  let toolrow: Toolrow;
  let app: TestServer;
  let browser: Browser;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'toolrow-ddb-app-'));
    const url = new URL(dynamoUrl!);
    url.searchParams.set('region', `zz-app-${randomInt(1_000_000_000)}`);
    await ensureBundle();
    [toolrow, browser] = await Promise.all([
      openToolrow({ env: { DATABASE_URL: url.href }, dataDir: dir, state: { memory: true } }),
      launchBrowser(),
    ]);
    await toolrow.source.seed({ orders: 120, now: SEED_NOW });
    app = await startTestServer(toolrow, {});
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await toolrow?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('the table view says Scan, and Query on the index once a filter has a key', async () => {
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const page = await context.newPage();
    const errors = collectPageErrors(page);
    try {
      await page.goto(app.openUrl);
      const nav = page.getByRole('navigation', { name: 'Tables and panels' });
      await nav.getByRole('button', { name: /^orders/ }).click();
      const badge = page.getByTestId('access-badge');
      await expect.poll(() => badge.textContent()).toMatch(/^Scan · read 120$/);
      await expect.poll(() => page.getByTestId('row-count').textContent()).toBe('120 rows');

      await page.getByRole('button', { name: '+ Filter' }).click();
      await page.getByLabel('Filter column').selectOption('customer_id');
      await page.getByLabel('Filter operator').selectOption('eq');
      await page.getByLabel('Filter value').fill('7');
      await page.getByLabel('Filter value').press('Enter');
      await expect
        .poll(() => badge.textContent())
        .toMatch(/^Query on by_customer \(customer_id = "7"\) · read \d+$/);
      const expected = await toolrow.source.rows.count('orders', {
        column: 'customer_id',
        op: 'eq',
        value: 7,
      });
      await expect
        .poll(() => page.getByTestId('row-count').textContent())
        .toBe(`${expected} ${expected === 1 ? 'row' : 'rows'}`);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('the workbench reads PartiQL and refuses a write with a 403 that says why', async () => {
    const read = await api<{ rows: { id: string }[] }>(app, '/api/query', {
      body: { sql: 'SELECT * FROM "orders" WHERE "id" = 5' },
    });
    expect(read.rows.map((row) => row.id)).toEqual(['5']);
    const refused = await api(app, '/api/query', {
      body: { sql: `UPDATE "orders" SET "status" = 'x' WHERE "id" = 5` },
    }).catch((error: { status: number; data: { error: { message: string } } }) => error);
    expect(refused).toMatchObject({ status: 403 });
    expect((refused as { data: { error: { message: string } } }).data.error.message).toMatch(/Only SELECT/);
    expect(await toolrow.source.rows.get('orders', { id: 5 })).not.toMatchObject({ status: 'x' });
  });
});
