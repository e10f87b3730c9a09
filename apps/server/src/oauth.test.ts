// MCP OAuth end to end: OAuth clients Toolrow did not write (the MCP TypeScript SDK's and the AI
// SDK's) discover the authorization server from a 401, register, are sent to the consent page,
// the user decides in real Chromium, and the client works with what was granted. Then every
// refusal the spec names, each with its standard error. Real sockets, real database, real browser.
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type OAuthClientProvider as AiSdkOAuthClientProvider,
  UnauthorizedError as AiSdkUnauthorized,
  auth as aiSdkAuth,
  createMCPClient,
} from '@ai-sdk/mcp';
import {
  Client,
  type OAuthClientInformationMixed,
  type OAuthTokens,
  StreamableHTTPClientTransport,
  UnauthorizedError,
} from '@modelcontextprotocol/client';
import { rowOf, SILENT_TOOLS } from '@toolrow/catalog';
import {
  createMcpHttpHandler,
  createToolrowBackend,
  OAUTH_PATHS,
  serveMcpHttp,
  toolsForScope,
} from '@toolrow/mcp-server';
import type { Toolrow } from '@toolrow/state';
import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MountedMcp, mountMcp } from './mcp.ts';
import { MemoryProvider } from './oauth-test-client.ts';
import {
  api,
  ensureBundle,
  launchBrowser,
  openSeededSource,
  startTestServer,
  type TestServer,
} from './test-support.ts';

let toolrow: Toolrow;
let browser: Browser;
let context: BrowserContext;
let app: TestServer;
let mounted: MountedMcp;
let mcpUrl: string;
let callbacks: CallbackServer;
/** A client ID metadata document, as a web client hosts it at its https URL. */
const DOCUMENT_URL = 'https://client.example/toolrow/client.json';
let documentServer: Server;
let documentUrl = '';

/** A client's loopback redirect listener, as native apps run one (RFC 8252 §7.3). */
interface CallbackServer {
  url: string;
  /** Resolves with the next callback's query. */
  next(): Promise<URLSearchParams>;
  close(): Promise<void>;
}

