// The app's side of MCP OAuth: the consent page the authorization server sends a browser to
// (behind the app's own login), and the connected clients (list, disconnect) for the app's UI and
// `toolrow mcp clients`. The protocol endpoints are @toolrow/mcp-server's (oauth/).

import { accessOf, type EngineView, isGated, rowOf, SILENT_TOOLS, TOOL_NAMES } from '@toolrow/catalog';
import { installedEngines } from '@toolrow/engines';
import {
  type AuthorizationServer,
  CONSENT_LIFETIMES,
  type ConsentLifetime,
  type ConsentRequest,
  capScope,
  DEFAULT_CONSENT_LIFETIME,
  grantsMatching,
  isMcpScope,
  MCP_SCOPES,
  type McpScope,
  scopeCovers,
  toolsForScope,
  toWireClient,
} from '@toolrow/mcp-server';
import type { OAuthGrant, ToolrowState } from '@toolrow/state';
import type { Context, Hono } from 'hono';
import { z } from 'zod';
import { readForm, readQuery } from './body.ts';
import { badRequest, HttpError } from './errors.ts';
import { escapeHtml } from './html.ts';
import type { ServerEnv } from './request-connection.ts';

/**
 * What every scope reads, from the rows: the silent reads an MCP client may make (each run
 * without asking), and the gated reads of rows, which follow the profile's mode.
 */
const exposed = (name: (typeof TOOL_NAMES)[number]) => rowOf(name).mcp !== 'excluded';
const CONSENT_READS = `Every scope includes reads that run without asking, in any mode: ${SILENT_TOOLS.filter(exposed).join(', ')} (table and column names, row estimates, and the database's statistics of a column${SILENT_TOOLS.includes('sampleValues' as never) ? ', so sampleValues shows its most common values and its bounds: some values of any column, up to 100' : ''}). Reads of rows (${TOOL_NAMES.filter((name) => exposed(name) && isGated(name) && accessOf(name) === 'read').join(', ')}) follow the profile's permission mode.`;

export const CONSENT_PATH = '/oauth/consent';

/** What the consent and clients routes need of the authorization server. */
export type ConsentService = Pick<AuthorizationServer, 'consentRequest' | 'approve' | 'deny'>;

const SCOPE_WORDS: Record<McpScope, string> = {
  'tables:readonly': 'read the tables, their schema and the app state',
  'tables:staged': 'read, and stage changes that you review and commit',
  'tables:full': 'read, stage, and also open tabs and start exports now',
};

function page(title: string, body: string, status = 200): Response {
  const html = `<!doctype html><html lang="en"><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escapeHtml(title)}</title>
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:42em;margin:0 auto;padding:2em;color:#1d2330}h1{font-size:1.4em}
fieldset{border:1px solid #d5d9e0;border-radius:8px;margin:1em 0;padding:.8em 1em}legend{font-weight:600}
.client{background:#f4f6fa;border-radius:8px;padding:.8em 1em}code{background:#eef1f6;padding:0 .3em;border-radius:4px}
button{font:inherit;padding:.5em 1.4em;border-radius:6px;border:1px solid #aab;margin-right:.6em;cursor:pointer}
button.approve{background:#2457d6;color:#fff;border-color:#2457d6}label{display:block;margin:.2em 0}</style>
<body>${body}</body></html>`;
  return new Response(html, {
    status,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      // The page must not be framed by another site (clickjacking the Approve button).
      'x-frame-options': 'DENY',
      'content-security-policy': "frame-ancestors 'none'; default-src 'none'; style-src 'unsafe-inline'",
      // same-origin, not no-referrer: with no-referrer the form's POST says Origin: null.
      'referrer-policy': 'same-origin',
    },
  });
}

/** A connection the consent page offers: the app's own, and each named one exposed over MCP. */
export interface ConsentConnection {
  name: string;
  description: string;
  /** Its engine (id and features): which tools a client is served there. */
  engine: EngineView;
  /** Its MCP exposure: the widest scope a client gets there (none: what the client is granted). */
  ceiling?: McpScope;
}

