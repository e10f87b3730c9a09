// Team mode's people, as the provider last described them: their groups and role, and what Toolrow
// needs to ask the provider again (a refresh token, or an access token until it expires). Every
// instance on this store checks them in turn; one that finds a person gone ends their sessions,
// personal tokens, MCP tokens and OAuth grants at once. Personal tokens are the CLI's: bound to a
// person, acting with the person's current role, listed and revocable.
import { randomBytes } from 'node:crypto';
import { DataSourceError } from '@toolrow/datasource';
import { date, dateOrNull, jsonValue, type StateDb } from '../store/state-db.ts';
import { hashToken } from '../token-hash.ts';
import type { TeamRole } from './team-sessions.ts';

/** The settings key a team's Toolrow writes its provider under: the store is a team's from then on. */
export const TEAM_STORE_KEY = 'team.issuer';

/** The team's provider when this store is a team's, else undefined. */
export async function teamIssuer(q: StateDb['q']): Promise<string | undefined> {
  const row = await q
    .selectFrom('settings')
    .select('value')
    .where('key', '=', TEAM_STORE_KEY)
    .executeTakeFirst();
  return row?.value;
}

/** Marks the store as a team's (at a team's start). */
export async function markTeamStore(q: StateDb['q'], issuer: string): Promise<void> {
  await q
    .insertInto('settings')
    .values({ key: TEAM_STORE_KEY, value: issuer, updated_at: new Date() })
    .onConflict((oc) => oc.column('key').doUpdateSet({ value: issuer, updated_at: new Date() }))
    .execute();
}

export interface TeamPerson {
  email: string;
  name: string;
  role: TeamRole;
  groups: string[];
  checkedAt: Date;
}

/** What the provider says of a person at sign-in or at a check. */
export interface ProviderView {
  name: string;
  role: TeamRole;
  groups: string[];
  /** Kept to ask the provider again; undefined keeps the one stored. */
  refreshToken?: string | null;
  accessToken?: string | null;
  accessExpiresAt?: Date | null;
}

/** What a check of a person needs: how to ask the provider about them. */
export interface PersonToCheck {
  email: string;
  role: TeamRole;
  groups: string[];
  refreshToken: string | null;
  accessToken: string | null;
  accessExpiresAt: Date | null;
}

export interface PersonalToken {
  name: string;
  email: string;
  createdAt: Date;
  expiresAt: Date | null;
  lastUsedAt: Date | null;
}

/** What ending a person took away. */
export interface Removal {
  sessions: number;
  personalTokens: number;
  mcpTokens: number;
  oauthGrants: number;
}

export interface TeamPeopleRepository {
  /** Records a person as the provider just described them (at sign-in). */
  signedIn(email: string, view: ProviderView): Promise<void>;
  /** A person not removed, or undefined. */
  person(email: string): Promise<TeamPerson | undefined>;
  /** Everyone not removed, by email. */
  people(): Promise<TeamPerson[]>;
  /**
   * Takes the people last checked before `before` for checking, each by one instance only (their
   * checked time moves to now as they are taken).
   */
  takeDue(before: Date, limit?: number): Promise<PersonToCheck[]>;
  /** What a check found: the provider still knows them, as this. */
  checked(email: string, view: ProviderView): Promise<void>;
  /** Removes a person: their sessions, personal tokens, MCP tokens and OAuth grants end now. */
  remove(email: string, reason: string): Promise<Removal>;
  /** A personal token for the CLI; the token is returned once and only its hash is kept. */
  createToken(
    email: string,
    name: string,
    ttlMs: number | null,
  ): Promise<{ token: string; record: PersonalToken }>;
  tokens(email: string): Promise<PersonalToken[]>;
  /** Revokes a person's own token by name; false when they have no such live token. */
  revokeToken(email: string, name: string): Promise<boolean>;
  /** The person a presented personal token acts for (its last use moved to now), or undefined. */
  verifyToken(token: string): Promise<TeamPerson | undefined>;
  /**
   * Marks this store as the team's (a team's Toolrow does at start): from then on the staging
   * area wants a person for every change and an approver for every commit, whoever calls it.
   */
  markTeamStore(issuer: string): Promise<void>;
  /** The team's provider when this store is a team's, else undefined. */
  teamIssuer(): Promise<string | undefined>;
}

export const PERSONAL_TOKEN_PREFIX = 'trp_';

const toPerson = (row: {
  email: string;
  name: string;
  role: string;
  groups: unknown;
  checked_at: unknown;
}): TeamPerson => ({
  email: row.email,
  name: row.name,
  role: row.role as TeamRole,
  groups: jsonValue<string[]>(row.groups) ?? [],
  checkedAt: date(row.checked_at),
});

const toToken = (row: {
  name: string;
  email: string;
  created_at: unknown;
  expires_at: unknown;
  last_used_at: unknown;
}): PersonalToken => ({
  name: row.name,
  email: row.email,
  createdAt: date(row.created_at),
  expiresAt: dateOrNull(row.expires_at),
  lastUsedAt: dateOrNull(row.last_used_at),
});

