// Toolrow as the OAuth 2.1 authorization server of its own MCP endpoint (MCP authorization spec
// 2025-11-25): RFC 8414 metadata, the authorization endpoint (code + PKCE S256 only), the token
// endpoint (authorization_code, rotating refresh_token), RFC 7591 registration, RFC 7009
// revocation, client ID metadata documents, RFC 8707 resources and RFC 9207 `iss`.
// The consent itself is the app's: /oauth/authorize sends the browser to the app's consent page,
// which calls approve() or deny() here once its user has decided.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import {
  OAuthError,
  OAuthErrorCode,
  type OAuthMetadata,
  readRequestBody,
} from '@modelcontextprotocol/server';
import { isDataSourceError } from '@toolrow/datasource';
import type { AppState, OAuthClient } from '@toolrow/state';
import { MCP_SCOPES, type McpScope } from '../generated/mcp-scopes.ts';
import { isMcpScope, scopeCovers } from '../scopes.ts';
import {
  type AcceptedClientMetadata,
  acceptClientMetadata,
  type DocumentFetch,
  fetchClientMetadataDocument,
  isMetadataDocumentClientId,
  redirectUriMatches,
} from './clients.ts';
import { createDocumentFetchLimits, guardedDocumentFetch } from './document-fetch.ts';

export const OAUTH_PATHS = {
  metadata: '/.well-known/oauth-authorization-server',
  authorize: '/oauth/authorize',
  token: '/oauth/token',
  register: '/oauth/register',
  revoke: '/oauth/revoke',
} as const;

/** How long an access token lives: short, since refresh tokens renew it (and revocation is checked per request anyway). */
export const ACCESS_TOKEN_TTL_MS = 60 * 60_000;
const CODE_TTL_MS = 5 * 60_000;
const CONSENT_TTL_MS = 15 * 60_000;
const DOCUMENT_CACHE_MS = 5 * 60_000;
const MAX_CACHED_DOCUMENTS = 100;
/** Consents waiting at once, and per client: past them a new request is refused, never another's evicted. */
export const MAX_PENDING = 100;
export const MAX_PENDING_PER_CLIENT = 3;
/** Registered clients that no user has approved yet: kept a day, and at most this many. */
export const MAX_UNAPPROVED_REGISTRATIONS = 100;
/** Registrations taken in any one minute. */
export const REGISTRATIONS_PER_MINUTE = 60;
const UNAPPROVED_REGISTRATION_TTL_MS = 24 * 60 * 60_000;

/** What the user may pick as a connection's lifetime on the consent page. */
export const CONSENT_LIFETIMES = [
  { id: '1h', label: '1 hour', ms: 3_600_000 },
  { id: '1d', label: '1 day', ms: 86_400_000 },
  { id: '30d', label: '30 days', ms: 30 * 86_400_000 },
  { id: '90d', label: '90 days', ms: 90 * 86_400_000 },
  { id: 'never', label: 'until I disconnect it', ms: null },
] as const;
export type ConsentLifetime = (typeof CONSENT_LIFETIMES)[number]['id'];
/** What the consent page preselects: a day; a longer grant is chosen, not clicked through. */
export const DEFAULT_CONSENT_LIFETIME: ConsentLifetime = '1d';

/** One authorization request waiting for the user, as the consent page shows it. */
export interface ConsentRequest {
  id: string;
  /** Must come back with approve/deny: binds the decision to the page that showed this request. */
  csrf: string;
  clientId: string;
  clientName: string;
  clientKind: OAuthClient['kind'];
  redirectUri: string;
  /** The widest scope the client asked for; the user may grant it or a narrower one. */
  scope: McpScope;
  resource: string;
  expiresAt: Date;
}

interface Pending extends ConsentRequest {
  state: string | undefined;
  codeChallenge: string;
  issuer: string;
  /** A metadata-document client is stored only once its user approves it. */
  document?: AcceptedClientMetadata;
}

export interface ConsentChoice {
  scope: McpScope;
  profile: string;
  lifetime: ConsentLifetime;
  /** Let the client ask its own user (MCP elicitation) when the ladder asks, instead of the app's inbox. */
  askViaClient?: boolean;
  /**
   * The client's live grants this one replaces (a step-up, a move to another connection): they
   * are revoked once the client redeems the new grant's code, so it never holds two at once and
   * is never left with none.
   */
  replaces?: readonly string[];
  /** Team mode: the signed-in person consenting; the grant is theirs (and ends with them). */
  person?: string;
}

