// An edit keeps what the person saw: in Chromium, through the grid's cell editor and the record
// editor, a value another writer changed after the page was read is refused at staging (never
// silently overwritten), shown as it is now, and staged only when the person stages again.
// PGlite, and PostgreSQL when TOOLROW_TEST_DATABASE_URL is set; DynamoDB Local is in dynamodb-app.test.ts.
import { sqlDatabaseOf } from '@toolrow/postgres';
import type { Toolrow } from '@toolrow/state';
import { testStores } from '@toolrow/state/testing';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  api,
  collectPageErrors,
  ensureBundle,
  launchBrowser,
  openFiltered,
  SEED_NOW,
  startTestServer,
  type TestServer,
} from './test-support.ts';

describe.each(testStores())('an edit keeps what the person saw, in Chromium, on $name', ({ open }) => {
  let toolrow: Toolrow;
  let browser: Browser;
  let app: TestServer;

  beforeAll(async () => {
    await ensureBundle();
    [toolrow, browser] = await Promise.all([open(), launchBrowser()]);
    await toolrow.source.seed!({ orders: 100, now: SEED_NOW });
    app = await startTestServer(toolrow, {});
  }, 180_000);

  afterAll(async () => {
    await app?.close();
    await browser?.close();
    await toolrow?.close();
  });

  const setPrice = (id: number, price: string) =>
    sqlDatabaseOf(toolrow.source).query(`update products set price = ${price} where id = ${id}`);
  const priceOf = async (id: number) =>
    Number(((await toolrow.source.rows.get('products', { id })) as { price: unknown }).price);

  /** The products table filtered to one id, in a fresh page. */
  async function openProduct(page: Page, id: number): Promise<void> {
    await page.goto(app.openUrl);
    await openFiltered(page, 'products', ['id', 'eq', String(id)]);
    await expect.poll(() => page.getByTestId('row-count').textContent()).toBe('1 row');
  }

  async function withPage(fn: (page: Page, errors: string[]) => Promise<void>): Promise<void> {
    await toolrow.state.ui.update('default', { tabs: [], focusedTabId: null, selection: null });
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const page = await context.newPage();
    const errors = collectPageErrors(page);
    try {
      await fn(page, errors);
    } finally {
      await context.close();
    }
  }

  it('the cell editor: refused with both values, the grid shows the new one, Enter again stages against it', async () => {
    await setPrice(5, '200.55');
    await withPage(async (page, errors) => {
      await openProduct(page, 5);
      const header = await page.locator('.grid-head [role=columnheader]').allTextContents();
      const priceColumn = header.findIndex((text) => text.startsWith('price'));
      const cell = page
        .locator('.grid-row')
        .first()
        .locator('[role=gridcell]')
        .nth(priceColumn - 1);
      await expect.poll(() => cell.textContent()).toBe('200.55');
      await cell.dblclick();
      await setPrice(5, '250.00'); // another writer, while the person types
      await page.getByLabel('Edit price').fill('300.00');
      await page.getByLabel('Edit price').press('Enter');
      await expect
        .poll(() => page.getByRole('alert').first().textContent())
        .toMatch(/'price' is "?250(\.00)?"? now \(it was "?200\.55"? when read\)/);
      expect(await page.getByTestId('staged-count').count()).toBe(0);
      expect(await priceOf(5)).toBe(250);
      // The row was read again before the refusal showed: Enter stages against 250.00 now.
      await page.getByLabel('Edit price').press('Enter');
      await expect.poll(() => page.getByTestId('staged-count').textContent()).toBe('1');
      expect(errors).toEqual([expect.stringMatching(/status of 409 \(Conflict\)/)]);
    });
    const { changes } = await api<{ changes: { changes: { before: unknown; after: unknown }[] }[] }>(
      app,
      '/api/staging',
    );
    expect(changes.map((change) => change.changes.map((c) => [Number(c.before), Number(c.after)]))).toEqual([
      [[250, 300]],
    ]);
    await api(app, '/api/staging/discard', { body: {} });
  });

  it('the record editor: refused, the edit kept, the stored value shown, staged and committed on the second try', async () => {
    await setPrice(6, '200.55');
    await withPage(async (page, errors) => {
      await openProduct(page, 6);
      await page.locator('.grid-row').first().getByRole('rowheader').dblclick();
      const price = page.locator('#field-price');
      await expect.poll(() => price.inputValue()).toBe('200.55');
      await setPrice(6, '250.00');
      await price.fill('300.00');
      await page.getByRole('button', { name: 'Stage changes' }).click();
      await expect
        .poll(() => page.getByRole('alert').first().textContent())
        .toMatch(/changed after it was read: 'price' is "?250(\.00)?"? now \(it was "?200\.55"? when read\)/);
      expect(await page.getByTestId('staged-count').count()).toBe(0);
      expect(await price.inputValue()).toBe('300.00');
      await expect.poll(() => price.getAttribute('title')).toBe('edited; stored value: 250.00');
      await page.getByRole('button', { name: 'Stage changes' }).click();
      await expect.poll(() => page.getByTestId('staged-count').textContent()).toBe('1');
      // One change of one column: the record says so in the status bar's words.
      expect(await page.getByText('1 staged change (1 column)').count()).toBe(1);
      expect(errors).toEqual([expect.stringMatching(/status of 409 \(Conflict\)/)]);
    });
    expect(await api(app, '/api/staging/commit', { body: {} })).toMatchObject({ committed: 1 });
    expect(await priceOf(6)).toBe(300);
  });
});
