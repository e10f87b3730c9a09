// Connected clients as the app's API and `toolrow mcp clients` show them: one per consent.
import type { OAuthGrant } from '@toolrow/state';

/** The wire form of a connected client (JSON-safe, dates as ISO strings). */
export function toWireClient(grant: OAuthGrant) {
  const now = Date.now();
  return {
    id: grant.id,
    clientId: grant.clientId,
    clientName: grant.clientName,
    actor: `mcp:${grant.actorName}`,
    scope: grant.scope,
    profile: grant.profile,
    askViaClient: grant.askViaClient,
    resource: grant.resource,
    status: grant.revokedAt
      ? 'revoked'
      : grant.expiresAt && grant.expiresAt.getTime() <= now
        ? 'expired'
        : grant.tokensIssued === false
          ? // Consent given, but the client never redeemed its code: it did not finish connecting.
            'not finished'
          : 'connected',
    createdAt: grant.createdAt.toISOString(),
    expiresAt: grant.expiresAt?.toISOString() ?? null,
    revokedAt: grant.revokedAt?.toISOString() ?? null,
    lastUsedAt: grant.lastUsedAt?.toISOString() ?? null,
  };
}
export type WireMcpClient = ReturnType<typeof toWireClient>;

/** Connections matching a key: a connection id, an audit name (mcp:<name> or <name>) or a client_id. */
export function grantsMatching(grants: readonly OAuthGrant[], key: string): OAuthGrant[] {
  return grants.filter(
    (grant) =>
      grant.id === key ||
      grant.actorName === key ||
      `mcp:${grant.actorName}` === key ||
      grant.clientId === key,
  );
}