export interface AuthorizationServerOptions {
  state: Pick<AppState, 'oauth' | 'profiles'>;
  /** The app page that shows a consent request: `?request=<id>` is appended. */
  consentPath: string;
  /** The MCP endpoint's path: a token's resource is <origin><mcpPath>. */
  mcpPath: string;
  /**
   * Fetches client ID metadata documents (default: https to public addresses only, see
   * guardedDocumentFetch; tests route a document to a local socket here).
   */
  fetchDocument?: DocumentFetch;
  /** Development mode the user turned on: metadata documents may be served from loopback. */
  allowLoopbackDocuments?: boolean;
  accessTokenTtlMs?: number;
}

export interface AuthorizationServer {
  /** Every path it serves; the app mounts them outside its own login. */
  readonly paths: readonly string[];
  /** Serves the paths above. */
  fetch(request: Request): Promise<Response>;
  /** The waiting request for the consent page, or undefined when unknown or expired. */
  consentRequest(id: string): ConsentRequest | undefined;
  /** The user approved: the URL to send the browser back to the client with a code. */
  approve(id: string, csrf: string, choice: ConsentChoice): Promise<string>;
  /** The user denied: the client's redirect with error=access_denied. */
  deny(id: string, csrf: string): string;
}

const noStore = { 'cache-control': 'no-store', pragma: 'no-cache' };

function oauthJson(error: OAuthError, status = 400, headers: Record<string, string> = {}): Response {
  return Response.json(
    { error: error.code, error_description: error.message },
    { status, headers: { ...noStore, ...headers } },
  );
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** An error the browser shows instead of following a redirect it cannot trust (RFC 6749 §4.1.2.1). */
function authorizeErrorPage(error: OAuthError, status = 400): Response {
  const body = `<!doctype html><meta charset="utf-8"><title>Toolrow: authorization refused</title><body style="font:15px/1.5 system-ui;max-width:40em;padding:2em"><h1>This MCP client cannot sign in</h1><p><code data-testid="oauth-error">${escapeHtml(error.code)}</code>: ${escapeHtml(error.message)}</p><p>Nothing was granted. Reconnect from the client, or tell its authors.</p></body>`;
  return new Response(body, {
    status,
    headers: { 'content-type': 'text/html; charset=utf-8', ...noStore },
  });
}

function redirectWith(redirectUri: string, params: Record<string, string | undefined>): string {
  const url = new URL(redirectUri);
  for (const [key, value] of Object.entries(params))
    if (value !== undefined) url.searchParams.set(key, value);
  return url.href;
}

const s256 = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');
const sameSecret = (a: string, b: string) => {
  const ha = createHash('sha256').update(a).digest();
  const hb = createHash('sha256').update(b).digest();
  return timingSafeEqual(ha, hb);
};

/** The widest of the requested scopes (they nest), or an invalid_scope error. */
export function requestedScope(raw: string | null): McpScope {
  const asked = (raw ?? '').split(' ').filter(Boolean);
  if (asked.length === 0) return 'tables:readonly';
  let widest: McpScope | undefined;
  for (const scope of asked) {
    if (!isMcpScope(scope)) {
      throw new OAuthError(
        OAuthErrorCode.InvalidScope,
        `Unknown scope '${scope}'. Toolrow's scopes are ${MCP_SCOPES.join(', ')} (each includes the ones before it).`,
      );
    }
    if (!widest || scopeCovers(scope, widest)) widest = scope;
  }
  return widest!;
}

/** An audit-friendly name for a connection: the client's name, slugged, and a short tag. */
export function actorNameFor(clientName: string): string {
  const slug =
    clientName
      .toLowerCase()
      .replace(/[^a-z0-9._-]+/g, '-')
      .replace(/^[-._]+|[-._]+$/g, '')
      .slice(0, 40) || 'client';
  return `${slug}-${randomBytes(3).toString('hex')}`;
}

async function formBody(request: Request): Promise<URLSearchParams> {
  const type = request.headers.get('content-type')?.split(';')[0]?.trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded') {
    throw new OAuthError(
      OAuthErrorCode.InvalidRequest,
      `Send the request as application/x-www-form-urlencoded (got ${type ?? 'no content type'}).`,
    );
  }
  const read = await readRequestBody(request);
  if (read.tooLarge) throw new OAuthError(OAuthErrorCode.InvalidRequest, 'Request body too large.');
  return new URLSearchParams(read.text);
}

