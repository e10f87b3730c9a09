// The chart's MCP Apps view as a host shows it: the real SDK client lists drawChart with its
// ui:// view (only when it declares the extension), reads the view's HTML and calls the tool; the
// HTML is loaded in Chromium in a sandboxed iframe behind the extension's own host-side bridge
// (AppBridge from @modelcontextprotocol/ext-apps), which hands it the tool result.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createMcpHttpHandler, createToken, createToolrowBackend, serveMcpHttp } from '@toolrow/mcp-server';
import type { Toolrow } from '@toolrow/state';
import { build } from 'esbuild';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectPageErrors, launchBrowser, openSeededSource } from './test-support.ts';

const UI = 'io.modelcontextprotocol/ui';
const VIEW_MIME = 'text/html;profile=mcp-app';
const PER_STATUS = 'SELECT status, count(*) AS n FROM orders GROUP BY status ORDER BY status';
const INPUT = {
  sql: PER_STATUS,
  spec: { mark: 'bar', encoding: { x: { field: 'status' }, y: { field: 'n' } } },
};

let toolrow: Toolrow;
let browser: Browser;
let mcp: Awaited<ReturnType<typeof serveMcpHttp>>;
let token: string;
let bridgeScript: string;

async function connect(views: boolean): Promise<Client> {
  const client = new Client(
    { name: views ? 'view-host' : 'plain-client', version: '0' },
    views ? { capabilities: { extensions: { [UI]: { mimeTypes: [VIEW_MIME] } } } as never } : {},
  );
  await client.connect(
    new StreamableHTTPClientTransport(mcp.url, {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}

beforeAll(async () => {
  [toolrow, browser] = await Promise.all([openSeededSource(200), launchBrowser()]);
  await toolrow.state.profiles.setMode('default', 'full-auto');
  mcp = await serveMcpHttp(
    createMcpHttpHandler({ backend: createToolrowBackend(toolrow), tokens: toolrow.state.tokens }),
    0,
  );
  token = (await createToken(toolrow.state.tokens, { scope: 'tables:readonly', name: 'view-host' })).token;
  // The extension's host-side bridge, bundled for the page as a host's app would bundle it.
  const bundled = await build({
    stdin: {
      contents:
        "import { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';\nglobalThis.AppBridge = AppBridge; globalThis.PostMessageTransport = PostMessageTransport;",
      resolveDir: import.meta.dirname,
    },
    bundle: true,
    format: 'iife',
    platform: 'browser',
    write: false,
    logLevel: 'silent',
  });
  bridgeScript = bundled.outputFiles[0]!.text;
}, 180_000);

afterAll(async () => {
  await mcp?.close();
  await browser?.close();
  await toolrow?.close();
});

describe('drawChart as an MCP Apps view', () => {
  it('is linked to its ui:// view only for a client that declares the extension', async () => {
    const host = await connect(true);
    const plain = await connect(false);
    try {
      const linked = (await host.listTools()).tools.find((tool) => tool.name === 'drawChart');
      expect(linked?._meta).toMatchObject({ ui: { resourceUri: 'ui://toolrow/chart' } });
      const unlinked = (await plain.listTools()).tools.find((tool) => tool.name === 'drawChart');
      expect(unlinked?._meta?.ui).toBeUndefined();
      // Only drawChart draws: the link is derived from the output schema, not a list.
      const others = (await host.listTools()).tools.filter(
        (tool) => tool.name !== 'drawChart' && tool._meta?.ui,
      );
      expect(others).toEqual([]);
      expect((await host.listResources()).resources.map((resource) => resource.uri)).toContain(
        'ui://toolrow/chart',
      );
      expect((await plain.listResources()).resources.map((resource) => resource.uri)).not.toContain(
        'ui://toolrow/chart',
      );
    } finally {
      await host.close();
      await plain.close();
    }
  });

  it('draws the result in Chromium behind the extension’s host bridge, fetching nothing', async () => {
    const host = await connect(true);
    const page = await (await browser.newContext({ viewport: { width: 900, height: 800 } })).newPage();
    const errors = collectPageErrors(page);
    const requests: string[] = [];
    page.on('request', (request) => requests.push(request.url()));
    try {
      const view = await host.readResource({ uri: 'ui://toolrow/chart' });
      const [content] = view.contents as { mimeType?: string; text?: string }[];
      expect(content?.mimeType).toBe(VIEW_MIME);
      const result = await host.callTool({ name: 'drawChart', arguments: INPUT });
      expect(result.isError).toBeFalsy();

      await page.setContent(
        '<iframe id="view" sandbox="allow-scripts" style="width:860px;height:740px"></iframe>',
      );
      await page.addScriptTag({ content: bridgeScript });
      await page.evaluate(
        async ({ html, result, input }) => {
          const g = globalThis as unknown as {
            document: { getElementById(id: string): { contentWindow: unknown; srcdoc: string } };
            AppBridge: new (
              ...args: unknown[]
            ) => {
              oninitialized?: () => void;
              connect(transport: unknown): Promise<void>;
              sendToolInput(params: unknown): Promise<void>;
              sendToolResult(params: unknown): Promise<void>;
            };
            PostMessageTransport: new (target: unknown, source: unknown) => unknown;
          };
          const frame = g.document.getElementById('view');
          const bridge = new g.AppBridge(null, { name: 'test-host', version: '1.0.0' }, {});
          bridge.oninitialized = () => {
            void bridge.sendToolInput({ arguments: input }).then(() => bridge.sendToolResult(result));
          };
          await bridge.connect(new g.PostMessageTransport(frame.contentWindow, frame.contentWindow));
          frame.srcdoc = html;
        },
        { html: content?.text ?? '', result, input: INPUT },
      );
      const frame = page.frameLocator('#view');
      await expect.poll(() => frame.locator('#chart').isVisible(), { timeout: 20_000 }).toBe(true);
      const drawn = await frame
        .locator('#chart')
        .evaluate((image) => (image as unknown as { naturalWidth: number }).naturalWidth);
      expect(drawn).toBeGreaterThan(400);
      const statuses = (await toolrow.source.queries.run(PER_STATUS, { maxRows: 100 })).rows.map((row) =>
        String(row.status),
      );
      expect(await frame.locator('#rows tbody tr').count()).toBe(statuses.length);
      expect(await frame.locator('#rows tbody tr td:first-child').allTextContents()).toEqual(statuses);
      expect(await frame.locator('#status').textContent()).toContain('bar chart');
      await page.screenshot({ path: `${import.meta.dirname}/../test-results/chart-mcp-view.png` });
      expect(requests.filter((url) => !url.startsWith('about:') && !url.startsWith('data:'))).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await page.context().close();
      await host.close();
    }
  }, 120_000);
});
