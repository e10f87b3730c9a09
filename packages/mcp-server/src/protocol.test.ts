// What a data server declares beyond tools, with the SDK's real Client: structured results with
// an output schema per tool, the tables' schemas as resources, progress for long work (exports
// followed to the end, a heartbeat for slow tools), and logging notifications.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { openToolrow, type Toolrow } from '@toolrow/state';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWidgets, WIDGETS } from '../test/fixture.ts';
import { connectHttp, connectStdio } from '../test/helpers.ts';
import { memoryTokens, scriptedBackend } from '../test/scripted.ts';
import { MCP_SCOPE_TOOLS } from './generated/mcp-scopes.ts';
import { createMcpHttpHandler, type RunningMcpHttp, serveMcpHttp } from './http.ts';
import { TABLE_RESOURCE_TEMPLATE, tableResourceUri } from './server.ts';
import { createToken } from './tokens.ts';
import { createToolrowBackend } from './toolrow-backend.ts';

describe('results, resources and export progress (real tools, PGlite)', () => {
  let toolrow: Toolrow;
  let server: RunningMcpHttp;
  let client: Client;

  beforeAll(async () => {
    toolrow = await openToolrow({ env: {}, data: { memory: true }, state: { memory: true } });
    await createWidgets(toolrow);
    await toolrow.state.profiles.setMode('default', 'full-auto');
    server = await serveMcpHttp(
      createMcpHttpHandler({
        backend: createToolrowBackend({ source: toolrow.source, state: toolrow.state }),
        tokens: toolrow.state.tokens,
      }),
      0,
    );
    const { token } = await createToken(toolrow.state.tokens, { scope: 'tables:full', name: 'protocol' });
    client = await connectHttp(server.url, token);
  }, 60_000);
  afterAll(async () => {
    await client?.close();
    await server?.close();
    await toolrow?.close();
  });

  it('declares tools, resources and logging', () => {
    expect(client.getServerCapabilities()).toMatchObject({ tools: {}, resources: {}, logging: {} });
  });

  it('lists every tool with an object output schema; results are structured content and its compact JSON', async () => {
    const { tools } = await client.listTools();
    expect(tools.length).toBe(MCP_SCOPE_TOOLS['tables:full'].length);
    for (const tool of tools) {
      expect(tool.outputSchema, tool.name).toMatchObject({ type: 'object' });
      expect(tool.inputSchema.type).toBe('object');
    }
    const result = await client.callTool({ name: 'countRows', arguments: { table: WIDGETS } });
    expect(result.structuredContent).toMatchObject({ count: 3 });
    const [text] = result.content as { type: string; text: string }[];
    expect(text?.type).toBe('text');
    expect(text?.text).toBe(JSON.stringify(result.structuredContent));
    expect(text?.text).not.toContain('\n');
  });

  it("lists each table's schema as a resource, reads it, and offers the template", async () => {
    const { resources } = await client.listResources();
    const uri = tableResourceUri('public', WIDGETS);
    expect(resources).toContainEqual(
      expect.objectContaining({ uri, name: `public.${WIDGETS}`, mimeType: 'application/json' }),
    );
    const read = await client.readResource({ uri });
    const content = read.contents[0] as { uri: string; mimeType: string; text: string };
    expect(content).toMatchObject({ uri, mimeType: 'application/json' });
    const described = JSON.parse(content.text) as { columns: { name: string }[] };
    expect(described.columns.map((column) => column.name)).toEqual(['id', 'name', 'qty']);
    // The resource is describeTable's own output.
    const tool = await client.callTool({ name: 'describeTable', arguments: { table: `public.${WIDGETS}` } });
    expect(described).toEqual(tool.structuredContent);

    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((template) => template.uriTemplate)).toEqual([TABLE_RESOURCE_TEMPLATE]);
    await expect(client.readResource({ uri: tableResourceUri('public', 'nope') })).rejects.toThrow(
      /No table public.nope/,
    );
    await expect(client.readResource({ uri: 'file:///etc/passwd' })).rejects.toThrow(/No resource file:/);
  });

  it('an export called with a progressToken reports its rows and returns the finished job', async () => {
    const updates: { progress: number; total?: number; message?: string }[] = [];
    const result = await client.callTool(
      { name: 'startExport', arguments: { table: WIDGETS, format: 'csv' } },
      { onprogress: (update) => updates.push(update) },
    );
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ state: 'done', rowsDone: 3 });
    // The job may finish before the first look: then there is no progress to tell.
    for (const update of updates) expect(update.message).toMatch(/^Export .*rows written/);
    // Without a progressToken the call returns the started job at once, as in chat.
    const started = await client.callTool({
      name: 'startExport',
      arguments: { table: WIDGETS, format: 'csv' },
    });
    expect(started.structuredContent).toMatchObject({ note: expect.stringContaining('getExportStatus') });
  });
});

describe('a slow tool tells the client it still runs', () => {
  it('sends progress heartbeats while the tool runs, when the client asked for progress', async () => {
    let heard!: () => void;
    const heartbeat = new Promise<void>((resolve) => {
      heard = resolve;
    });
    const scripted = scriptedBackend();
    // The tool finishes only once the client has heard a heartbeat: no sleeps, no races.
    const run = scripted.backend.run;
    scripted.backend.run = async (name, input, call) => {
      await heartbeat;
      return run(name, input, call);
    };
    const tokens = memoryTokens();
    const server = await serveMcpHttp(
      createMcpHttpHandler({ backend: scripted.backend, tokens, heartbeatMs: 20 }),
      0,
    );
    const { token } = await createToken(tokens, { scope: 'tables:readonly', name: 'slow' });
    const client = await connectHttp(server.url, token);
    try {
      const messages: string[] = [];
      const result = await client.callTool(
        { name: 'explainQuery', arguments: { sql: 'SELECT 1' } },
        {
          onprogress: (update) => {
            messages.push(update.message ?? '');
            heard();
          },
        },
      );
      expect(result.isError).toBeFalsy();
      expect(messages[0]).toMatch(/^explainQuery is still running/);
    } finally {
      await client.close();
      await server.close();
    }
  });
});

describe('logging over stdio', () => {
  it('sends notifications/message at or above the level the client set', async () => {
    const { client } = await connectStdio({
      command: process.execPath,
      args: ['--conditions=@toolrow/source', join(import.meta.dirname, '../test/stdio-fixture.ts')],
      env: {
        FIXTURE_LOG: join(mkdtempSync(join(tmpdir(), 'toolrow-mcp-logging-')), 'log.jsonl'),
        FIXTURE_SCOPE: 'tables:full',
        FIXTURE_MODE: 'manual',
        PATH: process.env.PATH ?? '',
      },
    });
    try {
      const messages: { level: string; data: unknown; logger?: string }[] = [];
      let logged!: () => void;
      const arrived = new Promise<void>((resolve) => {
        logged = resolve;
      });
      client.setNotificationHandler('notifications/message', (notification) => {
        messages.push(notification.params as { level: string; data: unknown; logger?: string });
        logged();
      });
      await client.setLoggingLevel('warning');
      // Manual mode with nobody to ask: a refusal, logged as a warning.
      const result = await client.callTool({ name: 'openTable', arguments: { table: 'orders' } });
      expect(result.isError).toBe(true);
      await arrived;
      expect(messages[0]).toMatchObject({
        level: 'warning',
        logger: 'toolrow',
        data: { tool: 'openTable', message: 'openTable did not run.' },
      });
    } finally {
      await client.close();
    }
  });
});