const BASIC_ADVICE =
  'Authorization: Basic must carry base64 of client_id:secret, each form-urlencoded (RFC 6749 §2.3.1); public clients can send client_id in the body instead.';

/** client_id from the body, or from HTTP Basic (a client that sends an empty secret). Strict. */
export function clientIdOf(request: Request, form: URLSearchParams): string | undefined {
  const header = request.headers.get('authorization');
  if (header !== null && /^Basic\b/i.test(header)) {
    const encoded = /^Basic +([A-Za-z0-9+/]+={0,2})$/i.exec(header)?.[1];
    const decoded =
      encoded && encoded.length % 4 === 0 ? Buffer.from(encoded, 'base64').toString('utf8') : '';
    const colon = decoded.indexOf(':');
    if (colon <= 0) throw new OAuthError(OAuthErrorCode.InvalidClient, BASIC_ADVICE);
    let user: string;
    try {
      user = decodeURIComponent(decoded.slice(0, colon).replaceAll('+', ' '));
    } catch {
      throw new OAuthError(OAuthErrorCode.InvalidClient, `The client_id in ${BASIC_ADVICE}`);
    }
    const inBody = form.get('client_id');
    if (inBody !== null && inBody !== user) {
      throw new OAuthError(
        OAuthErrorCode.InvalidRequest,
        'client_id in the body and in Authorization: Basic differ.',
      );
    }
    return user;
  }
  return form.get('client_id') ?? undefined;
}

/** What the endpoints share: the options, the store, what is pending, the helpers over them. */
interface ServerState {
  options: AuthorizationServerOptions;
  oauth: AuthorizationServerOptions['state']['oauth'];
  accessTtl: number;
  pending: Map<string, Pending>;
  replacing: Map<string, string[]>;
  registrations: number[];
  issuerOf(request: Request): string;
  resourceOf(issuer: string): string;
  sweep(now: number): void;
  resolveClient(
    clientId: string | undefined | null,
    options?: { fresh?: boolean },
  ): Promise<OAuthClient & { document?: AcceptedClientMetadata }>;
  tokenResponse(
    tokens: Awaited<ReturnType<AuthorizationServerOptions['state']['oauth']['issueTokens']>>,
  ): Response;
}

