// The table list and rows as a new user meets them, in Chromium: a table made by another writer
// while the app runs shows up on ↻ and on a reload (with its row count), a view is marked as one
// and says it is read-only when asked to edit, and a new row is staged from the grid's Add row
// and from a record's Copy as new row, with the stage tool's checks.
import { sqlDatabaseOf } from '@toolrow/postgres';
import type { Toolrow } from '@toolrow/state';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  clearStaging,
  collectPageErrors,
  ensureBundle,
  launchBrowser,
  openSeededSource,
  startTestServer,
  type TestServer,
} from './test-support.ts';

let toolrow: Toolrow;
let browser: Browser;
let app: TestServer;

beforeAll(async () => {
  await ensureBundle();
  [toolrow, browser] = await Promise.all([openSeededSource(200), launchBrowser()]);
  app = await startTestServer(toolrow);
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
  await toolrow?.close();
});

async function open(): Promise<{ page: Page; errors: string[]; close: () => Promise<void> }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  const errors = collectPageErrors(page);
  await page.goto(app.openUrl);
  return { page, errors, close: () => context.close() };
}

const nav = (page: Page) => page.getByRole('navigation', { name: 'Tables and panels' });
const tableButton = (page: Page, name: string) =>
  nav(page).getByRole('button', { name: new RegExp(`^${name}`) });

