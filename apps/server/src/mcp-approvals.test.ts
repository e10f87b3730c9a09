// Gated MCP calls in Manual mode wait for the user in the app: the inbox routes (behind the app's
// auth) and the desktop's inbox in headless Chromium, with a real SDK client on the app's /mcp.
import { CLIENT_INFO_META_KEY, Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import {
  type ApprovalInbox,
  createApprovalInbox,
  MCP_BRIDGE_HEADERS,
  MCP_BRIDGE_PATH,
  type McpApprovalRequest,
} from '@toolrow/mcp-server';
import type { Toolrow } from '@toolrow/state';
import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type MountedMcp, mountMcp } from './mcp.ts';
import {
  bearer,
  collectPageErrors,
  ensureBundle,
  launchBrowser,
  openSeededSource,
  startTestServer,
  type TestServer,
} from './test-support.ts';

let toolrow: Toolrow;
let browser: Browser;
let inbox: ApprovalInbox;
let mcp: MountedMcp;
let app: TestServer;
let client: Client;

beforeAll(async () => {
  await ensureBundle();
  [toolrow, browser] = await Promise.all([openSeededSource(200), launchBrowser()]);
  await toolrow.state.profiles.setMode('default', 'manual');
  inbox = createApprovalInbox();
  mcp = await mountMcp({
    source: toolrow.source,
    state: toolrow.state,
    scope: 'tables:full',
    approvals: inbox,
  });
  app = await startTestServer(toolrow, { mcp: mcp.mount, approvals: inbox });
  client = new Client({ name: 'approvals-test', version: '0.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${app.url}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${mcp.token}` } },
    }),
  );
}, 180_000);

afterEach(async () => {
  await toolrow.state.ui.update('default', { tabs: [], focusedTabId: null, selection: null });
});

afterAll(async () => {
  await client?.close();
  await app?.close();
  inbox?.close();
  await browser?.close();
  await toolrow?.close();
});

function nextAsk(): Promise<McpApprovalRequest> {
  return new Promise((resolve) => {
    const stop = inbox.subscribe((event) => {
      if (event.type === 'asked') {
        stop();
        resolve(event.request);
      }
    });
  });
}

const textOf = (result: { content?: unknown }) =>
  ((result.content as { text?: string }[] | undefined) ?? []).map((part) => part.text).join('');

async function decisionsSince(id: number) {
  return (await toolrow.state.audit.list({ limit: 1000 }))
    .filter((entry) => entry.id > id)
    .sort((a, b) => a.id - b.id)
    .map((entry) => [entry.tool, entry.decision, entry.decidedBy]);
}
const lastAuditId = async () =>
  Math.max(0, ...(await toolrow.state.audit.list({ limit: 1 })).map((e) => e.id));