async function authorizeEndpoint(server: ServerState, request: Request): Promise<Response> {
  const { options, pending, issuerOf, resourceOf, sweep, resolveClient } = server;
  if (request.method !== 'GET') return new Response(null, { status: 405, headers: { allow: 'GET' } });
  const issuer = issuerOf(request);
  const params = new URL(request.url).searchParams;
  // A sign-in is a page the client opens in the browser. An <img>, a script, a frame or a
  // fetch() from some web page is not one (browsers say so in Sec-Fetch-Dest), and must not make
  // the app fetch documents or hold requests. Clients outside a browser send no such header.
  const dest = request.headers.get('sec-fetch-dest');
  if (dest !== null && dest !== 'document') {
    return authorizeErrorPage(
      new OAuthError(
        OAuthErrorCode.InvalidRequest,
        `An authorization request must be opened as a page (this one came as a request for ${dest === 'empty' ? "a script's fetch" : `an ${dest}`}). Nothing was fetched or stored.`,
      ),
      403,
    );
  }
  // Until the client and its redirect URI are known good, errors are shown, never redirected:
  // redirecting to an unchecked URI would make this an open redirector (RFC 6749 §4.1.2.1).
  let client: OAuthClient & { document?: AcceptedClientMetadata };
  try {
    client = await resolveClient(params.get('client_id'), { fresh: true });
  } catch (error) {
    if (error instanceof OAuthError) return authorizeErrorPage(error);
    throw error;
  }
  const redirectUri = params.get('redirect_uri');
  if (!redirectUri || !redirectUriMatches(client.redirectUris, redirectUri)) {
    return authorizeErrorPage(
      new OAuthError(
        OAuthErrorCode.InvalidRequest,
        redirectUri
          ? `redirect_uri ${redirectUri} is not one ${client.name} registered (${client.redirectUris.join(', ')}).`
          : 'redirect_uri is required.',
      ),
    );
  }
  const state = params.get('state') ?? undefined;
  const back = (error: OAuthError) =>
    new Response(null, {
      status: 302,
      headers: {
        location: redirectWith(redirectUri, {
          error: error.code,
          error_description: error.message,
          state,
          iss: issuer,
        }),
        ...noStore,
      },
    });
  try {
    if (params.get('response_type') !== 'code') {
      throw new OAuthError(
        OAuthErrorCode.UnsupportedResponseType,
        `response_type must be 'code' (got '${params.get('response_type') ?? ''}').`,
      );
    }
    const challenge = params.get('code_challenge');
    if (!challenge || !/^[A-Za-z0-9_-]{43}$/.test(challenge)) {
      throw new OAuthError(
        OAuthErrorCode.InvalidRequest,
        'PKCE is required: send code_challenge, the base64url SHA-256 of your code_verifier, with code_challenge_method=S256.',
      );
    }
    if (params.get('code_challenge_method') !== 'S256') {
      throw new OAuthError(
        OAuthErrorCode.InvalidRequest,
        `code_challenge_method must be S256 (got '${params.get('code_challenge_method') ?? 'none, which means plain'}'); plain PKCE is refused.`,
      );
    }
    const scope = requestedScope(params.get('scope'));
    const resource = resourceOf(issuer);
    const asked = params.getAll('resource');
    if (asked.length > 1 || (asked.length === 1 && asked[0] !== resource)) {
      throw new OAuthError(
        OAuthErrorCode.InvalidTarget,
        `This server issues tokens for ${resource} only (asked for ${asked.join(', ')}).`,
      );
    }
    const now = Date.now();
    sweep(now);
    // Bounded without letting anyone push out the user's own waiting consent: a client's own
    // oldest request gives way to its newest; past the total, new requests are refused.
    const ofClient = [...pending.values()].filter((entry) => entry.clientId === client.id);
    if (ofClient.length >= MAX_PENDING_PER_CLIENT) pending.delete(ofClient[0]!.id);
    if (pending.size >= MAX_PENDING) {
      throw new OAuthError(
        OAuthErrorCode.TemporarilyUnavailable,
        `${MAX_PENDING} sign-ins are already waiting for the user's consent in the Toolrow app. Answer or let them expire (15 minutes), then connect again.`,
      );
    }
    const id = randomBytes(16).toString('base64url');
    pending.set(id, {
      id,
      csrf: randomBytes(24).toString('base64url'),
      clientId: client.id,
      clientName: client.name,
      clientKind: client.kind,
      redirectUri,
      scope,
      resource,
      expiresAt: new Date(now + CONSENT_TTL_MS),
      state,
      codeChallenge: challenge,
      issuer,
      ...(client.document ? { document: client.document } : {}),
    });
    return new Response(null, {
      status: 302,
      headers: { location: `${options.consentPath}?request=${encodeURIComponent(id)}`, ...noStore },
    });
  } catch (error) {
    if (error instanceof OAuthError) return back(error);
    throw error;
  }
}

