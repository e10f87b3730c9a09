// A model reply in markdown, rendered by the production bundle in headless Chromium against the
// real server; only the model is scripted. What a reply carries in HTML never runs.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { scriptedModel } from '@toolrow/agent/testing';
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

// Browser globals inside page.evaluate callbacks (this package's types have no DOM lib).
declare const getComputedStyle: (element: unknown) => {
  textAlign: string;
  borderTopStyle: string;
  fontFamily: string;
};
declare const window: { __pwned?: string };

const SCREENSHOTS = join(import.meta.dirname, '..', 'test-results');

let toolrow: Toolrow;
let browser: Browser;

beforeAll(async () => {
  await ensureBundle();
  [toolrow, browser] = await Promise.all([openSeededSource(50), launchBrowser()]);
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await toolrow?.close();
});

async function withChat(
  reply: string,
  fn: (
    page: Page,
    answer: ReturnType<Page['getByTestId']>,
    errors: string[],
    requests: readonly string[],
  ) => Promise<void>,
): Promise<void> {
  for (const conversation of await toolrow.state.conversations.list({ limit: 1000 }))
    await toolrow.state.conversations.delete(conversation.id);
  const app: TestServer = await startTestServer(toolrow, { model: scriptedModel([[{ text: reply }]]) });
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const page = await context.newPage();
  const errors = collectPageErrors(page);
  const requests: string[] = [];
  page.on('request', (request) => requests.push(request.url()));
  try {
    await page.goto(app.openUrl);
    const message = page.getByLabel('Message');
    await message.fill('show me');
    await message.press('Enter');
    const answer = page.getByTestId('assistant-message').last();
    // The turn is over when Send is back.
    await expect.poll(() => page.getByRole('button', { name: 'Send' }).count(), { timeout: 20_000 }).toBe(1);
    await fn(page, answer, errors, requests);
  } finally {
    await context.close();
    await app.close();
  }
}

const MARKDOWN_REPLY = [
  'The **top customers** by revenue:',
  '',
  '| customer | orders | revenue |',
  '| --- | ---: | ---: |',
  '| Ada | 12 | 1,204.00 |',
  '| Grace | 9 | 980.50 |',
  '',
  '- paid orders only',
  '- since *November*',
  '',
  '```sql',
  'SELECT customer_id, sum(total) FROM orders GROUP BY 1;',
  '```',
  '',
  'Run it with `runQuery`.',
].join('\n');

describe('markdown in the chat, in Chromium', () => {
  it('renders a table, a list and code from a reply (screenshot in test-results/)', async () => {
    await withChat(MARKDOWN_REPLY, async (_page, answer, errors) => {
      const markdown = answer.getByTestId('markdown');
      await expect.poll(() => markdown.locator('table').count()).toBe(1);
      expect(await markdown.locator('th').allTextContents()).toEqual(['customer', 'orders', 'revenue']);
      expect(await markdown.locator('tbody tr').count()).toBe(2);
      expect(
        await markdown
          .locator('td')
          .nth(2)
          .evaluate((cell) => getComputedStyle(cell).textAlign),
      ).toBe('right');
      expect(await markdown.locator('ul > li').allTextContents()).toEqual([
        'paid orders only',
        'since November',
      ]);
      expect(await markdown.locator('li em').textContent()).toBe('November');
      expect(await markdown.locator('strong').textContent()).toBe('top customers');
      const code = markdown.locator('pre code');
      expect(await code.textContent()).toBe('SELECT customer_id, sum(total) FROM orders GROUP BY 1;\n');
      expect(await code.getAttribute('class')).toBe('language-sql');
      expect(await markdown.locator('p code').textContent()).toBe('runQuery');
      // Styled, not browser defaults: cells have borders, code is monospace.
      expect(
        await markdown
          .locator('td')
          .first()
          .evaluate((cell) => getComputedStyle(cell).borderTopStyle),
      ).toBe('solid');
      expect(await code.evaluate((node) => getComputedStyle(node).fontFamily)).toMatch(/mono/i);
      // No raw markup reached the screen.
      expect(await answer.textContent()).not.toMatch(/\*\*|\| ---|```/);

      mkdirSync(SCREENSHOTS, { recursive: true });
      const shot = await answer.screenshot({ path: join(SCREENSHOTS, 'chat-markdown.png') });
      const box = await answer.boundingBox();
      expect(shot.length).toBeGreaterThan(2_000);
      expect(box?.height).toBeGreaterThan(150);
      expect(errors).toEqual([]);
    });
  });

  it('shows HTML in a reply as text and runs none of it: no script, no onerror, no javascript: link, no image load', async () => {
    const reply = [
      'Here you go <script>window.__pwned = "script"</script>',
      '',
      '<img src="/x-missing.png" onerror="window.__pwned = \'onerror\'">',
      '',
      "[click me](javascript:window.__pwned='link')",
      '',
      '![chart](/api/leak?data=secret)',
    ].join('\n');
    await withChat(reply, async (page, answer, _errors, requests) => {
      const markdown = answer.getByTestId('markdown');
      await expect.poll(() => markdown.textContent()).toContain('Here you go');
      // The HTML is visible as what the model wrote.
      expect(await markdown.textContent()).toContain('<script>window.__pwned = "script"</script>');
      expect(await markdown.textContent()).toContain('onerror=');
      expect(await markdown.locator('script, img, iframe').count()).toBe(0);
      const link = markdown.getByRole('link', { name: 'click me' });
      if ((await link.count()) > 0) expect(await link.getAttribute('href')).not.toMatch(/^javascript:/i);
      await link.click().catch(() => {});
      // The image is a link, not a request.
      expect(await markdown.getByRole('link', { name: 'image: chart' }).count()).toBe(1);
      expect(await page.evaluate(() => window.__pwned)).toBeUndefined();
      expect(requests.filter((url) => url.includes('leak') || url.includes('x-missing'))).toEqual([]);
    });
  });
});
