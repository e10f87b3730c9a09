// MCP bearer tokens: stored as hashes, verified through a short cache, their last use batched.

import { randomBytes } from 'node:crypto';
import { DataSourceError, type Row } from '@toolrow/datasource';
import type { McpToken, TokenCheck } from '../app-types.ts';
import { date, dateOrNull, flag, isUniqueViolation, type StateDb } from '../store/state-db.ts';
import { hashToken } from '../token-hash.ts';
import type { LastUse, VerifyCache } from '../verify-cache.ts';

/** What the store keeps of tokens. */
export interface TokenRepository {
  /** Creates a token; the plain token is returned once and only its sha-256 is stored. */
  create(options: {
    name: string;
    scope: string;
    expiresAt?: Date | null;
    /** Ask through the client's own user (elicitation) instead of the app's inbox; default false. */
    askViaClient?: boolean;
    /** The connection it is served on, and on no other. */
    connection?: string;
    /** Team mode: the person it belongs to (it never acts beyond their role, and ends with them). */
    person?: string | null;
  }): Promise<{ token: string; record: McpToken }>;
  /** Checks a presented bearer token (and stamps lastUsedAt when valid). */
  verify(token: string): Promise<TokenCheck>;
  list(): Promise<McpToken[]>;
  /** Revokes by name; false when no such live token. */
  revoke(name: string): Promise<boolean>;
}

const toToken = (row: Row): McpToken => ({
  id: Number(row.id),
  name: row.name as string,
  tokenHash: row.token_hash as string,
  scope: row.scope as string,
  createdAt: date(row.created_at),
  expiresAt: dateOrNull(row.expires_at),
  revokedAt: dateOrNull(row.revoked_at),
  lastUsedAt: dateOrNull(row.last_used_at),
  askViaClient: flag(row.ask_via_client),
  connection: (row.connection as string | null | undefined) ?? null,
  person: (row.person as string | null | undefined) ?? null,
});

export function createTokens(
  db: StateDb,
  { cache, tokenLastUse }: { cache: VerifyCache<unknown>; tokenLastUse: LastUse<number> },
): TokenRepository {
  const { q } = db;
  return {
    async create({ name, scope, expiresAt, askViaClient, connection, person }) {
      if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(name)) {
        throw new DataSourceError(
          'misuse',
          `Token name '${name}' is not allowed: use 1–64 letters, digits, '.', '_' or '-', starting with a letter or digit.`,
        );
      }
      if (expiresAt && expiresAt.getTime() <= Date.now()) {
        throw new DataSourceError(
          'misuse',
          `expiresAt ${expiresAt.toISOString()} is in the past; give a future time or none.`,
        );
      }
      const token = `trw_${randomBytes(32).toString('base64url')}`;
      try {
        const row = await q
          .insertInto('mcp_tokens')
          .values({
            name,
            token_hash: hashToken(token),
            scope,
            expires_at: expiresAt ?? null,
            ask_via_client: askViaClient === true,
            connection: connection ?? null,
            person: person ?? null,
          })
          .returningAll()
          .executeTakeFirstOrThrow();
        return { token, record: toToken(row) };
      } catch (error) {
        if (isUniqueViolation(error)) {
          throw new DataSourceError(
            'already-exists',
            `A live MCP token named '${name}' exists already. Revoke it first or pick another name.`,
          );
        }
        throw error;
      }
    },
    async verify(token) {
      if (typeof token !== 'string' || token.length === 0) return { ok: false, reason: 'unknown' };
      const hash = hashToken(token);
      const now = Date.now();
      let record = cache.get(hash, now) as McpToken | undefined;
      if (!record) {
        const row = await q
          .selectFrom('mcp_tokens')
          .selectAll()
          .where('token_hash', '=', hash)
          .executeTakeFirst();
        if (!row) return { ok: false, reason: 'unknown' };
        record = toToken(row);
        if (record.revokedAt) return { ok: false, reason: 'revoked', token: record };
        cache.set(hash, record, now);
      }
      if (record.expiresAt && record.expiresAt.getTime() <= now)
        return { ok: false, reason: 'expired', token: record };
      // No write per request: the stamp is remembered and written with the next flush.
      const at = new Date(now);
      tokenLastUse.touch(record.id, at);
      return { ok: true, token: { ...record, lastUsedAt: at } };
    },
    async list() {
      await tokenLastUse.flush();
      return (await q.selectFrom('mcp_tokens').selectAll().orderBy('created_at').orderBy('id').execute()).map(
        toToken,
      );
    },
    async revoke(name) {
      const revoked = await q.transaction().execute(async (tx) => {
        const result = await tx
          .updateTable('mcp_tokens')
          .set({ revoked_at: new Date() })
          .where('name', '=', name)
          .where('revoked_at', 'is', null)
          .executeTakeFirst();
        // A later token may take the name: it must not inherit this one's remembered grants.
        if (result.numUpdatedRows > 0n)
          await tx.deleteFrom('grants').where('grantee', '=', `mcp:${name}`).execute();
        return result.numUpdatedRows > 0n;
      });
      cache.clear();
      return revoked;
    },
  };
}
