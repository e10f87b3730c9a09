// The storage of Toolrow's OAuth authorization server: clients, grants (one consent each, and the

// family of its refresh tokens), codes and tokens. Codes and tokens are random, shown once and
// kept as sha-256 only. The protocol (PKCE, redirect URIs, scopes, resources) is checked by
// @toolrow/mcp-server's authorization server; what must be atomic lives here: a code redeems once
// (a second use revokes the grant), and a refresh token rotates once (reuse revokes the family).
import { randomBytes, randomUUID } from 'node:crypto';
import { DataSourceError, type Row } from '@toolrow/datasource';
import type {
  OAuthAccessCheck,
  OAuthClient,
  OAuthCodeRedemption,
  OAuthGrant,
  OAuthRefresh,
  OAuthTokenPair,
} from './app-types.ts';
import {
  date,
  dateOrNull,
  flag,
  jsonValue,
  lockRows,
  type StateDb,
  type StateQueries,
} from './store/state-db.ts';
import { hashToken } from './token-hash.ts';
import type { LastUse, VerifyCache } from './verify-cache.ts';

/**
 * The OAuth authorization server's records (see oauth-store.ts). Verification is cached and
 * last use is written in batches, like the tokens'; every revocation takes effect at once here.
 */
export interface OAuthRepository {
  /** Creates or updates a client by id. */
  saveClient(client: Omit<OAuthClient, 'createdAt'>): Promise<OAuthClient>;
  getClient(id: string): Promise<OAuthClient | null>;
  /** Registered clients no user ever approved (no grant), for the registration cap. */
  countUnapprovedClients(): Promise<number>;
  /** Deletes registered clients registered before `before` that no user ever approved. */
  pruneUnapprovedClients(before: Date): Promise<number>;
  /** Records a consent. */
  createGrant(grant: {
    clientId: string;
    scope: string;
    profile: string;
    resource: string;
    actorName: string;
    expiresAt: Date | null;
    askViaClient?: boolean;
    /** Team mode: the person who consented (the grant never acts beyond their role, and ends with them). */
    person?: string | null;
  }): Promise<OAuthGrant>;
  /** A one-time authorization code for a grant; returned once, stored as sha-256. */
  issueCode(code: {
    grantId: string;
    redirectUri: string;
    codeChallenge: string;
    expiresAt: Date;
  }): Promise<string>;
  /** Uses a code up. A second use revokes the grant it was issued for. */
  redeemCode(code: string): Promise<OAuthCodeRedemption>;
  /** An access token (expiring at accessExpiresAt, or the grant's end if sooner) and a refresh token. */
  issueTokens(grantId: string, options: { accessExpiresAt: Date }): Promise<OAuthTokenPair>;
  /** Rotates a refresh token: the old one is spent; reusing a spent one revokes the grant. */
  refresh(refreshToken: string, options: { clientId: string; accessExpiresAt: Date }): Promise<OAuthRefresh>;
  /** Checks a presented access token (cached briefly; last use recorded without a write per call). */
  verifyAccess(token: string): Promise<OAuthAccessCheck>;
  /** RFC 7009: an access token alone, or a refresh token with its whole grant. False when nothing was live. */
  revokeToken(token: string, clientId?: string): Promise<boolean>;
  /** Connected clients (live grants), oldest first; `all` includes revoked and expired ones. */
  listGrants(options?: { all?: boolean }): Promise<OAuthGrant[]>;
  getGrant(id: string): Promise<OAuthGrant | null>;
  /** The grant a token or refresh token belongs to (whatever its state), or null. */
  grantOfToken(token: string): Promise<OAuthGrant | null>;
  /** Disconnects: every token of the grant stops working at once. */
  revokeGrant(id: string, reason?: string): Promise<boolean>;
}

/** Prefixes tell the kinds apart at a glance (and in secret scanners); the CLI's tokens are trw_. */
export const OAUTH_PREFIX = { access: 'trwa_', refresh: 'trwr_', code: 'trwc_' } as const;

const secret = (prefix: string) => `${prefix}${randomBytes(32).toString('base64url')}`;

const toClient = (row: Row): OAuthClient => ({
  id: row.id as string,
  kind: row.kind as OAuthClient['kind'],
  name: row.name as string,
  redirectUris: jsonValue<string[]>(row.redirect_uris),
  metadata: jsonValue<Record<string, unknown>>(row.metadata),
  createdAt: date(row.created_at),
});

