// Team mode against a real OpenID Provider on loopback (oidc-provider, the certified one): people
// in different groups sign in through the authorization code flow with PKCE, and every way in
// that should fail does, with a clear error and nothing changed.
import type { Toolrow } from '@toolrow/state';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolrowServer, type ToolrowServer } from '../server.ts';
import { clearStaging, freePort, openSeededSource } from '../test-support.ts';
import { browser, signIn as signInAt, startTestProvider, type TestProvider } from './test-provider.ts';

describe("team mode: sign-in through the team's OpenID provider", () => {
  let toolrow: Toolrow;
  let provider: TestProvider;
  let issuer: string;
  let app: ToolrowServer;
  let appUrl: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    toolrow = await openSeededSource(200);
    const appPort = await freePort();
    appUrl = `http://127.0.0.1:${appPort}`;
    provider = await startTestProvider([appUrl]);
    issuer = provider.issuer;
    env = provider.env(appUrl);
    app = await createToolrowServer({
      source: toolrow.source,
      state: toolrow.state,
      env,
      model: null,
      log: () => {},
    });
    await app.listen({ port: appPort });
  }, 120_000);

  afterAll(async () => {
    await app?.close();
    await provider?.close();
    await toolrow?.close();
  });

  /** Signs `account` in through the provider's login and consent pages; returns the browser and the callback's answer. */
  const signIn = (account: string, tamper?: (callback: URL) => URL | Promise<URL>) =>
    signInAt(appUrl, issuer, account, tamper);

  const api = (
    b: ReturnType<typeof browser>,
    path: string,
    init?: Parameters<ReturnType<typeof browser>['request']>[1],
  ) => b.request(`${appUrl}${path}`, init);

  it('an analyst signs in, lands where she asked, and the session says who and what she is', async () => {
    const { b, answer } = await signIn('ana');
    expect(answer.status).toBe(302);
    expect(answer.headers.get('location')).toBe('/tables');
    const cookie = answer.headers.getSetCookie().find((header) => header.startsWith('toolrow_session='))!;
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Lax/i);
    const session = await (await api(b, '/api/session')).json();
    expect(session).toEqual({
      user: { email: 'ana@example.com', name: 'Ana Analyst' },
      role: 'analyst',
      csrfToken: expect.any(String),
    });
    expect((await api(b, '/api/status')).status).toBe(200);
  });

  it('a person in no mapped group is a viewer', async () => {
    const { b } = await signIn('vic');
    expect(((await (await api(b, '/api/session')).json()) as { role: string }).role).toBe('viewer');
  });

  it('an unverified email is refused, and no session is made', async () => {
    const { b, answer } = await signIn('una');
    expect(answer.status).toBe(401);
    expect(((await answer.json()) as { error: { message: string } }).error.message).toMatch(
      /has not verified una@example\.com/,
    );
    expect((await api(b, '/api/session')).status).toBe(401);
  });

  it('without a session nothing opens, the launch token included', async () => {
    const b = browser();
    const api401 = await api(b, '/api/status');
    expect(api401.status).toBe(401);
    expect(((await api401.json()) as { error: unknown }).error).toMatchObject({
      code: 'sign-in',
      hint: expect.stringContaining('/auth/login'),
    });
    const withToken = await fetch(`${appUrl}/api/status`, {
      headers: { authorization: `Bearer ${app.token}` },
    });
    expect(withToken.status).toBe(401);
    const page = await api(b, '/tables');
    expect(page.status).toBe(302);
    expect(page.headers.get('location')).toBe('/auth/login?return=%2Ftables');
  });

  it('a tampered or unknown session cookie opens nothing', async () => {
    const { b } = await signIn('ana');
    const jar = b.jar(new URL(appUrl));
    jar.set('toolrow_session', `${jar.get('toolrow_session')!.slice(0, -2)}xx`);
    expect((await api(b, '/api/session')).status).toBe(401);
  });

  it('each role changes only what it may: a viewer reads, an analyst stages, neither commits', async () => {
    const viewer = await signIn('vic');
    const analyst = await signIn('ana');
    const csrfOf = async (b: ReturnType<typeof browser>) =>
      ((await (await api(b, '/api/session')).json()) as { csrfToken: string }).csrfToken;
    const post = async (b: ReturnType<typeof browser>, path: string, body: unknown) =>
      api(b, path, {
        method: 'POST',
        body: JSON.stringify(body),
        headers: { 'content-type': 'application/json', 'x-csrf-token': await csrfOf(b) },
      });
    expect((await post(viewer.b, '/api/query', { sql: 'select count(*) from orders' })).status).toBe(200);
    const stage = { table: 'orders', key: { id: 1 }, values: { note: 'call back' } };
    const refused = await post(viewer.b, '/api/staging/update', stage);
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(
      /As viewer you may not stage changes: that needs analyst or above/,
    );
    expect(await toolrow.state.staging.list()).toEqual([]);
    expect((await post(analyst.b, '/api/staging/update', stage)).status).toBe(200);
    const commit = await post(analyst.b, '/api/staging/commit', {});
    expect(commit.status).toBe(403);
    expect((await toolrow.state.staging.list()).length).toBe(1);
    // A change no rule names needs an admin: closed until it is placed.
    expect(
      (
        await api(analyst.b, '/api/profile', {
          method: 'PUT',
          body: '{"mode":"auto"}',
          headers: { 'content-type': 'application/json', 'x-csrf-token': await csrfOf(analyst.b) },
        })
      ).status,
    ).toBe(403);
    await clearStaging(toolrow);
  });

  it('a change without the CSRF token, or with another, is refused and changes nothing', async () => {
    const { b } = await signIn('ana');
    const { csrfToken } = (await (await api(b, '/api/session')).json()) as { csrfToken: string };
    const body = JSON.stringify({ table: 'orders', key: { id: 2 }, values: { note: 'csrf?' } });
    const headers = { 'content-type': 'application/json' };
    for (const extra of [{}, { 'x-csrf-token': 'not-it' }] as Record<string, string>[]) {
      const refused = await api(b, '/api/staging/update', {
        method: 'POST',
        body,
        headers: { ...headers, ...extra },
      });
      expect(refused.status).toBe(403);
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('csrf');
    }
    expect(await toolrow.state.staging.list()).toEqual([]);
    const done = await api(b, '/api/staging/update', {
      method: 'POST',
      body,
      headers: { ...headers, 'x-csrf-token': csrfToken },
    });
    expect(done.status).toBe(200);
    expect((await toolrow.state.staging.list()).length).toBe(1);
    await clearStaging(toolrow);
  });

  it('sign-out ends the session on every instance (it lives in the state store)', async () => {
    const { b } = await signIn('ana');
    const { csrfToken } = (await (await api(b, '/api/session')).json()) as { csrfToken: string };
    const token = b.jar(new URL(appUrl)).get('toolrow_session')!;
    expect(
      (await api(b, '/auth/logout', { method: 'POST', headers: { 'x-csrf-token': csrfToken } })).status,
    ).toBe(200);
    expect(await toolrow.state.team.find(token, 60_000)).toBeUndefined();
    b.jar(new URL(appUrl)).set('toolrow_session', token);
    expect((await api(b, '/api/session')).status).toBe(401);
  });

  it('an idle session, an expired one and a removed person end', async () => {
    const idle = await signIn('ana');
    await toolrow.state.db.q
      .updateTable('team_sessions')
      .set({ seen_at: new Date(Date.now() - 9 * 3_600_000) })
      .execute();
    expect((await api(idle.b, '/api/session')).status).toBe(401);
    // Past its absolute expiry a session ends however recently it was used.
    const old = await signIn('ana');
    expect((await api(old.b, '/api/session')).status).toBe(200);
    await toolrow.state.db.q
      .updateTable('team_sessions')
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where('email', '=', 'ana@example.com')
      .execute();
    expect((await api(old.b, '/api/session')).status).toBe(401);
    const removed = await signIn('vic');
    expect((await api(removed.b, '/api/session')).status).toBe(200);
    expect(await toolrow.state.team.endFor('vic@example.com')).toBeGreaterThanOrEqual(1);
    expect((await api(removed.b, '/api/session')).status).toBe(401);
  });

  it('a callback not started in this browser, replayed, or answered for another login is refused', async () => {
    // The callback reached from a browser that did not start it (no login cookie bound to its state).
    const stranger = await signIn('ana', (callback) => callback);
    expect(stranger.answer.status).toBe(302);
    const { answer } = await signIn('ana', (callback) => {
      const other = new URL(callback);
      other.searchParams.set('state', 'forged-state');
      return other;
    });
    expect(answer.status).toBe(401);
    expect(((await answer.json()) as { error: { message: string } }).error.message).toMatch(
      /not started in this browser/,
    );
    // A provider error comes back as the person's message.
    const denied = await browser().request(
      `${appUrl}/auth/callback?error=access_denied&error_description=End-User%20aborted&state=x`,
    );
    expect(denied.status).toBe(401);
    expect(((await denied.json()) as { error: { message: string } }).error.message).toMatch(
      /refused the sign-in: End-User aborted/,
    );
  });

  it('a login whose nonce does not match the ID token is refused (openid-client checks it)', async () => {
    const { answer } = await signIn('ana', async (callback) => {
      // The stored login's nonce is changed before the answer is checked: the ID token carries the old one.
      await toolrow.state.db.q.updateTable('team_logins').set({ nonce: 'another-nonce' }).execute();
      return callback;
    });
    expect(answer.status).toBe(401);
    expect(((await answer.json()) as { error: { message: string } }).error.message).toMatch(
      /answer was refused.*nonce/i,
    );
  });

  it('a partial configuration stops the server, naming what is missing', async () => {
    await expect(
      createToolrowServer({
        source: toolrow.source,
        state: toolrow.state,
        env: { TOOLROW_OIDC_ISSUER: issuer },
        model: null,
        log: () => {},
      }),
    ).rejects.toThrow(/TOOLROW_OIDC_CLIENT_ID, TOOLROW_OIDC_CLIENT_SECRET, TOOLROW_PUBLIC_URL/);
    await expect(
      createToolrowServer({
        source: toolrow.source,
        state: toolrow.state,
        env: { ...env, TOOLROW_OIDC_ROLES: 'data-team=owner' },
        model: null,
        log: () => {},
      }),
    ).rejects.toThrow(/'data-team=owner' is not group=role with a role of viewer, analyst, approver, admin/);
  });
});
