// One bearer verifier for both kinds of token the MCP endpoint takes: the CLI's (`toolrow mcp
// token create`, trw_…) and the authorization server's access tokens (trwa_…). Both lookups are
// cached by the state (verify-cache.ts); the resource a token is bound to is checked per request
// by the HTTP handler, which knows which resource it is.
import {
  type AuthInfo,
  OAuthError,
  OAuthErrorCode,
  type OAuthTokenVerifier,
} from '@modelcontextprotocol/server';
import { type AppState, OAUTH_PREFIX } from '@toolrow/state';
import { impliedScopes, isMcpScope } from '../scopes.ts';
import { createTokenVerifier, type McpPrincipal, type McpTokenStore } from '../tokens.ts';

export type OAuthTokenStore = Pick<AppState['oauth'], 'verifyAccess'>;

export function createBearerVerifier(
  tokens: McpTokenStore,
  oauth: OAuthTokenStore | undefined,
): OAuthTokenVerifier {
  const cli = createTokenVerifier(tokens);
  if (!oauth) return cli;
  return {
    async verifyAccessToken(token: string): Promise<AuthInfo> {
      if (!token.startsWith(OAUTH_PREFIX.access)) return cli.verifyAccessToken(token);
      const check = await oauth.verifyAccess(token);
      if (!check.ok) {
        const who = check.grant ? ` of ${check.grant.clientName}` : '';
        const message =
          check.reason === 'expired'
            ? `The access token${who} expired; refresh it, or connect again.`
            : check.reason === 'revoked'
              ? `The access token${who} was revoked (the connection was disconnected); connect again.`
              : 'Unknown access token; connect again to get one.';
        throw new OAuthError(OAuthErrorCode.InvalidToken, message);
      }
      const { grant } = check;
      if (!isMcpScope(grant.scope)) {
        throw new OAuthError(
          OAuthErrorCode.InvalidToken,
          `The token holds unknown scope ${grant.scope}; connect again.`,
        );
      }
      const principal: McpPrincipal = {
        name: grant.actorName,
        scope: grant.scope,
        profile: grant.profile,
        ...(grant.askViaClient ? { askViaClient: true } : {}),
        ...(grant.person ? { person: grant.person } : {}),
        // Issued by the authorization server, which can grant more after a new consent.
        canStepUp: true,
      };
      return {
        token,
        clientId: grant.clientId,
        scopes: impliedScopes(grant.scope),
        expiresAt: Math.floor(check.expiresAt.getTime() / 1000),
        resource: new URL(grant.resource),
        extra: { toolrow: principal },
      };
    },
  };
}