async function startCallbackServer(): Promise<CallbackServer> {
  const waiting: ((params: URLSearchParams) => void)[] = [];
  const arrived: URLSearchParams[] = [];
  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    // The browser asks for /favicon.ico too: only the callback is an answer.
    if (url.pathname !== '/callback') {
      response.writeHead(404).end();
      return;
    }
    const params = url.searchParams;
    const resolve = waiting.shift();
    if (resolve) resolve(params);
    else arrived.push(params);
    response.writeHead(200, { 'content-type': 'text/plain' }).end('Signed in; you can close this window.');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/callback`,
    next: () =>
      arrived.length > 0
        ? Promise.resolve(arrived.shift()!)
        : new Promise<URLSearchParams>((resolve) => waiting.push(resolve)),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * Fails naming the step when it has not settled in `ms`: a hang then says where it stopped instead
 * of ending as the test's bare timeout. (Never a retry: the step itself must work.)
 */
function within<T>(step: string, promise: Promise<T>, ms = 20_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Still waiting after ${ms / 1000} s: ${step}`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** The user, in Chromium: opens the authorization URL, sees the consent page, decides. */
async function decideInBrowser(
  authorizationUrl: URL,
  decision: { approve: true; scope?: string; lifetime?: string; askViaClient?: boolean } | { approve: false },
): Promise<{ params: URLSearchParams; shown: { client: string; redirect: string; scope: string } }> {
  const page = await context.newPage();
  try {
    await page.goto(authorizationUrl.href);
    expect(new URL(page.url()).pathname).toBe('/oauth/consent');
    const shown = {
      client: (await page.getByTestId('consent-client').textContent()) ?? '',
      redirect: (await page.getByTestId('consent-redirect').textContent()) ?? '',
      scope: (await page.getByTestId('consent-scope').textContent()) ?? '',
    };
    if (decision.approve && decision.scope) await page.check(`input[name=scope][value="${decision.scope}"]`);
    // Before the box is ticked, the page says which clients can be asked and where the rest wait.
    expect(await page.getByTestId('elicitation-note').textContent()).toMatch(
      /A client that cannot be asked, or that connects without a session, is never asked there: its calls wait in this app's approval inbox/,
    );
    if (decision.approve && decision.askViaClient) await page.check('input[name=askViaClient]');
    // What every scope reads is the rows' own silent and gated reads, each named.
    const reads = (await page.getByTestId('consent-silent-reads').textContent()) ?? '';
    for (const name of SILENT_TOOLS.filter((tool) => rowOf(tool).mcp !== 'excluded'))
      expect(reads).toContain(name);
    for (const name of ['runQuery', 'getRow', 'countRows']) expect(reads).toContain(name);
    // A day is preselected; a longer grant is the user's choice.
    expect(await page.locator('select[name=lifetime]').inputValue()).toBe('1d');
    if (decision.approve && decision.lifetime)
      await page.selectOption('select[name=lifetime]', decision.lifetime);
    const callback = callbacks.next();
    // The browser lands on the client's loopback listener, which receives the same query.
    const landed = page.waitForURL((url) => url.href.startsWith(callbacks.url), { waitUntil: 'commit' });
    await page
      .getByRole('button', { name: decision.approve ? 'Approve' : 'Deny' })
      .click({ noWaitAfter: true });
    await landed;
    // Closing a tab while a cross-origin navigation is still committing can hang Chromium's close
    // for good (microsoft/playwright#41900, crbug 536385539): let the landing page finish first.
    await page.waitForLoadState('load');
    const params = new URL(page.url()).searchParams;
    const received = await within(`the client's loopback listener to receive ${page.url()}`, callback);
    expect(received.toString()).toBe(params.toString());
    return { params, shown };
  } finally {
    await within('Chromium to close the consent tab', page.close());
  }
}

beforeAll(async () => {
  [toolrow, browser, callbacks] = await Promise.all([
    openSeededSource(200),
    launchBrowser(),
    startCallbackServer(),
    ensureBundle(),
  ]);
  documentServer = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        client_id: DOCUMENT_URL,
        client_name: 'Metadata Document Client',
        redirect_uris: [callbacks.url],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      }),
    );
  });
  await new Promise<void>((resolve) => documentServer.listen(0, '127.0.0.1', resolve));
  documentUrl = `http://127.0.0.1:${(documentServer.address() as AddressInfo).port}/toolrow/client.json`;
  mounted = await mountMcp({
    source: toolrow.source,
    state: toolrow.state,
    // There is no network here: https://client.example is a socket on this machine.
    fetchClientDocument: (url, init) => fetch(url === DOCUMENT_URL ? documentUrl : url, init),
  });
  app = await startTestServer(toolrow, { mcp: mounted.mount });
  mcpUrl = `${app.url}/mcp`;
  context = await browser.newContext();
  // The user is signed in to the app (its launch link sets the cookie), as when they use it.
  const page = await context.newPage();
  await page.goto(app.openUrl);
  await page.close();
}, 180_000);

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await app?.close();
  await callbacks?.close();
  await new Promise<void>((resolve) => (documentServer ? documentServer.close(() => resolve()) : resolve()));
  await toolrow?.close();
});

describe('protocol paths', () => {
  it.each([
    '/oauth/token/x',
    '/oauth/authorize/anything',
    '/oauth/register/x',
    '/.well-known/oauth-authorization-server/x',
    '/.well-known/anything',
  ])('%s never serves the app shell: 404 with the app token, refused without it', async (path) => {
    const signedIn = await fetch(`${app.url}${path}`, { headers: { authorization: `Bearer ${app.token}` } });
    expect(signedIn.status).toBe(404);
    expect(await signedIn.json()).toMatchObject({ error: 'not_found' });
    const anonymous = await fetch(`${app.url}${path}`);
    expect(anonymous.status).toBe(401);
    expect(await anonymous.text()).not.toContain('<script');
  });
});