export function createTeamPeople(db: StateDb, onRevoke: () => void): TeamPeopleRepository {
  const { q } = db;
  const viewColumns = (view: ProviderView) => ({
    name: view.name,
    role: view.role,
    groups: JSON.stringify(view.groups),
    ...(view.refreshToken === undefined ? {} : { refresh_token: view.refreshToken }),
    ...(view.accessToken === undefined ? {} : { access_token: view.accessToken }),
    ...(view.accessExpiresAt === undefined ? {} : { access_expires_at: view.accessExpiresAt }),
  });
  const live = () => q.selectFrom('team_people').selectAll().where('removed_at', 'is', null);
  const personOf = async (email: string) => {
    const row = await live().where('email', '=', email).executeTakeFirst();
    return row ? toPerson(row) : undefined;
  };

  return {
    async signedIn(email, view) {
      const now = new Date();
      await q
        .insertInto('team_people')
        .values({
          email,
          refresh_token: null,
          access_token: null,
          access_expires_at: null,
          ...viewColumns(view),
          checked_at: now,
          removed_at: null,
        })
        .onConflict((oc) =>
          oc.column('email').doUpdateSet({ ...viewColumns(view), checked_at: now, removed_at: null }),
        )
        .execute();
    },
    person: personOf,
    async people() {
      return (await live().orderBy('email').execute()).map(toPerson);
    },
    async takeDue(before, limit = 50) {
      const due = await live().where('checked_at', '<', before).orderBy('checked_at').limit(limit).execute();
      const taken: PersonToCheck[] = [];
      for (const row of due) {
        // Taken by whoever moves its checked time first: another instance finds it moved and skips it.
        const result = await q
          .updateTable('team_people')
          .set({ checked_at: new Date() })
          .where('email', '=', row.email)
          .where('checked_at', '=', row.checked_at)
          .executeTakeFirst();
        if (Number(result.numUpdatedRows) !== 1) continue;
        taken.push({
          email: row.email,
          role: row.role as TeamRole,
          groups: jsonValue<string[]>(row.groups) ?? [],
          refreshToken: row.refresh_token,
          accessToken: row.access_token,
          accessExpiresAt: dateOrNull(row.access_expires_at),
        });
      }
      return taken;
    },
    async checked(email, view) {
      await q
        .updateTable('team_people')
        .set({ ...viewColumns(view), checked_at: new Date() })
        .where('email', '=', email)
        .where('removed_at', 'is', null)
        .execute();
    },
    async remove(email, reason) {
      const now = new Date();
      const removal = await q.transaction().execute(async (tx) => {
        await tx
          .updateTable('team_people')
          .set({ removed_at: now, refresh_token: null, access_token: null })
          .where('email', '=', email)
          .execute();
        const sessions = await tx.deleteFrom('team_sessions').where('email', '=', email).executeTakeFirst();
        const personal = await tx
          .updateTable('team_tokens')
          .set({ revoked_at: now })
          .where('email', '=', email)
          .where('revoked_at', 'is', null)
          .executeTakeFirst();
        const mcp = await tx
          .updateTable('mcp_tokens')
          .set({ revoked_at: now })
          .where('person', '=', email)
          .where('revoked_at', 'is', null)
          .executeTakeFirst();
        const grants = await tx
          .updateTable('oauth_grants')
          .set({ revoked_at: now, revoked_reason: reason })
          .where('person', '=', email)
          .where('revoked_at', 'is', null)
          .executeTakeFirst();
        return {
          sessions: Number(sessions.numDeletedRows),
          personalTokens: Number(personal.numUpdatedRows),
          mcpTokens: Number(mcp.numUpdatedRows),
          oauthGrants: Number(grants.numUpdatedRows),
        };
      });
      onRevoke();
      return removal;
    },
    async createToken(email, name, ttlMs) {
      if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(name))
        throw new DataSourceError(
          'misuse',
          `Token name '${name}' is not allowed: use 1–64 letters, digits, '.', '_' or '-', starting with a letter or digit.`,
        );
      if (!(await personOf(email)))
        throw new DataSourceError('not-found', `${email} is not a signed-in member of this team.`);
      const taken = await q
        .selectFrom('team_tokens')
        .select('id')
        .where('email', '=', email)
        .where('name', '=', name)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      if (taken)
        throw new DataSourceError(
          'already-exists',
          `You have a live token named '${name}' already. Revoke it first or pick another name.`,
        );
      const token = `${PERSONAL_TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
      const row = await q
        .insertInto('team_tokens')
        .values({
          name,
          email,
          token_hash: hashToken(token),
          created_at: new Date(),
          expires_at: ttlMs === null ? null : new Date(Date.now() + ttlMs),
          last_used_at: null,
          revoked_at: null,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return { token, record: toToken(row) };
    },
    async tokens(email) {
      const now = new Date();
      const rows = await q
        .selectFrom('team_tokens')
        .selectAll()
        .where('email', '=', email)
        .where('revoked_at', 'is', null)
        .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
        .orderBy('id')
        .execute();
      return rows.map(toToken);
    },
    markTeamStore: (issuer) => markTeamStore(q, issuer),
    teamIssuer: () => teamIssuer(q),
    async revokeToken(email, name) {
      const result = await q
        .updateTable('team_tokens')
        .set({ revoked_at: new Date() })
        .where('email', '=', email)
        .where('name', '=', name)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },
    async verifyToken(token) {
      if (!token.startsWith(PERSONAL_TOKEN_PREFIX)) return undefined;
      const hash = hashToken(token);
      const row = await q
        .selectFrom('team_tokens')
        .select(['email', 'expires_at', 'revoked_at'])
        .where('token_hash', '=', hash)
        .executeTakeFirst();
      if (!row || row.revoked_at !== null) return undefined;
      const expires = dateOrNull(row.expires_at);
      if (expires && expires.getTime() <= Date.now()) return undefined;
      const person = await personOf(row.email);
      if (!person) return undefined;
      await q
        .updateTable('team_tokens')
        .set({ last_used_at: new Date() })
        .where('token_hash', '=', hash)
        .execute();
      return person;
    },
  };
}
