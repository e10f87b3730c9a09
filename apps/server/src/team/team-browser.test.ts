// Team mode in a real browser (Debian's Chromium): sign-in through the provider's own pages, the
// header naming the person and their role, an analyst's edit staged in the grid, and the review
// where the analyst cannot commit and an approver who did not stage it commits it.
import type { Toolrow } from '@toolrow/state';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolrowServer, type ToolrowServer } from '../server.ts';
import {
  clearStaging,
  collectPageErrors,
  ensureBundle,
  freePort,
  launchBrowser,
  openSeededSource,
} from '../test-support.ts';
import { startTestProvider, type TestProvider } from './test-provider.ts';

describe('team mode in Chromium: sign-in and the four-eyes review', () => {
  let toolrow: Toolrow;
  let provider: TestProvider;
  let app: ToolrowServer;
  let appUrl: string;
  let browser: Browser;

  beforeAll(async () => {
    await ensureBundle();
    [toolrow, browser] = await Promise.all([openSeededSource(60), launchBrowser()]);
    const port = await freePort();
    appUrl = `http://127.0.0.1:${port}`;
    provider = await startTestProvider([appUrl]);
    app = await createToolrowServer({
      source: toolrow.source,
      state: toolrow.state,
      env: provider.env(appUrl),
      model: null,
      log: () => {},
    });
    await app.listen({ port });
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await provider?.close();
    await toolrow?.close();
  });

  /** Opens the app in a fresh browser context and signs in as `account` through the provider's pages. */
  async function signedInPage(account: string): Promise<{ page: Page; errors: string[] }> {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${appUrl}/`);
    // The provider's login page (oidc-provider's own), then its consent page.
    await page.locator('input[name="login"]').fill(account);
    await page.locator('input[name="password"]').fill('any');
    await page.locator('button[type="submit"]').click();
    await page.locator('button[type="submit"]').click();
    await page.waitForURL((url) => url.href.startsWith(appUrl));
    // The app's own errors from here (the provider's pages fetch things of their own).
    const errors = collectPageErrors(page);
    return { page, errors };
  }

  const nav = (page: Page) => page.getByRole('navigation', { name: 'Tables and panels' });

  it('an analyst signs in, stages an edit and cannot commit it; an approver commits it', async () => {
    const ana = await signedInPage('ana');
    await expect.poll(() => ana.page.getByTestId('signed-in').textContent()).toContain('Ana Analyst');
    expect(await ana.page.getByTestId('role').textContent()).toBe('analyst');

    // An edit in the grid: double-click a cell, type, Enter.
    await nav(ana.page)
      .getByRole('button', { name: /^orders/ })
      .click();
    const firstRow = ana.page.locator('.grid-row').first();
    await expect.poll(() => firstRow.count()).toBe(1);
    const id = Number(await firstRow.locator('[role=gridcell]').first().textContent());
    const header = await ana.page.locator('.grid-head [role=columnheader]').allTextContents();
    const statusColumn = header.findIndex((text) => text.startsWith('status'));
    // Column headers include the row-number header, as do the row's cells (rowheader first).
    const cell = firstRow.locator('[role=gridcell]').nth(statusColumn - 1);
    const before = await cell.textContent();
    await cell.dblclick();
    await ana.page.getByLabel('Edit status').fill(before === 'refunded' ? 'cancelled' : 'refunded');
    await ana.page.getByLabel('Edit status').press('Enter');
    await expect.poll(() => ana.page.getByTestId('staged-count').textContent()).toBe('1');
    expect((await toolrow.state.staging.list())[0]).toMatchObject({ person: 'ana@example.com' });

    // Her review: the change is hers, and she cannot commit (she stages; an approver commits).
    await nav(ana.page)
      .getByRole('button', { name: /^Staging/ })
      .click();
    const card = ana.page.getByTestId('staged-change');
    await expect.poll(() => card.count()).toBe(1);
    expect(await card.getByTestId('staged-by').textContent()).toContain('ana@example.com');
    expect(await card.getByRole('button', { name: 'Commit', exact: true }).isDisabled()).toBe(true);
    expect(await ana.page.getByRole('button', { name: 'Commit all' }).isDisabled()).toBe(true);
    expect(await ana.page.getByTestId('review-note').textContent()).toMatch(
      /As analyst you stage; an approver commits/,
    );

    // Abe, an approver, reviews in his own browser and commits it.
    const abe = await signedInPage('abe');
    expect(await abe.page.getByTestId('role').textContent()).toBe('approver');
    await nav(abe.page)
      .getByRole('button', { name: /^Staging/ })
      .click();
    const his = abe.page.getByTestId('staged-change');
    await expect.poll(() => his.count()).toBe(1);
    expect(await his.getByTestId('staged-by').textContent()).toContain('ana@example.com');
    expect(await abe.page.getByTestId('review-note').textContent()).toMatch(/You review as abe@example\.com/);
    await his.getByRole('button', { name: 'Commit', exact: true }).click();
    await expect.poll(() => his.count()).toBe(0);
    expect(((await toolrow.source.rows.get('orders', { id })) as { status: string }).status).toBe(
      before === 'refunded' ? 'cancelled' : 'refunded',
    );
    const audit = await toolrow.state.audit.list({ person: 'abe@example.com' });
    expect(audit.map((entry) => entry.detail)).toEqual([
      expect.stringMatching(/approved and committed 1 change .* staged by ana@example\.com/),
    ]);

    // Signing out ends the session in the store (the provider's own sign-in may let the browser straight back in).
    const cookie = (await abe.page.context().cookies(appUrl)).find(
      (each) => each.name === 'toolrow_session',
    )!;
    expect(await toolrow.state.team.find(cookie.value, 60_000)).toBeDefined();
    await abe.page.getByRole('button', { name: 'Sign out' }).click();
    await expect.poll(async () => toolrow.state.team.find(cookie.value, 60_000)).toBeUndefined();
    expect(ana.errors).toEqual([]);
  });

  it("the app offers each role only what it may: an analyst discards her own change, not another's; a viewer neither stages nor chats", async () => {
    await clearStaging(toolrow);
    await toolrow.state.staging.stageUpdate('orders', [{ key: { id: 2 }, values: { note: 'abe’s' } }], {
      actor: 'user',
      person: 'abe@example.com',
    });
    const ana = await signedInPage('ana');
    await expect.poll(() => ana.page.getByTestId('role').textContent()).toBe('analyst');
    // The mode is an admin's: the other modes are off, and say why.
    const auto = ana.page.getByRole('radio', { name: 'Auto', exact: true });
    expect(await auto.isDisabled()).toBe(true);
    expect(await auto.getAttribute('title')).toMatch(/As analyst you may not change the permission mode/);
    // No Add connection for her; the model's Save is off.
    expect(await ana.page.locator('option', { hasText: 'Add connection' }).count()).toBe(0);
    await ana.page.getByRole('button', { name: /no model|model / }).click();
    const save = ana.page.getByRole('button', { name: 'Save', exact: true });
    expect(await save.isDisabled()).toBe(true);
    expect(await save.getAttribute('title')).toMatch(/may not change the model/);
    await ana.page.keyboard.press('Escape');
    await ana.page.goto(`${appUrl}/`);
    // Her own change next to Abe's: Discard on hers, not on his, nor Discard all.
    await nav(ana.page)
      .getByRole('button', { name: /^orders/ })
      .click();
    await ana.page.getByRole('button', { name: 'Add row' }).waitFor();
    await toolrow.state.staging.stageUpdate('orders', [{ key: { id: 4 }, values: { note: 'ana’s' } }], {
      actor: 'user',
      person: 'ana@example.com',
    });
    await ana.page.goto(`${appUrl}/`);
    await nav(ana.page)
      .getByRole('button', { name: /^Staging/ })
      .click();
    const cards = ana.page.getByTestId('staged-change');
    await expect.poll(() => cards.count()).toBe(2);
    const his = cards.filter({ hasText: 'abe@example.com' });
    const hers = cards.filter({ hasText: 'ana@example.com' });
    expect(await his.getByRole('button', { name: 'Discard', exact: true }).isDisabled()).toBe(true);
    expect(await his.getByRole('button', { name: 'Discard', exact: true }).getAttribute('title')).toMatch(
      /Staged by abe@example\.com: as analyst you discard only your own/,
    );
    expect(await ana.page.getByRole('button', { name: 'Discard all' }).isDisabled()).toBe(true);
    await hers.getByRole('button', { name: 'Discard', exact: true }).click();
    await expect.poll(() => cards.count()).toBe(1);
    expect((await toolrow.state.staging.list()).map((change) => change.person)).toEqual(['abe@example.com']);
    expect(
      (await toolrow.state.audit.list({ person: 'ana@example.com', tool: 'discardStaged' })).length,
    ).toBe(1);

    // A viewer: no Add row, and the chat says why it is off.
    const vic = await signedInPage('vic');
    await expect.poll(() => vic.page.getByTestId('role').textContent()).toBe('viewer');
    await nav(vic.page)
      .getByRole('button', { name: /^orders/ })
      .click();
    await vic.page.locator('.grid-row').first().waitFor();
    expect(await vic.page.getByRole('button', { name: 'Add row' }).count()).toBe(0);
    const message = vic.page.getByLabel('Message');
    expect(await message.isDisabled()).toBe(true);
    expect(await message.getAttribute('placeholder')).toMatch(/As viewer you may not run the agent/);
    // Enter on a cell says why nothing opens for editing, rather than nothing.
    await vic.page.locator('.grid-row').first().locator('[role=gridcell]').nth(2).click();
    await vic.page.keyboard.press('F2');
    await expect
      .poll(() => vic.page.getByTestId('read-only-notice').textContent())
      .toMatch(/As viewer you may not stage changes/);
    await clearStaging(toolrow);
    expect(ana.errors).toEqual([]);
    expect(vic.errors).toEqual([]);
  });
});
