// Charts in the app, in headless Chromium against the real server and database; only the model
// is scripted. The card in the chat (from drawChart and from proposeChart's chip), the workbench's
// Chart button without a model, downloads, refusals, and no request leaving the page.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { scriptedModel } from '@toolrow/agent/testing';
import type { Toolrow } from '@toolrow/state';
import { dynamoTestStore, type StoreEngine, sqliteTestStore, testStores } from '@toolrow/state/testing';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  collectPageErrors,
  ensureBundle,
  launchBrowser,
  startTestServer,
  type TestServer,
} from './test-support.ts';

// One request draws a chart in the app on every engine a user connects.
const ENGINES: StoreEngine[] = [
  ...testStores(),
  ...[dynamoTestStore()].filter((store) => store !== undefined),
  sqliteTestStore(),
];

const SCREENSHOTS = join(import.meta.dirname, '..', 'test-results');
const PER_STATUS = 'SELECT status, count(*) AS n FROM orders GROUP BY status ORDER BY status';
const BAR = {
  mark: 'bar',
  encoding: { x: { field: 'status' }, y: { field: 'n' } },
  title: 'Orders per status',
};

let browser: Browser;

beforeAll(async () => {
  await ensureBundle();
  browser = await launchBrowser();
}, 180_000);

afterAll(async () => {
  await browser?.close();
});

