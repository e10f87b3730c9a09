// Shared by the server's tests and the screenshot script: a seeded database, a server on a real
// socket, and headless Chromium (Debian's /usr/bin/chromium driven by playwright-core).
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ensureDesktopBuild } from '@toolrow/desktop';
import { openToolrow, type Toolrow, type ToolrowState } from '@toolrow/state';
import type { LanguageModel } from 'ai';
import { type Browser, chromium, type Page } from 'playwright-core';
import { createToolrowServer, type ToolrowServer, type ToolrowServerOptions } from './server.ts';

/** Pinned so the sample shop (and every screenshot of it) is the same on every run. */
export const SEED_NOW = new Date('2026-11-15T00:00:00Z');

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

export function chromiumPath(env: Readonly<Record<string, string | undefined>> = process.env): string {
  const path = env.CHROMIUM_PATH ?? '/usr/bin/chromium';
  if (!existsSync(path)) {
    throw new Error(
      `Chromium is not at ${path}. Install Debian's package (sudo apt-get install chromium) or set CHROMIUM_PATH; .ci/run does this.`,
    );
  }
  return path;
}

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS });
}

/** The sample shop (in-memory PGlite) and a state store (in-memory SQLite). */
export async function openSeededSource(orders = 2000): Promise<Toolrow> {
  const toolrow = await openToolrow({ env: {}, data: { memory: true }, state: { memory: true } });
  await toolrow.source.seed!({ orders, now: SEED_NOW });
  return toolrow;
}

export interface TestServer {
  /** The base URL; every request needs `token` (see bearer()). */
  url: string;
  token: string;
  /** The link that signs a browser in (`/?token=…`). */
  openUrl: string;
  server: ToolrowServer;
  close(): Promise<void>;
}

/** The Authorization header of the app secret, merged into other headers. */
export function bearer(token: string, headers: Record<string, string> = {}): Record<string, string> {
  return { authorization: `Bearer ${token}`, ...headers };
}

/** The app server on 127.0.0.1 at a free port, over open data and state. */
export async function startTestServer(
  { source, state }: Toolrow,
  options: Partial<Omit<ToolrowServerOptions, 'source' | 'state'>> & { model?: LanguageModel | null } = {},
): Promise<TestServer> {
  const server = await createToolrowServer({
    source,
    state,
    env: {},
    model: null,
    log: () => {},
    ...options,
  });
  const { url, openUrl } = await server.listen({ port: 0 });
  return { url, token: server.token, openUrl, server, close: () => server.close() };
}

/** A port free on 127.0.0.1 now (for a server whose URL must be known before it listens). */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** Builds the desktop bundle if it is missing or stale (vite, about a second). */
export async function ensureBundle(): Promise<void> {
  await ensureDesktopBuild({ quiet: true });
}

/** Console errors and uncaught exceptions of a page, collected from the start. */
export function collectPageErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => errors.push(`pageerror: ${error.message}`));
  return errors;
}

/** In a page of the app: opens a table from the sidebar and filters it to `column op value`, as a person does. */
export async function openFiltered(
  page: Page,
  table: string,
  [column, op, value]: [column: string, op: string, value: string],
): Promise<void> {
  await page
    .getByRole('navigation', { name: 'Tables and panels' })
    .getByRole('button', { name: new RegExp(`^${table}`) })
    .click();
  await page.getByRole('button', { name: '+ Filter' }).click();
  await page.getByLabel('Filter column').selectOption(column);
  await page.getByLabel('Filter operator').selectOption(op);
  await page.getByLabel('Filter value').fill(value);
  await page.getByLabel('Filter value').press('Enter');
}

/** fetch() against the server with its token and the JSON content type the guard requires for writes. */
export async function api<T = unknown>(
  app: { url: string; token: string },
  path: string,
  init: { method?: string; body?: unknown } = {},
): Promise<T> {
  const response = await fetch(`${app.url}${path}`, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    headers: bearer(app.token, init.body === undefined ? {} : { 'content-type': 'application/json' }),
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  const data = (await response.json()) as T;
  if (!response.ok)
    throw Object.assign(new Error(`HTTP ${response.status}: ${JSON.stringify(data)}`), {
      status: response.status,
      data,
    });
  return data;
}

/**
 * Empties the staging area between tests, past the staging area's own rules (on a team's store
 * a discard names an approver, which a test's clean-up has none of).
 */
export async function clearStaging(toolrow: { state: { db: ToolrowState['db'] } }): Promise<void> {
  await toolrow.state.db.q.deleteFrom('staged_changes').where('commit_id', 'is', null).execute();
}
