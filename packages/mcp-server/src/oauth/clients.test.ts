// Redirect URIs (RFC 8252), registration metadata (RFC 7591) and client ID metadata documents:
// what is accepted and what is refused with which error. Then a metadata-document client through
// the authorization server, its document served over a real socket.
import { createHash, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OAuthError } from '@modelcontextprotocol/server';
import type { Toolrow } from '@toolrow/state';
import { testStores } from '@toolrow/state/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAuthorizationServer, OAUTH_PATHS, requestedScope } from './authorization-server.ts';
import {
  acceptClientMetadata,
  classifyRedirectUri,
  isMetadataDocumentClientId,
  redirectUriMatches,
  validateClientMetadataDocument,
} from './clients.ts';

const codeOf = (fn: () => unknown) => {
  try {
    fn();
    return 'accepted';
  } catch (error) {
    return error instanceof OAuthError ? error.code : String(error);
  }
};

describe('redirect URIs', () => {
  it.each([
    ['http://127.0.0.1:33418/callback', false, 'loopback'],
    ['http://localhost:8080/cb', false, 'loopback'],
    ['http://[::1]:9000/cb', false, 'loopback'],
    ['vscode://vscode.toolrow/callback', false, 'private-use'],
    ['cursor://anysphere.cursor-retrieval/oauth', false, 'private-use'],
    ['claude://oauth/callback', false, 'private-use'],
    ['com.example.app:/oauth2redirect', false, 'private-use'],
    ['https://app.example.com/cb', true, 'https'],
  ] as const)('%s (document: %s) is %s', (uri, document, kind) => {
    expect(classifyRedirectUri(uri, document)).toBe(kind);
  });

  it.each([
    ['https://app.example.com/cb', /https redirect/],
    ['http://example.com/cb', /plain http/],
    ['http://192.168.1.10:80/cb', /plain http/],
    ['javascript:alert(1)', /never a redirect/],
    ['data:text/html,x', /never a redirect/],
    ['file:///etc/passwd', /never a redirect/],
    ['http://127.0.0.1:1/cb#frag', /fragment/],
    ['not a uri', /not an absolute URI/],
  ])('%s is refused', (uri, why) => {
    const kind = classifyRedirectUri(uri);
    expect(typeof kind).toBe('object');
    expect((kind as { refused: string }).refused).toMatch(why);
  });

  it('a loopback redirect matches on any port, everything else exactly', () => {
    const registered = ['http://127.0.0.1:1000/callback', 'vscode://toolrow/cb'];
    expect(redirectUriMatches(registered, 'http://127.0.0.1:54321/callback')).toBe(true);
    expect(redirectUriMatches(registered, 'http://127.0.0.1:54321/other')).toBe(false);
    expect(redirectUriMatches(registered, 'http://localhost:1000/callback')).toBe(false);
    expect(redirectUriMatches(registered, 'vscode://toolrow/cb')).toBe(true);
    expect(redirectUriMatches(registered, 'vscode://toolrow/cb2')).toBe(false);
    expect(redirectUriMatches(registered, 'https://127.0.0.1:1000/callback')).toBe(false);
  });
});

describe('client metadata', () => {
  const ok = { client_name: 'X', redirect_uris: ['http://127.0.0.1/cb'] };
  it.each([
    [{ ...ok }, 'accepted'],
    [{ ...ok, redirect_uris: [] }, 'invalid_redirect_uri'],
    [{ client_name: 'X' }, 'invalid_redirect_uri'],
    [{ ...ok, redirect_uris: ['https://evil.example/cb'] }, 'invalid_redirect_uri'],
    [{ ...ok, grant_types: ['client_credentials'] }, 'invalid_client_metadata'],
    [{ ...ok, response_types: ['token'] }, 'invalid_client_metadata'],
    [{ ...ok, redirect_uris: 'http://127.0.0.1/cb' }, 'invalid_client_metadata'],
    [[], 'invalid_client_metadata'],
  ])('registration %j → %s', (body, code) => {
    expect(codeOf(() => acceptClientMetadata(body, { document: false, fallbackName: 'n' }))).toBe(code);
  });

  it('a registered client is public whatever it asks for, and keeps a bounded name', () => {
    const accepted = acceptClientMetadata(
      { ...ok, client_name: 'y'.repeat(300), token_endpoint_auth_method: 'client_secret_basic' },
      { document: false, fallbackName: 'n' },
    );
    expect(accepted.metadata.token_endpoint_auth_method).toBe('none');
    expect(accepted.name).toHaveLength(100);
  });

  it('a metadata document must name itself, may name https redirects, and may not ask for secrets', () => {
    const url = 'https://client.example/oauth/metadata.json';
    const doc = { client_id: url, client_name: 'Web Client', redirect_uris: ['https://client.example/cb'] };
    expect(validateClientMetadataDocument(url, doc).redirectUris).toEqual(['https://client.example/cb']);
    expect(
      codeOf(() => validateClientMetadataDocument(url, { ...doc, client_id: 'https://other.example/m' })),
    ).toBe('invalid_client');
    expect(
      codeOf(() =>
        validateClientMetadataDocument(url, { ...doc, token_endpoint_auth_method: 'private_key_jwt' }),
      ),
    ).toBe('invalid_client');
    expect(
      codeOf(() => validateClientMetadataDocument(url, { ...doc, redirect_uris: ['javascript:x'] })),
    ).toBe('invalid_client');
    expect(
      validateClientMetadataDocument(url, { client_id: url, redirect_uris: ['http://127.0.0.1/cb'] }).name,
    ).toBe('client.example');
  });

  it.each([
    ['https://client.example/metadata.json', true],
    ['https://client.example/', false],
    ['http://client.example/metadata.json', false],
    ['https://user:pw@client.example/m', false],
    ['trwclient_abc', false],
  ])('%s names a metadata document: %s', (id, expected) => {
    expect(isMetadataDocumentClientId(id)).toBe(expected);
  });

  it('the widest requested scope is asked for; unknown scopes are invalid_scope', () => {
    expect(requestedScope('tables:readonly tables:full tables:staged')).toBe('tables:full');
    expect(requestedScope(null)).toBe('tables:readonly');
    expect(codeOf(() => requestedScope('tables:readonly admin'))).toBe('invalid_scope');
  });
});