async function tokenEndpoint(server: ServerState, request: Request): Promise<Response> {
  const { oauth, accessTtl, replacing, issuerOf, resourceOf, resolveClient, tokenResponse } = server;
  if (request.method !== 'POST') return new Response(null, { status: 405, headers: { allow: 'POST' } });
  const form = await formBody(request);
  const grantType = form.get('grant_type');
  if (!grantType) throw new OAuthError(OAuthErrorCode.InvalidRequest, 'grant_type is required.');
  if (grantType !== 'authorization_code' && grantType !== 'refresh_token') {
    throw new OAuthError(
      OAuthErrorCode.UnsupportedGrantType,
      `grant_type '${grantType}' is not supported: use authorization_code or refresh_token.`,
    );
  }
  const clientId = clientIdOf(request, form);
  let client: OAuthClient;
  try {
    client = await resolveClient(clientId);
  } catch (error) {
    if (error instanceof OAuthError) throw new OAuthError(OAuthErrorCode.InvalidClient, error.message);
    throw error;
  }
  const issuer = issuerOf(request);
  const asked = form.getAll('resource');
  const checkResource = (bound: string) => {
    if (asked.length > 1 || (asked.length === 1 && asked[0] !== bound)) {
      throw new OAuthError(
        OAuthErrorCode.InvalidTarget,
        `This grant is for ${bound}; a token for ${asked.join(', ')} cannot be issued from it.`,
      );
    }
  };
  const accessExpiresAt = new Date(Date.now() + accessTtl);

  if (grantType === 'authorization_code') {
    const code = form.get('code');
    const verifier = form.get('code_verifier');
    const redirectUri = form.get('redirect_uri');
    if (!code) throw new OAuthError(OAuthErrorCode.InvalidRequest, 'code is required.');
    if (!verifier) throw new OAuthError(OAuthErrorCode.InvalidRequest, 'code_verifier is required (PKCE).');
    const redeemed = await oauth.redeemCode(code);
    if (!redeemed.ok) {
      const why = {
        unknown: 'The authorization code is not one this server issued.',
        expired: 'The authorization code expired; start the authorization again.',
        replayed:
          'The authorization code was already used. A code works once; every token issued with it is now revoked.',
        revoked: 'The connection this code was issued for was disconnected.',
      }[redeemed.reason];
      throw new OAuthError(OAuthErrorCode.InvalidGrant, why);
    }
    const { grant } = redeemed;
    if (grant.clientId !== client.id)
      throw new OAuthError(
        OAuthErrorCode.InvalidGrant,
        'The authorization code was issued to another client.',
      );
    if (redirectUri !== redeemed.redirectUri) {
      throw new OAuthError(
        OAuthErrorCode.InvalidGrant,
        'redirect_uri does not match the one of the authorization request.',
      );
    }
    if (!/^[A-Za-z0-9._~-]{43,128}$/.test(verifier) || !sameSecret(s256(verifier), redeemed.codeChallenge)) {
      throw new OAuthError(
        OAuthErrorCode.InvalidGrant,
        'code_verifier does not match the code_challenge (PKCE).',
      );
    }
    checkResource(grant.resource);
    if (grant.resource !== resourceOf(issuer))
      throw new OAuthError(OAuthErrorCode.InvalidTarget, `This grant is for ${grant.resource}.`);
    let tokens: Awaited<ReturnType<typeof oauth.issueTokens>>;
    try {
      tokens = await oauth.issueTokens(grant.id, { accessExpiresAt });
    } catch (error) {
      // The same code redeemed again at the same moment revoked the grant in between.
      if (!isDataSourceError(error, 'misuse')) throw error;
      throw new OAuthError(
        OAuthErrorCode.InvalidGrant,
        'The authorization code was used more than once; the connection is revoked. Authorize again.',
      );
    }
    // The grants this one replaces end now that it works.
    const replaced = replacing.get(grant.id) ?? [];
    replacing.delete(grant.id);
    for (const id of replaced) {
      if (id !== grant.id)
        await oauth.revokeGrant(id, `replaced by a new consent (${grant.scope} on ${grant.profile})`);
    }
    return tokenResponse(tokens);
  }

  const refreshToken = form.get('refresh_token');
  if (!refreshToken) throw new OAuthError(OAuthErrorCode.InvalidRequest, 'refresh_token is required.');
  const before = await oauth.grantOfToken(refreshToken);
  if (before) checkResource(before.resource);
  const scope = form.get('scope');
  if (scope && before && !scopeCovers(before.scope as McpScope, requestedScope(scope))) {
    throw new OAuthError(
      OAuthErrorCode.InvalidScope,
      `This connection was granted ${before.scope}; a refresh cannot widen it. Authorize again to ask for more.`,
    );
  }
  const refreshed = await oauth.refresh(refreshToken, { clientId: client.id, accessExpiresAt });
  if (!refreshed.ok) {
    const why = {
      unknown: 'The refresh token is not one this server issued.',
      expired: 'The connection expired; authorize again.',
      revoked: 'The connection was disconnected; authorize again.',
      reused:
        'This refresh token was already used. Refresh tokens rotate: reuse means it leaked, so the connection is revoked. Authorize again.',
      'wrong-client': 'The refresh token was issued to another client.',
    }[refreshed.reason];
    throw new OAuthError(OAuthErrorCode.InvalidGrant, why);
  }
  return tokenResponse(refreshed.tokens);
}

