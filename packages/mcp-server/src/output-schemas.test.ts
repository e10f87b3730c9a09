// Every tool's listed output schema is the shape a real client gets, on every engine. The schemas
// are generated from the implementations' return types (npm run gen); here each exposed tool runs
// on the sample shop in PGlite, PostgreSQL and DynamoDB Local, called by the SDK v1 client (which,
// like most desktop clients, rejects structured content that does not match the listed schema),
// and each result is checked again by Ajv in strict mode under draft-07 and 2020-12.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { exampleOf, isServedBy } from '@toolrow/catalog';
import { DEFAULT_PROFILE } from '@toolrow/datasource';
import type { Toolrow } from '@toolrow/state';
import {
  dynamoTestStore,
  mariadbTestStore,
  type StoreEngine,
  sqliteTestStore,
  testStores,
} from '@toolrow/state/testing';
import { IMPLEMENTED_TOOLS, type ImplementedToolName, invokeTool, TOOL_OUTPUT_SCHEMAS } from '@toolrow/tools';
import { Ajv, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveExporters } from '../test/fixture.ts';
import { MCP_SCOPE_TOOLS, type McpToolName } from './generated/mcp-scopes.ts';
import type { RunningMcpHttp } from './http.ts';

const ENGINES: StoreEngine[] = [
  ...testStores(),
  ...[dynamoTestStore(), mariadbTestStore()].filter((store) => store !== undefined),
  sqliteTestStore(),
];
const EXPOSED = MCP_SCOPE_TOOLS['tables:full'] as readonly McpToolName[];

// Both dialects a client may validate with: SDK v1 runs draft-07 Ajv, SDK v2 picks 2020-12.
const DIALECTS = {
  'draft-07': new Ajv({ strict: true, allErrors: true }),
  '2020-12': new Ajv2020({ strict: true, allErrors: true }),
};

/** Each exposed tool's input on the sample shop: its row's example, with this run's export job. */
function shopInputs(exportId: string): Partial<Record<McpToolName, Record<string, unknown>>> {
  return {
    ...Object.fromEntries(EXPOSED.map((name) => [name, exampleOf(name)])),
    getExportStatus: { id: exportId },
  };
}

/** Inputs that reach the other shapes an exposed tool can return. */
const OTHER_SHAPES: readonly { tool: McpToolName; input: Record<string, unknown> }[] = [
  { tool: 'validateQuery', input: { sql: 'SELECT FROM WHERE' } },
  { tool: 'listTables', input: { page: 1 } },
];

/** One attachment per shape readAttachment returns. */
const ATTACHMENTS: readonly [name: string, mediaType: string, content: string][] = [
  ['notes.txt', 'text/plain', 'first line\nsecond line'],
  ['orders.csv', 'text/csv', 'id,status\n1,paid\n2,pending\n'],
  ['orders.json', 'application/json', '[{"id":1},{"id":2}]'],
  ['order.json', 'application/json', '{"id":1,"status":"paid"}'],
  ['orders.ndjson', 'application/x-ndjson', '{"id":1}\n{"id":2}\n'],
];

/** The tools MCP never lists (the app's own), in-process: an input per tool, or {}. */
const UNLISTED_INPUTS: Partial<Record<ImplementedToolName, readonly Record<string, unknown>[]>> = {
  readAttachment: ATTACHMENTS.map(([name]) => ({ name })),
};

describe('the generated output schemas', () => {
  it.each(Object.entries(DIALECTS))('compile in strict %s Ajv, each rooted in an object', (_, ajv) => {
    for (const [name, schema] of Object.entries(TOOL_OUTPUT_SCHEMAS)) {
      expect(schema.type, name).toBe('object');
      expect(() => ajv.compile(schema), name).not.toThrow();
    }
  });

  it('reject what a tool never returns', () => {
    const validate = DIALECTS['draft-07'].compile(TOOL_OUTPUT_SCHEMAS.countRows);
    expect(validate({ table: 'orders', count: 3 })).toBe(true);
    expect(validate({ table: 'orders', count: '3' })).toBe(false);
    expect(validate({ table: 'orders' })).toBe(false);
    const views = DIALECTS['2020-12'].compile(TOOL_OUTPUT_SCHEMAS.getActiveView);
    expect(views({ focused: null, openTabs: 0, note: 'No tab is open.' })).toBe(true);
    expect(views({ focused: { id: 't1', kind: 'chart', focused: true }, openTabs: 1 })).toBe(false);
  });
});

