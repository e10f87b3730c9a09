// The authorization server as a hostile web page, client or neighbour would use it: redirects that
// smuggle the code elsewhere, metadata documents as a way into the user's network or memory,
// requests that fill the consent queue or the client table, malformed client credentials, and a
// code redeemed four times at once. Each answer is a clear OAuth error, never a 500, a fetch of a
// private address, or someone else's consent pushed out.
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Toolrow } from '@toolrow/state';
import { testStores } from '@toolrow/state/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AuthorizationServer,
  createAuthorizationServer,
  MAX_PENDING,
  MAX_PENDING_PER_CLIENT,
  MAX_UNAPPROVED_REGISTRATIONS,
  OAUTH_PATHS,
  REGISTRATIONS_PER_MINUTE,
} from './authorization-server.ts';
import { classifyRedirectUri, redirectUriMatches } from './clients.ts';
import { guardedDocumentFetch, isPublicAddress } from './document-fetch.ts';

const ORIGIN = 'http://127.0.0.1:7000';

describe('redirect URIs match exactly: no fragment, no user info', () => {
  it.each([
    [['http://127.0.0.1/cb'], 'http://127.0.0.1:5000/cb#x'],
    [['http://127.0.0.1/cb'], 'http://attacker.example@127.0.0.1:5000/cb'],
    [['http://127.0.0.1/cb'], 'http://user:pass@127.0.0.1/cb'],
    [['http://127.0.0.1/cb'], 'http://127.0.0.1/cb#'],
    [['vscode://x.y/cb'], 'vscode://x.y/cb#frag'],
    [['vscode://x.y/cb'], 'vscode://evil@x.y/cb'],
    [['https://client.example/cb'], 'https://client.example/cb#https://attacker.example'],
    [['https://client.example/cb'], 'https://attacker.example@client.example/cb'],
  ])('registered %j does not match %s', (registered, requested) => {
    expect(redirectUriMatches(registered, requested)).toBe(false);
  });

  it.each([
    ['http://user@127.0.0.1/cb', /user name or password/],
    ['vscode://a:b@x/cb', /user name or password/],
    ['http://127.0.0.1/cb#', /fragment/],
  ])('registering %s is refused', (uri, why) => {
    const verdict = classifyRedirectUri(uri);
    expect(typeof verdict === 'object' && verdict.refused).toMatch(why);
  });
});