async function registerEndpoint(server: ServerState, request: Request): Promise<Response> {
  const { oauth, registrations } = server;
  if (request.method !== 'POST') return new Response(null, { status: 405, headers: { allow: 'POST' } });
  const read = await readRequestBody(request);
  if (read.tooLarge) throw new OAuthError(OAuthErrorCode.InvalidClientMetadata, 'Registration too large.');
  let body: unknown;
  try {
    body = JSON.parse(read.text);
  } catch {
    throw new OAuthError(OAuthErrorCode.InvalidClientMetadata, 'The registration must be a JSON object.');
  }
  const accepted = acceptClientMetadata(body, { document: false, fallbackName: 'Unnamed MCP client' });
  const now = Date.now();
  while (registrations.length > 0 && registrations[0]! <= now - 60_000) registrations.shift();
  if (registrations.length >= REGISTRATIONS_PER_MINUTE) {
    throw new OAuthError(
      OAuthErrorCode.TemporarilyUnavailable,
      `${REGISTRATIONS_PER_MINUTE} clients registered in the last minute; try again in a minute.`,
    );
  }
  // Registrations nobody approved expire after a day; past the cap, new ones wait for that.
  await oauth.pruneUnapprovedClients(new Date(now - UNAPPROVED_REGISTRATION_TTL_MS));
  if ((await oauth.countUnapprovedClients()) >= MAX_UNAPPROVED_REGISTRATIONS) {
    throw new OAuthError(
      OAuthErrorCode.TemporarilyUnavailable,
      `${MAX_UNAPPROVED_REGISTRATIONS} registered clients are waiting for a first approval; new registrations are refused until some are approved or expire (a day after registering).`,
    );
  }
  registrations.push(now);
  const id = `trwclient_${randomBytes(16).toString('base64url')}`;
  const client = await oauth.saveClient({
    id,
    kind: 'registered',
    name: accepted.name,
    redirectUris: accepted.redirectUris,
    metadata: accepted.metadata,
  });
  return Response.json(
    {
      ...accepted.metadata,
      client_id: client.id,
      client_id_issued_at: Math.floor(client.createdAt.getTime() / 1000),
    },
    { status: 201, headers: noStore },
  );
}

async function revokeEndpoint(server: ServerState, request: Request): Promise<Response> {
  const { oauth, resolveClient } = server;
  if (request.method !== 'POST') return new Response(null, { status: 405, headers: { allow: 'POST' } });
  const form = await formBody(request);
  const value = form.get('token');
  if (!value) throw new OAuthError(OAuthErrorCode.InvalidRequest, 'token is required.');
  const clientId = clientIdOf(request, form);
  try {
    await resolveClient(clientId);
  } catch (error) {
    if (error instanceof OAuthError) throw new OAuthError(OAuthErrorCode.InvalidClient, error.message);
    throw error;
  }
  // RFC 7009 §2.2: 200 whether or not there was anything to revoke.
  await oauth.revokeToken(value, clientId);
  return new Response(null, { status: 200, headers: noStore });
}

function metadataEndpoint(server: ServerState, request: Request): Response {
  const { issuerOf } = server;
  const issuer = issuerOf(request);
  const document: OAuthMetadata & Record<string, unknown> = {
    issuer,
    authorization_endpoint: `${issuer}${OAUTH_PATHS.authorize}`,
    token_endpoint: `${issuer}${OAUTH_PATHS.token}`,
    registration_endpoint: `${issuer}${OAUTH_PATHS.register}`,
    revocation_endpoint: `${issuer}${OAUTH_PATHS.revoke}`,
    scopes_supported: [...MCP_SCOPES],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none'],
    revocation_endpoint_auth_methods_supported: ['none'],
    client_id_metadata_document_supported: true,
    authorization_response_iss_parameter_supported: true,
  };
  return Response.json(document, { headers: { 'cache-control': 'no-store' } });
}

