// The production bundle in headless Chromium against the real server and database. Only the
// language model is scripted (MockLanguageModelV4 through @toolrow/agent/testing).

import { scriptedModel } from '@toolrow/agent/testing';
import { TOOL_NAMES } from '@toolrow/catalog';
import type { Toolrow } from '@toolrow/state';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  collectPageErrors,
  ensureBundle,
  launchBrowser,
  openSeededSource,
  startTestServer,
  type TestServer,
} from './test-support.ts';

let toolrow: Toolrow;
let browser: Browser;

beforeAll(async () => {
  await ensureBundle();
  [toolrow, browser] = await Promise.all([openSeededSource(3000), launchBrowser()]);
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await toolrow?.close();
});

async function withApp<T>(
  options: Parameters<typeof startTestServer>[1],
  fn: (page: Page, app: TestServer, errors: string[]) => Promise<T>,
): Promise<T> {
  await toolrow.state.ui.update('default', { tabs: [], focusedTabId: null, selection: null });
  // The app reopens the last saved conversation: each test starts from none.
  for (const conversation of await toolrow.state.conversations.list({ limit: 1000 }))
    await toolrow.state.conversations.delete(conversation.id);
  const app = await startTestServer(toolrow, options);
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const page = await context.newPage();
  const errors = collectPageErrors(page);
  try {
    await page.goto(app.openUrl);
    return await fn(page, app, errors);
  } finally {
    await context.close();
    await app.close();
  }
}

const nav = (page: Page) => page.getByRole('navigation', { name: 'Tables and panels' });

