// Settings → Model in Chromium against the real server and a real OpenAI-compatible socket that
// wants a key and serves two models: the user loads the list, tests one, saves it, and the next
// message is answered by it; switching to the other needs no restart. The key is sealed: no file of
// the data dir and no row of the state store holds it, and no answer of the app returns it.
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ChatServer, startChatServer } from '@toolrow/eval/testing';
import { openToolrow, type Toolrow } from '@toolrow/state';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bearer,
  collectPageErrors,
  ensureBundle,
  launchBrowser,
  SEED_NOW,
  startTestServer,
  type TestServer,
} from './test-support.ts';

const KEY = 'sk-local-5d1e9a7c3b2f4e6a8d0c';

let dir: string;
let toolrow: Toolrow;
let browser: Browser;
let chatServer: ChatServer;
let app: TestServer;

beforeAll(async () => {
  await ensureBundle();
  dir = await mkdtemp(join(tmpdir(), 'toolrow-model-settings-'));
  [toolrow, browser, chatServer] = await Promise.all([
    openToolrow({ env: {}, dataDir: join(dir, 'data'), data: { memory: true } }),
    launchBrowser(),
    startChatServer((request) => ({ text: `Answered by ${request.model}.` }), {
      models: ['model-b', 'model-a'],
      apiKey: KEY,
    }),
  ]);
  await toolrow.source.seed!({ orders: 20, now: SEED_NOW });
  // No model at start (nothing in TOOLROW_MODEL); the sealing secret outside the data dir.
  app = await startTestServer(toolrow, { model: undefined, env: { XDG_CONFIG_HOME: join(dir, 'config') } });
}, 180_000);

afterAll(async () => {
  await app?.close();
  await browser?.close();
  await chatServer?.close();
  await toolrow?.close();
  await rm(dir, { recursive: true, force: true });
});

async function everyFile(root: string): Promise<string> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  const files = entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
  return (await Promise.all(files.map((file) => readFile(file, 'latin1')))).join('\n');
}

async function ask(page: Page, text: string): Promise<string> {
  const before = await page.getByTestId('assistant-message').count();
  const message = page.getByLabel('Message');
  await message.fill(text);
  await message.press('Enter');
  await expect
    .poll(() => page.getByTestId('assistant-message').count(), { timeout: 30_000 })
    .toBe(before + 1);
  const last = page.getByTestId('assistant-message').last();
  await expect.poll(async () => (await last.textContent()) ?? '', { timeout: 30_000 }).toMatch(/Answered by/);
  return (await last.textContent()) ?? '';
}

