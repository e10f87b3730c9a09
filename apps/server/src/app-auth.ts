// The app is its user's: every /api route and every page needs this launch's token. Any local
// process can reach 127.0.0.1, so listening there is not enough. The browser trades the token in the
// printed URL (`/?token=…`) for an HttpOnly cookie; scripts send `Authorization: Bearer <token>`.
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { escapeHtml } from './html.ts';

const MIN_TOKEN_LENGTH = 16;

/** The token: TOOLROW_APP_TOKEN when set (scripts), else 256 random bits for this launch only. */
export function appTokenFrom(env: Readonly<Record<string, string | undefined>>): string {
  const fixed = env.TOOLROW_APP_TOKEN?.trim();
  if (!fixed) return randomBytes(32).toString('base64url');
  if (fixed.length < MIN_TOKEN_LENGTH || /\s/.test(fixed)) {
    throw new Error(
      `TOOLROW_APP_TOKEN must be at least ${MIN_TOKEN_LENGTH} characters without spaces (it has ${fixed.length}): anyone who guesses it can use your data. Use a random one, e.g. TOOLROW_APP_TOKEN=$(openssl rand -hex 32), or unset it for a fresh token on every start.`,
    );
  }
  return fixed;
}

/** What the auth check decides: go on, answer a redirect that sets the cookie, or refuse. */
export type AuthVerdict =
  | { kind: 'ok' }
  | { kind: 'login'; location: string; setCookie: string | null }
  | { kind: 'refused'; reason: 'missing' | 'wrong'; via: 'bearer' | 'cookie' | 'link' | null };

export interface AppAuth {
  readonly token: string;
  /** The URL that opens the app: the base URL with `?token=`. */
  openUrl(baseUrl: string): string;
  check(request: { method: string; url: string; headers: { get(name: string): string | null } }): AuthVerdict;
}

/**
 * The cookie carries an HMAC of the token, not the token: it is cookie-safe whatever characters
 * TOOLROW_APP_TOKEN has, and a leaked cookie is not the bearer token. Its name has the port, since
 * cookies ignore ports: two apps on one machine must not overwrite each other's.
 */
export function createAppAuth(token: string, port: () => number): AppAuth {
  const digest = (value: string) => createHash('sha256').update(value).digest();
  const tokenDigest = digest(token);
  const cookieValue = createHmac('sha256', token).update('toolrow app cookie').digest('base64url');
  const cookieDigest = digest(cookieValue);
  // Both sides hashed first: equal lengths for timingSafeEqual, and no early exit on a prefix.
  const matches = (candidate: string, expected: Buffer) => timingSafeEqual(digest(candidate), expected);
  const cookieName = () => `toolrow_app_${port()}`;

  return {
    token,
    openUrl: (baseUrl) => `${baseUrl}/?token=${encodeURIComponent(token)}`,
    check(request) {
      const authorization = request.headers.get('authorization');
      if (authorization !== null) {
        const bearer = /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1];
        return bearer !== undefined && matches(bearer, tokenDigest)
          ? { kind: 'ok' }
          : { kind: 'refused', reason: 'wrong', via: 'bearer' };
      }
      const url = new URL(request.url);
      const cookies = cookiesNamed(request.headers.get('cookie'), cookieName());
      const signedIn = cookies.some((value) => matches(value, cookieDigest));
      const linkToken = tokenOf(url.searchParams.get('token'));
      const page = !isApiPath(url.pathname) && (request.method === 'GET' || request.method === 'HEAD');
      if (page && linkToken !== null) {
        const valid = matches(linkToken, tokenDigest);
        // An old link in a browser signed in to this launch still opens the app.
        if (!valid && !signedIn) return { kind: 'refused', reason: 'wrong', via: 'link' };
        // Redirect to the same URL without the token, so it stays out of the history and the address bar.
        url.searchParams.delete('token');
        return {
          kind: 'login',
          location: `${url.pathname}${url.search}`,
          setCookie: valid ? `${cookieName()}=${cookieValue}; HttpOnly; SameSite=Strict; Path=/` : null,
        };
      }
      if (signedIn) return { kind: 'ok' };
      if (linkToken !== null) return { kind: 'refused', reason: 'missing', via: 'link' };
      return cookies.length > 0
        ? { kind: 'refused', reason: 'wrong', via: 'cookie' }
        : { kind: 'refused', reason: 'missing', via: null };
    },
  };
}

