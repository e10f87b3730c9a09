// The server listens on 127.0.0.1 only, but a web page the user visits can still aim requests at
// it: by DNS rebinding (a foreign Host header) or by a cross-site form/fetch (a foreign Origin, or a
// "simple" request that skips the CORS preflight). These checks refuse both before any route runs.

/** What the guard decides for one request. */
export type GuardVerdict = { ok: true } | { ok: false; status: 403 | 415; message: string; hint: string };

const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]'];
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Host header values this server answers to: a loopback name with the port it listens on. */
export function allowedHosts(port: number): Set<string> {
  return new Set(LOOPBACK_NAMES.map((name) => `${name}:${port}`));
}

export interface GuardOptions {
  /** Paths of the mounted MCP endpoint and its metadata (each also covers the paths under it). */
  mcpPaths?: readonly string[];
  /**
   * Team mode: the host of TOOLROW_PUBLIC_URL (`toolrow.example.com`, or with its port), which a
   * load balancer passes through: answered, and its origin is the app's own.
   */
  publicHost?: string;
}

/**
 * The rule, as a pure function of the request's method, path and headers.
 * - Host must be a loopback name with our port (DNS rebinding sends the attacker's name), on every
 *   path; a request without one is refused too.
 * - The MCP endpoint refuses any Origin but our own, whatever the method: MCP clients send none,
 *   and a page on another local port must not reach it.
 * - State-changing /api requests must come from our own origin (or carry no Origin, as curl does)
 *   and must declare `application/json`, which a cross-site page cannot send without a CORS
 *   preflight this server never approves.
 */
export function checkRequest(
  request: { method: string; path: string; headers: { get(name: string): string | null } },
  port: number,
  options: GuardOptions = {},
): GuardVerdict {
  const host = request.headers.get('host')?.toLowerCase() ?? '';
  const hosts = allowedHosts(port);
  if (options.publicHost) hosts.add(options.publicHost.toLowerCase());
  if (!hosts.has(host)) {
    return {
      ok: false,
      status: 403,
      message: host
        ? `Refused: this Toolrow server only answers requests addressed to 127.0.0.1:${port} or localhost:${port} (the request named host '${host}').`
        : `Refused: the request has no Host header. This Toolrow server only answers requests addressed to 127.0.0.1:${port} or localhost:${port}.`,
      hint: `Open http://127.0.0.1:${port}/ in your browser.`,
    };
  }
  const origin = request.headers.get('origin');
  const foreign =
    origin !== null &&
    !hosts.has(originHost(origin)) &&
    // A team's app is reached over https at its public URL (behind the load balancer's TLS).
    !(options.publicHost && originHost(origin, 'https:') === options.publicHost.toLowerCase());
  const mcp = (options.mcpPaths ?? []).some(
    (path) => request.path === path || request.path.startsWith(`${path}/`),
  );
  if (mcp) {
    return foreign
      ? {
          ok: false,
          status: 403,
          message: `Refused: a page from ${origin} tried to reach the MCP endpoint. MCP clients send no Origin; web pages other than the Toolrow app may not call it.`,
          hint: `Connect an MCP client to http://127.0.0.1:${port}${request.path} with its bearer token.`,
        }
      : { ok: true };
  }
  if (SAFE_METHODS.has(request.method.toUpperCase()) || !request.path.startsWith('/api/'))
    return { ok: true };
  if (foreign) {
    return {
      ok: false,
      status: 403,
      message: `Refused: a page from ${origin} tried to change data through this server. Only the Toolrow app itself may do that.`,
      hint: `Use the app at http://127.0.0.1:${port}/.`,
    };
  }
  const contentType = request.headers.get('content-type')?.split(';')[0]?.trim().toLowerCase() ?? '';
  if (contentType !== 'application/json') {
    return {
      ok: false,
      status: 415,
      message: `Send this request with 'Content-Type: application/json' (it had '${contentType || 'none'}').`,
      hint: 'The API takes JSON bodies only; that also keeps other web pages from posting to it.',
    };
  }
  return { ok: true };
}

function originHost(origin: string, protocol = 'http:'): string {
  try {
    const url = new URL(origin);
    return url.protocol === protocol ? url.host.toLowerCase() : '';
  } catch {
    return '';
  }
}
