import type { Client } from '@modelcontextprotocol/client';
import { CATALOG_ROWS, isGated } from '@toolrow/catalog';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsListedAt } from '../test/expected.ts';
import { connectHttp, listedNames, rawRequest, rawSocketStatus, rawToolCall } from '../test/helpers.ts';
import { memoryTokens, scriptedBackend } from '../test/scripted.ts';
import { MCP_SCOPES, type McpScope } from './generated/mcp-scopes.ts';
import { createMcpHttpHandler, type RunningMcpHttp, serveMcpHttp } from './http.ts';
import { createToken } from './tokens.ts';

// Scripted stand-ins; the real-database version of this suite is in toolrow.test.ts.
describe('MCP over Streamable HTTP (scripted tools)', () => {
  const { backend, runs, audits } = scriptedBackend();
  const tokens = memoryTokens();
  let server: RunningMcpHttp;
  const tokenFor = {} as Record<McpScope, string>;

  beforeAll(async () => {
    server = await serveMcpHttp(createMcpHttpHandler({ backend, tokens }), 0);
    for (const scope of MCP_SCOPES)
      tokenFor[scope] = (await createToken(tokens, { scope, name: scope.split(':')[1] })).token;
  });
  afterAll(() => server?.close());

  it('binds 127.0.0.1 only', () => {
    expect(server.url.hostname).toBe('127.0.0.1');
  });

  it('answers a request without a token with 401 and a resource_metadata challenge', async () => {
    const response = await rawToolCall(server.url, 'listTables');
    expect(response.status).toBe(401);
    const challenge = response.headers.get('www-authenticate') ?? '';
    expect(challenge).toContain('error="invalid_token"');
    expect(challenge).toContain(
      `resource_metadata="http://127.0.0.1:${server.port}/.well-known/oauth-protected-resource/mcp"`,
    );
    // The narrowest scope that connects, so a client does not ask for everything it could.
    expect(challenge).toContain('scope="tables:readonly"');
  });

  it('serves protected resource metadata at the RFC 9728 path', async () => {
    const response = await fetch(new URL('/.well-known/oauth-protected-resource/mcp', server.url));
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      resource: `http://127.0.0.1:${server.port}/mcp`,
      scopes_supported: ['tables:readonly', 'tables:staged', 'tables:full'],
      bearer_methods_supported: ['header'],
    });
  });

  it('refuses other Host and Origin headers (DNS rebinding) before looking at the token', async () => {
    const rebinding = await rawRequest(server.url, { host: `evil.example:${server.port}` });
    expect(rebinding.status).toBe(403);
    const crossSite = await rawRequest(server.url, {
      origin: 'https://evil.example',
      authorization: `Bearer ${tokenFor['tables:full']}`,
    });
    expect(crossSite.status).toBe(403);
  });

  it('accepts only its own origin: another local port is another site', async () => {
    const port = server.port;
    const authorization = `Bearer ${tokenFor['tables:full']}`;
    const cases: [Record<string, string>, number][] = [
      [{}, 200],
      [{ origin: `http://127.0.0.1:${port}` }, 200],
      [{ origin: `http://localhost:${port}` }, 200],
      [{ origin: `http://127.0.0.1:${port + 1}` }, 403],
      [{ origin: `http://localhost:${port + 1}` }, 403],
      [{ origin: 'http://127.0.0.1' }, 403],
      [{ origin: `https://127.0.0.1:${port}` }, 403],
      [{ origin: 'null' }, 403],
      [{ host: `127.0.0.1:${port + 1}` }, 403],
      [{ host: '127.0.0.1' }, 403],
      [{ host: `localhost:${port}` }, 200],
    ];
    const got = [];
    for (const [headers] of cases)
      got.push((await rawRequest(server.url, { authorization, ...headers })).status);
    expect(got).toEqual(cases.map(([, status]) => status));
    const refused = await rawRequest(server.url, { authorization, origin: `http://127.0.0.1:${port + 1}` });
    expect(JSON.parse(refused.body).error.message).toContain(`http://127.0.0.1:${port + 1}`);
  });

  it.each(['/mcp', '/.well-known/oauth-protected-resource/mcp'])(
    'refuses a request on %s without a Host header, or with an empty one',
    async (path) => {
      const authorization = `Authorization: Bearer ${tokenFor['tables:full']}`;
      expect(await rawSocketStatus(server.port, `GET ${path} HTTP/1.0\r\n${authorization}`)).toBe(
        'HTTP/1.1 403 Forbidden',
      );
      expect(await rawSocketStatus(server.port, `GET ${path} HTTP/1.0\r\nHost:\r\n${authorization}`)).toBe(
        'HTTP/1.1 403 Forbidden',
      );
      expect(
        await rawSocketStatus(
          server.port,
          `GET ${path} HTTP/1.0\r\nHost: 127.0.0.1:${server.port}\r\n${authorization}`,
        ),
      ).not.toBe('HTTP/1.1 403 Forbidden');
    },
  );

  it('answers 404 off its two paths, 405 for GET on the endpoint', async () => {
    expect((await fetch(new URL('/other', server.url))).status).toBe(404);
    const get = await fetch(server.url, {
      headers: { Authorization: `Bearer ${tokenFor['tables:full']}`, Accept: 'text/event-stream' },
    });
    expect(get.status).toBe(405);
  });

  it('a batch that holds an out-of-scope call: that call is refused as a result and does not run', async () => {
    const before = runs.length;
    const response = await fetch(server.url, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${tokenFor['tables:readonly']}`,
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify([
        { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'listTables', arguments: {} } },
        { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'stageDeleteRows', arguments: {} } },
      ]),
    });
    const text = await response.text();
    expect(runs.slice(before).map((run) => run.name)).not.toContain('stageDeleteRows');
    expect(response.status).toBe(200);
    expect(text).toContain('"isError":true},"jsonrpc":"2.0","id":2');
    expect(text).toContain(
      "Tool 'stageDeleteRows' needs scope tables:staged; this client holds tables:readonly.",
    );
    expect(runs.slice(before).map((run) => run.name)).toEqual(['listTables']);
  });

  it('does not read a tools/call out of a non-JSON body: the SDK refuses it, nothing runs', async () => {
    const before = runs.length;
    const response = await fetch(server.url, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${tokenFor['tables:readonly']}`,
        'Content-Type': 'text/plain',
        Accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'stageDeleteRows', arguments: {} },
      }),
    });
    expect(response.status).toBe(415);
    expect(runs.length).toBe(before);
  });

  const cells = MCP_SCOPES.flatMap((scope) => (['legacy', 'auto'] as const).map((era) => ({ scope, era })));
  for (const { scope, era } of cells) {
    describe(`${scope}, ${era} era`, () => {
      let client: Client;
      beforeAll(async () => {
        client = await connectHttp(server.url, tokenFor[scope], era);
      });
      afterAll(() => client?.close());

      it('lists exactly the rows the scope covers', async () => {
        expect(client.getNegotiatedProtocolVersion()).toBe(era === 'auto' ? '2026-07-28' : '2025-11-25');
        expect(await listedNames(client)).toEqual(rowsListedAt(scope));
      });

      it.each(CATALOG_ROWS.map((row) => ({ name: row.name as string })))('call $name', async ({ name }) => {
        const before = runs.length;
        const auditsBefore = audits.length;
        const allowed = rowsListedAt(scope).includes(name);
        if (allowed) {
          const result = await client.callTool({ name, arguments: {} });
          expect(result.isError).toBeFalsy();
          expect(runs.slice(before)).toEqual([{ name, input: {}, actor: `mcp:${scope.split(':')[1]}` }]);
          // Gated calls are recorded as decided by the token; silent ones are not decisions.
          expect(audits.slice(auditsBefore)).toEqual(
            isGated(name)
              ? [
                  expect.objectContaining({
                    tool: name,
                    decision: 'auto',
                    decidedBy: `mcp:${scope.split(':')[1]}`,
                  }),
                ]
              : [],
          );
          return;
        }
        const row = CATALOG_ROWS.find((candidate) => candidate.name === name)!;
        const outcome = await client.callTool({ name, arguments: {} }).then(
          (result) => ({ result }),
          (error: unknown) => ({ error }),
        );
        if (row.mcp === 'excluded') {
          expect('error' in outcome ? String(outcome.error) : '').toContain(`Tool ${name} not found`);
        } else {
          // A CLI token cannot step up (no authorization server): a result the model can read.
          const result = 'result' in outcome ? outcome.result : undefined;
          expect(result?.isError).toBe(true);
          expect(result?._meta?.['toolrow/requiredScope']).toBe(`tables:${row.mcp}`);
        }
        expect(runs.length).toBe(before);
        expect(audits.slice(auditsBefore)).toEqual([
          expect.objectContaining({
            tool: name,
            decision: 'denied',
            decidedBy: `mcp:${scope.split(':')[1]}`,
          }),
        ]);
      });
    });
  }
});