describe('an MCP client signs in with OAuth and the user consents in the app', () => {
  it('MCP TypeScript SDK: 401 → discovery → registration → consent in Chromium → tools at the granted scope', async () => {
    const provider = new MemoryProvider(callbacks.url, 'SDK Test Client');
    const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider });
    const client = new Client({ name: 'sdk-oauth-test', version: '1.0.0' });
    await expect(client.connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);
    // It registered (RFC 7591) after discovering the server from the 401's resource_metadata.
    expect(provider.info?.client_id).toMatch(/^trwclient_/);
    expect(provider.discovery?.authorizationServerUrl).toBe(`${app.url}/`.replace(/\/$/, ''));
    const authorizationUrl = provider.authorizationUrl!;
    expect(authorizationUrl.pathname).toBe(OAUTH_PATHS.authorize);
    expect(authorizationUrl.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorizationUrl.searchParams.get('resource')).toBe(mcpUrl);

    // The 401 named the narrowest scope, so the client asks for that, not everything it saw.
    expect(authorizationUrl.searchParams.get('scope')).toBe('tables:readonly');
    const first = await decideInBrowser(authorizationUrl, { approve: true, askViaClient: true });
    expect(first.shown).toEqual({
      client: 'SDK Test Client',
      redirect: callbacks.url,
      scope: 'tables:readonly',
    });
    expect(first.params.get('iss')).toBe(app.url);
    await transport.finishAuth(first.params);
    expect(provider.stored?.scope).toBe('tables:readonly');
    expect(provider.stored?.refresh_token).toMatch(/^trwr_/);

    const reader = new Client({ name: 'sdk-oauth-test', version: '1.0.0' });
    const readerTransport = new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider });
    await reader.connect(readerTransport);
    expect((await reader.listTools()).tools.map((tool) => tool.name).sort()).toEqual(
      [...toolsForScope('tables:readonly')].sort(),
    );
    // A call that needs more: the 403 names tables:staged and the client steps up to ask for it.
    provider.authorizationUrl = undefined;
    await expect(
      reader.callTool({
        name: 'stageUpdateRows',
        arguments: { table: 'orders', updates: [{ key: { id: 1 }, values: { status: 'paid' } }] },
      }),
    ).rejects.toThrow();
    await reader.close();
    const stepUp = provider.authorizationUrl as URL | undefined;
    expect(stepUp?.searchParams.get('scope')?.split(' ')).toContain('tables:staged');
    const { params, shown } = await decideInBrowser(stepUp!, { approve: true, askViaClient: true });
    expect(shown.scope).toBe('tables:staged');
    await readerTransport.finishAuth(params);
    expect(provider.stored?.scope).toBe('tables:staged');

    const connected = new Client({ name: 'sdk-oauth-test', version: '1.0.0' });
    await connected.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider }));
    const listed = (await connected.listTools()).tools.map((tool) => tool.name).sort();
    expect(listed).toEqual([...toolsForScope('tables:staged')].sort());
    // A silent tool runs at once (gated ones follow the profile's mode: the ladder's tests).
    const result = await connected.callTool({ name: 'describeTable', arguments: { table: 'orders' } });
    expect(result.isError).toBeFalsy();
    expect(JSON.stringify(result.structuredContent)).toContain('customer_id');
    await connected.close();

    // Listed as a connected client in the app, with its scope, profile and last use.
    await toolrow.state.flushLastUse();
    const { clients } = await api<{
      clients: {
        clientName: string;
        scope: string;
        lastUsedAt: string | null;
        actor: string;
        askViaClient: boolean;
      }[];
    }>(app, '/api/mcp/clients');
    // One grant after the step-up: the consent replaced the read-only one (ticked by default).
    const ours = clients.filter((entry) => entry.clientName === 'SDK Test Client');
    expect(ours.map((entry) => entry.scope)).toEqual(['tables:staged']);
    const mine = ours[0];
    expect(mine).toMatchObject({ scope: 'tables:staged', askViaClient: true });
    expect(mine?.lastUsedAt).not.toBeNull();
    expect(mine?.actor).toMatch(/^mcp:sdk-test-client-[0-9a-f]{6}$/);
  });

  it('a consent page opened in a signed-out browser signs in there and comes back to itself', async () => {
    const provider = new MemoryProvider(callbacks.url, 'Signed-out Client');
    const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider });
    await expect(new Client({ name: 'x', version: '1' }).connect(transport)).rejects.toBeInstanceOf(
      UnauthorizedError,
    );
    const signedOut = await browser.newContext();
    try {
      const page = await signedOut.newPage();
      const response = await page.goto(provider.authorizationUrl!.href);
      expect(response?.status()).toBe(401);
      // The whole link from the terminal, pasted as it is.
      await page.getByLabel(/paste that link/).fill(app.openUrl);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL((url) => url.pathname === '/oauth/consent');
      expect(await page.getByTestId('consent-client').textContent()).toBe('Signed-out Client');
      // The token went no further than the sign-in redirect: the consent page's URL does not hold it.
      expect(new URL(page.url()).searchParams.has('token')).toBe(false);
    } finally {
      await signedOut.close();
    }
  });

  it('AI SDK (@ai-sdk/mcp): the same flow with its own OAuth client, read-only granted', async () => {
    const provider = new MemoryProvider(callbacks.url, 'AI SDK Client');
    let savedState: string | undefined;
    type AiProvider = AiSdkOAuthClientProvider;
    // The AI SDK's own provider interface, over the same in-memory storage.
    const aiProvider: AiProvider = {
      get redirectUrl() {
        return provider.redirectUrl;
      },
      get clientMetadata() {
        return provider.clientMetadata as AiProvider['clientMetadata'];
      },
      clientInformation: () => provider.info as Awaited<ReturnType<AiProvider['clientInformation']>>,
      saveClientInformation: (info) => {
        provider.info = info as OAuthClientInformationMixed;
      },
      tokens: () => provider.stored as Awaited<ReturnType<AiProvider['tokens']>>,
      saveTokens: (tokens) => {
        provider.stored = tokens as OAuthTokens;
      },
      redirectToAuthorization: (url) => {
        provider.authorizationUrl = url;
      },
      saveCodeVerifier: (verifier) => {
        provider.verifier = verifier;
      },
      codeVerifier: () => provider.verifier,
      state: () => randomBytes(12).toString('base64url'),
      saveState: (state) => {
        savedState = state;
      },
      storedState: () => savedState,
    };
    const config = { transport: { type: 'http' as const, url: mcpUrl, authProvider: aiProvider } };
    await expect(createMCPClient(config)).rejects.toBeInstanceOf(AiSdkUnauthorized);
    expect(provider.info?.client_id).toMatch(/^trwclient_/);
    const { params } = await decideInBrowser(provider.authorizationUrl!, {
      approve: true,
      scope: 'tables:readonly',
    });
    expect(params.get('state')).toBe(provider.authorizationUrl!.searchParams.get('state'));
    const result = await aiSdkAuth(aiProvider, {
      serverUrl: mcpUrl,
      authorizationCode: params.get('code')!,
      callbackState: params.get('state')!,
      callbackIssuer: params.get('iss')!,
    });
    expect(result).toBe('AUTHORIZED');

    const client = await createMCPClient(config);
    try {
      const listed = (await client.listTools()).tools.map((tool) => tool.name).sort();
      expect(listed).toEqual([...toolsForScope('tables:readonly')].sort());
      const called = await client.callTool({ name: 'listTables', arguments: {} });
      expect(called.isError).toBeFalsy();
      // A call beyond the grant is refused with the scope it needs.
      const beyond = await client
        .callTool({ name: 'stageInsertRows', arguments: { table: 'orders', rows: [] } })
        .then(
          (value) => ({ value }),
          (error: Error) => ({ error }),
        );
      // The AI SDK surfaces the 403 insufficient_scope challenge as a transport error.
      expect('error' in beyond ? beyond.error.message : JSON.stringify(beyond.value)).toMatch(
        /HTTP 403.*insufficient_scope.*needs scope tables:staged/,
      );
    } finally {
      await client.close();
    }
  });

  it('MCP TypeScript SDK with a client ID metadata document: no registration, the document names it', async () => {
    const provider = new MemoryProvider(callbacks.url, 'ignored: the document names the client');
    const withDocument = Object.assign(provider, { clientMetadataUrl: DOCUMENT_URL });
    const client = new Client({ name: 'cimd', version: '1.0.0' });
    await expect(
      client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: withDocument })),
    ).rejects.toBeInstanceOf(UnauthorizedError);
    expect(provider.authorizationUrl!.searchParams.get('client_id')).toBe(DOCUMENT_URL);
    const { params, shown } = await decideInBrowser(provider.authorizationUrl!, {
      approve: true,
      scope: 'tables:readonly',
    });
    expect(shown.client).toBe('Metadata Document Client');
    const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: withDocument });
    await transport.finishAuth(params);
    const connected = new Client({ name: 'cimd', version: '1.0.0' });
    await connected.connect(
      new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: withDocument }),
    );
    expect((await connected.listTools()).tools.length).toBe(toolsForScope('tables:readonly').length);
    await connected.close();
  });

  it('a denial sends the client back with error=access_denied and grants nothing', async () => {
    const provider = new MemoryProvider(callbacks.url, 'Denied Client');
    const client = new Client({ name: 'denied', version: '1.0.0' });
    await expect(
      within(
        'the SDK client to register and stop at the authorization step',
        client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider })),
      ),
    ).rejects.toBeInstanceOf(UnauthorizedError);
    const { params } = await decideInBrowser(provider.authorizationUrl!, { approve: false });
    expect(params.get('error')).toBe('access_denied');
    expect(params.get('code')).toBeNull();
    expect(params.get('state')).toBe(provider.authorizationUrl!.searchParams.get('state'));
    const grants = await within('the grants to list', toolrow.state.oauth.listGrants({ all: true }));
    expect(grants.some((grant) => grant.clientName === 'Denied Client')).toBe(false);
  });
});