describe('Settings → Model', () => {
  it('loads the models, tests one, saves it; the next message uses it, and a switch needs no restart', async () => {
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const page = await context.newPage();
    const errors = collectPageErrors(page);
    try {
      await page.goto(app.openUrl);
      await page.getByRole('button', { name: /no model: pick one/ }).click();
      const dialog = page.getByRole('dialog', { name: 'Model settings' });
      await dialog.getByLabel('Base URL').fill(chatServer.baseURL);
      await dialog.getByLabel(/API key/).fill(KEY);
      await dialog.getByRole('button', { name: 'Load models' }).click();
      await expect.poll(() => dialog.getByTestId('model-count').textContent()).toBe('2 models offered');
      await dialog.getByLabel('Model', { exact: true }).fill('model-b');
      await dialog.getByRole('button', { name: 'Test' }).click();
      await expect
        .poll(() => dialog.getByTestId('model-test').textContent(), { timeout: 30_000 })
        .toMatch(/^model-b answered in \d+ ms: “Answered by model-b\.”$/);
      await dialog.getByRole('button', { name: 'Save' }).click();
      await expect.poll(() => dialog.count()).toBe(0);
      await expect
        .poll(() => page.locator('.statusbar').textContent())
        .toContain(`model openai-compatible:${chatServer.baseURL}#model-b`);

      expect(await ask(page, 'who are you?')).toContain('Answered by model-b.');
      expect(chatServer.requests.at(-1)).toMatchObject({ model: 'model-b', authorization: `Bearer ${KEY}` });

      // Switch: the saved key stays (the field is left empty), the next message goes to model-a.
      await page.getByRole('button', { name: /^model openai-compatible/ }).click();
      await expect.poll(() => dialog.getByLabel('Model', { exact: true }).inputValue()).toBe('model-b');
      expect(await dialog.getByLabel(/API key/).getAttribute('placeholder')).toContain('saved (sealed)');
      await dialog.getByLabel('Model', { exact: true }).fill('model-a');
      await dialog.getByRole('button', { name: 'Save' }).click();
      await expect.poll(() => dialog.count()).toBe(0);
      expect(await ask(page, 'and now?')).toContain('Answered by model-a.');
      expect(chatServer.requests.at(-1)).toMatchObject({ model: 'model-a', authorization: `Bearer ${KEY}` });
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }

    // The key is sealed: not in the data dir's files, the state store or any answer of the app.
    expect(await everyFile(join(dir, 'data'))).not.toContain(KEY);
    const rows = await toolrow.state.db.q.selectFrom('settings').selectAll().execute();
    expect(JSON.stringify(rows)).not.toContain(KEY);
    const view = await (await fetch(`${app.url}/api/settings/model`, { headers: bearer(app.token) })).text();
    expect(view).not.toContain(KEY);
    expect(JSON.parse(view)).toMatchObject({
      saved: { provider: 'openai-compatible', modelId: 'model-a', hasKey: true },
      active: `openai-compatible:${chatServer.baseURL}#model-a`,
    });
  }, 180_000);

  it.each([
    [{ provider: 'gemini', modelId: 'x' }, /Pick a provider/],
    [{ provider: 'openai-compatible', modelId: 'x' }, /needs its base URL/],
    [
      { provider: 'openai-compatible', modelId: 'x', baseURL: 'ftp://host/v1' },
      /must be http:\/\/ or https:\/\//,
    ],
    [{ provider: 'bedrock', modelId: 'x', region: 'mars' }, /needs the region .* \('mars' is not one\)/],
    [
      { provider: 'anthropic', modelId: 'claude-haiku-4-5' },
      /Anthropic needs an API key: enter it in Settings/,
    ],
    [{ provider: 'openai-compatible', baseURL: 'http://127.0.0.1:1/v1' }, /Pick a model/],
  ])('a bad choice is refused before anything is saved: %j', async (choice, message) => {
    const before = await toolrow.state.models.get('default');
    const response = await fetch(`${app.url}/api/settings/model`, {
      method: 'PUT',
      headers: bearer(app.token, { 'content-type': 'application/json' }),
      body: JSON.stringify(choice),
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(message);
    expect(await toolrow.state.models.get('default')).toEqual(before);
  });

  it('a wrong key: the list says HTTP 401 and to check the key; the test call says what failed', async () => {
    const choice = {
      provider: 'openai-compatible',
      baseURL: chatServer.baseURL,
      modelId: 'model-a',
      apiKey: 'sk-wrong',
    };
    const listed = await fetch(`${app.url}/api/settings/model/models`, {
      method: 'POST',
      headers: bearer(app.token, { 'content-type': 'application/json' }),
      body: JSON.stringify(choice),
    });
    expect(listed.status).toBe(400);
    const listedBody = (await listed.json()) as { error: { message: string } };
    expect(listedBody.error.message).toMatch(
      /answered HTTP 401: Incorrect API key provided\. Check the API key\./,
    );
    const tested = await fetch(`${app.url}/api/settings/model/test`, {
      method: 'POST',
      headers: bearer(app.token, { 'content-type': 'application/json' }),
      body: JSON.stringify(choice),
    });
    const result = (await tested.json()) as { ok: boolean; message: string };
    expect(result.ok).toBe(false);
    expect(result.message).toMatch(/401/);
    expect(result.message).toContain('Incorrect API key provided');
  });
});
