// Bearer tokens for MCP clients. Toolrow's state (@toolrow/state) makes them, shows them once and
// keeps only their sha-256; this module adds lifetimes, default names and the SDK's verifier.
import {
  type AuthInfo,
  OAuthError,
  OAuthErrorCode,
  type OAuthTokenVerifier,
} from '@modelcontextprotocol/server';
import type { AppState, McpToken } from '@toolrow/state';
import type { McpScope } from './generated/mcp-scopes.ts';
import { impliedScopes, isMcpScope } from './scopes.ts';

/** Tokens expire after this unless `--ttl` says otherwise. */
export const DEFAULT_TOKEN_TTL = '30d';

/** The app state's MCP tokens: made there, shown once, stored as sha-256 (ToolrowState.tokens). */
export type McpTokenStore = AppState['tokens'];

const TTL_UNITS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/**
 * A lifetime as typed on the command line: `30m`, `12h`, `7d`, `4w`, or `never`.
 * Returns milliseconds, or null for `never`.
 */
export function parseTtl(text: string): number | null {
  const trimmed = text.trim().toLowerCase();
  if (trimmed === 'never') return null;
  const match = /^(\d+)\s*([mhdw])$/.exec(trimmed);
  const amount = match ? Number(match[1]) : Number.NaN;
  if (!match || !(amount > 0)) {
    throw new Error(
      `Bad token lifetime '${text}'. Use a number with a unit — 30m, 12h, 7d, 4w — or 'never'.`,
    );
  }
  const ms = amount * TTL_UNITS[match[2] as string]!;
  // A date must come of it: beyond ten years, 'never' says what is meant.
  if (ms > MAX_TTL_MS) {
    throw new Error(
      `Token lifetime '${text}' is longer than 10 years. Use a shorter one (e.g. 52w), or 'never' for a token that does not expire.`,
    );
  }
  return ms;
}

const MAX_TTL_MS = 10 * 366 * 24 * 60 * 60 * 1000;

export interface CreatedToken {
  /** The secret: shown once, never stored. */
  token: string;
  name: string;
  scope: McpScope;
  expiresAt: Date | null;
  record: McpToken;
}

export interface CreateTokenOptions {
  scope: McpScope;
  /** Default: `mcp-<n>`, the first number no stored token uses. */
  name?: string;
  /** From parseTtl; null never expires. Default DEFAULT_TOKEN_TTL. */
  ttlMs?: number | null;
  /** Trust the client to ask its own user when the ladder asks (McpPrincipal.askViaClient). */
  askViaClient?: boolean;
  /** The connection the token is served on, and on no other (McpPrincipal.profile). */
  connection?: string;
  /** Team mode: the person it belongs to (McpPrincipal.person). */
  person?: string;
  now?: Date;
}

export const TOKEN_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** Makes a token with a checked name and lifetime; returns the token itself (the only time it exists in full). */
export async function createToken(store: McpTokenStore, options: CreateTokenOptions): Promise<CreatedToken> {
  const now = options.now ?? new Date();
  const existing = await store.list();
  let name = options.name;
  if (name === undefined) {
    const taken = new Set(existing.map((token) => token.name));
    let n = 1;
    while (taken.has(`mcp-${n}`)) n += 1;
    name = `mcp-${n}`;
  }
  if (!TOKEN_NAME_PATTERN.test(name)) {
    throw new Error(
      `Bad token name '${name}': use 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit (the audit log shows it as mcp:<name>).`,
    );
  }
  // The name is the audit actor; two live tokens with one name would blur who did what.
  if (existing.some((token) => token.name === name && token.revokedAt === null)) {
    throw new Error(
      `A token named '${name}' already exists. Pick another --name, or revoke it first: toolrow mcp token revoke ${name}`,
    );
  }
  const ttlMs = options.ttlMs === undefined ? parseTtl(DEFAULT_TOKEN_TTL) : options.ttlMs;
  const expiresAt = ttlMs === null ? null : new Date(now.getTime() + ttlMs);
  const { token, record } = await store.create({
    name,
    scope: options.scope,
    expiresAt,
    ...(options.askViaClient ? { askViaClient: true } : {}),
    ...(options.connection ? { connection: options.connection } : {}),
    ...(options.person ? { person: options.person } : {}),
  });
  return { token, name, scope: options.scope, expiresAt, record };
}