/** The tools a client granted `scope` is served on this connection: its engine's, at most its exposure. */
function servedTools(scope: McpScope, connection: ConsentConnection | undefined): number {
  const held = connection?.ceiling ? capScope(scope, connection.ceiling) : scope;
  return toolsForScope(held, connection?.engine).length;
}

function consentPage(
  request: ConsentRequest,
  connections: ConsentConnection[],
  defaultConnection: string,
  current: readonly OAuthGrant[],
): Response {
  const who =
    request.clientKind === 'metadata-document'
      ? `identified by its metadata document at <code>${escapeHtml(request.clientId)}</code> (host <b>${escapeHtml(new URL(request.clientId).host)}</b>)`
      : 'registered itself with this Toolrow (its name is its own claim)';
  const scopes = MCP_SCOPES.filter((scope) => scopeCovers(request.scope, scope));
  const preselected = connections.find((connection) => connection.name === defaultConnection);
  // The page runs no script: counts are the preselected connection's, and each option says its own.
  const scopeInputs = scopes
    .map(
      (scope) =>
        `<label><input type="radio" name="scope" value="${scope}"${scope === request.scope ? ' checked' : ''}> <code>${scope}</code>: ${SCOPE_WORDS[scope]} (<span data-testid="consent-tools-${scope}">${servedTools(scope, preselected)}</span> tools${preselected ? ` on ${escapeHtml(preselected.name)}` : ''})</label>`,
    )
    .join('');
  const connectionOptions = connections
    .map((connection) => {
      const counts = scopes.map((scope) => servedTools(scope, connection)).join('/');
      return `<option value="${escapeHtml(connection.name)}"${connection.name === defaultConnection ? ' selected' : ''}>${escapeHtml(connection.name)}: ${escapeHtml(connection.description)} (${escapeHtml(installedEngines.find(connection.engine.engine)?.label ?? connection.engine.engine)}${connection.ceiling ? `, at most ${escapeHtml(connection.ceiling)}` : ''}; ${counts} tools)</option>`;
    })
    .join('');
  const replaces = current
    .map(
      (grant) =>
        `<input type="hidden" name="replaces" value="${escapeHtml(grant.id)}"><li><code>${escapeHtml(grant.scope)}</code> on <b>${escapeHtml(grant.profile)}</b> (mcp:${escapeHtml(grant.actorName)}, since ${escapeHtml(grant.createdAt.toISOString().slice(0, 16).replace('T', ' '))})</li>`,
    )
    .join('');
  const currentBlock =
    current.length > 0
      ? `<fieldset data-testid="consent-current"><legend>Connected already</legend><p>${escapeHtml(request.clientName)} holds:</p><ul>${replaces}</ul><label><input type="checkbox" name="replace" value="1" checked> Replace it with this consent (it ends once the client takes the new one)</label></fieldset>`
      : '';
  // The shortest useful grant is preselected: a longer one is the user's choice, not a click-through.
  const lifetimes = CONSENT_LIFETIMES.map(
    (entry) =>
      `<option value="${entry.id}"${entry.id === DEFAULT_CONSENT_LIFETIME ? ' selected' : ''}>${escapeHtml(entry.label)}</option>`,
  ).join('');
  return page(
    'Toolrow: connect an MCP client?',
    `<h1>Connect <span data-testid="consent-client">${escapeHtml(request.clientName)}</span> to Toolrow?</h1>
<div class="client"><p>An MCP client ${who} asks to use your tables.</p>
<p>After you decide, your browser goes back to <code data-testid="consent-redirect">${escapeHtml(request.redirectUri)}</code>.</p>
<p>It asked for <code data-testid="consent-scope">${request.scope}</code>.</p></div>
<form method="post" action="${CONSENT_PATH}">
<input type="hidden" name="request" value="${escapeHtml(request.id)}"><input type="hidden" name="csrf" value="${escapeHtml(request.csrf)}">
${currentBlock}<fieldset><legend>What it may do</legend>${scopeInputs}
<p data-testid="consent-silent-reads">${CONSENT_READS}</p></fieldset>
<fieldset><legend>Connection</legend><label>It works on <select name="profile" data-testid="consent-connection">${connectionOptions}</select></label>
<p>It sees this connection alone, never another one; its mode, tabs, history and audit entries are this connection's.</p></fieldset>
<fieldset><legend>For how long</legend><label>Stay connected for <select name="lifetime">${lifetimes}</select></label>
<p>You can disconnect it any time in the app or with <code>toolrow mcp clients revoke</code>.</p></fieldset>
<fieldset><legend>When a call needs your approval</legend><label><input type="checkbox" name="askViaClient" value="1"> Let the client ask me itself (MCP elicitation, if it supports it) instead of this app's approval inbox</label><p class="note" data-testid="elicitation-note">A client is asked itself only if it says, when it connects, that it can ask you (MCP 2026-07-28 clients per call, 2025-11-25 clients in their session). A client that cannot be asked, or that connects without a session, is never asked there: its calls wait in this app's approval inbox instead, never for an answer that cannot come.</p></fieldset>
<button class="approve" name="decision" value="approve" type="submit">Approve</button><button name="decision" value="deny" type="submit">Deny</button>
</form>`,
  );
}

