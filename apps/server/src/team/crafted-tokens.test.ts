// What a certified provider never sends, sent by one of the test's making: ID tokens with another
// audience or issuer, a stale expiry, a wrong nonce, another key's signature, or `alg: none`. Each
// is refused at the callback with the reason, and no session is made.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Toolrow } from '@toolrow/state';
import { exportJWK, generateKeyPair, SignJWT, UnsecuredJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolrowServer, type ToolrowServer } from '../server.ts';
import { freePort, openSeededSource } from '../test-support.ts';

type Craft = 'good' | 'audience' | 'issuer' | 'expired' | 'nonce' | 'signature' | 'none';

describe('team mode refuses ID tokens a certified provider would not send', () => {
  let toolrow: Toolrow;
  let provider: Server;
  let issuer: string;
  let app: ToolrowServer;
  let appUrl: string;
  let craft: Craft = 'good';

  beforeAll(async () => {
    toolrow = await openSeededSource(50);
    const { privateKey, publicKey } = await generateKeyPair('RS256');
    const other = await generateKeyPair('RS256');
    const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
    const nonces = new Map<string, string>();
    provider = createServer(async (req, res) => {
      const url = new URL(req.url!, issuer);
      const json = (body: unknown) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (url.pathname === '/.well-known/openid-configuration')
        return json({
          issuer,
          authorization_endpoint: `${issuer}/auth`,
          token_endpoint: `${issuer}/token`,
          jwks_uri: `${issuer}/jwks`,
          response_types_supported: ['code'],
          subject_types_supported: ['public'],
          id_token_signing_alg_values_supported: ['RS256'],
          code_challenge_methods_supported: ['S256'],
        });
      if (url.pathname === '/jwks') return json({ keys: [jwk] });
      if (url.pathname === '/auth') {
        // Signs in at once: the code carries the nonce the token will be made with.
        const code = `code-${nonces.size}`;
        nonces.set(code, url.searchParams.get('nonce')!);
        const back = new URL(url.searchParams.get('redirect_uri')!);
        back.searchParams.set('code', code);
        back.searchParams.set('state', url.searchParams.get('state')!);
        res.writeHead(302, { location: back.href });
        return res.end();
      }
      if (url.pathname === '/token') {
        let body = '';
        for await (const chunk of req) body += chunk;
        const code = new URLSearchParams(body).get('code')!;
        const now = Math.floor(Date.now() / 1000);
        const claims = {
          sub: 'ana',
          email: 'ana@example.com',
          email_verified: true,
          name: 'Ana',
          nonce: craft === 'nonce' ? 'not-the-nonce' : nonces.get(code),
        };
        const idToken =
          craft === 'none'
            ? new UnsecuredJWT(claims)
                .setIssuer(issuer)
                .setAudience('toolrow')
                .setIssuedAt(now)
                .setExpirationTime(now + 300)
                .encode()
            : await new SignJWT(claims)
                .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
                .setIssuer(craft === 'issuer' ? 'https://evil.example.com' : issuer)
                .setAudience(craft === 'audience' ? 'another-client' : 'toolrow')
                .setIssuedAt(craft === 'expired' ? now - 7200 : now)
                .setExpirationTime(craft === 'expired' ? now - 3600 : now + 300)
                .sign(craft === 'signature' ? other.privateKey : privateKey);
        return json({ access_token: 'at', token_type: 'Bearer', expires_in: 300, id_token: idToken });
      }
      res.writeHead(404);
      res.end();
    });
    await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve));
    issuer = `http://127.0.0.1:${(provider.address() as AddressInfo).port}`;
    const appPort = await freePort();
    appUrl = `http://127.0.0.1:${appPort}`;
    app = await createToolrowServer({
      source: toolrow.source,
      state: toolrow.state,
      env: {
        TOOLROW_OIDC_ISSUER: issuer,
        TOOLROW_OIDC_CLIENT_ID: 'toolrow',
        TOOLROW_OIDC_CLIENT_SECRET: 'a-client-secret-long-enough',
        TOOLROW_PUBLIC_URL: appUrl,
      },
      model: null,
      log: () => {},
    });
    await app.listen({ port: appPort });
  }, 120_000);

  afterAll(async () => {
    await app?.close();
    await new Promise((resolve) => provider?.close(resolve));
    await toolrow?.close();
  });

  /** The browser's round trip: login, the provider's redirect, the callback with the login cookie. */
  async function callback(): Promise<Response> {
    const login = await fetch(`${appUrl}/auth/login`, { redirect: 'manual' });
    const cookie = login.headers
      .getSetCookie()
      .map((header) => header.split(';')[0])
      .join('; ');
    const atProvider = await fetch(login.headers.get('location')!, { redirect: 'manual' });
    return fetch(atProvider.headers.get('location')!, { redirect: 'manual', headers: { cookie } });
  }

  it('the test provider is a working one: its good token signs in', async () => {
    craft = 'good';
    const answer = await callback();
    expect(answer.status).toBe(302);
    expect(answer.headers.getSetCookie().some((header) => header.startsWith('toolrow_session='))).toBe(true);
  });

  it.each([
    ['audience', /aud/],
    ['issuer', /iss/],
    ['expired', /exp|timestamp/i],
    ['nonce', /nonce/],
    ['signature', /signature|JWS|verif/i],
    ['none', /alg|none|JWS|unexpected/i],
  ] as const)('an ID token with a wrong %s is refused, and no session is made', async (kind, reason) => {
    craft = kind;
    const sessionsBefore = await toolrow.state.db.q
      .selectFrom('team_sessions')
      .select('token_hash')
      .execute();
    const answer = await callback();
    expect(answer.status).toBe(401);
    const { error } = (await answer.json()) as { error: { code: string; message: string } };
    expect(error.code).toBe('sign-in-refused');
    expect(error.message).toMatch(/answer was refused/);
    expect(error.message).toMatch(reason);
    expect(answer.headers.getSetCookie().some((header) => header.startsWith('toolrow_session='))).toBe(false);
    expect(await toolrow.state.db.q.selectFrom('team_sessions').select('token_hash').execute()).toEqual(
      sessionsBefore,
    );
  });
});