/** What a verified token grants: its name (the audit actor is mcp:<name>) and its scope. */
export interface McpPrincipal {
  name: string;
  scope: McpScope;
  /** Team mode: the person the token or grant belongs to (their email): its changes and audit lines are theirs. */
  person?: string;
  /**
   * The connection the principal acts on (its name is also its profile): the one the user picked
   * at consent (OAuth), or the one a `toolrow mcp token create` token was made for. Absent (a
   * token made before tokens were bound, a stdio client without a token): the server's own.
   */
  profile?: string;
  /**
   * The user trusted this client to ask its own user when the ladder asks (MCP elicitation, form
   * mode), instead of the Toolrow app's approval inbox. Only used when the client declares the
   * elicitation capability. Set by `toolrow mcp token create --ask-via-client`, or by the consent
   * page for an OAuth client. Default false: the app's inbox asks.
   */
  askViaClient?: boolean;
  /**
   * An OAuth token: a call beyond its scope is answered 403 insufficient_scope over HTTP, and the
   * client steps up through a new consent. A token from `toolrow mcp token create` has nowhere to
   * step up, so such a call is a tool result (isError) the model can read, as over stdio.
   */
  canStepUp?: boolean;
  /**
   * The scope the token itself holds, when a connection's MCP exposure (or the endpoint's
   * ceiling) serves it at the lower `scope`: a refusal then says a new token would not help.
   */
  cappedFrom?: McpScope;
}

/** What a refusal needs to know of a capped principal (scopes.ts refusalFor). */
export function capOf(
  principal: McpPrincipal,
  connection: string,
): { from: McpScope; connection: string } | undefined {
  return principal.cappedFrom ? { from: principal.cappedFrom, connection } : undefined;
}

/** Reads the principal back from the AuthInfo our verifier made. */
export function principalOf(authInfo: AuthInfo | undefined): McpPrincipal | undefined {
  const extra = authInfo?.extra as { toolrow?: McpPrincipal } | undefined;
  return extra?.toolrow;
}

// Far enough that it never passes, small enough to stay a finite number (the SDK refuses tokens
// without an expiry).
const NEVER = Number.MAX_SAFE_INTEGER;

/**
 * The OAuthTokenVerifier the SDK's bearer gate calls. Unknown, expired and revoked tokens become
 * invalid_token (401) with a description that says what to do.
 */
export function createTokenVerifier(store: McpTokenStore): OAuthTokenVerifier {
  return {
    async verifyAccessToken(token: string): Promise<AuthInfo> {
      const check = await store.verify(token);
      if (!check.ok) {
        const name = check.token?.name;
        const message =
          check.reason === 'expired'
            ? `Token ${name} expired at ${check.token?.expiresAt?.toISOString()}; create a new one with: toolrow mcp token create`
            : check.reason === 'revoked'
              ? `Token ${name} was revoked; create a new one with: toolrow mcp token create`
              : 'Unknown token; create one with: toolrow mcp token create --scope tables:readonly';
        throw new OAuthError(OAuthErrorCode.InvalidToken, message);
      }
      const stored = check.token;
      if (!isMcpScope(stored.scope)) {
        throw new OAuthError(
          OAuthErrorCode.InvalidToken,
          `Token ${stored.name} holds scope ${stored.scope}, which this version does not know; create a new token`,
        );
      }
      const principal: McpPrincipal = {
        name: stored.name,
        scope: stored.scope,
        ...(stored.askViaClient ? { askViaClient: true } : {}),
        ...(stored.connection ? { profile: stored.connection } : {}),
        ...(stored.person ? { person: stored.person } : {}),
      };
      return {
        token,
        clientId: stored.name,
        scopes: impliedScopes(stored.scope),
        expiresAt: stored.expiresAt === null ? NEVER : Math.floor(stored.expiresAt.getTime() / 1000),
        extra: { toolrow: principal },
      };
    },
  };
}
