// For team-mode tests: a real OpenID Provider on loopback (oidc-provider, the certified one) with
// accounts in groups that a test may change or remove, and a browser reduced to what sign-in needs
// (cookies per origin, redirects followed by hand through the provider's own login and consent pages).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

export const TEST_CLIENT_SECRET = 'a-client-secret-long-enough-for-hs256';

export type TestAccounts = Record<string, Record<string, unknown>>;

export const TEAM_ACCOUNTS: TestAccounts = {
  ana: { email: 'ana@example.com', email_verified: true, name: 'Ana Analyst', groups: ['data-team'] },
  vic: { email: 'vic@example.com', email_verified: true, name: 'Vic Viewer', groups: ['sales'] },
  una: { email: 'una@example.com', email_verified: false, name: 'Una Unverified', groups: ['data-team'] },
  abe: { email: 'abe@example.com', email_verified: true, name: 'Abe Approver', groups: ['data-leads'] },
  amy: { email: 'amy@example.com', email_verified: true, name: 'Amy Approver', groups: ['data-leads'] },
  root: { email: 'root@example.com', email_verified: true, name: 'Ada Admin', groups: ['toolrow-admins'] },
};

export interface TestProvider {
  issuer: string;
  /** The accounts it knows: change a person's groups or delete them, and the provider says so from then on. */
  accounts: TestAccounts;
  /** The team-mode environment of an app at `appUrl` signing in here. */
  env(appUrl: string): Record<string, string>;
  close(): Promise<void>;
}

/** Starts the provider for apps at these URLs (each registered with its /auth/callback). */
export async function startTestProvider(
  appUrls: readonly string[],
  accounts: TestAccounts = structuredClone(TEAM_ACCOUNTS),
  /** Whether the provider offers a 'groups' scope and claim (most do; some only on request). */
  options: { groupsScope?: boolean } = {},
): Promise<TestProvider> {
  const groupsScope = options.groupsScope ?? true;
  const http: Server = createServer();
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const op = new Provider(issuer, {
    clients: [
      {
        client_id: 'toolrow',
        client_secret: TEST_CLIENT_SECRET,
        redirect_uris: appUrls.map((url) => `${url}/auth/callback`),
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
      },
    ],
    findAccount: (_ctx: unknown, id: string) =>
      accounts[id] ? { accountId: id, claims: () => ({ sub: id, ...accounts[id] }) } : undefined,
    claims: {
      openid: ['sub'],
      email: ['email', 'email_verified'],
      profile: ['name'],
      ...(groupsScope ? { groups: ['groups'] } : {}),
    },
    scopes: ['openid', 'offline_access', 'email', 'profile', ...(groupsScope ? ['groups'] : [])],
    cookies: { keys: ['team-test-cookie-key'] },
    features: { devInteractions: { enabled: true } },
    ttl: {
      Grant: 3600,
      AccessToken: 600,
      IdToken: 600,
      Interaction: 600,
      Session: 600,
      AuthorizationCode: 60,
      RefreshToken: 3600,
    },
  });
  http.on('request', op.callback());
  return {
    issuer,
    accounts,
    env: (appUrl) => ({
      TOOLROW_OIDC_ISSUER: issuer,
      TOOLROW_OIDC_CLIENT_ID: 'toolrow',
      TOOLROW_OIDC_CLIENT_SECRET: TEST_CLIENT_SECRET,
      TOOLROW_PUBLIC_URL: appUrl,
      TOOLROW_OIDC_ROLES: 'data-team=analyst,data-leads=approver,toolrow-admins=admin',
      TOOLROW_OIDC_SCOPES: 'openid email profile groups offline_access',
    }),
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}

export type TestBrowser = ReturnType<typeof browser>;

/** A browser reduced to what sign-in needs: cookies per origin, redirects followed by hand. */
export function browser() {
  const jars = new Map<string, Map<string, string>>();
  const jar = (url: URL) => {
    const found = jars.get(url.origin) ?? new Map<string, string>();
    jars.set(url.origin, found);
    return found;
  };
  async function request(
    input: string | URL,
    init: { method?: string; body?: string; headers?: Record<string, string> } = {},
  ) {
    const url = new URL(input);
    const cookies = [...jar(url)].map(([name, value]) => `${name}=${value}`).join('; ');
    const response = await fetch(url, {
      method: init.method ?? 'GET',
      redirect: 'manual',
      headers: { ...(cookies ? { cookie: cookies } : {}), ...init.headers },
      ...(init.body !== undefined ? { body: init.body } : {}),
    });
    for (const header of response.headers.getSetCookie()) {
      const [pair] = header.split(';');
      const at = pair!.indexOf('=');
      const [name, value] = [pair!.slice(0, at), pair!.slice(at + 1)];
      if (value === '' || /max-age=0/i.test(header)) jar(url).delete(name);
      else jar(url).set(name, value);
    }
    return response;
  }
  /** Copies this browser's cookies for one origin to another (a load balancer's two instances share a name). */
  function share(from: string, to: string) {
    for (const [name, value] of jar(new URL(from))) jar(new URL(to)).set(name, value);
  }
  return { request, jar, share };
}

/**
 * Signs `account` in at the app through the provider's login and consent pages; returns the
 * browser and the callback's answer. `tamper` may change the callback URL before it is followed.
 */
export async function signIn(
  appUrl: string,
  issuer: string,
  account: string,
  tamper?: (callback: URL) => URL | Promise<URL>,
) {
  const b = browser();
  let next = new URL(`${appUrl}/auth/login?return=/tables`);
  for (let step = 0; step < 16; step++) {
    if (next.href.startsWith(`${appUrl}/auth/callback`)) {
      const callback = tamper ? await tamper(next) : next;
      return { b, answer: await b.request(callback) };
    }
    const response = await b.request(next);
    if (response.status >= 300 && response.status < 400) {
      next = new URL(response.headers.get('location')!, next);
      continue;
    }
    // One of the provider's interaction pages: log in as `account`, then consent.
    const html = await response.text();
    const uid = /\/interaction\/([^/?#]+)/.exec(next.pathname)![1]!;
    const body = html.includes('name="login"')
      ? `prompt=login&login=${account}&password=x`
      : 'prompt=consent';
    const posted = await b.request(`${issuer}/interaction/${uid}`, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    next = new URL(posted.headers.get('location')!, issuer);
  }
  throw new Error('sign-in did not reach the callback');
}

/** A signed-in browser's calls to an app: GET, and changes carrying the session's CSRF token. */
export function teamClient(b: TestBrowser, appUrl: string) {
  let csrf: string | undefined;
  const csrfToken = async () => {
    csrf ??= ((await (await b.request(`${appUrl}/api/session`)).json()) as { csrfToken: string }).csrfToken;
    return csrf;
  };
  return {
    get: (path: string) => b.request(`${appUrl}${path}`),
    async send(method: string, path: string, body?: unknown) {
      return b.request(`${appUrl}${path}`, {
        method,
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        headers: { 'content-type': 'application/json', 'x-csrf-token': await csrfToken() },
      });
    },
  };
}
