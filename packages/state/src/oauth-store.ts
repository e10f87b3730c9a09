// The storage of Toolrow's OAuth authorization server: clients, grants (one consent each, and the
// family of its refresh tokens), codes and tokens. Codes and tokens are random, shown once and
// kept as sha-256 only. The protocol (PKCE, redirect URIs, scopes, resources) is checked by
// @toolrow/mcp-server's authorization server; what must be atomic lives here: a code redeems once
// (a second use revokes the grant), and a refresh token rotates once (reuse revokes the family).
import { randomBytes, randomUUID } from 'node:crypto';
import { APP_SCHEMA, type Database, DataSourceError, type Queryable, type Row } from '@toolrow/datasource';
import type { AppState } from './app-state.ts';
import { hashToken } from './app-state-impl.ts';
import type { OAuthAccessCheck, OAuthClient, OAuthGrant, OAuthTokenPair } from './app-types.ts';
import type { LastUse, VerifyCache } from './verify-cache.ts';

const S = APP_SCHEMA;

/** Prefixes tell the kinds apart at a glance (and in secret scanners); the CLI's tokens are trw_. */
export const OAUTH_PREFIX = { access: 'trwa_', refresh: 'trwr_', code: 'trwc_' } as const;

const secret = (prefix: string) => `${prefix}${randomBytes(32).toString('base64url')}`;
const date = (value: unknown) => (value instanceof Date ? value : new Date(String(value)));
const dateOrNull = (value: unknown) => (value === null || value === undefined ? null : date(value));

const toClient = (row: Row): OAuthClient => ({
  id: row.id as string,
  kind: row.kind as OAuthClient['kind'],
  name: row.name as string,
  redirectUris: row.redirect_uris as string[],
  metadata: row.metadata as Record<string, unknown>,
  createdAt: date(row.created_at),
});

const GRANT_COLUMNS = `g.id, g.client_id, c.name AS client_name, g.scope, g.profile, g.resource, g.actor_name,
  g.created_at, g.expires_at, g.revoked_at, g.revoked_reason, g.last_used_at, g.ask_via_client`;
const GRANT_FROM = `${S}.oauth_grants g JOIN ${S}.oauth_clients c ON c.id = g.client_id`;

const toGrant = (row: Row): OAuthGrant => ({
  id: row.id as string,
  clientId: row.client_id as string,
  clientName: row.client_name as string,
  scope: row.scope as string,
  profile: row.profile as string,
  resource: row.resource as string,
  actorName: row.actor_name as string,
  askViaClient: row.ask_via_client === true,
  createdAt: date(row.created_at),
  expiresAt: dateOrNull(row.expires_at),
  revokedAt: dateOrNull(row.revoked_at),
  revokedReason: (row.revoked_reason as string | null) ?? null,
  lastUsedAt: dateOrNull(row.last_used_at),
});

async function grantById(q: Queryable, id: string): Promise<OAuthGrant | undefined> {
  const result = await q.query(`SELECT ${GRANT_COLUMNS} FROM ${GRANT_FROM} WHERE g.id = $1`, [id]);
  return result.rows[0] ? toGrant(result.rows[0]) : undefined;
}

async function revokeGrantIn(q: Queryable, id: string, reason: string): Promise<boolean> {
  const result = await q.query(
    `UPDATE ${S}.oauth_grants SET revoked_at = now(), revoked_reason = $2 WHERE id = $1 AND revoked_at IS NULL`,
    [id, reason],
  );
  if (result.rowCount > 0) {
    // The connection's remembered "yes" answers go with it.
    await q.query(
      `DELETE FROM ${S}.grants WHERE grantee = (SELECT 'mcp:' || actor_name FROM ${S}.oauth_grants WHERE id = $1)`,
      [id],
    );
  }
  return result.rowCount > 0;
}

const live = (grant: OAuthGrant, now: number) =>
  grant.revokedAt === null && (grant.expiresAt === null || grant.expiresAt.getTime() > now);

export interface OAuthStoreDeps {
  db: Database;
  /** Shared with the CLI tokens' verification; cleared on every revocation. */
  cache: VerifyCache<unknown>;
  lastUse: LastUse<string>;
}

