// Team mode: on when the team's OpenID provider is configured. Read once at start; a partial or
// malformed configuration stops the server with what to set, never falls back to single-person mode.
import { TEAM_ROLES, type TeamRole } from '@toolrow/state';

export interface TeamConfig {
  issuer: URL;
  clientId: string;
  clientSecret: string;
  /** Where people reach the app; the provider redirects to <publicUrl>/auth/callback. */
  publicUrl: URL;
  /** Provider group → role (TOOLROW_OIDC_ROLES); a person in no mapped group is a viewer. */
  roles: ReadonlyMap<string, TeamRole>;
  /** The claim that lists a person's groups (TOOLROW_OIDC_GROUPS_CLAIM, default groups). */
  groupsClaim: string;
  /** The scopes asked for (TOOLROW_OIDC_SCOPES, default "openid email profile"; add the one your provider puts groups in). */
  scopes: string;
  /** TOOLROW_OIDC_SCOPES was set: asked as given. Unset, a scope the provider lists for the groups claim is added. */
  scopesGiven: boolean;
  /** A session unused this long ends (TOOLROW_SESSION_IDLE_MINUTES, default 8 h). */
  idleMs: number;
  /** A session ends this long after sign-in whatever its use (TOOLROW_SESSION_HOURS, default 24 h). */
  absoluteMs: number;
  /** How often each person is asked about at the provider again (TOOLROW_TEAM_RECHECK_SECONDS, default 30 s). */
  recheckMs: number;
}

type Env = Readonly<Record<string, string | undefined>>;

function positive(env: Env, name: string, fallback: number): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0)
    throw new Error(`${name} must be a positive number, got '${raw}'.`);
  return value;
}

function urlOf(env: Env, name: string): URL {
  const raw = env[name]!.trim();
  try {
    const url = new URL(raw);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error('not http(s)');
    return url;
  } catch {
    throw new Error(`${name} must be an http(s) URL, got '${raw}'.`);
  }
}

/** "analysts=analyst, data-leads=approver" → group → role. */
export function parseRoleMap(text: string | undefined): Map<string, TeamRole> {
  const roles = new Map<string, TeamRole>();
  for (const part of (text ?? '').split(',')) {
    if (part.trim() === '') continue;
    const at = part.lastIndexOf('=');
    const group = part.slice(0, at).trim();
    const role = part.slice(at + 1).trim();
    if (at <= 0 || group === '' || !(TEAM_ROLES as readonly string[]).includes(role)) {
      throw new Error(
        `TOOLROW_OIDC_ROLES: '${part.trim()}' is not group=role with a role of ${TEAM_ROLES.join(', ')} (e.g. TOOLROW_OIDC_ROLES="data-team=analyst,data-leads=approver").`,
      );
    }
    roles.set(group, role as TeamRole);
  }
  return roles;
}

/** The team configuration the environment gives, or undefined (the single-person app). */
export function teamConfigFrom(env: Env): TeamConfig | undefined {
  const required = ['TOOLROW_OIDC_ISSUER', 'TOOLROW_OIDC_CLIENT_ID', 'TOOLROW_OIDC_CLIENT_SECRET'] as const;
  const given = required.filter((name) => env[name]?.trim());
  if (given.length === 0) return undefined;
  const missing = [...required, 'TOOLROW_PUBLIC_URL'].filter((name) => !env[name]?.trim());
  if (missing.length > 0)
    throw new Error(
      `Team mode needs ${missing.join(', ')} as well (set: ${given.join(', ')}). Set them all, or none for the single-person app.`,
    );
  return {
    issuer: urlOf(env, 'TOOLROW_OIDC_ISSUER'),
    clientId: env.TOOLROW_OIDC_CLIENT_ID!.trim(),
    clientSecret: env.TOOLROW_OIDC_CLIENT_SECRET!.trim(),
    publicUrl: urlOf(env, 'TOOLROW_PUBLIC_URL'),
    roles: parseRoleMap(env.TOOLROW_OIDC_ROLES),
    groupsClaim: env.TOOLROW_OIDC_GROUPS_CLAIM?.trim() || 'groups',
    scopes: env.TOOLROW_OIDC_SCOPES?.trim() || 'openid email profile',
    scopesGiven: Boolean(env.TOOLROW_OIDC_SCOPES?.trim()),
    idleMs: positive(env, 'TOOLROW_SESSION_IDLE_MINUTES', 8 * 60) * 60_000,
    absoluteMs: positive(env, 'TOOLROW_SESSION_HOURS', 24) * 3_600_000,
    recheckMs: positive(env, 'TOOLROW_TEAM_RECHECK_SECONDS', 30) * 1000,
  };
}

/** The highest role any of the person's groups maps to; viewer when none does. */
export function roleOf(groups: unknown, roles: ReadonlyMap<string, TeamRole>): TeamRole {
  const list = Array.isArray(groups)
    ? groups.filter((group): group is string => typeof group === 'string')
    : [];
  let best = 0;
  for (const group of list) best = Math.max(best, TEAM_ROLES.indexOf(roles.get(group) ?? 'viewer'));
  return TEAM_ROLES[best]!;
}
