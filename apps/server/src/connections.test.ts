// Two live connections in one app: the API lists, adds (tested first) and switches them, and in
// Chromium the header's switcher moves the app between them with each keeping its own tables,
// staging, tabs and mode. Real PGlite databases, a real server, a real browser.
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ConnectionList } from '@toolrow/desktop/wire';
import { installedEngines } from '@toolrow/engines';
import { sqlDatabaseOf } from '@toolrow/postgres';
import {
  addConnection,
  type ConnectionHub,
  createConnectionHub,
  openToolrow,
  type Toolrow,
} from '@toolrow/state';
import type { Browser, Page } from 'playwright-core';
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

let dir: string;
let toolrow: Toolrow;
let hub: ConnectionHub;
let app: TestServer;
let browser: Browser;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'toolrow-switch-'));
  await ensureBundle();
  [toolrow, browser] = await Promise.all([
    openToolrow({ env: {}, dataDir: dir, data: { memory: true }, state: { memory: true } }),
    launchBrowser(),
  ]);
  await toolrow.source.seed!({ orders: 200, now: SEED_NOW });
  // A second database of its own, with one table the sample has not.
  await addConnection(toolrow.state, {
    name: 'warehouse',
    url: `pglite:${join(dir, 'warehouse')}`,
    mode: 'auto',
  });
  hub = createConnectionHub(toolrow);
  const warehouse = await hub.open('warehouse');
  await sqlDatabaseOf(warehouse.source).exec(
    "CREATE TABLE bins (id int PRIMARY KEY, label text NOT NULL); INSERT INTO bins VALUES (1, 'A1'), (2, 'B7');",
  );
  await warehouse.source.schema.refresh();
  app = await startTestServer(toolrow, { connections: hub, env: {} });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
  await hub?.close();
  await toolrow?.close();
  await rm(dir, { recursive: true, force: true });
});

const tableNames = async () =>
  (await api<{ tables: { name: string }[] }>(app, '/api/tables')).tables.map((table) => table.name);

async function switchTo(name: string): Promise<void> {
  await api(app, '/api/connections/active', { method: 'PUT', body: { name } });
}

describe('connections over the API', () => {
  it('lists both, the active one marked, each with its own mode', async () => {
    const list = await api<ConnectionList>(app, '/api/connections');
    expect(list.active).toBe('default');
    expect(list.canSwitch).toBe(true);
    expect(list.connections.map((c) => [c.name, c.engine, c.active, c.mode])).toEqual([
      ['default', 'pglite', true, 'manual'],
      ['warehouse', 'pglite', false, 'auto'],
    ]);
  });

  it('switches without a restart: tables, staging and mode are the other connection’s, and back', async () => {
    expect(await tableNames()).toContain('orders');
    await switchTo('warehouse');
    expect(await tableNames()).toEqual(['bins']);
    expect((await api<{ mode: string; connection: string }>(app, '/api/status')).mode).toBe('auto');
    await api(app, '/api/staging/insert', { body: { table: 'bins', rows: [{ id: 3, label: 'C3' }] } });
    const staged = await api<{ changes: { table: string }[] }>(app, '/api/staging');
    expect(staged.changes.map((change) => change.table)).toEqual(['public.bins']);
    await switchTo('default');
    expect(await tableNames()).toContain('orders');
    expect((await api<{ changes: unknown[] }>(app, '/api/staging')).changes).toEqual([]);
    expect((await api<{ mode: string }>(app, '/api/status')).mode).toBe('manual');
    // The switch is remembered as the default of the CLI and the next start.
    expect(await toolrow.state.connections.defaultName()).toBeUndefined();
    await switchTo('warehouse');
    expect(await toolrow.state.connections.defaultName()).toBe('warehouse');
    await api(app, '/api/staging/discard', { body: {} });
    await switchTo('default');
  });

  it.each([
    [{ name: 'Bad Name', url: 'pglite:./x' }, /^name: 'Bad Name' is not a connection name/],
    [{ name: 'default', url: 'pglite:./x' }, /^name: 'default' is the unnamed connection/],
    [{ name: 'warehouse', url: 'pglite:./x' }, /^name: a connection named 'warehouse' exists already/],
    [{ name: 'oracle', url: 'oracle://h/db' }, /^url: the scheme 'oracle:' is not one Toolrow connects to/],
    [{ name: 'gone', url: 'postgres://nobody@127.0.0.1:1/db' }, /127\.0\.0\.1:1.*Nothing was saved/],
  ])('refuses %j with a 400 or 409 naming the field, and saves nothing', async (body, message) => {
    const before = await api<ConnectionList>(app, '/api/connections');
    const error = await api(app, '/api/connections', { body }).catch(
      (e: { status: number; data: unknown }) => e,
    );
    expect([400, 409]).toContain((error as { status: number }).status);
    expect((error as { data: { error: { message: string } } }).data.error.message).toMatch(message);
    expect(await api<ConnectionList>(app, '/api/connections')).toEqual(before);
  });

  it('refuses to switch to a connection there is none of, naming those there are', async () => {
    const error = await switchTo('nope').catch(
      (e: { status: number; data: { error: { message: string } } }) => e,
    );
    expect(error).toMatchObject({ status: 404 });
    expect((error as { data: { error: { message: string } } }).data.error.message).toMatch(
      /no connection named 'nope'.*warehouse/,
    );
    expect((await api<ConnectionList>(app, '/api/connections')).active).toBe('default');
  });

  it('an app started on one connection says it cannot switch, and how to', async () => {
    const single = await startTestServer(toolrow, { env: {} });
    try {
      expect((await api<ConnectionList>(single, '/api/connections')).canSwitch).toBe(false);
      const error = await api(single, '/api/connections/active', {
        method: 'PUT',
        body: { name: 'warehouse' },
      }).catch((e: { status: number; data: { error: { message: string; hint: string } } }) => e);
      expect(error).toMatchObject({ status: 409 });
      expect((error as { data: { error: { hint: string } } }).data.error.hint).toContain(
        '--connection warehouse',
      );
    } finally {
      await single.close();
    }
  });
});