describe.each(ENGINES)('$name: every tool returns what its output schema says', ({ open }) => {
  let toolrow: Toolrow;
  let server: RunningMcpHttp;
  let client: Client;
  let close: (() => Promise<void>) | undefined;
  let listed: Map<string, Tool>;
  let inputs: Partial<Record<McpToolName, Record<string, unknown>>>;
  let served: McpToolName[];
  const validators = new Map<string, ValidateFunction[]>();

  beforeAll(async () => {
    const opened = await serveExporters(() => open({ seed: { orders: 30 } }), ['typed'] as const);
    ({ toolrow, server, close } = opened);
    served = EXPOSED.filter((tool) => isServedBy(toolrow.source, tool));
    const { state } = toolrow;
    await state.specs.save({
      name: String(exampleOf('getSavedSpec').name),
      kind: 'view',
      spec: { table: 'orders' },
    });
    for (const [name, mediaType, content] of ATTACHMENTS)
      await state.attachments.add({ name, mediaType, content });
    const job = await state.exports.run({ source: { table: 'orders' }, format: 'csv', actor: 'mcp:typed' });
    inputs = shopInputs(job.id);
    client = new Client({ name: 'typed-client', version: '0.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(server.url, {
        requestInit: { headers: { Authorization: `Bearer ${opened.tokens.typed}` } },
      }),
    );
    // Listing caches each tool's output schema in the client: from then on it checks every result.
    listed = new Map((await client.listTools()).tools.map((tool) => [tool.name, tool]));
  }, 180_000);
  afterAll(async () => {
    await client?.close();
    await close?.();
  });

  /** Calls through the validating client, then checks the result against the listed schema in both dialects. */
  async function expectTyped(tool: McpToolName, input: Record<string, unknown>, progress = false) {
    const result = (await client.callTool(
      { name: tool, arguments: input },
      undefined,
      progress ? { onprogress: () => {} } : undefined,
    )) as CallToolResult;
    expect(result.isError, `${tool}: ${JSON.stringify(result.content)}`).toBeFalsy();
    const schema = listed.get(tool)?.outputSchema;
    expect(schema, `${tool} is listed with its own schema`).toEqual(TOOL_OUTPUT_SCHEMAS[tool]);
    let compiled = validators.get(tool);
    if (!compiled) {
      compiled = Object.values(DIALECTS).map((ajv) => ajv.compile(schema!));
      validators.set(tool, compiled);
    }
    for (const validate of compiled) {
      expect(validate(result.structuredContent), `${tool}: ${JSON.stringify(validate.errors)}`).toBe(true);
    }
    return result.structuredContent;
  }

  it("lists exactly the engine's tools, each with its generated schema", () => {
    expect([...listed.keys()]).toEqual(served);
  });

  it('on a fresh state (no tab open, nothing staged), then again once every tool has run', async () => {
    for (const pass of [1, 2]) {
      for (const tool of served) {
        // The second startExport is followed to its end (the client asked for progress).
        await expectTyped(tool, inputs[tool] ?? {}, pass === 2 && tool === 'startExport');
      }
    }
    expect((await toolrow.state.staging.list()).length).toBeGreaterThanOrEqual(3);
  }, 120_000);

  it('in its other shapes: a query that does not parse, a page of tables', async () => {
    for (const { tool, input } of OTHER_SHAPES.filter((shape) => served.includes(shape.tool)))
      await expectTyped(tool, input);
  });

  it('the tools MCP never lists return what their schemas say too (in-process; each attachment format)', async () => {
    const unlisted = IMPLEMENTED_TOOLS.filter(
      (tool) => !EXPOSED.includes(tool as McpToolName) && isServedBy(toolrow.source, tool),
    );
    expect(unlisted.length).toBeGreaterThan(0);
    const context = {
      source: toolrow.source,
      state: toolrow.state,
      profile: DEFAULT_PROFILE,
      actor: 'user',
    } as const;
    for (const tool of unlisted) {
      const validate = DIALECTS['2020-12'].compile(TOOL_OUTPUT_SCHEMAS[tool]);
      for (const input of UNLISTED_INPUTS[tool] ?? [{}]) {
        const output = await invokeTool(tool, input, context);
        expect(validate(output), `${tool}: ${JSON.stringify(validate.errors)}`).toBe(true);
      }
    }
  });
});
