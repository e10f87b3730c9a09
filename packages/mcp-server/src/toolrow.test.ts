// The exhaustive matrix with the real tools on a real database: every row × {no token, readonly,
// staged, full} for list and call over Streamable HTTP on 127.0.0.1, with the SDK's own Client.

import type { Client } from '@modelcontextprotocol/client';
import { CATALOG_ROWS, isGated, type ToolName } from '@toolrow/catalog';
import { type DataSource, DEFAULT_PROFILE } from '@toolrow/datasource';
import { sqlDatabaseOf } from '@toolrow/postgres';
import type { Toolrow, ToolrowState } from '@toolrow/state';
import { testStores } from '@toolrow/state/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsListedAt } from '../test/expected.ts';
import { auditOf, createWidgets, stateOf, validInputs, WIDGETS } from '../test/fixture.ts';
import { connectHttp, listedNames, rawToolCall } from '../test/helpers.ts';
import { createApprovalInbox } from './approvals.ts';
import { MCP_SCOPE_TOOLS, MCP_SCOPES, type McpScope } from './generated/mcp-scopes.ts';
import { createMcpHttpHandler, type RunningMcpHttp, serveMcpHttp } from './http.ts';
import { iconsFor } from './icons.ts';
import { createToken } from './tokens.ts';
import { createToolrowBackend } from './toolrow-backend.ts';

// Expectations come from the rows, not from the generated table the server uses.
const ROWS = CATALOG_ROWS.map((row) => ({ name: row.name as ToolName, row }));
const nameOf = (scope: McpScope) => `client-${scope.split(':')[1]}`;