const see = (location: string) =>
  new Response(null, {
    status: 303,
    headers: { location, 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' },
  });

/**
 * Mounts the consent page and the connected-clients API. They sit behind the app's login (the
 * server's middleware); the approve/deny POST is also checked to come from this origin and to
 * carry the request's own CSRF value, and the login cookie is SameSite=Strict.
 */
/** The consent page's form (see consentPage). */
const consentForm = z.object({
  request: z.string().default(''),
  csrf: z.string().default(''),
  decision: z.enum(['approve', 'deny']),
  scope: z.string().default(''),
  profile: z.string().optional(),
  lifetime: z.string().default(''),
  askViaClient: z.string().optional(),
  replace: z.string().optional(),
  replaces: z.union([z.string(), z.array(z.string())]).optional(),
});

export function mountOAuthRoutes(
  app: Hono<ServerEnv>,
  options: {
    consent: ConsentService;
    state: ToolrowState;
    /** The connection the MCP endpoint was started on: offered first. */
    profile: string;
    /** The connections a client may be given (the app's own and the exposed named ones). */
    connections: () => Promise<ConsentConnection[]>;
    port: () => number;
    /** Team mode: where people reach the app (its origin is this page's own), and the most each role may grant. */
    team?: { publicOrigin: string; roleScope: Readonly<Record<string, McpScope>> };
  },
): void {
  const { consent, state } = options;
  /** The client's live grants, newest first. */
  const grantsOf = async (clientId: string) =>
    (await state.oauth.listGrants())
      .filter((grant) => grant.clientId === clientId)
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime());

  app.get(CONSENT_PATH, async (c) => {
    const id = c.req.query('request') ?? '';
    const request = consent.consentRequest(id);
    if (!request) {
      return page(
        'Toolrow: request expired',
        '<h1>This connection request is unknown or expired</h1><p>Requests last 15 minutes and work once. Connect again from the MCP client.</p>',
        404,
      );
    }
    const offered = await options.connections();
    const current = await grantsOf(request.clientId);
    // A client connected already keeps its connection by default (a step-up asks for more scope, not another database).
    const kept = current.find((grant) => offered.some((connection) => connection.name === grant.profile));
    return consentPage(request, offered, kept?.profile ?? options.profile, current);
  });

  app.post(CONSENT_PATH, async (c) => {
    // Same-origin only: a form on another site cannot even carry the cookie (SameSite=Strict), and
    // a page on another local port is another origin.
    const own = [
      `http://127.0.0.1:${options.port()}`,
      `http://localhost:${options.port()}`,
      ...(options.team ? [options.team.publicOrigin] : []),
    ];
    const origin = c.req.header('origin');
    const site = c.req.header('sec-fetch-site');
    const sameOrigin =
      site !== undefined ? site === 'same-origin' : origin === undefined || own.includes(origin);
    if (!sameOrigin || (origin !== undefined && !own.includes(origin))) {
      return page(
        'Toolrow: refused',
        '<h1>Refused</h1><p>The consent can only be given on this Toolrow page itself.</p>',
        403,
      );
    }
    const type = c.req.header('content-type')?.split(';')[0]?.trim().toLowerCase();
    if (type !== 'application/x-www-form-urlencoded') throw badRequest('Send the consent form as a form.');
    const form = await readForm(c, consentForm);
    const { request: id, csrf } = form;
    try {
      if (form.decision === 'deny') return see(consent.deny(id, csrf));
      const profile = form.profile || options.profile;
      const offered = await options.connections();
      if (!offered.some((connection) => connection.name === profile)) {
        throw new Error(
          `'${profile}' is not a connection this client may be given: choose one of ${offered.map((connection) => connection.name).join(', ')} (a named connection is offered once it is exposed: toolrow connections set <name> --mcp readonly).`,
        );
      }
      // Team mode: the grant is the signed-in person's, and holds no more than their role.
      const member = c.get('member');
      if (member && options.team) {
        const most = options.team.roleScope[member.role]!;
        if (!isMcpScope(form.scope) || !scopeCovers(most, form.scope))
          throw new Error(
            `As ${member.role} you may connect a client with at most ${most}; ${form.scope} was asked. Choose ${most}, or ask for a role that allows more.`,
          );
      }
      // The consent service checks the scope and lifetime against what the request may have.
      const replaces =
        form.replace === '1'
          ? [form.replaces ?? []].flat().filter((each) => typeof each === 'string' && each.length > 0)
          : [];
      const location = await consent.approve(id, csrf, {
        scope: form.scope as McpScope,
        profile,
        lifetime: form.lifetime as ConsentLifetime,
        askViaClient: form.askViaClient === '1',
        ...(replaces.length > 0 ? { replaces } : {}),
        ...(member ? { person: member.email } : {}),
      });
      return see(location);
    } catch (error) {
      if (error instanceof HttpError) throw error;
      const message = error instanceof Error ? error.message : String(error);
      return page(
        'Toolrow: consent failed',
        `<h1>The consent could not be recorded</h1><p>${escapeHtml(message)}</p>`,
        400,
      );
    }
  });
}

