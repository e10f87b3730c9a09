// The connection's engine decides what an MCP client sees, with the real tools and state and a real
// SDK client over HTTP. The engine here is PostgreSQL data dressed as an engine with none of the
// features rows need (which rows need one comes from the generated TOOL_NEEDS, never from this file): the listing shrinks, and
// a call to a catalog tool it lacks is a tool result naming what to use, with nothing run.
import type { Client } from '@modelcontextprotocol/client';
import { isServedBy, notServedMessage, TOOL_NAMES } from '@toolrow/catalog';
import type { Toolrow } from '@toolrow/state';
import { testStores } from '@toolrow/state/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditOf, createWidgets, serveToolrowMcp, stateOf, validInputs } from '../test/fixture.ts';
import { connectHttp, listedNames } from '../test/helpers.ts';
import { MCP_SCOPE_TOOLS, MCP_SCOPES } from './generated/mcp-scopes.ts';
import type { RunningMcpHttp } from './http.ts';
import { createToken } from './tokens.ts';

const engine = { engine: 'bare', features: [] };
const unserved = TOOL_NAMES.filter((name) => !isServedBy(engine, name));

describe.each(testStores())(
  '$name: an MCP client on a connection whose engine serves fewer tools',
  ({ open }) => {
    let toolrow: Toolrow;
    let server: RunningMcpHttp;
    let client: Client;

    beforeAll(async () => {
      const real = await open();
      await createWidgets(real);
      toolrow = { ...real, source: { ...real.source, ...engine } };
      server = await serveToolrowMcp(toolrow);
      const { token } = await createToken(toolrow.state.tokens, {
        scope: 'tables:full',
        name: 'engine-test',
      });
      client = await connectHttp(server.url, token);
    }, 120_000);
    afterAll(async () => {
      await client?.close();
      await server?.close();
      await toolrow?.close();
    });

    it("tools/list shows exactly the engine's set for the scope, and none of the tools it lacks", async () => {
      expect(unserved.length).toBeGreaterThan(0);
      const listed = await listedNames(client);
      expect(listed).toEqual(MCP_SCOPE_TOOLS[MCP_SCOPES.at(-1)!].filter((name) => isServedBy(engine, name)));
      for (const name of unserved) expect(listed).not.toContain(name);
    });

    it.each(unserved)(
      'calling %s runs nothing, is audited as refused, and names the tools to use',
      async (name) => {
        const before = await stateOf(toolrow);
        const audited = (await auditOf(toolrow)).length;
        const result = await client.callTool({
          name,
          arguments: (validInputs('x')[name] ?? {}) as Record<string, unknown>,
        });
        expect(result.isError).toBe(true);
        expect(result.content).toEqual([{ type: 'text', text: notServedMessage(name, engine) }]);
        expect(await stateOf(toolrow)).toEqual(before);
        const audit = await toolrow.state.audit.list({ limit: 1 });
        expect((await auditOf(toolrow)).length).toBe(audited + 1);
        expect(audit[0]).toMatchObject({ tool: name, decision: 'denied' });
      },
    );
  },
);
