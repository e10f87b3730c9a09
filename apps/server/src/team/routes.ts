// Team mode's routes and guard. Sign-in starts at GET /auth/login and returns to GET /auth/callback;
// POST /auth/logout ends the session; GET /api/session says who is signed in. Every other route
// needs a live session (an HttpOnly, SameSite cookie), and every request that changes something
// the session's CSRF token in x-csrf-token. The launch token opens nothing here.
import { PERSONAL_TOKEN_PREFIX, type ToolrowState } from '@toolrow/state';
import { type Context, Hono, type MiddlewareHandler } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import type { ServerEnv, TeamMember } from '../request-connection.ts';
import type { TeamConfig } from './config.ts';
import { startPeopleCheck } from './people-check.ts';
import { peopleRoutes } from './people-routes.ts';
import { rank, roleNeeded } from './roles.ts';
import { createTeamSignIn, SignInError } from './sign-in.ts';

export const SESSION_COOKIE = 'toolrow_session';
const LOGIN_COOKIE = 'toolrow_login';
const OPEN_PATHS = new Set(['/auth/login', '/auth/callback']);
/** Forms that carry a CSRF token of their own in the body, and are refused from any other origin. */
const FORM_CSRF_PATHS = new Set(['/oauth/consent']);
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Where a sign-in may return: a path of this app, never another origin. */
function returnPath(raw: string | undefined): string {
  return raw?.startsWith('/') && !raw.startsWith('//') && !raw.startsWith('/\\') ? raw : '/';
}

function refuse(c: Context, status: 401 | 403, code: string, message: string, hint: string) {
  return c.json({ error: { message, hint, code } }, status, { 'cache-control': 'no-store' });
}

export interface TeamAuth {
  /** /auth/login, /auth/callback, /auth/logout, /api/session, and people and personal tokens. */
  routes: Hono<ServerEnv>;
  /** The guard every other route sits behind (MCP paths excepted: they check their own tokens). */
  guard: MiddlewareHandler<ServerEnv>;
  /** Stops asking the provider about people. */
  close(): void;
}

export function createTeamAuth(
  config: TeamConfig,
  state: () => ToolrowState,
  log: (message: string) => void,
): TeamAuth {
  const signIn = createTeamSignIn(config, state().team, log);
  // At start: a provider that offers no way to ask for the groups claim makes everyone a viewer.
  void signIn
    .groupsWarning()
    .then((warning) => warning && log(warning))
    .catch(() => {}); // an unreachable provider is said at the first sign-in
  const secure = config.publicUrl.protocol === 'https:';
  const routes = new Hono<ServerEnv>();
  const check = startPeopleCheck(config, signIn, state, log);

  routes.get('/auth/login', async (c) => {
    const { url, state: loginState } = await signIn.start(returnPath(c.req.query('return')));
    setCookie(c, LOGIN_COOKIE, loginState, {
      httpOnly: true,
      sameSite: 'Lax',
      secure,
      path: '/auth',
      maxAge: 600,
    });
    c.header('cache-control', 'no-store');
    return c.redirect(url, 302);
  });

  routes.get('/auth/callback', async (c) => {
    const bound = getCookie(c, LOGIN_COOKIE);
    deleteCookie(c, LOGIN_COOKIE, { path: '/auth', secure });
    // The URL the provider redirected to, as registered (the request's own may be a proxy's).
    const callback = new URL(`/auth/callback${new URL(c.req.url).search}`, config.publicUrl);
    const login = await signIn.finish(callback, bound).catch((error: unknown) => {
      if (error instanceof SignInError) return error;
      throw error;
    });
    if (login instanceof SignInError)
      return refuse(c, 401, 'sign-in-refused', login.message, 'Start again at /auth/login.');
    await state().team.signedIn(login.person.email, login.view);
    const { token } = await state().team.create(login.person, config.absoluteMs);
    setCookie(c, SESSION_COOKIE, token, {
      httpOnly: true,
      sameSite: 'Lax',
      secure,
      path: '/',
      maxAge: Math.floor(config.absoluteMs / 1000),
    });
    c.header('cache-control', 'no-store');
    return c.redirect(login.returnTo, 302);
  });

  routes.post('/auth/logout', async (c) => {
    const token = getCookie(c, SESSION_COOKIE);
    if (token) await state().team.end(token);
    deleteCookie(c, SESSION_COOKIE, { path: '/', secure });
    return c.json({ signedOut: true });
  });

  routes.get('/api/session', (c) => {
    const member = c.get('member')!;
    return c.json({
      user: { email: member.email, name: member.name },
      role: member.role,
      ...(member.csrf ? { csrfToken: member.csrf } : {}),
    });
  });
  routes.route('/', peopleRoutes(state));

  /** Who a request is: a session's cookie, or a personal token (the CLI's) as a bearer. */
  async function memberOf(c: Context): Promise<TeamMember | 'bad-bearer' | undefined> {
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(c.req.header('authorization') ?? '')?.[1];
    if (bearer !== undefined) {
      // Only a personal token: the launch token, an MCP token or anything else opens nothing here.
      if (!bearer.startsWith(PERSONAL_TOKEN_PREFIX)) return 'bad-bearer';
      const person = await state().team.verifyToken(bearer);
      return person
        ? { email: person.email, name: person.name, role: person.role, via: 'token' }
        : 'bad-bearer';
    }
    const token = getCookie(c, SESSION_COOKIE);
    const session = token ? await state().team.find(token, config.idleMs) : undefined;
    return session
      ? { email: session.email, name: session.name, role: session.role, via: 'session', csrf: session.csrf }
      : undefined;
  }

  return {
    routes,
    close: () => check.stop(),
    guard: async (c, next) => {
      const path = c.req.path;
      if (OPEN_PATHS.has(path)) return next();
      const member = await memberOf(c);
      if (member === 'bad-bearer')
        return refuse(
          c,
          401,
          'sign-in',
          'This Toolrow serves a team: a bearer token here must be a personal token (trp_…) of a member, live and unrevoked.',
          `Make one in the app (POST /api/team/tokens with { "name": "laptop" }) after signing in at ${new URL('/auth/login', config.publicUrl).href}.`,
        );
      if (!member) {
        if (path.startsWith('/api/') || path.startsWith('/auth/') || c.req.method !== 'GET')
          return refuse(
            c,
            401,
            'sign-in',
            'Sign in first: this Toolrow serves a team.',
            `Open ${new URL('/auth/login', config.publicUrl).href}.`,
          );
        return c.redirect(`/auth/login?return=${encodeURIComponent(path)}`, 302);
      }
      // A browser's change carries the CSRF token; a personal token is no ambient credential.
      if (
        member.via === 'session' &&
        !SAFE_METHODS.has(c.req.method) &&
        !FORM_CSRF_PATHS.has(path) &&
        c.req.header('x-csrf-token') !== member.csrf
      )
        return refuse(
          c,
          403,
          'csrf',
          "This request changes something and did not carry the session's CSRF token.",
          'Send x-csrf-token with the csrfToken GET /api/session returns.',
        );
      const needed = roleNeeded(c.req.method, path);
      if (rank(member.role) < rank(needed.role))
        return refuse(
          c,
          403,
          'role',
          `As ${member.role} you may not ${needed.what}: that needs ${needed.role} or above. Nothing was changed.`,
          'Ask whoever runs your identity provider to add you to a group mapped to that role (TOOLROW_OIDC_ROLES).',
        );
      c.set('member', member);
      return next();
    },
  };
}