// ── Refusals, with raw HTTP against the same server ─────────────────────────────────────────

const challengeOf = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

async function register(name = 'Raw Client', redirectUris = [callbacks.url]): Promise<string> {
  const response = await fetch(`${app.url}${OAUTH_PATHS.register}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: name, redirect_uris: redirectUris }),
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { client_id: string }).client_id;
}

interface AuthorizeParams {
  clientId: string;
  redirectUri?: string;
  challenge?: string | null;
  method?: string | null;
  scope?: string;
  resource?: string | null;
}

function authorizeUrl(p: AuthorizeParams): string {
  const url = new URL(`${app.url}${OAUTH_PATHS.authorize}`);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('client_id', p.clientId);
  url.searchParams.set('redirect_uri', p.redirectUri ?? callbacks.url);
  url.searchParams.set('state', 'st4te');
  if (p.challenge !== null)
    url.searchParams.set('code_challenge', p.challenge ?? challengeOf('v'.repeat(43)));
  if (p.method !== null) url.searchParams.set('code_challenge_method', p.method ?? 'S256');
  url.searchParams.set('scope', p.scope ?? 'tables:readonly');
  if (p.resource !== null) url.searchParams.set('resource', p.resource ?? mcpUrl);
  return url.href;
}

/** The authorize step and the user's approval through the app's consent service (the browser path is tested above). */
async function codeFor(clientId: string, verifier: string, scope = 'tables:readonly'): Promise<string> {
  const response = await fetch(authorizeUrl({ clientId, challenge: challengeOf(verifier), scope }), {
    redirect: 'manual',
  });
  expect(response.status).toBe(302);
  const id = new URL(response.headers.get('location')!, app.url).searchParams.get('request')!;
  const request = mounted.mount.consent!.consentRequest(id)!;
  const location = await mounted.mount.consent!.approve(id, request.csrf, {
    scope: request.scope,
    profile: 'default',
    lifetime: '30d',
  });
  return new URL(location).searchParams.get('code')!;
}

async function tokenRequest(params: Record<string, string>) {
  const response = await fetch(`${app.url}${OAUTH_PATHS.token}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(params),
  });
  return {
    status: response.status,
    body: (await response.json()) as {
      error?: string;
      error_description?: string;
      access_token?: string;
      refresh_token?: string;
      scope?: string;
    },
  };
}