describe.each(testStores())('$name: MCP over HTTP, real tools', ({ open }) => {
  let toolrow: Toolrow;
  let source: DataSource;
  let state: ToolrowState;
  let server: RunningMcpHttp;
  // A client sees only its own export jobs: each scope's client gets one of its own.
  const inputs: Partial<Record<McpScope, Partial<Record<ToolName, unknown>>>> = {};
  const tokens = {} as Record<McpScope | 'expired' | 'revoked', string>;

  beforeAll(async () => {
    toolrow = await open();
    ({ source, state } = toolrow);
    // The app state refuses an expiry in the past, so this token is made to lapse during set-up.
    const expiring = await createToken(state.tokens, {
      scope: 'tables:full',
      name: 'old',
      ttlMs: 1_000,
    });
    tokens.expired = expiring.token;
    await createWidgets(toolrow);
    // The scope matrix runs every in-scope call: Full Auto. What the modes ask is tested below
    // and in ladder.test.ts.
    await state.profiles.setMode(DEFAULT_PROFILE, 'full-auto');
    for (const scope of MCP_SCOPES) {
      const actor = `mcp:${nameOf(scope)}` as const;
      const job = await state.exports.run({ source: { table: WIDGETS }, format: 'csv', actor });
      inputs[scope] = validInputs(job.id);
    }
    server = await serveMcpHttp(
      createMcpHttpHandler({ backend: createToolrowBackend({ source, state }), tokens: state.tokens }),
      0,
    );
    for (const scope of MCP_SCOPES)
      tokens[scope] = (await createToken(state.tokens, { scope, name: nameOf(scope) })).token;
    tokens.revoked = (await createToken(state.tokens, { scope: 'tables:full', name: 'gone' })).token;
    expect(await state.tokens.revoke('gone')).toBe(true);
    const lapse = (expiring.expiresAt as Date).getTime() - Date.now() + 50;
    if (lapse > 0) await new Promise((resolve) => setTimeout(resolve, lapse));
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    await toolrow?.close();
  });

  it('lists, at each scope, what the generated scope table says, and never an excluded row', () => {
    expect(MCP_SCOPES.map((scope) => rowsListedAt(scope))).toEqual(
      MCP_SCOPES.map((scope) => [...MCP_SCOPE_TOOLS[scope]]),
    );
    for (const scope of MCP_SCOPES)
      expect(
        rowsListedAt(scope).some((name) => CATALOG_ROWS.find((row) => row.name === name)?.mcp === 'excluded'),
      ).toBe(false);
  });

  describe('no token', () => {
    it('cannot connect: the client is refused with invalid_token', async () => {
      await expect(connectHttp(server.url)).rejects.toThrow(/invalid_token.*Missing Authorization header/);
    });

    it.each(ROWS)('call $name → 401 with resource_metadata, nothing ran', async ({ name }) => {
      const before = await stateOf(toolrow);
      const auditBefore = await auditOf(toolrow);
      const response = await rawToolCall(server.url, name);
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toMatch(
        /^Bearer error="invalid_token", .*resource_metadata="http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-protected-resource\/mcp"/,
      );
      expect(await stateOf(toolrow)).toEqual(before);
      expect(await auditOf(toolrow)).toEqual(auditBefore);
    });
  });

  for (const kind of ['expired', 'revoked'] as const) {
    it(`refuses a ${kind} token with 401 saying so, for every row, and nothing runs`, async () => {
      const before = await stateOf(toolrow);
      for (const { name } of ROWS) {
        const response = await rawToolCall(server.url, name, tokens[kind]);
        expect(response.status).toBe(401);
        const challenge = response.headers.get('www-authenticate') ?? '';
        expect(challenge).toContain('error="invalid_token"');
        expect(challenge).toContain(kind === 'expired' ? 'Token old expired at' : 'Token gone was revoked');
        expect(challenge).toContain('resource_metadata=');
      }
      await expect(connectHttp(server.url, tokens[kind])).rejects.toThrow();
      expect(await stateOf(toolrow)).toEqual(before);
    });
  }

  it('refuses a bad Authorization header and an unknown token with 401', async () => {
    for (const header of ['Basic dXNlcjpwYXNz', 'Bearer', 'Bearer trw_mcp_not-a-real-token']) {
      const response = await fetch(server.url, {
        method: 'POST',
        headers: {
          Authorization: header,
          'Content-Type': 'application/json',
          Accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      expect(response.status, header).toBe(401);
    }
  });

  for (const scope of MCP_SCOPES) {
    describe(scope, () => {
      let client: Client;
      beforeAll(async () => {
        client = await connectHttp(server.url, tokens[scope]);
      });
      afterAll(() => client?.close());

      it('lists exactly the rows the scope covers, with their descriptions and annotations', async () => {
        expect(await listedNames(client)).toEqual(rowsListedAt(scope));
        const { tools } = await client.listTools();
        for (const tool of tools) {
          const row = CATALOG_ROWS.find((candidate) => candidate.name === tool.name)!;
          expect(tool.description).toBe(row.description);
          expect(tool.annotations?.readOnlyHint).toBe(row.writes === 'none');
          expect(tool.inputSchema.type).toBe('object');
          // Its icon, as the real client parsed it: the picture of its row's kind.
          expect(tool.icons).toEqual(iconsFor(row));
        }
      });

      it.each(ROWS)('call $name', async ({ name, row }) => {
        const before = await stateOf(toolrow);
        const auditBefore = await auditOf(toolrow);
        const lastId = Math.max(0, ...auditBefore.map((entry) => entry.id));
        const newAudit = async () => (await auditOf(toolrow)).filter((entry) => entry.id > lastId);
        const actor = `mcp:${nameOf(scope)}`;

        if (rowsListedAt(scope).includes(name)) {
          const result = await client.callTool({
            name,
            arguments: (inputs[scope]![name] ?? {}) as Record<string, unknown>,
          });
          expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
          expect(await newAudit()).toEqual(
            isGated(name)
              ? [expect.objectContaining({ tool: name, decision: 'auto', decidedBy: actor })]
              : [],
          );
          const after = await stateOf(toolrow);
          // Whatever ran, the table itself only changes when the user commits.
          expect(after.table).toEqual(before.table);
          if (row.writes === 'staging') expect(after.staged.length).toBe(before.staged.length + 1);
          if (row.access === 'export') expect(after.exports.length).toBe(before.exports.length + 1);
          if (row.access === 'open') expect(after.tabs).not.toEqual(before.tabs);
          if (row.writes === 'none' || row.access === 'propose') {
            expect({ ...after, history: [] }).toEqual({ ...before, history: [] });
          }
          return;
        }

        const outcome = await client
          .callTool({ name, arguments: (inputs[scope]![name] ?? {}) as Record<string, unknown> })
          .then(
            (result) => ({ result }),
            (error: unknown) => ({ error }),
          );
        if (row.mcp === 'excluded') {
          expect('error' in outcome ? String(outcome.error) : '').toContain(`Tool ${name} not found`);
        } else {
          // A CLI token has no authorization server to step up at: the refusal is a tool result the
          // model reads (what it needs, what it holds, how to get it), not an exception.
          expect('result' in outcome, `${name} should be answered as a result at ${scope}`).toBe(true);
          const result = 'result' in outcome ? outcome.result : undefined;
          expect(result?.isError).toBe(true);
          expect(result?._meta).toEqual({
            'toolrow/requiredScope': `tables:${row.mcp}`,
            'toolrow/heldScope': scope,
          });
          expect(JSON.stringify(result?.content)).toContain(`needs scope tables:${row.mcp}`);
        }
        expect(await stateOf(toolrow)).toEqual(before);
        expect(await newAudit()).toEqual([
          expect.objectContaining({ tool: name, decision: 'denied', decidedBy: actor }),
        ]);
      });
    });
  }

  it('a staged write waits in staging, the table untouched until the user commits', async () => {
    const client = await connectHttp(server.url, tokens['tables:staged']);
    try {
      const result = await client.callTool({
        name: 'stageUpdateRows',
        arguments: { table: WIDGETS, updates: [{ key: { id: 2 }, values: { name: 'hex nut' } }] },
      });
      expect(result.isError).toBeFalsy();
    } finally {
      await client.close();
    }
    const staged = (await state.staging.list()).filter(
      (change) => change.stagedBy === 'mcp:client-staged' && change.key?.id === 2,
    );
    expect(staged.map((change) => ({ kind: change.kind, values: change.values }))).toContainEqual({
      kind: 'update',
      values: { name: 'hex nut' },
    });
    const read = async () =>
      (await sqlDatabaseOf(source).query<{ name: string }>(`SELECT name FROM public.${WIDGETS} WHERE id = 2`))
        .rows[0]?.name;
    expect(await read()).toBe('nut');
    const committed = await state.staging.commit({ ids: staged.map((change) => change.id) });
    expect(committed.ok).toBe(true);
    expect(await read()).toBe('hex nut');
  });

  it('Manual mode: a gated call waits for the user, the tabs change only after the yes, audited under the client', async () => {
    await state.profiles.setMode(DEFAULT_PROFILE, 'manual');
    const inbox = createApprovalInbox();
    const manual = await serveMcpHttp(
      createMcpHttpHandler({
        backend: createToolrowBackend({ source, state }),
        tokens: state.tokens,
        approvals: inbox,
      }),
      0,
    );
    const client = await connectHttp(manual.url, tokens['tables:full']);
    try {
      const asked = new Promise<string>((resolve) => {
        const stop = inbox.subscribe((event) => {
          if (event.type === 'asked') {
            stop();
            resolve(event.request.id);
          }
        });
      });
      const before = await stateOf(toolrow);
      const lastId = Math.max(0, ...(await auditOf(toolrow)).map((entry) => entry.id));
      const call = client.callTool({ name: 'openTable', arguments: { table: WIDGETS } });
      const id = await asked;
      expect(await stateOf(toolrow)).toEqual(before);
      inbox.answer(id, { approved: true });
      expect((await call).isError).toBeFalsy();
      expect((await stateOf(toolrow)).tabs).not.toEqual(before.tabs);
      const audit = (await state.audit.list({ limit: 10_000 }))
        .filter((entry) => entry.id > lastId)
        .sort((a, b) => a.id - b.id);
      expect(audit.map((entry) => [entry.tool, entry.decision, entry.decidedBy, entry.table])).toEqual([
        ['openTable', 'asked', 'mcp:client-full', `public.${WIDGETS}`],
        ['openTable', 'approved', 'mcp:client-full', `public.${WIDGETS}`],
      ]);
    } finally {
      await client.close();
      await manual.close();
      await state.profiles.setMode(DEFAULT_PROFILE, 'full-auto');
    }
  });
});