export function createOAuthStore({ db, cache, lastUse }: OAuthStoreDeps): AppState['oauth'] {
  async function issue(q: Queryable, grant: OAuthGrant, accessExpiresAt: Date): Promise<OAuthTokenPair> {
    const accessToken = secret(OAUTH_PREFIX.access);
    const refreshToken = secret(OAUTH_PREFIX.refresh);
    // An access token never outlives its connection.
    const access = grant.expiresAt && grant.expiresAt < accessExpiresAt ? grant.expiresAt : accessExpiresAt;
    await q.query(
      `INSERT INTO ${S}.oauth_tokens (token_hash, grant_id, kind, expires_at) VALUES ($1, $2, 'access', $3), ($4, $2, 'refresh', $5)`,
      [hashToken(accessToken), grant.id, access, hashToken(refreshToken), grant.expiresAt],
    );
    return { accessToken, accessExpiresAt: access, refreshToken, refreshExpiresAt: grant.expiresAt, grant };
  }

  return {
    async saveClient(client) {
      const result = await db.query(
        `INSERT INTO ${S}.oauth_clients (id, kind, name, redirect_uris, metadata) VALUES ($1, $2, $3, $4::jsonb, $5::jsonb)
         ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, redirect_uris = EXCLUDED.redirect_uris, metadata = EXCLUDED.metadata
         RETURNING *`,
        [
          client.id,
          client.kind,
          client.name,
          JSON.stringify(client.redirectUris),
          JSON.stringify(client.metadata),
        ],
      );
      return toClient(result.rows[0]!);
    },
    async countUnapprovedClients() {
      const result = await db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM ${S}.oauth_clients c WHERE c.kind = 'registered'
           AND NOT EXISTS (SELECT 1 FROM ${S}.oauth_grants g WHERE g.client_id = c.id)`,
      );
      return result.rows[0]!.n;
    },
    async pruneUnapprovedClients(before) {
      const result = await db.query(
        `DELETE FROM ${S}.oauth_clients c WHERE c.kind = 'registered' AND c.created_at < $1
           AND NOT EXISTS (SELECT 1 FROM ${S}.oauth_grants g WHERE g.client_id = c.id)`,
        [before],
      );
      return result.rowCount;
    },
    async getClient(id) {
      const result = await db.query(`SELECT * FROM ${S}.oauth_clients WHERE id = $1`, [id]);
      return result.rows[0] ? toClient(result.rows[0]) : null;
    },
    async createGrant({ clientId, scope, profile, resource, actorName, expiresAt, askViaClient }) {
      const id = `grant_${randomUUID()}`;
      await db.query(
        `INSERT INTO ${S}.oauth_grants (id, client_id, scope, profile, resource, actor_name, expires_at, ask_via_client) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
        [id, clientId, scope, profile, resource, actorName, expiresAt, askViaClient === true],
      );
      return (await grantById(db, id))!;
    },
    async issueCode({ grantId, redirectUri, codeChallenge, expiresAt }) {
      const code = secret(OAUTH_PREFIX.code);
      await db.query(
        `INSERT INTO ${S}.oauth_codes (code_hash, grant_id, redirect_uri, code_challenge, expires_at) VALUES ($1, $2, $3, $4, $5)`,
        [hashToken(code), grantId, redirectUri, codeChallenge, expiresAt],
      );
      return code;
    },
    async redeemCode(code) {
      const outcome = await db.transaction(async (tx) => {
        const result = await tx.query(`SELECT * FROM ${S}.oauth_codes WHERE code_hash = $1 FOR UPDATE`, [
          hashToken(code),
        ]);
        const row = result.rows[0];
        if (!row) return { ok: false as const, reason: 'unknown' as const };
        const grant = (await grantById(tx, row.grant_id as string))!;
        if (row.used_at !== null) {
          // A code used twice was intercepted (OAuth 2.1 §4.1.3): whatever it bought is revoked.
          await revokeGrantIn(tx, grant.id, 'authorization code replayed');
          return { ok: false as const, reason: 'replayed' as const };
        }
        await tx.query(`UPDATE ${S}.oauth_codes SET used_at = now() WHERE code_hash = $1`, [row.code_hash]);
        if (date(row.expires_at).getTime() <= Date.now())
          return { ok: false as const, reason: 'expired' as const };
        if (!live(grant, Date.now())) return { ok: false as const, reason: 'revoked' as const };
        return {
          ok: true as const,
          grant,
          redirectUri: row.redirect_uri as string,
          codeChallenge: row.code_challenge as string,
        };
      });
      if (!outcome.ok && outcome.reason === 'replayed') cache.clear();
      return outcome;
    },
    async issueTokens(grantId, { accessExpiresAt }) {
      const grant = await grantById(db, grantId);
      if (!grant || !live(grant, Date.now())) {
        throw new DataSourceError(
          'misuse',
          `OAuth grant ${grantId} is not live: no tokens are issued for it.`,
        );
      }
      return issue(db, grant, accessExpiresAt);
    },
    async refresh(refreshToken, { clientId, accessExpiresAt }) {
      const outcome = await db.transaction(async (tx) => {
        const result = await tx.query(
          `SELECT * FROM ${S}.oauth_tokens WHERE token_hash = $1 AND kind = 'refresh' FOR UPDATE`,
          [hashToken(refreshToken)],
        );
        const row = result.rows[0];
        if (!row) return { ok: false as const, reason: 'unknown' as const };
        const grant = (await grantById(tx, row.grant_id as string))!;
        if (grant.clientId !== clientId)
          return { ok: false as const, reason: 'wrong-client' as const, grant };
        if (row.used_at !== null) {
          // A rotated-out refresh token came back: one of the two holders is not the client, and
          // there is no telling which, so the whole family ends (OAuth 2.1 §4.3.1).
          await revokeGrantIn(tx, grant.id, 'refresh token reused');
          return { ok: false as const, reason: 'reused' as const, grant };
        }
        if (grant.revokedAt !== null || row.revoked_at !== null)
          return { ok: false as const, reason: 'revoked' as const, grant };
        if (!live(grant, Date.now())) return { ok: false as const, reason: 'expired' as const, grant };
        await tx.query(`UPDATE ${S}.oauth_tokens SET used_at = now() WHERE token_hash = $1`, [
          row.token_hash,
        ]);
        return { ok: true as const, tokens: await issue(tx, grant, accessExpiresAt) };
      });
      if (!outcome.ok && outcome.reason === 'reused') cache.clear();
      return outcome;
    },
    async verifyAccess(token) {
      if (typeof token !== 'string' || !token.startsWith(OAUTH_PREFIX.access))
        return { ok: false, reason: 'unknown' };
      const hash = hashToken(token);
      const now = Date.now();
      let check = cache.get(hash, now) as Extract<OAuthAccessCheck, { ok: true }> | undefined;
      if (!check) {
        const result = await db.query(
          `SELECT t.expires_at AS token_expires_at, t.revoked_at AS token_revoked_at, ${GRANT_COLUMNS}
           FROM ${S}.oauth_tokens t JOIN ${GRANT_FROM} ON g.id = t.grant_id
           WHERE t.token_hash = $1 AND t.kind = 'access'`,
          [hash],
        );
        const row = result.rows[0];
        if (!row) return { ok: false, reason: 'unknown' };
        const grant = toGrant(row);
        if (row.token_revoked_at !== null || grant.revokedAt !== null)
          return { ok: false, reason: 'revoked', grant };
        check = { ok: true, grant, expiresAt: date(row.token_expires_at) };
        cache.set(hash, check, now);
      }
      if (check.expiresAt.getTime() <= now || !live(check.grant, now)) {
        return { ok: false, reason: 'expired', grant: check.grant };
      }
      lastUse.touch(check.grant.id, new Date(now));
      return { ...check, grant: { ...check.grant, lastUsedAt: new Date(now) } };
    },
    async revokeToken(token, clientId) {
      const result = await db.query(
        `SELECT t.kind, t.grant_id, g.client_id FROM ${S}.oauth_tokens t JOIN ${S}.oauth_grants g ON g.id = t.grant_id WHERE t.token_hash = $1`,
        [hashToken(token)],
      );
      const row = result.rows[0];
      // RFC 7009 §2.1: a client may revoke only its own tokens.
      if (!row || (clientId !== undefined && row.client_id !== clientId)) return false;
      const revoked =
        row.kind === 'refresh'
          ? // Revoking a refresh token ends the connection and every token of it (RFC 7009 §2.1).
            await revokeGrantIn(db, row.grant_id as string, 'refresh token revoked by the client')
          : (
              await db.query(
                `UPDATE ${S}.oauth_tokens SET revoked_at = now() WHERE token_hash = $1 AND revoked_at IS NULL`,
                [hashToken(token)],
              )
            ).rowCount > 0;
      cache.clear();
      return revoked;
    },
    async listGrants(options = {}) {
      await lastUse.flush();
      const where = options.all
        ? ''
        : 'WHERE g.revoked_at IS NULL AND (g.expires_at IS NULL OR g.expires_at > now())';
      const result = await db.query(
        `SELECT ${GRANT_COLUMNS} FROM ${GRANT_FROM} ${where} ORDER BY g.created_at, g.id`,
      );
      return result.rows.map(toGrant);
    },
    async getGrant(id) {
      return (await grantById(db, id)) ?? null;
    },
    async grantOfToken(token) {
      const result = await db.query(
        `SELECT ${GRANT_COLUMNS} FROM ${S}.oauth_tokens t JOIN ${GRANT_FROM} ON g.id = t.grant_id WHERE t.token_hash = $1`,
        [hashToken(token)],
      );
      return result.rows[0] ? toGrant(result.rows[0]) : null;
    },
    async revokeGrant(id, reason = 'disconnected by the user') {
      const revoked = await revokeGrantIn(db, id, reason);
      cache.clear();
      return revoked;
    },
  };
}

/** Writes coalesced last-use times of grants. */
export async function writeGrantLastUse(db: Database, stamps: Map<string, Date>): Promise<void> {
  await db.transaction(async (tx) => {
    for (const [id, at] of stamps) {
      await tx.query(
        `UPDATE ${S}.oauth_grants SET last_used_at = GREATEST(coalesce(last_used_at, $2), $2) WHERE id = $1`,
        [id, at],
      );
    }
  });
}
