// The authorization server's storage and the bearer-verification cache, on SQLite and PostgreSQL:
// codes redeem once, refresh tokens rotate once, revocation is immediate in this process, and
// verification writes nothing per request (last use is flushed in batches).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dateOrNull } from './store/state-db.ts';
import { testStores } from './testing.ts';
import type { Toolrow } from './toolrow.ts';

const HOUR = 3_600_000;

describe.each(testStores())('$name: OAuth state and cached verification', ({ open }) => {
  let toolrow: Toolrow;
  beforeAll(async () => {
    toolrow = await open();
    await toolrow.state.oauth.saveClient({
      id: 'trwclient_a',
      kind: 'registered',
      name: 'Client A',
      redirectUris: ['http://127.0.0.1/cb'],
      metadata: {},
    });
  }, 120_000);
  afterAll(() => toolrow?.close());

  const grant = () =>
    toolrow.state.oauth.createGrant({
      clientId: 'trwclient_a',
      scope: 'tables:readonly',
      profile: 'default',
      resource: 'http://127.0.0.1:1/mcp',
      actorName: 'client-a-000000',
      expiresAt: new Date(Date.now() + 24 * HOUR),
    });
  const lastUsed = async (table: 'mcp_tokens' | 'oauth_grants', id: number | string) =>
    dateOrNull(
      (
        await toolrow.state.db.q
          .selectFrom(table)
          .select('last_used_at')
          .where('id', '=', id as never)
          .executeTakeFirst()
      )?.last_used_at,
    );

  it('verifying a CLI token writes nothing per request; the last use is flushed once', async () => {
    const { token, record } = await toolrow.state.tokens.create({ name: 'cached', scope: 'tables:readonly' });
    for (let i = 0; i < 20; i++) expect((await toolrow.state.tokens.verify(token)).ok).toBe(true);
    expect(await lastUsed('mcp_tokens', record.id)).toBeNull();
    await toolrow.state.flushLastUse();
    expect(await lastUsed('mcp_tokens', record.id)).toBeInstanceOf(Date);
    // list() shows the newest use without waiting for the timer.
    await toolrow.state.tokens.verify(token);
    const listed = (await toolrow.state.tokens.list()).find((entry) => entry.id === record.id);
    expect(listed?.lastUsedAt).toBeInstanceOf(Date);
  });

  it('a revocation takes effect on the very next verification, cache or not', async () => {
    const { token } = await toolrow.state.tokens.create({ name: 'to-revoke', scope: 'tables:readonly' });
    expect((await toolrow.state.tokens.verify(token)).ok).toBe(true);
    await toolrow.state.tokens.revoke('to-revoke');
    expect(await toolrow.state.tokens.verify(token)).toMatchObject({ ok: false, reason: 'revoked' });

    const g = await grant();
    const pair = await toolrow.state.oauth.issueTokens(g.id, {
      accessExpiresAt: new Date(Date.now() + HOUR),
    });
    expect((await toolrow.state.oauth.verifyAccess(pair.accessToken)).ok).toBe(true);
    await toolrow.state.oauth.revokeGrant(g.id);
    expect(await toolrow.state.oauth.verifyAccess(pair.accessToken)).toMatchObject({
      ok: false,
      reason: 'revoked',
    });
  });

  it('an access token records its use on the grant in batches, and never outlives its grant', async () => {
    const g = await toolrow.state.oauth.createGrant({
      clientId: 'trwclient_a',
      scope: 'tables:readonly',
      profile: 'default',
      resource: 'http://127.0.0.1:1/mcp',
      actorName: 'client-a-111111',
      expiresAt: new Date(Date.now() + 60_000),
    });
    const pair = await toolrow.state.oauth.issueTokens(g.id, {
      accessExpiresAt: new Date(Date.now() + HOUR),
    });
    expect(pair.accessExpiresAt.getTime()).toBe(g.expiresAt!.getTime());
    expect((await toolrow.state.oauth.verifyAccess(pair.accessToken)).ok).toBe(true);
    expect(await lastUsed('oauth_grants', g.id)).toBeNull();
    await toolrow.state.flushLastUse();
    expect(await lastUsed('oauth_grants', g.id)).toBeInstanceOf(Date);
  });

  it('a code redeems once; its second use revokes the grant and the tokens it bought', async () => {
    const g = await grant();
    const code = await toolrow.state.oauth.issueCode({
      grantId: g.id,
      redirectUri: 'http://127.0.0.1/cb',
      codeChallenge: 'c'.repeat(43),
      expiresAt: new Date(Date.now() + 60_000),
    });
    const first = await toolrow.state.oauth.redeemCode(code);
    expect(first).toMatchObject({
      ok: true,
      redirectUri: 'http://127.0.0.1/cb',
      codeChallenge: 'c'.repeat(43),
    });
    const pair = await toolrow.state.oauth.issueTokens(g.id, {
      accessExpiresAt: new Date(Date.now() + HOUR),
    });
    expect((await toolrow.state.oauth.verifyAccess(pair.accessToken)).ok).toBe(true);
    expect(await toolrow.state.oauth.redeemCode(code)).toEqual({ ok: false, reason: 'replayed' });
    expect(await toolrow.state.oauth.verifyAccess(pair.accessToken)).toMatchObject({
      ok: false,
      reason: 'revoked',
    });
    expect((await toolrow.state.oauth.getGrant(g.id))?.revokedReason).toBe('authorization code replayed');
    expect(await toolrow.state.oauth.redeemCode('trwc_nothing')).toEqual({ ok: false, reason: 'unknown' });
  });

  it('refresh tokens rotate; reuse of a spent one revokes the family; another client cannot use one', async () => {
    const g = await grant();
    const pair = await toolrow.state.oauth.issueTokens(g.id, {
      accessExpiresAt: new Date(Date.now() + HOUR),
    });
    const options = { clientId: 'trwclient_a', accessExpiresAt: new Date(Date.now() + HOUR) };
    expect(
      await toolrow.state.oauth.refresh(pair.refreshToken, { ...options, clientId: 'trwclient_other' }),
    ).toMatchObject({ ok: false, reason: 'wrong-client' });
    const rotated = await toolrow.state.oauth.refresh(pair.refreshToken, options);
    expect(rotated.ok).toBe(true);
    if (!rotated.ok) return;
    expect(rotated.tokens.refreshToken).not.toBe(pair.refreshToken);
    expect(await toolrow.state.oauth.refresh(pair.refreshToken, options)).toMatchObject({
      ok: false,
      reason: 'reused',
    });
    expect(await toolrow.state.oauth.refresh(rotated.tokens.refreshToken, options)).toMatchObject({
      ok: false,
      reason: 'revoked',
    });
    expect(await toolrow.state.oauth.verifyAccess(rotated.tokens.accessToken)).toMatchObject({ ok: false });
  });

  it('tokens and codes are stored as sha-256 only', async () => {
    const g = await grant();
    const pair = await toolrow.state.oauth.issueTokens(g.id, {
      accessExpiresAt: new Date(Date.now() + HOUR),
    });
    const dump = JSON.stringify(
      await toolrow.state.db.q.selectFrom('oauth_tokens').selectAll().where('grant_id', '=', g.id).execute(),
    );
    expect(dump).not.toContain(pair.accessToken);
    expect(dump).not.toContain(pair.refreshToken);
  });
});