/** A pending authorization request, taken once by the consent form that belongs to it. */
function takePending(
  pending: Map<string, Pending>,
  sweep: (now: number) => void,
  id: string,
  csrf: string,
): Pending {
  sweep(Date.now());
  const request = pending.get(id);
  if (!request) {
    throw new OAuthError(
      OAuthErrorCode.InvalidRequest,
      'This authorization request is unknown or expired (they last 15 minutes). Connect again from the client.',
    );
  }
  if (!sameSecret(csrf, request.csrf)) {
    throw new OAuthError(OAuthErrorCode.InvalidRequest, 'The consent form does not belong to this request.');
  }
  pending.delete(id);
  return request;
}

export function createAuthorizationServer(options: AuthorizationServerOptions): AuthorizationServer {
  const { oauth } = options.state;
  const accessTtl = options.accessTokenTtlMs ?? ACCESS_TOKEN_TTL_MS;
  const pending = new Map<string, Pending>();
  // A new grant's id → the client's grants it replaces, revoked when its code is redeemed.
  const replacing = new Map<string, string[]>();
  const documents = new Map<string, { accepted: AcceptedClientMetadata; until: number }>();
  const fetchDocument =
    options.fetchDocument ?? guardedDocumentFetch({ allowLoopback: options.allowLoopbackDocuments === true });
  const documentLimits = createDocumentFetchLimits();
  const registrations: number[] = [];

  const issuerOf = (request: Request) => new URL(request.url).origin;
  const resourceOf = (issuer: string) => `${issuer}${options.mcpPath}`;

  function sweep(now: number) {
    for (const [id, request] of pending) if (request.expiresAt.getTime() <= now) pending.delete(id);
  }

  /** A metadata document, fetched (within the limits) or remembered from the last few minutes. */
  async function documentOf(clientId: string): Promise<AcceptedClientMetadata> {
    const cached = documents.get(clientId);
    if (cached && cached.until > Date.now()) return cached.accepted;
    const accepted = await documentLimits.run(clientId, () =>
      fetchClientMetadataDocument(clientId, fetchDocument),
    );
    documents.delete(clientId);
    documents.set(clientId, { accepted, until: Date.now() + DOCUMENT_CACHE_MS });
    if (documents.size > MAX_CACHED_DOCUMENTS) documents.delete(documents.keys().next().value as string);
    return accepted;
  }

  /**
   * A registered client; or a metadata-document client: the one its user approved (stored), else
   * its document as fetched now. Nothing is stored for a client no user has approved.
   */
  async function resolveClient(
    clientId: string | undefined | null,
    options: { fresh?: boolean } = {},
  ): Promise<OAuthClient & { document?: AcceptedClientMetadata }> {
    if (!clientId) throw new OAuthError(OAuthErrorCode.InvalidRequest, 'client_id is required.');
    if (isMetadataDocumentClientId(clientId)) {
      if (!options.fresh) {
        const stored = await oauth.getClient(clientId);
        if (stored?.kind === 'metadata-document') return stored;
      }
      const accepted = await documentOf(clientId);
      return {
        id: clientId,
        kind: 'metadata-document',
        name: accepted.name,
        redirectUris: accepted.redirectUris,
        metadata: accepted.metadata,
        createdAt: new Date(),
        document: accepted,
      };
    }
    const client = await oauth.getClient(clientId);
    if (client?.kind !== 'registered') {
      throw new OAuthError(
        OAuthErrorCode.InvalidClient,
        `Unknown client_id '${clientId}': register first (POST ${OAUTH_PATHS.register}) or use a client ID metadata document URL.`,
      );
    }
    return client;
  }

  function tokenResponse(tokens: Awaited<ReturnType<typeof oauth.issueTokens>>): Response {
    return Response.json(
      {
        access_token: tokens.accessToken,
        token_type: 'Bearer',
        expires_in: Math.max(1, Math.floor((tokens.accessExpiresAt.getTime() - Date.now()) / 1000)),
        refresh_token: tokens.refreshToken,
        scope: tokens.grant.scope,
      },
      { headers: noStore },
    );
  }

  const take = (id: string, csrf: string) => takePending(pending, sweep, id, csrf);

  const server: ServerState = {
    options,
    oauth,
    accessTtl,
    pending,
    replacing,
    registrations,
    issuerOf,
    resourceOf,
    sweep,
    resolveClient,
    tokenResponse,
  };
  const authorize = (request: Request) => authorizeEndpoint(server, request);
  const token = (request: Request) => tokenEndpoint(server, request);
  const register = (request: Request) => registerEndpoint(server, request);
  const revoke = (request: Request) => revokeEndpoint(server, request);
  const metadata = (request: Request) => metadataEndpoint(server, request);

  const routes: Record<string, (request: Request) => Promise<Response> | Response> = {
    [OAUTH_PATHS.metadata]: metadata,
    [OAUTH_PATHS.authorize]: authorize,
    [OAUTH_PATHS.token]: token,
    [OAUTH_PATHS.register]: register,
    [OAUTH_PATHS.revoke]: revoke,
  };

  return {
    paths: Object.values(OAUTH_PATHS),
    async fetch(request) {
      const route = routes[new URL(request.url).pathname];
      if (!route) return Response.json({ error: 'not_found' }, { status: 404 });
      try {
        return await route(request);
      } catch (error) {
        if (!(error instanceof OAuthError)) throw error;
        if (error.code === OAuthErrorCode.TemporarilyUnavailable)
          return oauthJson(error, 429, { 'retry-after': '60' });
        return oauthJson(error, error.code === OAuthErrorCode.InvalidClient ? 401 : 400);
      }
    },
    consentRequest(id) {
      sweep(Date.now());
      const request = pending.get(id);
      if (!request) return undefined;
      const { state: _state, codeChallenge: _challenge, issuer: _issuer, ...shown } = request;
      return shown;
    },
    async approve(id, csrf, choice) {
      const request = take(id, csrf);
      if (!isMcpScope(choice.scope) || !scopeCovers(request.scope, choice.scope)) {
        pending.set(id, request);
        throw new OAuthError(
          OAuthErrorCode.InvalidScope,
          `Grant at most what ${request.clientName} asked for (${request.scope}); got ${String(choice.scope)}.`,
        );
      }
      const lifetime = CONSENT_LIFETIMES.find((entry) => entry.id === choice.lifetime);
      if (!lifetime) {
        pending.set(id, request);
        throw new OAuthError(
          OAuthErrorCode.InvalidRequest,
          `Lifetime must be one of ${CONSENT_LIFETIMES.map((entry) => entry.id).join(', ')}.`,
        );
      }
      await options.state.profiles.ensure(choice.profile);
      // Only this client's own live grants can be replaced.
      const replaced = choice.replaces?.length
        ? (await oauth.listGrants()).filter(
            (grant) => grant.clientId === request.clientId && choice.replaces?.includes(grant.id),
          )
        : [];
      if (request.document) {
        await oauth.saveClient({
          id: request.clientId,
          kind: 'metadata-document',
          name: request.document.name,
          redirectUris: request.document.redirectUris,
          metadata: request.document.metadata,
        });
      }
      const grant = await oauth.createGrant({
        clientId: request.clientId,
        scope: choice.scope,
        profile: choice.profile,
        resource: request.resource,
        actorName: actorNameFor(request.clientName),
        expiresAt: lifetime.ms === null ? null : new Date(Date.now() + lifetime.ms),
        askViaClient: choice.askViaClient === true,
        ...(choice.person ? { person: choice.person } : {}),
      });
      if (replaced.length > 0) {
        // Bounded: a code is redeemed within minutes or never.
        if (replacing.size >= 256) replacing.delete(replacing.keys().next().value as string);
        replacing.set(
          grant.id,
          replaced.map((each) => each.id),
        );
      }
      const code = await oauth.issueCode({
        grantId: grant.id,
        redirectUri: request.redirectUri,
        codeChallenge: request.codeChallenge,
        expiresAt: new Date(Date.now() + CODE_TTL_MS),
      });
      return redirectWith(request.redirectUri, { code, state: request.state, iss: request.issuer });
    },
    deny(id, csrf) {
      const request = take(id, csrf);
      return redirectWith(request.redirectUri, {
        error: OAuthErrorCode.AccessDenied,
        error_description: 'The user denied the request.',
        state: request.state,
        iss: request.issuer,
      });
    },
  };
}
