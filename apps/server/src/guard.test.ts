import { describe, expect, it } from 'vitest';
import { allowedHosts, checkRequest } from './guard.ts';

const PORT = 4747;
const headers = (values: Record<string, string | undefined>) => ({
  get: (name: string) => values[name.toLowerCase()] ?? null,
});

// Every combination below is checked against the rule written out independently in expected().
const HOSTS = {
  ok: ['127.0.0.1:4747', 'localhost:4747', '[::1]:4747', 'LOCALHOST:4747'],
  refused: [
    undefined,
    '',
    'evil.example:4747',
    'evil.example',
    '127.0.0.1',
    'localhost',
    '127.0.0.1:4748',
    '127.0.0.1.evil.example:4747',
    'localhost.evil.example:4747',
    '0.0.0.0:4747',
    '[::ffff:127.0.0.1]:4747',
    '192.168.1.10:4747',
  ],
};
const ORIGINS = {
  same: [undefined, 'http://127.0.0.1:4747', 'http://localhost:4747', 'http://[::1]:4747'],
  foreign: [
    'http://evil.example',
    'https://127.0.0.1:4747',
    'http://127.0.0.1:4748',
    'http://localhost:4748',
    'http://[::1]:4748',
    'http://127.0.0.1',
    'null',
    'file://',
    'not a url',
    'http://localhost.evil.example:4747',
  ],
};
const CONTENT_TYPES = {
  json: ['application/json', 'application/json; charset=utf-8', 'Application/JSON'],
  other: [
    undefined,
    'text/plain',
    'text/plain; charset=utf-8',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    'application/jsonp',
  ],
};
const METHODS = ['GET', 'HEAD', 'OPTIONS', 'POST', 'PUT', 'PATCH', 'DELETE'];
const MCP_PATHS = ['/mcp', '/.well-known/oauth-protected-resource/mcp'];
const PATHS = [
  '/api/staging/commit',
  '/api/ui-state',
  '/api/chat',
  '/',
  '/assets/index.js',
  '/mcp',
  '/mcp/anything',
  '/.well-known/oauth-protected-resource/mcp',
  '/mcpx',
];

function expected(method: string, path: string, hostOk: boolean, originOk: boolean, jsonOk: boolean): number {
  if (!hostOk) return 403;
  // The MCP endpoint: our own origin or none, any method; it checks content types itself.
  if (path === '/mcp' || path.startsWith('/mcp/') || path === MCP_PATHS[1]) return originOk ? 200 : 403;
  if (['GET', 'HEAD', 'OPTIONS'].includes(method) || !path.startsWith('/api/')) return 200;
  if (!originOk) return 403;
  if (!jsonOk) return 415;
  return 200;
}

describe('checkRequest', () => {
  it('allows only loopback names with the listening port as Host', () => {
    expect([...allowedHosts(PORT)].sort()).toEqual(['127.0.0.1:4747', '[::1]:4747', 'localhost:4747']);
  });

  it('decides every combination of method, path, Host, Origin and Content-Type as the rule says', () => {
    let cases = 0;
    const mismatches: string[] = [];
    for (const method of METHODS)
      for (const path of PATHS)
        for (const [hostOk, hosts] of [
          [true, HOSTS.ok],
          [false, HOSTS.refused],
        ] as const)
          for (const host of hosts)
            for (const [originOk, origins] of [
              [true, ORIGINS.same],
              [false, ORIGINS.foreign],
            ] as const)
              for (const origin of origins)
                for (const [jsonOk, types] of [
                  [true, CONTENT_TYPES.json],
                  [false, CONTENT_TYPES.other],
                ] as const)
                  for (const type of types) {
                    cases++;
                    const verdict = checkRequest(
                      { method, path, headers: headers({ host, origin, 'content-type': type }) },
                      PORT,
                      { mcpPaths: MCP_PATHS },
                    );
                    const got = verdict.ok ? 200 : verdict.status;
                    const want = expected(method, path, hostOk, originOk, jsonOk);
                    if (got !== want)
                      mismatches.push(
                        `${method} ${path} host=${host} origin=${origin} type=${type}: ${got}, want ${want}`,
                      );
                  }
    expect(mismatches).toEqual([]);
    const count = (group: Record<string, readonly unknown[]>) =>
      Object.values(group).reduce((sum, values) => sum + values.length, 0);
    expect(cases).toBe(METHODS.length * PATHS.length * count(HOSTS) * count(ORIGINS) * count(CONTENT_TYPES));
  });

  it('says what was wrong and what to do', () => {
    const host = checkRequest({ method: 'GET', path: '/', headers: headers({ host: 'evil.example' }) }, PORT);
    expect(host).toMatchObject({ ok: false, status: 403 });
    if (!host.ok) {
      expect(host.message).toContain("'evil.example'");
      expect(host.hint).toContain('http://127.0.0.1:4747/');
    }
    const type = checkRequest(
      {
        method: 'POST',
        path: '/api/chat',
        headers: headers({ host: '127.0.0.1:4747', 'content-type': 'text/plain' }),
      },
      PORT,
    );
    expect(type).toMatchObject({ ok: false, status: 415 });
    if (!type.ok) expect(type.message).toContain('application/json');
    const none = checkRequest({ method: 'GET', path: '/mcp', headers: headers({}) }, PORT, {
      mcpPaths: MCP_PATHS,
    });
    expect(none).toMatchObject({ ok: false, status: 403 });
    if (!none.ok) expect(none.message).toContain('no Host header');
    const page = checkRequest(
      {
        method: 'GET',
        path: '/mcp',
        headers: headers({ host: '127.0.0.1:4747', origin: 'http://127.0.0.1:4748' }),
      },
      PORT,
      { mcpPaths: MCP_PATHS },
    );
    expect(page).toMatchObject({ ok: false, status: 403 });
    if (!page.ok) expect(page.message).toContain('http://127.0.0.1:4748');
  });

  it("answers a team's public host, and takes its origin for the app's own, only when it is given", () => {
    const publicHost = 'toolrow.example.com';
    const asked = (host: string, origin?: string, options = {}) =>
      checkRequest(
        {
          method: 'POST',
          path: '/api/staging/update',
          headers: headers({ host, ...(origin ? { origin } : {}), 'content-type': 'application/json' }),
        },
        PORT,
        options,
      ).ok;
    expect(asked(publicHost, 'https://toolrow.example.com', { publicHost })).toBe(true);
    expect(asked(publicHost, 'https://toolrow.example.com')).toBe(false);
    expect(asked(publicHost, 'https://evil.example', { publicHost })).toBe(false);
    expect(asked('evil.example', undefined, { publicHost })).toBe(false);
  });
});