describe('the table list and new rows in Chromium', () => {
  it('↻ and a reload read the catalog again: a table another writer made shows up, with its rows', async () => {
    const { page, errors, close } = await open();
    try {
      await expect.poll(() => tableButton(page, 'orders').count()).toBe(1);
      // Behind the app's back, as psql or a migration would.
      await sqlDatabaseOf(toolrow.source).exec(
        'CREATE TABLE made_elsewhere (id int PRIMARY KEY, label text); INSERT INTO made_elsewhere SELECT g, g::text FROM generate_series(1, 42) g; ANALYZE made_elsewhere;',
      );
      expect(await tableButton(page, 'made_elsewhere').count()).toBe(0);
      await nav(page).getByRole('button', { name: '↻' }).click();
      await expect.poll(() => tableButton(page, 'made_elsewhere').count()).toBe(1);
      expect(await tableButton(page, 'made_elsewhere').locator('.count').textContent()).toBe('42');
      await sqlDatabaseOf(toolrow.source).exec('CREATE TABLE made_later (id int PRIMARY KEY)');
      await page.reload();
      await expect.poll(() => tableButton(page, 'made_later').count()).toBe(1);
      expect(errors).toEqual([]);
    } finally {
      await close();
    }
  });

  it('a view is marked as one, and asking to edit its rows says they are read-only', async () => {
    await sqlDatabaseOf(toolrow.source).exec(
      "CREATE VIEW paid_orders AS SELECT id, total FROM orders WHERE status = 'paid'",
    );
    const { page, errors, close } = await open();
    try {
      await expect.poll(() => tableButton(page, 'paid_orders').count()).toBe(1);
      expect(await tableButton(page, 'paid_orders').getByTestId('view-badge').textContent()).toBe('view');
      await tableButton(page, 'paid_orders').click();
      const row = page.locator('.grid-row').first();
      await row.waitFor();
      expect(await page.getByRole('button', { name: 'Add row' }).count()).toBe(0);
      await row.locator('[role=gridcell]').nth(1).click();
      await page.keyboard.press('Enter');
      await expect
        .poll(() => page.getByTestId('read-only-notice').textContent())
        .toMatch(/paid_orders is a view: its rows are read-only here/);
      expect(errors).toEqual([]);
    } finally {
      await close();
    }
  });

  it('live: a change staged elsewhere shows in the staged count without a reload; a stopped server says so', async () => {
    await clearStaging(toolrow);
    const own = await startTestServer(toolrow);
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    try {
      await page.goto(own.openUrl);
      await expect.poll(() => tableButton(page, 'orders').count()).toBe(1);
      expect(await page.getByTestId('staged-count').count()).toBe(0);
      // Another process on the same store (the CLI, an MCP client, a colleague).
      await toolrow.state.staging.stageUpdate(
        'orders',
        [{ key: { id: 7 }, values: { note: 'from elsewhere' } }],
        {
          actor: 'user',
        },
      );
      await expect.poll(() => page.getByTestId('staged-count').textContent(), { timeout: 20_000 }).toBe('1');
      await clearStaging(toolrow);
      await expect.poll(() => page.getByTestId('staged-count').count(), { timeout: 20_000 }).toBe(0);
      await own.close();
      await expect
        .poll(() => page.getByTestId('server-gone').textContent(), { timeout: 20_000 })
        .toContain('server stopped');
    } finally {
      await context.close();
      await own.close().catch(() => {});
    }
  });

  it('Add row stages an insert (a wrong value refused with the column named, the values kept); a record copies as a new row', async () => {
    await clearStaging(toolrow);
    const { page, errors, close } = await open();
    try {
      await tableButton(page, 'customers').click();
      await page.getByRole('button', { name: 'Add row' }).click();
      const dialog = page.getByRole('dialog', { name: 'New row' });
      // The database's own id is left out; a required column is marked.
      expect(await dialog.getByLabel('id', { exact: true }).count()).toBe(0);
      await dialog.getByLabel('name', { exact: true }).fill('Ada New');
      await dialog.getByLabel('email', { exact: true }).fill('ada.new@example.com');
      await dialog.getByLabel('city', { exact: true }).fill('Lisbon');
      await dialog.getByLabel('country', { exact: true }).fill('PT');
      await dialog.getByLabel('signed_up_at', { exact: true }).fill('not a time');
      await dialog.getByRole('button', { name: 'Stage insert' }).click();
      await expect.poll(() => dialog.getByRole('alert').first().textContent()).toMatch(/signed_up_at/);
      expect(await dialog.getByLabel('name', { exact: true }).inputValue()).toBe('Ada New');
      expect((await toolrow.state.staging.list()).map((change) => change.kind)).toEqual([]);
      await dialog.getByLabel('signed_up_at', { exact: true }).fill('');
      await dialog.getByRole('button', { name: 'Stage insert' }).click();
      await expect.poll(() => dialog.count()).toBe(0);
      await expect.poll(async () => (await toolrow.state.staging.list()).length).toBe(1);
      const [insert] = await toolrow.state.staging.list();
      expect(insert).toMatchObject({ kind: 'insert', table: 'public.customers', stagedBy: 'user' });
      expect(insert!.values).toMatchObject({ name: 'Ada New', email: 'ada.new@example.com' });
      expect((await toolrow.state.audit.list({ tool: 'stageInsertRows' }))[0]!.detail).toMatch(
        /staged 1 insert into public\.customers/,
      );

      // From a record: its values, its key left for the person.
      await tableButton(page, 'products').click();
      await page.locator('.grid-row').first().locator('[role=rowheader]').dblclick();
      await page.getByRole('button', { name: 'Copy as new row' }).click();
      const copy = page.getByRole('dialog', { name: 'New row' });
      expect(await copy.getByLabel('name', { exact: true }).inputValue()).not.toBe('');
      await copy.getByLabel('name', { exact: true }).fill('A copied product');
      await copy.getByRole('button', { name: 'Stage insert' }).click();
      await expect.poll(async () => (await toolrow.state.staging.list()).length).toBe(2);
      expect((await toolrow.state.staging.list())[1]).toMatchObject({
        kind: 'insert',
        table: 'public.products',
      });
      // The review names each change by the number errors and the CLI use.
      await nav(page)
        .getByRole('button', { name: /^Staging/ })
        .click();
      await expect
        .poll(() => page.getByTestId('change-id').allTextContents())
        .toEqual((await toolrow.state.staging.list()).map((change) => `#${change.id}`));
      // The one refusal above is the browser's console line for its 400; nothing else went wrong.
      expect(errors.filter((error) => !/status of 400/.test(error))).toEqual([]);
    } finally {
      await clearStaging(toolrow);
      await close();
    }
  });
});
