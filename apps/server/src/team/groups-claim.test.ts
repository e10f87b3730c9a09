// Roles come from the provider's groups claim, which many providers send only for a scope asked
// for. Left to its default scopes, team mode asks for the one the provider's discovery lists; a
// provider that offers none is named at start, and a sign-in with no groups claim says why the
// person is a viewer, naming TOOLROW_OIDC_SCOPES and TOOLROW_OIDC_GROUPS_CLAIM.
import type { Toolrow } from '@toolrow/state';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolrowServer, type ToolrowServer } from '../server.ts';
import { freePort, openSeededSource } from '../test-support.ts';
import { teamConfigFrom } from './config.ts';
import { scopesFor } from './sign-in.ts';
import { signIn, startTestProvider, type TestProvider } from './test-provider.ts';

const config = (scopes: string | undefined) =>
  teamConfigFrom({
    TOOLROW_OIDC_ISSUER: 'https://id.example.com',
    TOOLROW_OIDC_CLIENT_ID: 'toolrow',
    TOOLROW_OIDC_CLIENT_SECRET: 'secret',
    TOOLROW_PUBLIC_URL: 'https://toolrow.example.com',
    TOOLROW_OIDC_ROLES: 'data-team=analyst',
    ...(scopes === undefined ? {} : { TOOLROW_OIDC_SCOPES: scopes }),
  })!;

describe('which scopes team mode asks for', () => {
  it.each([
    [undefined, ['openid', 'groups'], 'openid email profile groups'],
    [undefined, ['openid', 'email'], 'openid email profile'],
    [undefined, undefined, 'openid email profile'],
    ['openid email', ['openid', 'groups'], 'openid email'],
  ])('TOOLROW_OIDC_SCOPES %j, the provider lists %j: asks %j', (scopes, supported, asked) => {
    expect(scopesFor(config(scopes), supported)).toBe(asked);
  });

  it('with no roles mapped, nothing is added', () => {
    expect(scopesFor({ ...config(undefined), roles: new Map() }, ['groups'])).toBe('openid email profile');
  });
});

describe.each([
  { groupsScope: true, role: 'analyst' },
  { groupsScope: false, role: 'viewer' },
])('a provider that lists a groups scope: $groupsScope', ({ groupsScope, role }) => {
  let toolrow: Toolrow;
  let provider: TestProvider;
  let app: ToolrowServer;
  let appUrl: string;
  const logged: string[] = [];

  beforeAll(async () => {
    toolrow = await openSeededSource(20);
    const port = await freePort();
    appUrl = `http://127.0.0.1:${port}`;
    provider = await startTestProvider([appUrl], undefined, { groupsScope });
    // The scopes left at their default, as a new team would.
    const { TOOLROW_OIDC_SCOPES: _left, ...env } = provider.env(appUrl);
    app = await createToolrowServer({
      source: toolrow.source,
      state: toolrow.state,
      env,
      model: null,
      log: (message) => logged.push(message),
    });
    await app.listen({ port });
  }, 120_000);

  afterAll(async () => {
    await app?.close();
    await provider?.close();
    await toolrow?.close();
  });

  it(`signs an analyst-group member in as ${role}, and says why when it cannot place her`, async () => {
    const { b } = await signIn(appUrl, provider.issuer, 'ana');
    const session = (await (await b.request(`${appUrl}/api/session`)).json()) as { role: string };
    expect(session.role).toBe(role);
    if (groupsScope) {
      expect(logged.join('\n')).not.toMatch(/groups/);
      return;
    }
    // At start, from the provider's discovery, and at her sign-in.
    const start = logged.find((line) => line.startsWith("Team roles come from the 'groups' claim"));
    expect(start).toBeDefined();
    expect(start).toContain('TOOLROW_OIDC_SCOPES');
    expect(start).toContain('TOOLROW_OIDC_GROUPS_CLAIM');
    const hers = logged.find((line) => line.startsWith('ana@example.com signed in as viewer'));
    expect(hers).toContain("sent no 'groups' claim");
    expect(hers).toContain('TOOLROW_OIDC_SCOPES (now "openid email profile")');
  });
});