describe.each(ENGINES)('charts in the app on $name (Chromium)', ({ name, open }) => {
  let toolrow: Toolrow;
  let statuses: string[];
  // Screenshots a person looks at: one engine's are enough.
  const shoot = name === ENGINES[0]?.name;

  beforeAll(async () => {
    toolrow = await open({ seed: { orders: 150 } });
    statuses = (await toolrow.source.queries.run(PER_STATUS, { maxRows: 100 })).rows.map((row) =>
      String(row.status),
    );
    await toolrow.state.profiles.setMode('default', 'full-auto');
  }, 180_000);

  afterAll(async () => {
    await toolrow?.close();
  });

  async function withApp(
    options: Parameters<typeof startTestServer>[1],
    viewport: { width: number; height: number },
    fn: (page: Page, app: TestServer, errors: string[], requests: readonly string[]) => Promise<void>,
  ): Promise<void> {
    await toolrow.state.ui.update('default', { tabs: [], focusedTabId: null, selection: null });
    for (const conversation of await toolrow.state.conversations.list({ limit: 1000 }))
      await toolrow.state.conversations.delete(conversation.id);
    const app = await startTestServer(toolrow, options);
    const context = await browser.newContext({ viewport, acceptDownloads: true });
    const page = await context.newPage();
    const errors = collectPageErrors(page);
    // Every request the page makes: a chart must reach nothing but the app itself.
    const requests: string[] = [];
    page.on('request', (request) => requests.push(request.url()));
    try {
      await page.goto(app.openUrl);
      await fn(page, app, errors, requests);
    } finally {
      await context.close();
      await app.close();
    }
  }

  async function ask(page: Page, text: string): Promise<void> {
    await page.getByLabel('Message').fill(text);
    await page.getByLabel('Message').press('Enter');
  }

  /** The bars' status labels as drawn in the card's SVG. */
  async function drawnLabels(page: Page): Promise<string[]> {
    return page.getByTestId('chart-canvas').locator('.role-axis-label text').allTextContents();
  }

  it.each([
    { layout: 'wide', viewport: { width: 1280, height: 800 } },
    { layout: 'narrow', viewport: { width: 760, height: 900 } },
  ])(
    'a chart the agent draws is a card in the chat ($layout layout), with its read and a link to the workbench',
    async ({ layout, viewport }) => {
      const model = scriptedModel([
        // drawChart is discoverable: a turn finds it first.
        [{ tool: 'searchTools', input: { query: 'draw a chart' } }],
        [{ tool: 'drawChart', input: { sql: PER_STATUS, spec: BAR } }],
        [{ text: 'Here are the orders per status.' }],
      ]);
      await withApp({ model }, viewport, async (page, app, errors, requests) => {
        await ask(page, 'chart orders per status');
        const card = page.getByTestId('chart-card');
        await expect.poll(() => card.count(), { timeout: 20_000 }).toBe(1);
        await expect.poll(() => drawnLabels(page)).toEqual(expect.arrayContaining(statuses));
        expect(await card.locator('.role-mark path').count()).toBe(statuses.length);
        expect(await card.textContent()).toContain(`of ${statuses.length} rows`);
        mkdirSync(SCREENSHOTS, { recursive: true });
        if (shoot) await page.screenshot({ path: join(SCREENSHOTS, `chart-chat-${layout}.png`) });
        // The card fits the chat: inside the window, and nothing in it scrolls sideways.
        const box = await card.boundingBox();
        expect(box!.x + box!.width).toBeLessThanOrEqual(viewport.width);
        expect(await card.evaluate((element) => element.scrollWidth <= element.clientWidth + 1)).toBe(true);
        await card.getByRole('button', { name: 'Open the query' }).click();
        await expect.poll(() => page.getByLabel('SQL').inputValue()).toBe(PER_STATUS);
        expect(requests.filter((url) => !url.startsWith(app.url))).toEqual([]);
        expect(errors).toEqual([]);
      });
    },
    90_000,
  );

  it('a chart chip draws nothing until clicked, then the card shows under it', async () => {
    const model = scriptedModel([
      [{ tool: 'searchTools', input: { query: 'offer a chart button' } }],
      [{ tool: 'proposeChart', input: { sql: PER_STATUS, spec: BAR } }],
      [{ text: 'Click to draw it.' }],
    ]);
    await withApp({ model }, { width: 1280, height: 800 }, async (page, _app, errors) => {
      await ask(page, 'offer me a chart of orders per status');
      const chip = page.getByTestId('chip');
      await expect.poll(() => chip.count(), { timeout: 20_000 }).toBe(1);
      expect(await chip.textContent()).toContain('Draw a bar chart');
      expect(await page.getByTestId('chart-card').count()).toBe(0);
      await chip.click();
      await expect.poll(() => page.getByTestId('chart-card').count(), { timeout: 20_000 }).toBe(1);
      await expect.poll(() => drawnLabels(page)).toEqual(expect.arrayContaining(statuses));
      const [audit] = await toolrow.state.audit.list({ limit: 1, tool: 'drawChart' });
      expect(audit).toMatchObject({ decision: 'approved', decidedBy: 'user' });
      expect(errors).toEqual([]);
    });
  }, 90_000);

  it('the workbench draws a chart of a result without a model, downloads it, and refuses what it cannot draw', async () => {
    await withApp({}, { width: 1280, height: 800 }, async (page, app, errors, requests) => {
      await page.getByRole('button', { name: 'New query' }).click();
      await page.getByLabel('SQL').fill(PER_STATUS);
      await page.getByRole('button', { name: /^Run/ }).click();
      await expect.poll(() => page.getByRole('grid', { name: 'Query results' }).count()).toBe(1);
      await page.getByRole('button', { name: 'Chart', exact: true }).click();
      const builder = page.getByTestId('chart-builder');
      await builder.getByLabel('X', { exact: true }).selectOption('status');
      await builder.getByLabel('Y', { exact: true }).selectOption('n');
      await builder.getByRole('button', { name: 'Draw' }).click();
      await expect
        .poll(() => drawnLabels(page), { timeout: 20_000 })
        .toEqual(expect.arrayContaining(statuses));
      if (shoot) await page.screenshot({ path: join(SCREENSHOTS, 'chart-workbench.png') });

      const [svg] = await Promise.all([
        page.waitForEvent('download'),
        builder.getByRole('button', { name: 'SVG' }).click(),
      ]);
      expect(svg.suggestedFilename()).toBe('chart.svg');
      const [png] = await Promise.all([
        page.waitForEvent('download'),
        builder.getByRole('button', { name: 'PNG' }).click(),
      ]);
      expect(png.suggestedFilename()).toBe('chart.png');
      const pngPath = await png.path();
      const { readFileSync } = await import('node:fs');
      expect([...readFileSync(pngPath).subarray(0, 4)]).toEqual([0x89, 0x50, 0x4e, 0x47]);

      // Saved with the saved specs: the read and the spec as written, no data; drawChart draws it by name.
      await builder.getByRole('button', { name: 'Save', exact: true }).click();
      await builder.getByLabel('Chart name').fill('orders per status');
      await builder.getByRole('button', { name: 'Save chart' }).click();
      await expect
        .poll(() => builder.getByRole('button', { name: 'Saved as orders per status' }).count())
        .toBe(1);
      const saved = await toolrow.state.specs.get('orders per status');
      expect(saved).toMatchObject({
        kind: 'query',
        spec: {
          sql: PER_STATUS,
          chart: { mark: 'bar', encoding: { x: { field: 'status' }, y: { field: 'n' } } },
        },
      });
      expect(JSON.stringify(saved.spec)).not.toContain('values');

      // A sum of text is refused by name, with the fix.
      await builder.getByLabel('Y', { exact: true }).selectOption('status');
      await builder.getByLabel('Aggregate', { exact: true }).selectOption('sum');
      await builder.getByRole('button', { name: 'Draw' }).click();
      await expect.poll(() => builder.getByRole('alert').textContent()).toContain("'status' holds text");

      // A result past the bound is refused with what to do, never sampled.
      await page.getByLabel('SQL').fill('SELECT a.id AS x, b.id AS y FROM orders a CROSS JOIN orders b');
      await page.getByRole('button', { name: /^Run/ }).click();
      await expect.poll(() => page.getByTestId('query-summary').textContent()).toContain('rows');
      // The builder stays open across runs, its picks from the new result's columns.
      const again = page.getByTestId('chart-builder');
      await again.getByLabel('Mark', { exact: true }).selectOption('point');
      await again.getByLabel('X', { exact: true }).selectOption('x');
      await again.getByLabel('Y', { exact: true }).selectOption('y');
      await again.getByRole('button', { name: 'Draw' }).click();
      await expect.poll(() => again.getByRole('alert').textContent()).toContain('more than 5000 rows');
      expect(
        requests.filter(
          (url) => !url.startsWith(app.url) && !url.startsWith('blob:') && !url.startsWith('data:'),
        ),
      ).toEqual([]);
      // The two refusals above are 403s the card shows; nothing else failed.
      expect(errors.filter((error) => !/403/.test(error))).toEqual([]);
    });
  }, 120_000);
});