/**
 * The connected MCP clients, listed and disconnected from the app. Mounted whether or not the app
 * serves MCP now: the grants are in the state either way, and a client connected in an earlier run
 * is still one the user may want to see or cut off.
 */
export function mountMcpClientRoutes(app: Hono<ServerEnv>): void {
  const state = (c: Context<ServerEnv>) => c.var.connection.state;
  app.get('/api/mcp/clients', async (c) => {
    const all = readQuery(c, z.object({ all: z.enum(['0', '1']).optional() })).all === '1';
    const grants = await state(c).oauth.listGrants({ all });
    return c.json({ clients: grants.map(toWireClient) });
  });

  app.post('/api/mcp/clients/:id/revoke', async (c) => {
    const key = c.req.param('id');
    const grants = await state(c).oauth.listGrants();
    const matching = grantsMatching(grants, key);
    if (matching.length === 0) {
      throw new HttpError(
        404,
        'not-found',
        `No connected MCP client '${key}'.`,
        'See the ids with `toolrow mcp clients` (or GET /api/mcp/clients).',
      );
    }
    for (const grant of matching) await state(c).oauth.revokeGrant(grant.id);
    return c.json({ revoked: matching.map((grant) => toWireClient({ ...grant, revokedAt: new Date() })) });
  });
}