describe('the MCP approval inbox in the app', () => {
  it('lists a waiting call and runs it only after the approve route', async () => {
    const since = await lastAuditId();
    const asked = nextAsk();
    const call = client.callTool({ name: 'openTable', arguments: { table: 'orders' } });
    const request = await asked;

    // Without the app's secret the inbox is closed.
    expect((await fetch(`${app.url}/api/mcp/approvals`)).status).toBe(401);
    const listed = await fetch(`${app.url}/api/mcp/approvals`, { headers: bearer(app.token) });
    const { pending } = (await listed.json()) as { pending: McpApprovalRequest[] };
    expect(pending).toEqual([
      expect.objectContaining({
        id: request.id,
        client: 'approvals-test (toolrow-app)',
        tool: 'openTable',
        input: { table: 'orders' },
        mode: 'manual',
      }),
    ]);
    expect((await toolrow.state.ui.get('default')).tabs).toEqual([]);

    const answered = await fetch(`${app.url}/api/mcp/approvals/${request.id}`, {
      method: 'POST',
      headers: bearer(app.token, { 'content-type': 'application/json' }),
      body: JSON.stringify({ approved: true }),
    });
    expect(answered.status).toBe(200);
    const result = await call;
    expect(result.isError, textOf(result)).toBeFalsy();
    expect((await toolrow.state.ui.get('default')).tabs.map((tab) => tab.kind)).toEqual(['table']);
    expect(await decisionsSince(since)).toEqual([
      ['openTable', 'asked', 'mcp:toolrow-app'],
      ['openTable', 'approved', 'mcp:toolrow-app'],
    ]);
  });

  it('an answer needs JSON with approved, and a pending id', async () => {
    const bad = await fetch(`${app.url}/api/mcp/approvals/nope`, {
      method: 'POST',
      headers: bearer(app.token, { 'content-type': 'application/json' }),
      body: JSON.stringify({ approved: true }),
    });
    expect(bad.status).toBe(404);
    expect(((await bad.json()) as { error: { message: string } }).error.message).toContain(
      'No pending approval nope',
    );
  });

  it('in Chromium: the inbox shows the client, the tool and its input; Approve runs it, Deny refuses', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    const errors = collectPageErrors(page);
    try {
      await page.goto(app.openUrl);
      const since = await lastAuditId();
      const call = client.callTool({ name: 'startExport', arguments: { table: 'orders', format: 'csv' } });
      const card = page.getByTestId('mcp-approval');
      await card.waitFor();
      // The name the client declared, beside the token's name it is known by here.
      expect(await card.getByTestId('mcp-approval-client').textContent()).toBe(
        'approvals-test (toolrow-app)',
      );
      expect(await page.getByTestId('mcp-status').textContent()).toMatch(/^MCP on · .* · 1 waiting for you$/);
      expect(await card.getByTestId('mcp-approval-tool').textContent()).toBe('startExport');
      expect(await card.getByTestId('mcp-approval-summary').textContent()).toBe(
        'Start export of orders as CSV',
      );
      expect(JSON.parse((await card.getByTestId('mcp-approval-input').textContent()) ?? '')).toEqual({
        table: 'orders',
        format: 'csv',
      });
      expect((await toolrow.state.exportJobs.list()).length).toBe(0);
      // The inbox covers nothing: the chat's input stays clear of it, and typing there still works.
      const inbox = await page.getByTestId('mcp-inbox').boundingBox();
      const input = await page.getByLabel('Message').boundingBox();
      expect(inbox && input).toBeTruthy();
      const overlaps =
        inbox!.x < input!.x + input!.width &&
        input!.x < inbox!.x + inbox!.width &&
        inbox!.y < input!.y + input!.height &&
        input!.y < inbox!.y + inbox!.height;
      expect(overlaps).toBe(false);
      await page.getByLabel('Message').click();
      await expect
        .poll(() =>
          page.getByLabel('Message').evaluate((element) => element === element.ownerDocument.activeElement),
        )
        .toBe(true);
      await card.getByRole('button', { name: 'Approve' }).click();
      const result = await call;
      expect(result.isError, textOf(result)).toBeFalsy();
      expect((await toolrow.state.exportJobs.list()).length).toBe(1);
      await card.waitFor({ state: 'detached' });

      const denied = client.callTool({ name: 'countRows', arguments: { table: 'orders' } });
      await card.waitFor();
      await card.getByRole('textbox').fill('not today');
      await card.getByRole('button', { name: 'Deny' }).click();
      const refusal = await denied;
      expect(refusal.isError).toBe(true);
      expect(textOf(refusal)).toContain('The user said no: not today');
      expect(await decisionsSince(since)).toEqual([
        ['startExport', 'asked', 'mcp:toolrow-app'],
        ['startExport', 'approved', 'mcp:toolrow-app'],
        ['countRows', 'asked', 'mcp:toolrow-app'],
        ['countRows', 'denied', 'mcp:toolrow-app'],
      ]);
      // The audit log says what each call was, in the same words (its shape: no values kept).
      await page.getByRole('button', { name: 'Audit log' }).click();
      const summaries = page.getByTestId('audit-summary');
      await expect
        .poll(() => summaries.allTextContents())
        .toEqual(expect.arrayContaining(['Start export of orders as CSV', 'Count rows in orders']));
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});

describe('a stdio client beside an app that serves no /mcp', () => {
  it('in Chromium: its call waits in the inbox under the name it declared, and the status bar says stdio is on and a call waits', async () => {
    // The app as `npm start` runs it without TOOLROW_MCP: no /mcp endpoint, the stdio bridge only.
    const plain = await startTestServer(toolrow, { approvals: inbox });
    const stdio = new Client({ name: 'bridge', version: '1.0.0' });
    await stdio.connect(
      new StreamableHTTPClientTransport(new URL(`${plain.url}${MCP_BRIDGE_PATH}`), {
        requestInit: {
          headers: bearer(plain.token, {
            [MCP_BRIDGE_HEADERS.principal]: JSON.stringify({ name: 'stdio', scope: 'tables:readonly' }),
            [MCP_BRIDGE_HEADERS.bridge]: 'readme-stdio',
          }),
        },
      }),
    );
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    const errors = collectPageErrors(page);
    try {
      await page.goto(plain.openUrl);
      const status = page.getByTestId('mcp-status');
      await expect.poll(() => status.textContent()).toBe('MCP over HTTP off · stdio on');
      // What `toolrow mcp --stdio` forwards: the call, with the name its client declared in _meta.
      const call = stdio.callTool({
        name: 'countRows',
        arguments: { table: 'orders' },
        _meta: { [CLIENT_INFO_META_KEY]: { name: 'Claude Desktop', version: '1.0.0' } },
      });
      const card = page.getByTestId('mcp-approval');
      await card.waitFor();
      expect(await card.getByTestId('mcp-approval-client').textContent()).toBe('Claude Desktop (stdio)');
      await expect.poll(() => status.textContent()).toBe('MCP over HTTP off · stdio on · 1 waiting for you');
      await card.getByRole('button', { name: 'Approve' }).click();
      const result = await call;
      expect(result.isError, textOf(result)).toBeFalsy();
      await expect.poll(() => status.textContent()).toBe('MCP over HTTP off · stdio on');
      expect(errors).toEqual([]);
    } finally {
      await context.close();
      await stdio.close();
      await plain.close();
    }
  });
});