/** The token of a link's `token` parameter; a whole pasted link (…/?token=…) gives the token in it. */
function tokenOf(value: string | null): string | null {
  if (value === null) return null;
  const trimmed = value.trim();
  if (!/^https?:\/\//i.test(trimmed)) return trimmed;
  try {
    return new URL(trimmed).searchParams.get('token') ?? trimmed;
  } catch {
    return trimmed;
  }
}

export const isApiPath = (path: string) => path === '/api' || path.startsWith('/api/');

function cookiesNamed(header: string | null, name: string): string[] {
  if (!header) return [];
  return header
    .split(';')
    .map((pair) => pair.trim())
    .filter((pair) => pair.startsWith(`${name}=`))
    .map((pair) => pair.slice(name.length + 1));
}

/** The 401 of an /api route, in the server's error shape. */
export function unauthorizedJson(verdict: Extract<AuthVerdict, { kind: 'refused' }>, port: number) {
  const message =
    verdict.reason === 'missing' && verdict.via === 'link'
      ? 'The /api routes do not take the token in the URL (where logs and histories keep it): send it in the Authorization header.'
      : verdict.reason === 'missing'
        ? 'This request carries no app token. Every /api route of Toolrow needs the token of this launch, so that only you (not any program on this machine) can use your data.'
        : verdict.via === 'bearer'
          ? 'The token in the Authorization header is not the token this Toolrow was started with.'
          : "The browser's sign-in cookie is from an earlier start of Toolrow: the token changes on every start.";
  return {
    error: {
      message,
      hint: `Open the URL \`npm start\` printed (http://127.0.0.1:${port}/?token=…) in your browser, or send \`Authorization: Bearer <token>\` from a script: the token is in that URL, in app.json in the data dir, or what you set in TOOLROW_APP_TOKEN.`,
      code: 'unauthorized',
    },
  };
}

/**
 * The 401 of a page: a person opened the app (or a page of it, like an MCP client's consent page)
 * without its link. A form takes the link or its token and signs in to the very page asked for, so
 * a consent page opened in a signed-out browser comes back to itself.
 */
export function unauthorizedPage(
  verdict: Extract<AuthVerdict, { kind: 'refused' }>,
  port: number,
  asked?: URL,
): string {
  const why =
    verdict.reason === 'missing'
      ? 'This Toolrow app opens only from the link <code>npm start</code> printed when it started: the link carries a token, so that only you can use your data.'
      : verdict.via === 'link'
        ? 'The token in this link is not the one this Toolrow was started with. It changes on every start (unless <code>TOOLROW_APP_TOKEN</code> fixes it), so an old link stops working.'
        : 'This browser signed in to an earlier start of Toolrow. The token changes on every start (unless <code>TOOLROW_APP_TOKEN</code> fixes it).';
  const hidden = asked
    ? [...asked.searchParams]
        .filter(([name]) => name !== 'token')
        .map(
          ([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`,
        )
        .join('')
    : '';
  const form = asked
    ? `<form method="get" action="${escapeHtml(asked.pathname)}" style="margin-top:1.5em">${hidden}<label for="token">Or paste that link (or the token in it) to sign in and come back to this page:</label><br><input id="token" name="token" type="password" autocomplete="off" required style="width:100%;font:inherit;padding:.3em;margin:.4em 0"><button type="submit">Sign in</button></form>`
    : '';
  return `<!doctype html><meta charset="utf-8"><title>Toolrow: open the link from npm start</title><body style="font:15px/1.5 system-ui;max-width:40em;padding:2em"><h1>Open Toolrow with its link</h1><p>${why}</p><p>Open the URL printed in the terminal where <code>npm start</code> runs, like <code>http://127.0.0.1:${port}/?token=…</code>. It signs this browser in, and reloads work from then on.</p>${form}</body>`;
}