describe('the desktop bundle in Chromium', () => {
  it('loads with no console errors and shows the tables and the catalog badges', async () => {
    await withApp({}, async (page, _app, errors) => {
      await expect
        .poll(() =>
          nav(page)
            .getByRole('button', { name: /^orders/ })
            .count(),
        )
        .toBe(1);
      await page.getByRole('button', { name: 'Agent tools' }).click();
      const rows = page.getByTestId('tool-row');
      await expect.poll(() => rows.count()).toBe(TOOL_NAMES.length);
      // Badges come from the rows bundled into the page.
      const export_ = rows.filter({ hasText: 'startExport' });
      expect(await export_.locator('.badge').first().textContent()).toBe('gated · export');
      expect(await rows.filter({ hasText: 'listTables' }).locator('.badge').first().textContent()).toBe(
        'silent',
      );
      // On a narrow window a tool's name stays whole: one line, never broken mid-word.
      await page.setViewportSize({ width: 1000, height: 900 });
      const broken = await rows.locator('td:first-child').evaluateAll((cells) =>
        cells
          .filter((cell) => {
            const range = cell.ownerDocument.createRange();
            range.selectNodeContents(cell);
            return range.getClientRects().length > 1;
          })
          .map((cell) => cell.textContent),
      );
      expect(broken).toEqual([]);
      // And the table still fits its panel: nothing is cut off on the right.
      const fits = await page
        .locator('table.dtable')
        .first()
        .evaluate(
          (table) =>
            table.getBoundingClientRect().right <= (table.ownerDocument.defaultView?.innerWidth ?? 0),
        );
      expect(fits).toBe(true);
      await page.setViewportSize({ width: 1440, height: 900 });
      await expect.poll(() => page.getByTestId('no-model').count()).toBe(1);
      // Without a model the chat still answers: with how to set one.
      await page.getByLabel('Message').fill('hello');
      await page.getByLabel('Message').press('Enter');
      await expect
        .poll(() => page.getByTestId('assistant-message').last().textContent(), { timeout: 15_000 })
        .toContain('Pick one in Settings');
      expect(errors).toEqual([]);
    });
  });

  it('signs in through the printed link: the token leaves the URL, a reload works on the cookie, a browser without it is refused', async () => {
    await withApp({}, async (page, app, errors) => {
      await expect
        .poll(() =>
          nav(page)
            .getByRole('button', { name: /^orders/ })
            .count(),
        )
        .toBe(1);
      expect(page.url()).toBe(`${app.url}/`);
      const [cookie] = await page.context().cookies();
      expect(cookie).toMatchObject({
        name: `toolrow_app_${app.server.port}`,
        httpOnly: true,
        sameSite: 'Strict',
      });
      await page.reload();
      await expect
        .poll(() =>
          nav(page)
            .getByRole('button', { name: /^orders/ })
            .count(),
        )
        .toBe(1);
      expect(errors).toEqual([]);

      const stranger = await browser.newContext();
      try {
        const other = await stranger.newPage();
        const response = await other.goto(`${app.url}/`);
        expect(response?.status()).toBe(401);
        expect(await other.getByRole('heading').textContent()).toBe('Open Toolrow with its link');
        expect(await other.locator('body').textContent()).toContain('npm start');
        const old = await other.goto(`${app.url}/?token=from-an-earlier-start`);
        expect(old?.status()).toBe(401);
        expect(await other.locator('body').textContent()).toContain(
          'not the one this Toolrow was started with',
        );
      } finally {
        await stranger.close();
      }
    });
  });

  it('a filter value that cannot be right is said beside it, and one the database refuses can be cleared, also after a reload', async () => {
    await withApp({}, async (page, _app, errors) => {
      await nav(page)
        .getByRole('button', { name: /^orders/ })
        .click();
      const total = `${(await toolrow.source.rows.count('orders')).toLocaleString('en-US')} rows`;
      await expect.poll(() => page.getByTestId('row-count').textContent()).toBe(total);
      const requests: string[] = [];
      page.on('request', (request) => {
        if (request.url().includes('/count')) requests.push(request.postData() ?? '');
      });

      // Not a number for a numeric column: said at the condition, nothing sent, nothing saved.
      await page.getByRole('button', { name: '+ Filter' }).click();
      await page.getByLabel('Filter column').selectOption('total');
      await page.getByLabel('Filter value').fill('lots');
      await page.getByLabel('Filter value').press('Enter');
      expect(await page.getByTestId('filter-problem').textContent()).toBe(
        "total is numeric(12,2): 'lots' is not a number.",
      );
      expect(await page.getByLabel('Filter value').getAttribute('aria-invalid')).toBe('true');
      expect(requests).toEqual([]);
      expect((await toolrow.state.ui.get('default')).tabs[0]).not.toHaveProperty('filter');

      // A number no integer column holds: the server's refusal names the condition in words, the count
      // says it failed instead of spinning, and Clear filter is offered.
      await page.getByLabel('Filter column').selectOption('id');
      await page.getByLabel('Filter value').fill('99999999999999999999');
      await page.getByLabel('Filter value').press('Enter');
      expect(await page.getByTestId('filter-problem').count()).toBe(0);
      const alert = page.locator('.error-box');
      await expect
        .poll(() => alert.first().textContent())
        .toBe(
          "The filter (id = 99999999999999999999): Column 'id' is integer, which holds -2,147,483,648 to 2,147,483,647; 99999999999999999999 is outside that, so no row can have it.",
        );
      await expect.poll(() => page.getByTestId('row-count').textContent()).toBe('count failed');

      // After a reload the same filter is back with the same explanation and the same way out.
      await expect
        .poll(async () => (await toolrow.state.ui.get('default')).tabs[0])
        .toMatchObject({ filter: { column: 'id', value: '99999999999999999999' } });
      await page.reload();
      await expect
        .poll(() => alert.first().textContent())
        .toContain('The filter (id = 99999999999999999999)');
      await page.getByRole('button', { name: 'Clear filter' }).click();
      await expect.poll(() => page.getByTestId('row-count').textContent()).toBe(total);
      expect(await alert.count()).toBe(0);
      // The only failed requests were the refused filter's.
      expect(errors.filter((error) => !/400/.test(error))).toEqual([]);
    });
  });

  it('the workbench: a failed query shows only its error (no earlier rows under it), with the nearest name', async () => {
    await withApp({}, async (page, _app, errors) => {
      await page.getByRole('button', { name: 'New query' }).click();
      const sql = page.getByLabel('SQL');
      await sql.fill('select id, status from orders order by id limit 3');
      await page.getByRole('button', { name: /^Run/ }).click();
      const results = page.getByRole('grid', { name: 'Query results' });
      await expect.poll(() => results.count()).toBe(1);
      await sql.fill('select id from ordrs');
      await page.getByRole('button', { name: /^Run/ }).click();
      const alert = page.getByRole('alert');
      await expect.poll(() => alert.count()).toBe(1);
      expect(await alert.textContent()).toContain('relation "ordrs" does not exist');
      expect(await alert.locator('.hint').textContent()).toContain("Did you mean 'orders'");
      expect(await results.count()).toBe(0);
      expect(errors.filter((error) => !/400/.test(error))).toEqual([]);
    });
  });

  it('a query opened while the saved tabs still load is kept when they arrive', async () => {
    await withApp({}, async (page, _app, errors) => {
      // Hold the saved tabs back until the user has opened a query and typed into it.
      let release!: () => void;
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      let held!: () => void;
      const holding = new Promise<void>((resolve) => {
        held = resolve;
      });
      await page.route('**/api/ui-state', async (route) => {
        if (route.request().method() !== 'GET') return route.continue();
        held();
        await released;
        await route.continue();
      });
      await page.reload();
      await holding;
      await page.getByRole('button', { name: 'New query' }).click();
      await page.getByLabel('SQL').fill('select 42 as kept');
      const restored = page.waitForResponse(
        (response) => response.url().endsWith('/api/ui-state') && response.request().method() === 'GET',
      );
      release();
      await restored;
      // The restore has been applied once the layout is saved back with the query in it.
      await expect
        .poll(async () => (await toolrow.state.ui.get('default')).tabs.map((tab) => tab.kind))
        .toEqual(['workbench']);
      expect(await page.getByLabel('SQL').inputValue()).toBe('select 42 as kept');
      expect(errors).toEqual([]);
    });
  });

  it('many tabs: the strip scrolls, and the tab in focus is always whole in view', async () => {
    await withApp({}, async (page, _app, errors) => {
      await page.setViewportSize({ width: 1200, height: 800 });
      for (let index = 0; index < 14; index++) {
        await page.getByRole('button', { name: 'New query' }).click();
        await page.getByLabel('SQL').fill(`select ${index} as tab_number_${index}`);
      }
      const strip = page.getByRole('tablist', { name: 'Open tabs' });
      await expect.poll(() => strip.getByRole('tab').count()).toBe(14);
      const within = async (name: RegExp) => {
        const tab = await strip.getByRole('tab', { name }).boundingBox();
        const box = await strip.boundingBox();
        return tab!.x >= box!.x - 0.5 && tab!.x + tab!.width <= box!.x + box!.width + 0.5;
      };
      expect(await strip.evaluate((element) => element.scrollWidth > element.clientWidth)).toBe(true);
      // The strip scrolls instead of pushing the page wider.
      expect(await page.locator('html').evaluate((element) => element.scrollWidth)).toBe(1200);
      await expect.poll(() => within(/tab_number_13/)).toBe(true);
      // Going back to the first tab (Alt+1) brings it into view.
      await page.keyboard.press('Alt+1');
      await expect.poll(() => within(/tab_number_0\b/)).toBe(true);
      expect(errors).toEqual([]);
    });
  });

  it('selecting rows does not move the grid: a double-click on a row number opens that row', async () => {
    // A window where the bar is tight: the selection's buttons must not wrap the bar onto two lines.
    await withApp({}, async (page, _app, errors) => {
      await page.setViewportSize({ width: 1100, height: 800 });
      await nav(page)
        .getByRole('button', { name: /^orders/ })
        .click();
      const rows = page.locator('.grid-row');
      await expect.poll(() => rows.count()).toBeGreaterThan(8);
      const bar = page.getByTestId('table-toolbar');
      const before = { bar: await bar.boundingBox(), row: await rows.nth(4).boundingBox() };
      // Select three rows: the bar gains "3 selected", Stage delete and Clear selection.
      for (const index of [1, 2, 3]) await rows.nth(index).getByRole('rowheader').click();
      await expect.poll(() => page.getByText('3 selected').count()).toBe(1);
      expect(await bar.boundingBox()).toEqual(before.bar);
      expect(await rows.nth(4).boundingBox()).toEqual(before.row);
      // The row under the pointer is the one that opens.
      const id = await rows.nth(4).locator('[role=gridcell]').first().textContent();
      await rows.nth(4).getByRole('rowheader').dblclick();
      await expect.poll(() => page.locator('#field-id').inputValue()).toBe(id);
      expect(errors).toEqual([]);
    });
  });

  it('opens a table, filters it, stages an edit, and commits it after review', async () => {
    await withApp({}, async (page, _app, errors) => {
      await nav(page)
        .getByRole('button', { name: /^orders/ })
        .click();
      const total = await toolrow.source.rows.count('orders');
      await expect
        .poll(() => page.getByTestId('row-count').textContent())
        .toBe(`${total.toLocaleString('en-US')} rows`);

      // Filter: status = cancelled.
      await page.getByRole('button', { name: '+ Filter' }).click();
      await page.getByLabel('Filter column').selectOption('status');
      await page.getByLabel('Filter operator').selectOption('eq');
      await page.getByLabel('Filter value').fill('cancelled');
      await page.getByLabel('Filter value').press('Enter');
      const cancelled = await toolrow.source.rows.count('orders', {
        column: 'status',
        op: 'eq',
        value: 'cancelled',
      });
      await expect
        .poll(() => page.getByTestId('row-count').textContent())
        .toBe(`${cancelled.toLocaleString('en-US')} ${cancelled === 1 ? 'row' : 'rows'}`);

      // The first row of the filtered grid: edit its status through the cell editor.
      const firstRow = page.locator('.grid-row').first();
      const id = Number(await firstRow.locator('[role=gridcell]').first().textContent());
      const header = await page.locator('.grid-head [role=columnheader]').allTextContents();
      const statusColumn = header.findIndex((text) => text.startsWith('status'));
      expect(statusColumn).toBeGreaterThan(0);
      // Column headers include the row-number header, as do the row's cells (rowheader first).
      const cell = firstRow.locator('[role=gridcell]').nth(statusColumn - 1);
      expect(await cell.textContent()).toBe('cancelled');
      await cell.dblclick();
      await page.getByLabel('Edit status').fill('refunded');
      await page.getByLabel('Edit status').press('Enter');
      await expect.poll(() => page.getByTestId('staged-count').textContent()).toBe('1');
      expect(((await toolrow.source.rows.get('orders', { id })) as { status: string }).status).toBe(
        'cancelled',
      );

      // Another change, to another order, goes stale before the review: the row is changed after it was staged.
      const other = id === 1 ? 2 : 1;
      const [staleChange] = await toolrow.state.staging.stageUpdate(
        'orders',
        [{ key: { id: other }, values: { ordered_at: '2026-01-02T03:04:05Z' } }],
        { actor: 'agent' },
      );
      const [elsewhere] = await toolrow.state.staging.stageUpdate(
        'orders',
        [{ key: { id: other }, values: { note: 'edited elsewhere' } }],
        { actor: 'agent' },
      );
      expect((await toolrow.state.staging.commit({ ids: [elsewhere!.id] })).ok).toBe(true);

      // Review: the diff reads before → after; the stale card is flagged, with the value as it is now.
      await nav(page)
        .getByRole('button', { name: /^Staging/ })
        .click();
      const change = page.getByTestId('staged-change');
      await expect.poll(() => change.count()).toBe(2);
      const mine = change.filter({ hasText: `id=${id}` });
      expect(await mine.locator('.before').textContent()).toBe('cancelled');
      expect(await mine.locator('.after').textContent()).toBe('refunded');
      expect(await mine.locator('.key').textContent()).toBe(`id=${id}`);
      expect(await mine.getAttribute('data-stale')).toBeNull();
      const stale = change.filter({ hasText: `id=${other}` });
      await expect.poll(() => stale.getAttribute('data-stale')).toBe('true');
      expect(await stale.getByTestId('stale-note').textContent()).toBe(
        'Changed since it was staged: note is now edited elsewhere.',
      );
      // Dates read the same here as in the grid.
      expect(await stale.locator('.after').textContent()).toBe('2026-01-02 03:04:05 UTC');
      expect(await stale.locator('.before').textContent()).toMatch(
        /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC$/,
      );
      expect(await page.getByTestId('stale-count').textContent()).toBe('1 stale');

      // Commit all asks first, and says the stale change would stop it; Cancel commits nothing.
      await page.getByRole('button', { name: 'Commit all' }).click();
      const confirm = page.getByRole('dialog', { name: 'Commit all' });
      expect(await confirm.textContent()).toContain('2 changes to orders will be written in one transaction');
      expect(await confirm.getByRole('alert').textContent()).toContain('1 change is stale');
      await confirm.getByRole('button', { name: 'Cancel' }).click();
      expect(((await toolrow.source.rows.get('orders', { id })) as { status: string }).status).toBe(
        'cancelled',
      );
      // The good card commits on its own; the stale one is discarded.
      await mine.getByRole('button', { name: 'Commit', exact: true }).click();
      await expect.poll(() => change.count()).toBe(1);
      expect(((await toolrow.source.rows.get('orders', { id })) as { status: string }).status).toBe(
        'refunded',
      );
      await stale.getByRole('button', { name: 'Discard' }).click();
      await expect.poll(() => change.count()).toBe(0);
      expect((await toolrow.state.staging.list()).map((each) => each.id)).not.toContain(staleChange!.id);
      expect(errors).toEqual([]);
    });
  });

  it('shows a propose chip from a scripted turn; clicking it opens the table', async () => {
    const model = scriptedModel([
      [{ tool: 'proposeOpenTable', input: { table: 'customers' } }],
      [{ text: 'Here is a button that opens the customers table.' }],
    ]);
    await withApp({ model }, async (page, _app, errors) => {
      await page.getByLabel('Message').fill('show me the customers');
      await page.getByLabel('Message').press('Enter');
      const chip = page.getByTestId('chip');
      await expect.poll(() => chip.count(), { timeout: 15_000 }).toBe(1);
      expect(await chip.textContent()).toContain('customers');
      // Nothing opened before the click.
      expect((await toolrow.state.ui.get('default')).tabs).toEqual([]);
      await expect.poll(() => page.getByTestId('token-pill').count()).toBe(1);
      expect(await page.getByTestId('token-pill').textContent()).toMatch(/\d+ in · \d+ out/);

      await chip.click();
      await expect.poll(() => page.getByRole('tab', { selected: true }).textContent()).toContain('customers');
      const total = await toolrow.source.rows.count('customers');
      await expect
        .poll(() => page.getByTestId('row-count').textContent())
        .toBe(`${total.toLocaleString('en-US')} rows`);
      const [audit] = await toolrow.state.audit.list({ limit: 1 });
      expect(audit).toMatchObject({ tool: 'openTable', decision: 'approved', decidedBy: 'user' });
      expect(errors).toEqual([]);
    });
  });

  it('under Manual, a gated tool asks first and a denial is respected', async () => {
    await toolrow.state.profiles.setMode('default', 'manual');
    const model = scriptedModel([
      [{ tool: 'openTable', input: { table: 'products' } }],
      [{ text: 'Understood: I left the products table closed.' }],
    ]);
    await withApp({ model }, async (page, _app, errors) => {
      await expect
        .poll(() => page.getByRole('radio', { name: 'Manual' }).getAttribute('aria-checked'))
        .toBe('true');
      await page.getByLabel('Message').fill('open products');
      await page.getByLabel('Message').press('Enter');
      const approval = page.getByTestId('approval');
      await expect.poll(() => approval.count(), { timeout: 15_000 }).toBe(1);
      expect(await approval.textContent()).toContain('openTable');
      expect(await approval.getByTestId('approval-summary').textContent()).toBe('Open table products');
      await approval.getByRole('button', { name: 'Deny' }).click();

      await expect
        .poll(() => page.getByTestId('assistant-message').last().textContent(), { timeout: 15_000 })
        .toContain('left the products table closed');
      const call = page.locator('[data-testid=tool-call][data-tool=openTable]');
      expect(await call.getAttribute('data-state')).toBe('output-denied');
      // The tool never ran: no tab, and the audit log has the ask and the denial.
      expect((await toolrow.state.ui.get('default')).tabs).toEqual([]);
      expect(await page.getByRole('tab').count()).toBe(0);
      const audit = await toolrow.state.audit.list({ limit: 5, tool: 'openTable' });
      expect(audit.map((entry) => entry.decision)).toEqual(expect.arrayContaining(['asked', 'denied']));
      expect(audit.find((entry) => entry.decision === 'denied')?.decidedBy).toBe('user');
      expect(errors).toEqual([]);
    });
  });

  it('under Full Auto, an open tool runs and the app shows the tab it opened', async () => {
    await toolrow.state.profiles.setMode('default', 'full-auto');
    const model = scriptedModel([
      [{ tool: 'openTable', input: { table: 'products', sort: [{ column: 'price', direction: 'desc' }] } }],
      [{ text: 'Opened products, most expensive first.' }],
    ]);
    try {
      await withApp({ model }, async (page, _app, errors) => {
        await expect
          .poll(() => page.getByRole('radio', { name: 'Full Auto' }).getAttribute('aria-checked'))
          .toBe('true');
        await page.getByLabel('Message').fill('show products by price');
        await page.getByLabel('Message').press('Enter');
        await expect
          .poll(() => page.getByRole('tab', { selected: true }).textContent(), { timeout: 15_000 })
          .toContain('products');
        expect(await page.getByTestId('approval').count()).toBe(0);
        const header = page.locator('.grid-head [role=columnheader][aria-sort=descending]');
        await expect.poll(() => header.textContent()).toContain('price');
        const [audit] = await toolrow.state.audit.list({ limit: 1, tool: 'openTable' });
        expect(audit).toMatchObject({ decision: 'auto', decidedBy: 'agent' });
        expect(errors).toEqual([]);
      });
    } finally {
      await toolrow.state.profiles.setMode('default', 'manual');
    }
  });

  it('a conversation survives a reload; New starts another; History switches and deletes', async () => {
    const model = scriptedModel([
      [{ text: 'The orders table has every order since last year.' }],
      [{ text: 'Customers live in the customers table.' }],
    ]);
    await withApp({ model }, async (page, _app, errors) => {
      const message = page.getByLabel('Message');
      const idle = () => page.getByRole('button', { name: 'Send' }).count();
      await message.fill('what is in orders?');
      await message.press('Enter');
      await expect
        .poll(() => page.getByTestId('assistant-message').last().textContent(), { timeout: 15_000 })
        .toContain('every order since last year');
      // The stream ends after the server saved the turn; then the input is idle again.
      await expect.poll(idle).toBe(1);

      await page.reload();
      await expect
        .poll(() => page.locator('.msg.user .bubble').allTextContents())
        .toEqual(['what is in orders?']);
      expect(await page.getByTestId('assistant-message').textContent()).toContain(
        'every order since last year',
      );
      expect(await page.getByTestId('token-pill').count()).toBe(1);

      // New: an empty chat; its first turn is a second saved conversation.
      await page.getByRole('button', { name: 'New conversation' }).click();
      expect(await page.getByTestId('assistant-message').count()).toBe(0);
      await message.fill('where are the customers?');
      await message.press('Enter');
      await expect
        .poll(() => page.getByTestId('assistant-message').last().textContent(), { timeout: 15_000 })
        .toContain('customers table');
      await expect.poll(idle).toBe(1);

      // History, by keyboard: newest first, the open one marked; Enter on the older one opens it.
      await page.getByRole('button', { name: 'Conversation history' }).click();
      const items = page.getByTestId('conversation-item');
      await expect
        .poll(() => items.locator('.conv-title').allTextContents())
        .toEqual(['where are the customers?', 'what is in orders?']);
      expect(await items.first().locator('.conv-open').getAttribute('aria-current')).toBe('true');
      await page.keyboard.press('ArrowDown');
      await page.keyboard.press('Enter');
      await expect
        .poll(() => page.locator('.msg.user .bubble').allTextContents())
        .toEqual(['what is in orders?']);
      expect(await page.getByTestId('conversation-list').count()).toBe(0);

      // Delete the other one: × asks, Delete confirms; it leaves the list and the database.
      await page.getByRole('button', { name: 'Conversation history' }).click();
      await page.getByRole('button', { name: 'Delete the conversation “where are the customers?”' }).click();
      await page.getByRole('button', { name: 'Delete', exact: true }).click();
      await expect.poll(() => items.locator('.conv-title').allTextContents()).toEqual(['what is in orders?']);
      expect((await toolrow.state.conversations.list()).map((conversation) => conversation.title)).toEqual([
        'what is in orders?',
      ]);
      expect(await page.locator('.msg.user .bubble').allTextContents()).toEqual(['what is in orders?']);
      expect(errors).toEqual([]);
    });
  });
});