describe('the header switcher in Chromium', () => {
  const nav = (page: Page) => page.getByRole('navigation', { name: 'Tables and panels' });

  it('moves between two live connections, each with its own tables and mode, and adds a third after testing it', async () => {
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const page = await context.newPage();
    const errors = collectPageErrors(page);
    try {
      await page.goto(app.openUrl);
      await expect
        .poll(() =>
          nav(page)
            .getByRole('button', { name: /^orders/ })
            .count(),
        )
        .toBe(1);
      const switcher = page.getByLabel('Connection');
      await expect.poll(() => switcher.inputValue()).toBe('default');

      await switcher.selectOption('warehouse');
      await expect.poll(() => nav(page).getByRole('button', { name: /^bins/ }).count()).toBe(1);
      expect(
        await nav(page)
          .getByRole('button', { name: /^orders/ })
          .count(),
      ).toBe(0);
      await expect.poll(() => page.locator('.statusbar').textContent()).toContain('mode Auto');
      await expect.poll(() => switcher.inputValue()).toBe('warehouse');

      // Add a connection whose database is not there to open: the form says why, nothing is saved.
      await switcher.selectOption('__add__');
      const dialog = page.getByRole('dialog', { name: 'Add connection' });
      // Every installed engine's URL forms, not PostgreSQL's alone.
      for (const engine of installedEngines.engines)
        expect(await dialog.getByTestId('url-forms').textContent()).toContain(
          `${engine.label}: ${engine.urlForms}`,
        );
      expect(await dialog.getByLabel('URL').getAttribute('placeholder')).toMatch(
        /^postgres:\/\/\S+ or dynamodb:\/\/\S+ or sqlite:\/\/\/\S+ or mysql:\/\/\S+$/,
      );
      await dialog.getByLabel('Name').fill('broken');
      await dialog.getByLabel('URL').fill('postgres://nobody@127.0.0.1:1/db');
      await dialog.getByLabel('Password').fill('never-shown-4711');
      await dialog.getByRole('button', { name: 'Test and save' }).click();
      await expect
        .poll(() => dialog.getByRole('alert').textContent())
        .toMatch(/127\.0\.0\.1:1.*Nothing was saved/);
      expect(await toolrow.state.connections.get('broken')).toBeUndefined();

      // A good one: tested, saved, and switched to from the form.
      await dialog.getByLabel('Name').fill('archive');
      await dialog.getByLabel('URL').fill(`pglite:${join(dir, 'archive')}`);
      await dialog.getByLabel('Password').fill('');
      await dialog.getByRole('button', { name: 'Test and save' }).click();
      // Testing opens a fresh PGlite database (its own WASM instance): many seconds on a loaded machine.
      await expect
        .poll(() => dialog.getByTestId('connection-saved').textContent(), { timeout: 90_000 })
        .toContain('0 tables');
      await dialog.getByRole('button', { name: 'Switch to archive' }).click();
      await expect.poll(() => switcher.inputValue()).toBe('archive');
      await expect.poll(() => page.locator('.statusbar').textContent()).toContain('mode Manual');

      await switcher.selectOption('default');
      await expect
        .poll(() =>
          nav(page)
            .getByRole('button', { name: /^orders/ })
            .count(),
        )
        .toBe(1);
      // The browser logs the refused add (a 400) as a failed resource; nothing else went wrong.
      expect(errors).toEqual([expect.stringContaining('status of 400')]);
    } finally {
      await context.close();
    }
    // The password typed into the form reached no file of the data dir.
    for (const file of await readdir(dir, { recursive: true, withFileTypes: true })) {
      if (!file.isFile()) continue;
      const bytes = await readFile(join(file.parentPath, file.name)).catch(() => Buffer.alloc(0));
      expect(bytes.includes('never-shown-4711'), join(file.parentPath, file.name)).toBe(false);
    }
  }, 240_000);
});
