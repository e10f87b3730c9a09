// Team mode's sign-ins, in the state store so every instance on it knows them: a login in flight
// (taken once, within LOGIN_TTL_MS) and the sessions it makes. A session's token is only ever
// stored hashed; it ends when idle past `idleMs`, at `expires_at`, at sign-out, or when its person
// is removed.
import { randomBytes } from 'node:crypto';
import { date, type StateDb } from '../store/state-db.ts';
import { hashToken } from '../token-hash.ts';

/** What a person may do on a team's Toolrow, lowest first. */
export const TEAM_ROLES = ['viewer', 'analyst', 'approver', 'admin'] as const;
export type TeamRole = (typeof TEAM_ROLES)[number];

/** How long a login may take between the provider's redirect and its answer. */
export const LOGIN_TTL_MS = 10 * 60 * 1000;

export interface PendingLogin {
  state: string;
  nonce: string;
  verifier: string;
  returnTo: string;
}

export interface TeamSession {
  email: string;
  name: string;
  role: TeamRole;
  /** Sent back in x-csrf-token by every request that changes something. */
  csrf: string;
  createdAt: Date;
  expiresAt: Date;
}

export interface TeamSessionRepository {
  /** Records a login the provider will answer. */
  beginLogin(login: PendingLogin): Promise<void>;
  /** The login with this state, removed as it is read (a state answers once); undefined when unknown or stale. */
  takeLogin(state: string): Promise<PendingLogin | undefined>;
  /** A new session for a person; returns its token (the cookie's value) and the session. */
  create(
    person: { email: string; name: string; role: TeamRole },
    absoluteMs: number,
  ): Promise<{ token: string; session: TeamSession }>;
  /** The live session of a token (its last use moved to now), or undefined: unknown, idle past `idleMs`, or expired. */
  find(token: string, idleMs: number): Promise<TeamSession | undefined>;
  /** Ends one session (sign-out). */
  end(token: string): Promise<void>;
  /** Ends every session of a person (removed, or their group taken away); returns how many. */
  endFor(email: string): Promise<number>;
}

export function createTeamSessions(db: StateDb): TeamSessionRepository {
  const { q } = db;
  return {
    async beginLogin(login) {
      await q
        .deleteFrom('team_logins')
        .where('created_at', '<', new Date(Date.now() - LOGIN_TTL_MS))
        .execute();
      await q
        .insertInto('team_logins')
        .values({
          state: login.state,
          nonce: login.nonce,
          verifier: login.verifier,
          return_to: login.returnTo,
          created_at: new Date(),
        })
        .execute();
    },
    async takeLogin(state) {
      return q.transaction().execute(async (tx) => {
        const row = await tx
          .selectFrom('team_logins')
          .selectAll()
          .where('state', '=', state)
          .executeTakeFirst();
        if (!row) return undefined;
        await tx.deleteFrom('team_logins').where('state', '=', state).execute();
        if (Date.now() - date(row.created_at).getTime() > LOGIN_TTL_MS) return undefined;
        return { state: row.state, nonce: row.nonce, verifier: row.verifier, returnTo: row.return_to };
      });
    },
    async create(person, absoluteMs) {
      const token = randomBytes(32).toString('base64url');
      const now = new Date();
      const session: TeamSession = {
        ...person,
        csrf: randomBytes(24).toString('base64url'),
        createdAt: now,
        expiresAt: new Date(now.getTime() + absoluteMs),
      };
      await q
        .insertInto('team_sessions')
        .values({
          token_hash: hashToken(token),
          email: session.email,
          name: session.name,
          role: session.role,
          csrf: session.csrf,
          created_at: now,
          seen_at: now,
          expires_at: session.expiresAt,
        })
        .execute();
      return { token, session };
    },
    async find(token, idleMs) {
      const hash = hashToken(token);
      const row = await q
        .selectFrom('team_sessions')
        .selectAll()
        .where('token_hash', '=', hash)
        .executeTakeFirst();
      if (!row) return undefined;
      const now = Date.now();
      if (date(row.expires_at).getTime() <= now || date(row.seen_at).getTime() + idleMs <= now) {
        await q.deleteFrom('team_sessions').where('token_hash', '=', hash).execute();
        return undefined;
      }
      await q
        .updateTable('team_sessions')
        .set({ seen_at: new Date(now) })
        .where('token_hash', '=', hash)
        .execute();
      return {
        email: row.email,
        name: row.name,
        role: row.role as TeamRole,
        csrf: row.csrf,
        createdAt: date(row.created_at),
        expiresAt: date(row.expires_at),
      };
    },
    async end(token) {
      await q.deleteFrom('team_sessions').where('token_hash', '=', hashToken(token)).execute();
    },
    async endFor(email) {
      const result = await q.deleteFrom('team_sessions').where('email', '=', email).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
