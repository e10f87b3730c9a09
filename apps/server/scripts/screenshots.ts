// Takes the README's screenshots of the main views: npm run screenshots -w @toolrow/server
//
// A fresh in-memory sample shop (50 000 orders, dates pinned), the real server and the production
// bundle in headless Chromium (CHROMIUM_PATH, default /usr/bin/chromium). The chat is a scripted
// model (no credentials needed); everything else is the real app. Writes PNGs to docs/screenshots/.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { scriptedModel } from '@toolrow/agent/testing';
import type { Filter } from '@toolrow/datasource';
import { ensureBundle, launchBrowser, openSeededSource, startTestServer } from '../src/test-support.ts';

const OUT = fileURLToPath(new URL('../../../docs/screenshots/', import.meta.url));
const ORDERS = Number(process.env.TOOLROW_SCREENSHOT_ORDERS ?? 50_000);

const log = (text: string) => process.stderr.write(`${text}\n`);

async function main() {
  await mkdir(OUT, { recursive: true });
  log('Building the desktop bundle if needed…');
  await ensureBundle();
  log(`Seeding ${ORDERS} orders in memory…`);
  const toolrow = await openSeededSource(ORDERS);
  const { source, state } = toolrow;
  const lastMonth: Filter = {
    and: [
      { column: 'status', op: 'eq', value: 'cancelled' },
      { column: 'ordered_at', op: 'between', value: ['2026-10-01', '2026-10-31 23:59:59'] },
    ],
  };
  const cancelled = await source.rows.count('orders', lastMonth);
  const model = scriptedModel([
    [{ tool: 'countRows', input: { table: 'orders', filter: lastMonth } }],
    [
      {
        tool: 'proposeOpenTable',
        input: { table: 'orders', filter: lastMonth, sort: [{ column: 'ordered_at', direction: 'desc' }] },
      },
    ],
    [
      {
        text: `${cancelled.toLocaleString('en-US')} orders were cancelled in October 2026. The button opens them, newest first.`,
      },
    ],
  ]);
  await state.profiles.setMode('default', 'manual');
  const app = await startTestServer(toolrow, {
    model,
    env: { TOOLROW_MODEL: 'bedrock:anthropic.claude-haiku-4-5 (scripted)' },
  });
  const browser = await launchBrowser();
  const page = await browser.newPage({ viewport: { width: 1440, height: 860 }, deviceScaleFactor: 1 });
  const shot = async (name: string) => {
    // Toasts fade after a few seconds; a screenshot shows the view, not the last notice.
    await page
      .locator('.toast')
      .first()
      .waitFor({ state: 'detached', timeout: 10_000 })
      .catch(() => {});
    await page.waitForTimeout(250);
    await page.screenshot({ path: join(OUT, `${name}.png`) });
    log(`  docs/screenshots/${name}.png`);
  };
  try {
    await page.goto(app.openUrl);
    await page
      .getByRole('navigation', { name: 'Tables and panels' })
      .getByRole('button', { name: /^orders/ })
      .click();
    await page.getByTestId('row-count').filter({ hasText: 'rows' }).waitFor();

    // 1. A chat turn under Manual: the gated read asks first.
    await page.getByLabel('Message').fill('How many orders were cancelled last month? Show them to me.');
    await page.getByLabel('Message').press('Enter');
    await page.getByTestId('approval').waitFor();
    await shot('chat-approval');
    await page.getByTestId('approval').getByRole('button', { name: 'Allow' }).click();

    // 2. The chip, the token pill, and the table it opens.
    await page.getByTestId('chip').waitFor();
    await page.getByTestId('token-pill').waitFor();
    await page.getByTestId('chip').click();
    await page.getByTestId('filter-badge').waitFor();
    await page.locator('.grid-row').first().waitFor();
    await shot('table-and-chat');

    // 3. Staged edits and their review.
    await state.staging.stageUpdate(
      'orders',
      [
        { key: { id: 17 }, values: { status: 'shipped', shipped_at: '2026-11-14T09:30:00Z' } },
        { key: { id: 42 }, values: { note: 'Customer asked for gift wrap' } },
      ],
      { actor: 'agent', profile: 'default' },
    );
    await state.staging.stageDelete('order_items', [{ id: 3 }], { actor: 'user', profile: 'default' });
    await page.getByRole('button', { name: /^Staging/ }).click();
    await page.getByTestId('staged-change').first().waitFor();
    await shot('staging');

    // 4. The SQL workbench.
    await page.getByRole('button', { name: 'New query' }).click();
    await page
      .getByLabel('SQL')
      .fill(
        [
          'select p.category,',
          '       count(distinct o.id) as orders,',
          '       sum(i.quantity * i.unit_price) as revenue',
          '  from orders o',
          '  join order_items i on i.order_id = o.id',
          '  join products p on p.id = i.product_id',
          " where o.status in ('paid', 'shipped', 'delivered')",
          ' group by p.category',
          ' order by revenue desc',
        ].join('\n'),
      );
    await page.getByLabel('SQL').press('Control+Enter');
    await page.getByTestId('query-summary').waitFor();
    await shot('workbench');

    // 5. Record detail.
    await page.getByRole('tab').filter({ hasText: 'orders' }).first().click();
    await page.locator('.grid-row').first().locator('[role=rowheader]').dblclick();
    await page.locator('form.record').waitFor();
    await shot('record');

    // 6. An export with its progress, then the audit log.
    await page.getByRole('tab').filter({ hasText: 'orders ·' }).first().click();
    await page.getByRole('button', { name: 'Export', exact: true }).click();
    await page.getByRole('button', { name: /^Exports/ }).click();
    await page.getByTestId('export-job').first().waitFor();
    await page.locator('[data-testid=export-job] .badge.ok').first().waitFor({ timeout: 60_000 });
    await shot('exports');
    await page.getByRole('button', { name: /^Audit log/ }).click();
    await page.getByTestId('audit-entry').first().waitFor();
    await shot('audit');
  } catch (error) {
    await page.screenshot({ path: join(OUT, 'failed.png') }).catch(() => {});
    log('  (the page at the failure: docs/screenshots/failed.png)');
    throw error;
  } finally {
    await browser.close();
    await app.close();
    await toolrow.close();
  }
}

main().catch((error) => {
  process.stderr.write(
    `screenshots failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exitCode = 1;
});