async function exchange(
  clientId: string,
  code: string,
  verifier: string,
  extra: Record<string, string> = {},
) {
  return tokenRequest({
    grant_type: 'authorization_code',
    client_id: clientId,
    code,
    code_verifier: verifier,
    redirect_uri: callbacks.url,
    resource: mcpUrl,
    ...extra,
  });
}

/** tools/list with a bearer token: the status and the WWW-Authenticate challenge. */
async function listWith(token: string, url = mcpUrl) {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
  });
  await response.body?.cancel();
  return { status: response.status, challenge: response.headers.get('www-authenticate') ?? '' };
}

async function freshTokens(scope = 'tables:readonly', name = 'Raw Client') {
  const clientId = await register(name);
  const verifier = randomBytes(32).toString('base64url');
  const code = await codeFor(clientId, verifier, scope);
  const { status, body } = await exchange(clientId, code, verifier);
  expect(status).toBe(200);
  return { clientId, verifier, code, access: body.access_token!, refresh: body.refresh_token! };
}

describe('refusals with the standard errors', () => {
  it('the 401 names the metadata, and the metadata names the authorization server', async () => {
    const unauthenticated = await fetch(mcpUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(unauthenticated.status).toBe(401);
    const header = unauthenticated.headers.get('www-authenticate') ?? '';
    const metadataUrl = /resource_metadata="([^"]+)"/.exec(header)?.[1];
    expect(metadataUrl).toBe(`${app.url}/.well-known/oauth-protected-resource/mcp`);
    const resource = (await (await fetch(metadataUrl!)).json()) as Record<string, unknown>;
    expect(resource).toMatchObject({ resource: mcpUrl, authorization_servers: [app.url] });
    const as = (await (await fetch(`${app.url}/.well-known/oauth-authorization-server`)).json()) as Record<
      string,
      unknown
    >;
    expect(as).toMatchObject({
      issuer: app.url,
      code_challenge_methods_supported: ['S256'],
      client_id_metadata_document_supported: true,
      scopes_supported: ['tables:readonly', 'tables:staged', 'tables:full'],
    });
  });

  it.each([
    ['plain PKCE', { method: 'plain' }, 'invalid_request'],
    ['no PKCE at all', { challenge: null, method: null }, 'invalid_request'],
    ['an unknown scope', { scope: 'tables:everything' }, 'invalid_scope'],
    ['another resource', { resource: 'http://127.0.0.1:1/mcp' }, 'invalid_target'],
  ] as const)('authorize with %s redirects back with error=%s', async (_what, change, error) => {
    const clientId = await register();
    const response = await fetch(authorizeUrl({ clientId, ...change }), { redirect: 'manual' });
    expect(response.status).toBe(302);
    const location = new URL(response.headers.get('location')!);
    expect(`${location.origin}${location.pathname}`).toBe(callbacks.url);
    expect(location.searchParams.get('error')).toBe(error);
    expect(location.searchParams.get('state')).toBe('st4te');
  });

  it.each([
    [
      'a redirect URI it did not register',
      (id: string) => authorizeUrl({ clientId: id, redirectUri: 'http://127.0.0.1:9/elsewhere' }),
      'invalid_request',
    ],
    [
      'an https redirect URI',
      (id: string) => authorizeUrl({ clientId: id, redirectUri: 'https://evil.example/cb' }),
      'invalid_request',
    ],
    ['an unknown client', () => authorizeUrl({ clientId: 'trwclient_nobody' }), 'invalid_client'],
  ] as const)('authorize with %s shows the error and never redirects', async (_what, url, error) => {
    const clientId = await register();
    const response = await fetch(url(clientId), { redirect: 'manual' });
    expect(response.status).toBe(400);
    expect(response.headers.get('location')).toBeNull();
    expect(await response.text()).toContain(`>${error}</code>`);
  });

  it('registration refuses redirect URIs that are neither loopback nor a private-use scheme', async () => {
    for (const uri of ['https://evil.example/cb', 'http://192.168.1.5/cb', 'javascript:alert(1)']) {
      const response = await fetch(`${app.url}${OAUTH_PATHS.register}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_name: 'x', redirect_uris: [uri] }),
      });
      expect(response.status).toBe(400);
      expect(((await response.json()) as { error: string }).error).toBe('invalid_redirect_uri');
    }
    // Desktop clients' own schemes are fine.
    expect(await register('VS Code', ['vscode://toolrow/callback'])).toMatch(/^trwclient_/);
  });

  it('a PKCE mismatch is invalid_grant', async () => {
    const clientId = await register();
    const code = await codeFor(clientId, randomBytes(32).toString('base64url'));
    const { status, body } = await exchange(clientId, code, randomBytes(32).toString('base64url'));
    expect(status).toBe(400);
    expect(body.error).toBe('invalid_grant');
    expect(body.error_description).toMatch(/code_verifier/);
  });

  it('a replayed code is invalid_grant and revokes what the first use bought', async () => {
    const tokens = await freshTokens();
    expect((await listWith(tokens.access)).status).toBe(200);
    const replay = await exchange(tokens.clientId, tokens.code, tokens.verifier);
    expect(replay.status).toBe(400);
    expect(replay.body.error).toBe('invalid_grant');
    const after = await listWith(tokens.access);
    expect(after.status).toBe(401);
    expect(after.challenge).toContain('error="invalid_token"');
  });

  it('an expired access token is invalid_token', async () => {
    const tokens = await freshTokens();
    await toolrow.state.db.q
      .updateTable('oauth_tokens')
      .set({ expires_at: new Date(Date.now() - 60_000) })
      .where('kind', '=', 'access')
      .where('token_hash', '=', createHash('sha256').update(tokens.access).digest('hex'))
      .execute();
    const { status, challenge } = await listWith(tokens.access);
    expect(status).toBe(401);
    expect(challenge).toContain('error="invalid_token"');
    expect(challenge).toContain('resource_metadata=');
  });

  it('a token revoked by the client (RFC 7009) or disconnected in the app is refused at once', async () => {
    const a = await freshTokens();
    expect((await listWith(a.access)).status).toBe(200);
    const revoked = await fetch(`${app.url}${OAUTH_PATHS.revoke}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: a.access, client_id: a.clientId }),
    });
    expect(revoked.status).toBe(200);
    expect((await listWith(a.access)).challenge).toContain('error="invalid_token"');

    const b = await freshTokens();
    expect((await listWith(b.access)).status).toBe(200);
    const grant = (await toolrow.state.oauth.grantOfToken(b.access))!;
    await api(app, `/api/mcp/clients/${grant.id}/revoke`, { body: {} });
    expect((await listWith(b.access)).challenge).toContain('error="invalid_token"');
    const refreshed = await tokenRequest({
      grant_type: 'refresh_token',
      client_id: b.clientId,
      refresh_token: b.refresh,
    });
    expect(refreshed.body.error).toBe('invalid_grant');
  });

  it('a token for another resource is refused: at the token endpoint invalid_target, at another server invalid_token', async () => {
    const clientId = await register();
    const verifier = randomBytes(32).toString('base64url');
    const code = await codeFor(clientId, verifier);
    const wrong = await exchange(clientId, code, verifier, { resource: 'http://127.0.0.1:1/mcp' });
    expect(wrong.body.error).toBe('invalid_target');

    // A standalone `toolrow mcp --http` on another port is another resource.
    const tokens = await freshTokens();
    const other = await serveMcpHttp(
      createMcpHttpHandler({
        backend: createToolrowBackend({ source: toolrow.source, state: toolrow.state }),
        tokens: toolrow.state.tokens,
        oauth: toolrow.state.oauth,
      }),
      0,
    );
    try {
      const { status, challenge } = await listWith(tokens.access, other.url.href);
      expect(status).toBe(401);
      expect(challenge).toContain('error="invalid_token"');
      expect(challenge).toContain(`issued for ${mcpUrl}`);
    } finally {
      await other.close();
    }
  });

  it('refresh tokens rotate; reusing a spent one is invalid_grant and ends the whole family', async () => {
    const tokens = await freshTokens();
    const first = await tokenRequest({
      grant_type: 'refresh_token',
      client_id: tokens.clientId,
      refresh_token: tokens.refresh,
    });
    expect(first.status).toBe(200);
    expect(first.body.refresh_token).not.toBe(tokens.refresh);
    expect((await listWith(first.body.access_token!)).status).toBe(200);

    const reuse = await tokenRequest({
      grant_type: 'refresh_token',
      client_id: tokens.clientId,
      refresh_token: tokens.refresh,
    });
    expect(reuse.status).toBe(400);
    expect(reuse.body.error).toBe('invalid_grant');
    // The rotated tokens die with the family.
    expect((await listWith(first.body.access_token!)).status).toBe(401);
    const next = await tokenRequest({
      grant_type: 'refresh_token',
      client_id: tokens.clientId,
      refresh_token: first.body.refresh_token!,
    });
    expect(next.body.error).toBe('invalid_grant');
  });

  it.each([
    [{ grant_type: 'password' }, 400, 'unsupported_grant_type'],
    [{}, 400, 'invalid_request'],
    [
      { grant_type: 'authorization_code', client_id: 'trwclient_nobody', code: 'x', code_verifier: 'y' },
      401,
      'invalid_client',
    ],
  ] as const)('token endpoint %j → %i %s', async (params, status, error) => {
    const response = await tokenRequest(params as Record<string, string>);
    expect(response.status).toBe(status);
    expect(response.body.error).toBe(error);
  });

  it('the consent form refuses a post from another origin and a wrong CSRF value', async () => {
    const clientId = await register();
    const response = await fetch(authorizeUrl({ clientId }), { redirect: 'manual' });
    const id = new URL(response.headers.get('location')!, app.url).searchParams.get('request')!;
    const post = (origin: string, csrf: string) =>
      fetch(`${app.url}/oauth/consent`, {
        method: 'POST',
        redirect: 'manual',
        headers: {
          authorization: `Bearer ${app.token}`,
          origin,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams({
          request: id,
          csrf,
          decision: 'approve',
          scope: 'tables:readonly',
          lifetime: '1h',
        }),
      });
    const csrf = mounted.mount.consent!.consentRequest(id)!.csrf;
    expect((await post('http://127.0.0.1:1', csrf)).status).toBe(403);
    expect((await post(app.url, 'not-the-csrf')).status).toBe(400);
    // Without the app's login there is no consent page at all.
    const anonymous = await fetch(`${app.url}/oauth/consent?request=${id}`);
    expect(anonymous.status).toBe(401);
    // The real form still works after both refusals.
    const ok = await post(app.url, csrf);
    expect(ok.status).toBe(303);
    expect(new URL(ok.headers.get('location')!).searchParams.get('code')).toMatch(/^trwc_/);
  });

  it('the app lists a connected client in its MCP clients panel; Disconnect there ends its tokens', async () => {
    const tokens = await freshTokens('tables:readonly', 'Panel Client');
    expect((await listWith(tokens.access)).status).toBe(200);
    const page = await context.newPage();
    try {
      await page.goto(app.url);
      await page
        .getByRole('navigation', { name: 'Tables and panels' })
        .getByRole('button', { name: 'MCP clients' })
        .click();
      const row = page.getByTestId('mcp-client').filter({ hasText: 'Panel Client' });
      await expect.poll(() => row.count()).toBe(1);
      expect(await row.textContent()).toContain('tables:readonly');
      // At 1200 px wide (the chat sidebar open) Disconnect is whole and inside the panel, not cut off.
      await page.setViewportSize({ width: 1200, height: 800 });
      const disconnect = row.getByRole('button', { name: 'Disconnect' });
      await disconnect.scrollIntoViewIfNeeded();
      const button = await disconnect.boundingBox();
      const panel = await page.locator('main .view').boundingBox();
      expect(button && panel).toBeTruthy();
      expect(button!.x).toBeGreaterThanOrEqual(panel!.x);
      expect(button!.x + button!.width).toBeLessThanOrEqual(panel!.x + panel!.width);
      // Nothing of the table is scrolled out of sight either.
      const table = await page.locator('.dtable').boundingBox();
      expect(table!.x).toBeGreaterThanOrEqual(panel!.x);
      expect(table!.width).toBeLessThanOrEqual(panel!.width);
      expect(await disconnect.evaluate((element) => element.scrollWidth <= element.clientWidth)).toBe(true);
      await disconnect.click();
      await expect.poll(() => row.count()).toBe(0);
    } finally {
      await page.close();
    }
    const after = await listWith(tokens.access);
    expect(after.status).toBe(401);
    expect(after.challenge).toContain('error="invalid_token"');
  });
});