describe('metadata documents come from the public internet only', () => {
  it.each([
    ['127.0.0.1', false],
    ['127.9.9.9', false],
    ['10.1.2.3', false],
    ['172.16.0.1', false],
    ['192.168.1.1', false],
    ['169.254.169.254', false],
    ['100.64.0.1', false],
    ['0.0.0.0', false],
    ['224.0.0.1', false],
    ['::1', false],
    ['::', false],
    ['::ffff:127.0.0.1', false],
    ['::ffff:10.0.0.1', false],
    ['fe80::1', false],
    ['fd00::1', false],
    ['64:ff9b::a00:1', false],
    ['93.184.216.34', true],
    ['1.1.1.1', true],
    ['2606:4700:4700::1111', true],
    ['not an address', false],
  ])('%s is public: %s', (address, expected) => {
    expect(isPublicAddress(address)).toBe(expected);
  });

  let closed: Server;
  let port: number;
  let connections = 0;
  beforeAll(async () => {
    closed = createServer();
    closed.on('connection', (socket) => {
      connections += 1;
      socket.destroy();
    });
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    port = (closed.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => closed.close(() => resolve())));

  it.each([
    `https://127.0.0.1:PORT/doc.json`,
    `https://localhost:PORT/doc.json`,
    `https://[::1]:PORT/doc.json`,
    `https://[::ffff:127.0.0.1]:PORT/doc.json`,
    `https://10.255.255.1:PORT/doc.json`,
    `https://169.254.169.254/latest/meta-data`,
  ])('%s is refused before any connection, saying why', async (template) => {
    const url = template.replace('PORT', String(port));
    const before = connections;
    const error = await guardedDocumentFetch()(url, { signal: AbortSignal.timeout(5_000) }).catch(
      (caught: Error) => caught,
    );
    expect((error as Error).message).toMatch(/not a public address/);
    expect(connections).toBe(before);
  });

  it('in the development mode the user turned on, loopback is reached', async () => {
    const before = connections;
    const error = await guardedDocumentFetch({ allowLoopback: true })(`https://127.0.0.1:${port}/doc.json`, {
      signal: AbortSignal.timeout(20_000),
    }).catch((caught: Error) => caught);
    expect((error as Error).message).not.toMatch(/not a public address/);
    expect(connections).toBe(before + 1);
  });
});

/** An authorization request URL for `clientId`, as a client would open it. */
function authorizeUrl(
  clientId: string,
  redirectUri: string,
  verifier = randomBytes(32).toString('base64url'),
) {
  const url = new URL(`${ORIGIN}${OAUTH_PATHS.authorize}`);
  for (const [key, value] of Object.entries({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: redirectUri,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    scope: 'tables:readonly',
    state: 's',
  }))
    url.searchParams.set(key, value);
  return url;
}

const navigate = (url: URL | string) =>
  new Request(url, { headers: { 'sec-fetch-dest': 'document', 'sec-fetch-mode': 'navigate' } });

function form(path: string, fields: Record<string, string>, headers: Record<string, string> = {}) {
  return new Request(`${ORIGIN}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(fields),
  });
}

describe.each(testStores())('the authorization server under abuse, on $name', ({ open }) => {
  let toolrow: Toolrow;
  let docs: Server;
  let docPort: number;
  let fetched = 0;
  let streamed = 0;
  let as: AuthorizationServer;
  const documentUrl = (name: string, host = 'client.example') => `https://${host}/${name}.json`;

  /** An authorization server of its own (its rate limits start from zero). */
  function freshServer(): AuthorizationServer {
    return createAuthorizationServer({
      state: toolrow.state,
      consentPath: '/oauth/consent',
      mcpPath: '/mcp',
      // The only seam: every https://<host>/ is this machine's socket (no other network here).
      fetchDocument: (url, init) => fetch(url.replace('https://', `http://127.0.0.1:${docPort}/`), init),
    });
  }

  async function register(name: string, redirect = 'http://127.0.0.1/cb', server = as): Promise<Response> {
    return server.fetch(
      new Request(`${ORIGIN}${OAUTH_PATHS.register}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_name: name, redirect_uris: [redirect] }),
      }),
    );
  }

  beforeAll(async () => {
    toolrow = await open();
    docs = createServer((request, response) => {
      fetched += 1;
      const [, host, file] = (request.url ?? '').split('/');
      if (file === 'endless.json') {
        // No content-length, and no end: only a reader that stops at its cap survives this.
        response.writeHead(200, { 'content-type': 'application/json' });
        const chunk = Buffer.alloc(16 * 1024, 0x20);
        const pump = () => {
          while (!response.destroyed && response.write(chunk)) streamed += chunk.length;
          if (!response.destroyed) response.once('drain', pump);
        };
        pump();
        return;
      }
      const name = (file ?? '').slice(0, -'.json'.length);
      response.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          client_id: documentUrl(name, host),
          client_name: `Doc ${name}`,
          redirect_uris: ['http://127.0.0.1/cb'],
        }),
      );
    });
    await new Promise<void>((resolve) => docs.listen(0, '127.0.0.1', resolve));
    docPort = (docs.address() as AddressInfo).port;
    as = freshServer();
  }, 120_000);
  afterAll(async () => {
    docs?.closeAllConnections();
    await new Promise<void>((resolve) => docs?.close(() => resolve()));
    await toolrow?.close();
  });

  it('an authorization request sent by an <img>, a script or fetch() is refused, and fetches nothing', async () => {
    const before = fetched;
    for (const [dest, mode] of [
      ['image', 'no-cors'],
      ['script', 'no-cors'],
      ['empty', 'cors'],
      ['iframe', 'navigate'],
    ]) {
      const response = await as.fetch(
        new Request(authorizeUrl(documentUrl('img'), 'http://127.0.0.1/cb'), {
          headers: { 'sec-fetch-dest': dest!, 'sec-fetch-mode': mode! },
        }),
      );
      expect(response.status).toBe(403);
      expect(await response.text()).toContain('must be opened as a page');
    }
    expect(fetched).toBe(before);
    expect(await toolrow.state.oauth.getClient(documentUrl('img'))).toBeNull();
  });

  it('a metadata document client is stored only once its user approves it', async () => {
    const clientId = documentUrl('approved');
    const response = await as.fetch(navigate(authorizeUrl(clientId, 'http://127.0.0.1/cb')));
    expect(response.status).toBe(302);
    expect(await toolrow.state.oauth.getClient(clientId)).toBeNull();
    const id = new URL(response.headers.get('location')!, ORIGIN).searchParams.get('request')!;
    const request = as.consentRequest(id)!;
    await as.approve(id, request.csrf, { scope: 'tables:readonly', profile: 'default', lifetime: '1h' });
    expect(await toolrow.state.oauth.getClient(clientId)).toMatchObject({ kind: 'metadata-document' });
  });

  it('a document that never ends is refused at 64 KiB, not buffered', async () => {
    const response = await as.fetch(navigate(authorizeUrl(documentUrl('endless'), 'http://127.0.0.1/cb')));
    expect(response.status).toBe(400);
    expect(await response.text()).toContain('is over 64 KiB');
    // What was written before the reader stopped: socket buffers, not the stream.
    expect(streamed).toBeLessThan(16 * 1024 * 1024);
  });

  it(`one client holds at most ${MAX_PENDING_PER_CLIENT} waiting consents; others' are never pushed out; past ${MAX_PENDING} new ones are refused`, async () => {
    const mine = await as.fetch(navigate(authorizeUrl(documentUrl('mine'), 'http://127.0.0.1/cb')));
    const myRequest = new URL(mine.headers.get('location')!, ORIGIN).searchParams.get('request')!;
    const ids: string[] = [];
    for (let index = 0; index < MAX_PENDING_PER_CLIENT + 2; index++) {
      const response = await as.fetch(navigate(authorizeUrl(documentUrl('noisy'), 'http://127.0.0.1/cb')));
      ids.push(new URL(response.headers.get('location')!, ORIGIN).searchParams.get('request')!);
    }
    expect(ids.filter((id) => as.consentRequest(id))).toEqual(ids.slice(-MAX_PENDING_PER_CLIENT));
    expect(as.consentRequest(myRequest)).toBeDefined();

    // Fill the queue from many clients (each on a host of its own: document fetches are limited per host).
    let refused: Response | undefined;
    for (let index = 0; !refused && index < MAX_PENDING; index++) {
      for (let round = 0; !refused && round < MAX_PENDING_PER_CLIENT; round++) {
        const clientId = documentUrl('filler', `filler-${index}.example`);
        const response = await as.fetch(navigate(authorizeUrl(clientId, 'http://127.0.0.1/cb')));
        const location = new URL(response.headers.get('location')!, ORIGIN);
        if (location.searchParams.get('error')) refused = response;
      }
    }
    const location = new URL(refused!.headers.get('location')!);
    expect(location.searchParams.get('error')).toBe('temporarily_unavailable');
    expect(location.searchParams.get('error_description')).toContain('already waiting');
    expect(as.consentRequest(myRequest)).toBeDefined();
  });

  it('registrations are rate limited and capped while nobody approves them, with a clear 429', async () => {
    let limited: Response | undefined;
    for (let index = 0; index <= REGISTRATIONS_PER_MINUTE && !limited; index++) {
      const response = await register(`burst ${index}`);
      if (response.status !== 201) limited = response;
    }
    expect(limited?.status).toBe(429);
    expect(limited?.headers.get('retry-after')).toBe('60');
    expect(((await limited!.json()) as { error_description: string }).error_description).toMatch(
      /registered in the last minute|waiting for a first approval/,
    );
    expect(await toolrow.state.oauth.countUnapprovedClients()).toBeLessThanOrEqual(
      MAX_UNAPPROVED_REGISTRATIONS,
    );
    // Day-old registrations nobody approved go away.
    expect(await toolrow.state.oauth.pruneUnapprovedClients(new Date(Date.now() + 60_000))).toBeGreaterThan(
      0,
    );
    expect(await toolrow.state.oauth.countUnapprovedClients()).toBe(0);
  });

  it.each([
    ['Basic %%%', 'not base64'],
    [`Basic ${Buffer.from('no-colon').toString('base64')}`, 'no colon'],
    [`Basic ${Buffer.from('%E0%A4%A:').toString('base64')}`, 'malformed percent-encoding'],
    [`Basic ${Buffer.from('%zz:secret').toString('base64')}`, 'bad escape'],
    ['Basic', 'empty'],
  ])(
    'Authorization: %s (%s) at /oauth/token and /oauth/revoke is invalid_client, not a 500',
    async (header) => {
      for (const path of [OAUTH_PATHS.token, OAUTH_PATHS.revoke]) {
        const response = await as.fetch(
          form(
            path,
            { grant_type: 'authorization_code', code: 'x', code_verifier: 'y', token: 't' },
            { authorization: header },
          ),
        );
        expect({ path, status: response.status }).toEqual({ path, status: 401 });
        expect(((await response.json()) as { error: string }).error).toBe('invalid_client');
      }
    },
  );

  it('one code redeemed four times at once: one token, the others invalid_grant, never a 500', async () => {
    as = freshServer();
    const created = (await (await register('racer')).json()) as { client_id: string };
    const verifier = randomBytes(32).toString('base64url');
    const response = await as.fetch(
      navigate(authorizeUrl(created.client_id, 'http://127.0.0.1/cb', verifier)),
    );
    const id = new URL(response.headers.get('location')!, ORIGIN).searchParams.get('request')!;
    const request = as.consentRequest(id)!;
    const back = new URL(
      await as.approve(id, request.csrf, { scope: 'tables:readonly', profile: 'default', lifetime: '1h' }),
    );
    const redeem = () =>
      as.fetch(
        form(OAUTH_PATHS.token, {
          grant_type: 'authorization_code',
          client_id: created.client_id,
          code: back.searchParams.get('code')!,
          code_verifier: verifier,
          redirect_uri: 'http://127.0.0.1/cb',
        }),
      );
    const answers = await Promise.all([redeem(), redeem(), redeem(), redeem()]);
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses.filter((status) => status >= 500)).toEqual([]);
    expect(statuses.filter((status) => status === 200).length).toBeLessThanOrEqual(1);
    for (const answer of answers.filter((each) => each.status !== 200))
      expect(((await answer.json()) as { error: string }).error).toBe('invalid_grant');
  });
});
