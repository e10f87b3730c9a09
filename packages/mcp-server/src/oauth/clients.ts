// Which clients may ask for consent, and where they may be sent back: registered clients (RFC 7591)
// and clients whose client_id is the https URL of their metadata document (the MCP spec's client ID
// metadata documents). Redirect URIs follow RFC 8252 for native apps: loopback (any port) or a
// private-use scheme; an https redirect only when a metadata document, fetched from the client's
// own host, names it.
import { OAuthError, OAuthErrorCode } from '@modelcontextprotocol/server';

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);
// Schemes that would run something or leave the desktop app: never a client's callback.
const FORBIDDEN_SCHEMES = new Set([
  'javascript:',
  'data:',
  'file:',
  'blob:',
  'about:',
  'vbscript:',
  'ftp:',
  'ws:',
  'wss:',
]);

export type RedirectKind = 'loopback' | 'private-use' | 'https';

/**
 * The kind of a redirect URI, or a message saying why it is refused. `allowHttps` only for URIs a
 * client metadata document names.
 */
export function classifyRedirectUri(uri: string, allowHttps = false): RedirectKind | { refused: string } {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return { refused: `'${uri}' is not an absolute URI.` };
  }
  if (url.hash || uri.includes('#'))
    return { refused: `'${uri}' has a fragment; redirect URIs may not (RFC 6749 §3.1.2).` };
  if (url.username || url.password)
    return { refused: `'${uri}' has a user name or password in it; redirect URIs may not.` };
  if (url.protocol === 'http:') {
    if (LOOPBACK_HOSTS.has(url.hostname)) return 'loopback';
    return {
      refused: `'${uri}' is plain http to ${url.hostname}; only loopback (http://127.0.0.1:<port>/…, http://localhost:<port>/…, http://[::1]:<port>/…) may use http.`,
    };
  }
  if (url.protocol === 'https:') {
    if (allowHttps) return 'https';
    return {
      refused: `'${uri}' is an https redirect; a registered client may only use loopback or a private-use scheme like vscode:// (RFC 8252). A web client names its https redirect in a client ID metadata document.`,
    };
  }
  if (FORBIDDEN_SCHEMES.has(url.protocol))
    return { refused: `'${uri}' uses the ${url.protocol} scheme, which is never a redirect.` };
  // RFC 8252 §7.1: a private-use scheme is the app's own (vscode:, cursor:, claude:, com.example.app:).
  if (!/^[a-z][a-z0-9+.-]*:$/.test(url.protocol)) return { refused: `'${uri}' has no valid scheme.` };
  return 'private-use';
}

/**
 * A requested redirect URI matches a registered one exactly, except that a loopback URI's port is
 * free (RFC 8252 §7.3: native apps take whatever port is free when they start listening).
 */
export function redirectUriMatches(registered: readonly string[], requested: string): boolean {
  let want: URL;
  try {
    want = new URL(requested);
  } catch {
    return false;
  }
  // Never a fragment or user info, even on a registered string: the browser would carry the code
  // somewhere the client did not name (`http://127.0.0.1:1/cb@attacker.example`).
  if (requested.includes('#') || want.username || want.password) return false;
  if (registered.includes(requested)) return true;
  if (want.protocol !== 'http:' || !LOOPBACK_HOSTS.has(want.hostname)) return false;
  return registered.some((candidate) => {
    try {
      const have = new URL(candidate);
      return (
        have.protocol === 'http:' &&
        have.hostname === want.hostname &&
        have.pathname === want.pathname &&
        have.search === want.search
      );
    } catch {
      return false;
    }
  });
}

const GRANT_TYPES = new Set(['authorization_code', 'refresh_token']);

export interface AcceptedClientMetadata {
  name: string;
  redirectUris: string[];
  metadata: Record<string, unknown>;
}

function stringList(value: unknown, field: string): string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string')) {
    throw new OAuthError(OAuthErrorCode.InvalidClientMetadata, `${field} must be an array of strings.`);
  }
  return value as string[];
}

/**
 * Checks client metadata (a registration request, or a metadata document) and returns what is
 * kept. Refusals are RFC 7591 errors: invalid_redirect_uri, invalid_client_metadata.
 */
