// Team mode: what the signed-in person's role lets them do, so the app offers only that and says
// why the rest is off. The server decides per route (apps/server/src/team/roles.ts); its test walks
// this table's routes, so the two cannot drift. The single-person app may do everything.
import { type TeamSession, teamSession } from './api.ts';

type Role = TeamSession['role'];
const ROLES: readonly Role[] = ['viewer', 'analyst', 'approver', 'admin'];

/** Each action the app offers, the least role it needs, and a route of the server it calls. */
export const APP_ACTIONS = {
  stage: { role: 'analyst', method: 'POST', path: '/api/staging/update', what: 'stage changes' },
  discard: {
    role: 'analyst',
    method: 'POST',
    path: '/api/staging/discard',
    what: 'discard your own changes',
  },
  commit: { role: 'approver', method: 'POST', path: '/api/staging/commit', what: 'commit' },
  chat: { role: 'analyst', method: 'POST', path: '/api/chat', what: 'run the agent' },
  export: { role: 'analyst', method: 'POST', path: '/api/exports', what: 'export' },
  mode: { role: 'admin', method: 'PUT', path: '/api/profile', what: 'change the permission mode' },
  model: { role: 'admin', method: 'PUT', path: '/api/settings/model', what: 'change the model' },
  connections: { role: 'admin', method: 'POST', path: '/api/connections', what: 'add a connection' },
} as const satisfies Record<string, { role: Role; method: string; path: string; what: string }>;

export type AppAction = keyof typeof APP_ACTIONS;

export type Allowed = { ok: true; why?: undefined } | { ok: false; why: string };

/** Whether the person may do `action`, and in words why not. */
export function allowed(action: AppAction, session: TeamSession | null = teamSession()): Allowed {
  if (!session) return { ok: true };
  const needed = APP_ACTIONS[action];
  if (ROLES.indexOf(session.role) >= ROLES.indexOf(needed.role)) return { ok: true };
  return {
    ok: false,
    why: `As ${session.role} you may not ${needed.what}: that needs ${needed.role} or above.`,
  };
}

/** A staged change's discard: an approver discards any; an analyst her own alone. */
export function mayDiscard(
  change: { person?: string | null },
  session: TeamSession | null = teamSession(),
): Allowed {
  const base = allowed('discard', session);
  if (!session || !base.ok) return base;
  if (ROLES.indexOf(session.role) >= ROLES.indexOf('approver')) return { ok: true };
  return change.person === session.user.email
    ? { ok: true }
    : {
        ok: false,
        why: `Staged by ${change.person ?? 'someone else'}: as ${session.role} you discard only your own.`,
      };
}