const GRANT_COLUMNS = [
  'g.id',
  'g.client_id',
  'c.name as client_name',
  'g.scope',
  'g.profile',
  'g.resource',
  'g.actor_name',
  'g.created_at',
  'g.expires_at',
  'g.revoked_at',
  'g.revoked_reason',
  'g.last_used_at',
  'g.ask_via_client',
  'g.person',
] as const;

/** Grants with their client's name. */
const grants = (q: StateQueries) =>
  q.selectFrom('oauth_grants as g').innerJoin('oauth_clients as c', 'c.id', 'g.client_id');

const toGrant = (row: Row): OAuthGrant => ({
  id: row.id as string,
  clientId: row.client_id as string,
  clientName: row.client_name as string,
  scope: row.scope as string,
  profile: row.profile as string,
  resource: row.resource as string,
  actorName: row.actor_name as string,
  askViaClient: flag(row.ask_via_client),
  createdAt: date(row.created_at),
  expiresAt: dateOrNull(row.expires_at),
  revokedAt: dateOrNull(row.revoked_at),
  revokedReason: (row.revoked_reason as string | null) ?? null,
  lastUsedAt: dateOrNull(row.last_used_at),
  person: (row.person as string | null | undefined) ?? null,
});

async function grantById(q: StateQueries, id: string): Promise<OAuthGrant | undefined> {
  const row = await grants(q).select(GRANT_COLUMNS).where('g.id', '=', id).executeTakeFirst();
  return row ? toGrant(row) : undefined;
}

async function revokeGrantIn(q: StateQueries, id: string, reason: string): Promise<boolean> {
  const result = await q
    .updateTable('oauth_grants')
    .set({ revoked_at: new Date(), revoked_reason: reason })
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .returning('actor_name')
    .executeTakeFirst();
  // The connection's remembered "yes" answers go with it.
  if (result) await q.deleteFrom('grants').where('grantee', '=', `mcp:${result.actor_name}`).execute();
  return result !== undefined;
}

const live = (grant: OAuthGrant, now: number) =>
  grant.revokedAt === null && (grant.expiresAt === null || grant.expiresAt.getTime() > now);

export interface OAuthStoreDeps {
  db: StateDb;
  /** Shared with the CLI tokens' verification; cleared on every revocation. */
  cache: VerifyCache<unknown>;
  lastUse: LastUse<string>;
}

export function createOAuthStore(deps: OAuthStoreDeps): OAuthRepository {
  const shared = oauthShared();
  return { ...clientMethods(deps, shared), ...grantMethods(deps), ...tokenMethods(deps, shared) };
}

/** What the store's parts share: issuing a token pair, and the registered clients no grant approved. */
function oauthShared() {
  async function issue(tx: StateQueries, grant: OAuthGrant, accessExpiresAt: Date): Promise<OAuthTokenPair> {
    const accessToken = secret(OAUTH_PREFIX.access);
    const refreshToken = secret(OAUTH_PREFIX.refresh);
    // An access token never outlives its connection.
    const access = grant.expiresAt && grant.expiresAt < accessExpiresAt ? grant.expiresAt : accessExpiresAt;
    await tx
      .insertInto('oauth_tokens')
      .values([
        { token_hash: hashToken(accessToken), grant_id: grant.id, kind: 'access', expires_at: access },
        {
          token_hash: hashToken(refreshToken),
          grant_id: grant.id,
          kind: 'refresh',
          expires_at: grant.expiresAt,
        },
      ])
      .execute();
    return { accessToken, accessExpiresAt: access, refreshToken, refreshExpiresAt: grant.expiresAt, grant };
  }

  const unapproved = (tx: StateQueries) =>
    tx
      .selectFrom('oauth_clients')
      .where('kind', '=', 'registered')
      .where((eb) =>
        eb.not(
          eb.exists(
            eb
              .selectFrom('oauth_grants')
              .select('oauth_grants.id')
              .whereRef('oauth_grants.client_id', '=', 'oauth_clients.id'),
          ),
        ),
      );

  return { issue, unapproved };
}

type Shared = ReturnType<typeof oauthShared>;