export function acceptClientMetadata(
  body: unknown,
  options: { document: boolean; fallbackName: string },
): AcceptedClientMetadata {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new OAuthError(OAuthErrorCode.InvalidClientMetadata, 'Client metadata must be a JSON object.');
  }
  const doc = body as Record<string, unknown>;
  const redirectUris = stringList(doc.redirect_uris, 'redirect_uris');
  if (!redirectUris || redirectUris.length === 0) {
    throw new OAuthError(
      OAuthErrorCode.InvalidRedirectUri,
      'redirect_uris must name at least one redirect URI (loopback like http://127.0.0.1:33418/callback, or a private-use scheme like vscode://…).',
    );
  }
  for (const uri of redirectUris) {
    const kind = classifyRedirectUri(uri, options.document);
    if (typeof kind === 'object') throw new OAuthError(OAuthErrorCode.InvalidRedirectUri, kind.refused);
  }
  const grantTypes = stringList(doc.grant_types, 'grant_types') ?? ['authorization_code'];
  const unknownGrant = grantTypes.find((grant) => !GRANT_TYPES.has(grant));
  if (unknownGrant) {
    throw new OAuthError(
      OAuthErrorCode.InvalidClientMetadata,
      `grant_types may hold authorization_code and refresh_token only, not '${unknownGrant}'.`,
    );
  }
  const responseTypes = stringList(doc.response_types, 'response_types') ?? ['code'];
  if (responseTypes.some((type) => type !== 'code')) {
    throw new OAuthError(OAuthErrorCode.InvalidClientMetadata, "response_types may hold 'code' only.");
  }
  const method = doc.token_endpoint_auth_method;
  // A metadata document cannot carry a secret, and keys (private_key_jwt) are not supported.
  if (options.document && method !== undefined && method !== 'none') {
    throw new OAuthError(
      OAuthErrorCode.InvalidClientMetadata,
      `token_endpoint_auth_method '${String(method)}' is not supported; Toolrow's clients are public (native) clients: use 'none' with PKCE.`,
    );
  }
  const rawName = typeof doc.client_name === 'string' ? doc.client_name.trim() : '';
  const name = (rawName || options.fallbackName).slice(0, 100);
  const metadata: Record<string, unknown> = {
    client_name: name,
    redirect_uris: redirectUris,
    grant_types: grantTypes,
    response_types: responseTypes,
    // Registered clients get no secret: native apps cannot keep one (RFC 8252 §8.5); PKCE binds the code.
    token_endpoint_auth_method: 'none',
  };
  for (const field of ['client_uri', 'logo_uri', 'software_id', 'software_version', 'scope'] as const) {
    if (typeof doc[field] === 'string') metadata[field] = doc[field];
  }
  return { name, redirectUris, metadata };
}

/** A client_id that names a metadata document: an https URL with a path (not the bare origin). */
export function isMetadataDocumentClientId(clientId: string): boolean {
  try {
    const url = new URL(clientId);
    return url.protocol === 'https:' && url.pathname !== '/' && !url.hash && !url.username && !url.password;
  } catch {
    return false;
  }
}

export type DocumentFetch = (url: string, init: RequestInit) => Promise<Response>;

const MAX_DOCUMENT_BYTES = 64 * 1024;

/**
 * Fetches and checks a client ID metadata document: served as JSON by the URL itself (no
 * redirects), small, and naming itself as client_id.
 */
export async function fetchClientMetadataDocument(
  clientId: string,
  fetchDocument: DocumentFetch,
  timeoutMs = 5_000,
): Promise<AcceptedClientMetadata> {
  if (!isMetadataDocumentClientId(clientId)) {
    throw new OAuthError(
      OAuthErrorCode.InvalidClient,
      `client_id '${clientId}' is neither a registered client nor an https URL of a client metadata document.`,
    );
  }
  let response: Response;
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    response = await fetchDocument(clientId, {
      headers: { accept: 'application/json' },
      redirect: 'error',
      signal,
    });
  } catch (error) {
    throw new OAuthError(
      OAuthErrorCode.InvalidClient,
      `The client metadata document at ${clientId} could not be fetched: ${(error as Error).message}.`,
    );
  }
  if (!response.ok) {
    throw new OAuthError(
      OAuthErrorCode.InvalidClient,
      `The client metadata document at ${clientId} answered HTTP ${response.status}.`,
    );
  }
  const text = await boundedText(response, MAX_DOCUMENT_BYTES, clientId);
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw new OAuthError(
      OAuthErrorCode.InvalidClient,
      `The client metadata document at ${clientId} is not JSON.`,
    );
  }
  return validateClientMetadataDocument(clientId, doc);
}

/** The body as text, refused as soon as it passes `limit` bytes (never read whole first). */
async function boundedText(response: Response, limit: number, clientId: string): Promise<string> {
  const tooLarge = () =>
    new OAuthError(
      OAuthErrorCode.InvalidClient,
      `The client metadata document at ${clientId} is over 64 KiB.`,
    );
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (declared > limit) {
    await response.body?.cancel().catch(() => {});
    throw tooLarge();
  }
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      throw tooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** The checks of a fetched document: it must name itself, and its metadata must be acceptable. */
export function validateClientMetadataDocument(clientId: string, doc: unknown): AcceptedClientMetadata {
  const named = (doc as { client_id?: unknown } | null)?.client_id;
  if (named !== clientId) {
    throw new OAuthError(
      OAuthErrorCode.InvalidClient,
      `The client metadata document at ${clientId} names client_id ${JSON.stringify(named)}; it must name its own URL.`,
    );
  }
  try {
    return acceptClientMetadata(doc, { document: true, fallbackName: new URL(clientId).host });
  } catch (error) {
    if (error instanceof OAuthError)
      throw new OAuthError(OAuthErrorCode.InvalidClient, `${clientId}: ${error.message}`);
    throw error;
  }
}
