// Team mode: who is signed in, with what role, and signing out. Nothing in the single-person app.
import { api, teamSession } from './api.ts';

export function SignedIn() {
  const session = teamSession();
  if (!session) return null;
  return (
    <span className="signed-in" data-testid="signed-in">
      <span title={session.user.email}>{session.user.name}</span>
      <span className="role-badge" data-testid="role">
        {session.role}
      </span>
      <button
        type="button"
        className="btn ghost small"
        onClick={() =>
          void api
            .signOut()
            .catch(() => null)
            .then(() => window.location.assign('/auth/login'))
        }
      >
        Sign out
      </button>
    </span>
  );
}
