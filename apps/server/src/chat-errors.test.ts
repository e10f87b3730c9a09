// A model that fails, in Chromium against the real server: the chat says what failed (the status,
// the provider's own words, what to do) instead of "An error occurred.", and Retry runs the turn
// again. Only the model is scripted: it answers 500 once, then a reply.
import { scriptedModel } from '@toolrow/agent/testing';
import type { Toolrow } from '@toolrow/state';
import { APICallError } from 'ai';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  collectPageErrors,
  ensureBundle,
  launchBrowser,
  openSeededSource,
  startTestServer,
} from './test-support.ts';

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

describe('a model that fails', () => {
  it('shows the status, the provider text and what to do; Retry runs the turn again', async () => {
    const model = scriptedModel([[{ text: 'Back again: 50 orders.' }]]);
    const answer = model.doStream.bind(model);
    let failures = 0;
    model.doStream = async (call) => {
      if (failures++ === 0)
        throw new APICallError({
          message: 'Internal Server Error',
          url: 'http://127.0.0.1:11434/v1/chat/completions',
          requestBodyValues: { secret: 'the request body stays out of every message' },
          statusCode: 500,
          responseBody: JSON.stringify({ error: { message: 'model overloaded, try later' } }),
          isRetryable: false,
        });
      return answer(call);
    };
    const logged: string[] = [];
    const app = await startTestServer(toolrow, { model });
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const page = await context.newPage();
    const errors = collectPageErrors(page);
    const stderr = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((chunk: string | Uint8Array) => {
      logged.push(String(chunk));
      return true;
    }) as typeof process.stderr.write;
    try {
      await page.goto(app.openUrl);
      const message = page.getByLabel('Message');
      await message.fill('how many orders?');
      await message.press('Enter');
      const shown = page.getByTestId('chat-error');
      await expect.poll(() => shown.count(), { timeout: 20_000 }).toBe(1);
      const text = (await shown.textContent()) ?? '';
      expect(text).toContain('The model at 127.0.0.1:11434 answered 500: model overloaded, try later.');
      expect(text).toContain('retry');
      expect(text).not.toContain('An error occurred');
      expect(text).not.toContain('secret');

      // The failed turn is saved: after a reload it is still there, saying what failed, with Retry.
      await expect
        .poll(async () => JSON.stringify(await toolrow.state.conversations.list()), { timeout: 20_000 })
        .toContain('how many orders?');
      await page.reload();
      await expect
        .poll(() => page.locator('.msg.user').allTextContents(), { timeout: 20_000 })
        .toEqual(['how many orders?']);
      await expect.poll(() => shown.count(), { timeout: 20_000 }).toBe(1);
      expect(await shown.textContent()).toContain('model overloaded, try later');

      await shown.getByRole('button', { name: 'Retry' }).click();
      await expect
        .poll(() => page.getByTestId('assistant-message').last().textContent(), { timeout: 20_000 })
        .toContain('Back again: 50 orders.');
      expect(await shown.count()).toBe(0);
      // The terminal got one line, not the request.
      expect(logged.join('')).not.toContain('the request body stays out');
      expect(errors.filter((error) => !error.includes('500'))).toEqual([]);
    } finally {
      process.stderr.write = stderr;
      await context.close();
      await app.close();
    }
  });
});