/** Registered clients: saved, counted and pruned while no grant approved them. */
function clientMethods(
  { db }: OAuthStoreDeps,
  { unapproved }: Shared,
): Pick<OAuthRepository, 'saveClient' | 'countUnapprovedClients' | 'pruneUnapprovedClients' | 'getClient'> {
  const { q } = db;
  return {
    async saveClient(client) {
      const values = {
        name: client.name,
        redirect_uris: JSON.stringify(client.redirectUris),
        metadata: JSON.stringify(client.metadata),
      };
      const row = await q
        .insertInto('oauth_clients')
        .values({ id: client.id, kind: client.kind, ...values })
        .onConflict((oc) => oc.column('id').doUpdateSet(values))
        .returningAll()
        .executeTakeFirstOrThrow();
      return toClient(row);
    },
    async countUnapprovedClients() {
      const row = await unapproved(q)
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
    async pruneUnapprovedClients(before) {
      const stale = unapproved(q).select('oauth_clients.id').where('created_at', '<', before);
      const result = await q.deleteFrom('oauth_clients').where('id', 'in', stale).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
    async getClient(id) {
      const row = await q.selectFrom('oauth_clients').selectAll().where('id', '=', id).executeTakeFirst();
      return row ? toClient(row) : null;
    },
  };
}

/** Grants (a client's approved access for a person), their codes and their ending. */
function grantMethods({
  db,
  cache,
  lastUse,
}: OAuthStoreDeps): Pick<
  OAuthRepository,
  'createGrant' | 'issueCode' | 'redeemCode' | 'listGrants' | 'getGrant' | 'revokeGrant'
> {
  const { q, dialect } = db;
  return {
    async createGrant({ clientId, scope, profile, resource, actorName, expiresAt, askViaClient, person }) {
      const id = `grant_${randomUUID()}`;
      await q
        .insertInto('oauth_grants')
        .values({
          id,
          client_id: clientId,
          scope,
          profile,
          resource,
          actor_name: actorName,
          expires_at: expiresAt,
          ask_via_client: askViaClient === true,
          person: person ?? null,
        })
        .execute();
      return (await grantById(q, id))!;
    },
    async issueCode({ grantId, redirectUri, codeChallenge, expiresAt }) {
      const code = secret(OAUTH_PREFIX.code);
      await q
        .insertInto('oauth_codes')
        .values({
          code_hash: hashToken(code),
          grant_id: grantId,
          redirect_uri: redirectUri,
          code_challenge: codeChallenge,
          expires_at: expiresAt,
        })
        .execute();
      return code;
    },
    async redeemCode(code) {
      const outcome = await q.transaction().execute(async (tx) => {
        const row = await tx
          .selectFrom('oauth_codes')
          .selectAll()
          .where('code_hash', '=', hashToken(code))
          .$call(lockRows(dialect))
          .executeTakeFirst();
        if (!row) return { ok: false as const, reason: 'unknown' as const };
        const grant = (await grantById(tx, row.grant_id))!;
        if (row.used_at !== null) {
          // A code used twice was intercepted (OAuth 2.1 §4.1.3): whatever it bought is revoked.
          await revokeGrantIn(tx, grant.id, 'authorization code replayed');
          return { ok: false as const, reason: 'replayed' as const };
        }
        await tx
          .updateTable('oauth_codes')
          .set({ used_at: new Date() })
          .where('code_hash', '=', row.code_hash)
          .execute();
        if (date(row.expires_at).getTime() <= Date.now())
          return { ok: false as const, reason: 'expired' as const };
        if (!live(grant, Date.now())) return { ok: false as const, reason: 'revoked' as const };
        return {
          ok: true as const,
          grant,
          redirectUri: row.redirect_uri,
          codeChallenge: row.code_challenge,
        };
      });
      if (!outcome.ok && outcome.reason === 'replayed') cache.clear();
      return outcome;
    },
    async listGrants(options = {}) {
      await lastUse.flush();
      const now = new Date();
      const rows = await grants(q)
        .select(GRANT_COLUMNS)
        .$if(!options.all, (qb) =>
          qb
            .where('g.revoked_at', 'is', null)
            .where((eb) => eb.or([eb('g.expires_at', 'is', null), eb('g.expires_at', '>', now)])),
        )
        .orderBy('g.created_at')
        .orderBy('g.id')
        .execute();
      const ids = rows.map((row) => row.id as string);
      const issued = new Set(
        ids.length === 0
          ? []
          : (
              await q
                .selectFrom('oauth_tokens')
                .select('grant_id')
                .distinct()
                .where('grant_id', 'in', ids)
                .execute()
            ).map((row) => row.grant_id),
      );
      return rows.map((row) => ({ ...toGrant(row), tokensIssued: issued.has(row.id as string) }));
    },
    async getGrant(id) {
      return (await grantById(q, id)) ?? null;
    },
    async revokeGrant(id, reason = 'disconnected by the user') {
      const revoked = await q.transaction().execute((tx) => revokeGrantIn(tx, id, reason));
      cache.clear();
      return revoked;
    },
  };
}

/** Token pairs of a grant: issued, refreshed, verified, revoked. */
function tokenMethods(
  { db, cache, lastUse }: OAuthStoreDeps,
  { issue }: Shared,
): Pick<OAuthRepository, 'issueTokens' | 'refresh' | 'verifyAccess' | 'revokeToken' | 'grantOfToken'> {
  const { q, dialect } = db;
  return {
    async issueTokens(grantId, { accessExpiresAt }) {
      const grant = await grantById(q, grantId);
      if (!grant || !live(grant, Date.now())) {
        throw new DataSourceError(
          'misuse',
          `OAuth grant ${grantId} is not live: no tokens are issued for it.`,
        );
      }
      return issue(q, grant, accessExpiresAt);
    },
    async refresh(refreshToken, { clientId, accessExpiresAt }) {
      const outcome = await q.transaction().execute(async (tx) => {
        const row = await tx
          .selectFrom('oauth_tokens')
          .selectAll()
          .where('token_hash', '=', hashToken(refreshToken))
          .where('kind', '=', 'refresh')
          .$call(lockRows(dialect))
          .executeTakeFirst();
        if (!row) return { ok: false as const, reason: 'unknown' as const };
        const grant = (await grantById(tx, row.grant_id))!;
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
        await tx
          .updateTable('oauth_tokens')
          .set({ used_at: new Date() })
          .where('token_hash', '=', row.token_hash)
          .execute();
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
        const row = await grants(q)
          .innerJoin('oauth_tokens as t', 't.grant_id', 'g.id')
          .select([...GRANT_COLUMNS, 't.expires_at as token_expires_at', 't.revoked_at as token_revoked_at'])
          .where('t.token_hash', '=', hash)
          .where('t.kind', '=', 'access')
          .executeTakeFirst();
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
      const row = await q
        .selectFrom('oauth_tokens as t')
        .innerJoin('oauth_grants as g', 'g.id', 't.grant_id')
        .select(['t.kind', 't.grant_id', 'g.client_id'])
        .where('t.token_hash', '=', hashToken(token))
        .executeTakeFirst();
      // RFC 7009 §2.1: a client may revoke only its own tokens.
      if (!row || (clientId !== undefined && row.client_id !== clientId)) return false;
      const revoked =
        row.kind === 'refresh'
          ? // Revoking a refresh token ends the connection and every token of it (RFC 7009 §2.1).
            await q
              .transaction()
              .execute((tx) => revokeGrantIn(tx, row.grant_id, 'refresh token revoked by the client'))
          : (
              await q
                .updateTable('oauth_tokens')
                .set({ revoked_at: new Date() })
                .where('token_hash', '=', hashToken(token))
                .where('revoked_at', 'is', null)
                .executeTakeFirst()
            ).numUpdatedRows > 0n;
      cache.clear();
      return revoked;
    },
    async grantOfToken(token) {
      const row = await grants(q)
        .innerJoin('oauth_tokens as t', 't.grant_id', 'g.id')
        .select(GRANT_COLUMNS)
        .where('t.token_hash', '=', hashToken(token))
        .executeTakeFirst();
      return row ? toGrant(row) : null;
    },
  };
}

/** Writes coalesced last-use times of grants, never back in time (another process may be ahead). */
export async function writeGrantLastUse(q: StateQueries, stamps: Map<string, Date>): Promise<void> {
  await q.transaction().execute(async (tx) => {
    for (const [id, at] of stamps) {
      await tx
        .updateTable('oauth_grants')
        .set({ last_used_at: at })
        .where('id', '=', id)
        .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', at)]))
        .execute();
    }
  });
}