describe('a client ID metadata document client signs in', () => {
  let toolrow: Toolrow;
  // Opening the stores is slow on a loaded machine: outside the test's own time.
  beforeAll(async () => {
    toolrow = await testStores()[0]!.open();
  }, 180_000);
  afterAll(() => toolrow?.close());

  it('the document is fetched from its URL (here served by a real socket), checked, and its redirect honoured', async () => {
    const clientId = 'https://client.example/oauth/toolrow.json';
    let fetched = 0;
    let documentBody: unknown;
    const docServer = createServer((_request, response) => {
      fetched += 1;
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(documentBody));
    });
    await new Promise<void>((resolve) => docServer.listen(0, '127.0.0.1', resolve));
    const docUrl = `http://127.0.0.1:${(docServer.address() as AddressInfo).port}/oauth/toolrow.json`;
    try {
      documentBody = {
        client_id: clientId,
        client_name: 'Metadata Client',
        redirect_uris: ['https://client.example/callback', 'http://127.0.0.1/cb'],
      };
      const as = createAuthorizationServer({
        state: toolrow.state,
        consentPath: '/oauth/consent',
        mcpPath: '/mcp',
        // The only seam: https://client.example is this machine's socket (no other network here).
        fetchDocument: (url, init) => fetch(url === clientId ? docUrl : url, init),
      });
      const verifier = randomBytes(32).toString('base64url');
      const authorize = new URL(`http://127.0.0.1:7000${OAUTH_PATHS.authorize}`);
      for (const [key, value] of Object.entries({
        response_type: 'code',
        client_id: clientId,
        redirect_uri: 'https://client.example/callback',
        code_challenge: createHash('sha256').update(verifier).digest('base64url'),
        code_challenge_method: 'S256',
        scope: 'tables:staged',
        state: 's',
      })) {
        authorize.searchParams.set(key, value);
      }
      const response = await as.fetch(new Request(authorize));
      expect(response.status).toBe(302);
      const id = new URL(response.headers.get('location')!, 'http://127.0.0.1:7000').searchParams.get(
        'request',
      )!;
      const request = as.consentRequest(id)!;
      expect(request).toMatchObject({
        clientName: 'Metadata Client',
        clientKind: 'metadata-document',
        scope: 'tables:staged',
      });
      const back = new URL(
        await as.approve(id, request.csrf, { scope: 'tables:readonly', profile: 'default', lifetime: '1h' }),
      );
      expect(`${back.origin}${back.pathname}`).toBe('https://client.example/callback');
      const token = await as.fetch(
        new Request(`http://127.0.0.1:7000${OAUTH_PATHS.token}`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({
            grant_type: 'authorization_code',
            client_id: clientId,
            code: back.searchParams.get('code')!,
            code_verifier: verifier,
            redirect_uri: 'https://client.example/callback',
            resource: 'http://127.0.0.1:7000/mcp',
          }),
        }),
      );
      expect(token.status).toBe(200);
      expect(await token.json()).toMatchObject({ scope: 'tables:readonly', token_type: 'Bearer' });
      expect(fetched).toBe(1);

      // A document naming another client_id is refused, shown not redirected.
      documentBody = {
        client_id: 'https://evil.example/x',
        redirect_uris: ['https://client.example/callback'],
      };
      const otherId = 'https://client.example/oauth/other.json';
      const refused = await createAuthorizationServer({
        state: toolrow.state,
        consentPath: '/oauth/consent',
        mcpPath: '/mcp',
        fetchDocument: (url, init) => fetch(url === otherId ? docUrl : url, init),
      }).fetch(
        new Request(authorize.href.replace(encodeURIComponent(clientId), encodeURIComponent(otherId))),
      );
      expect(refused.status).toBe(400);
      expect(await refused.text()).toContain('>invalid_client</code>');
    } finally {
      await new Promise<void>((resolve) => docServer.close(() => resolve()));
    }
  });
});
