// The app's HTTP server: middleware (the request guard, the app's login, the connection a request
// names), then the route modules of routes/ mounted in order; then listening.
import type { AddressInfo } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import {
  DEFAULT_PROFILE,
  isDataSourceError,
  type QueryRunner,
  type StatementAdvice,
} from '@toolrow/datasource';
import { DESKTOP_DIST_DIR } from '@toolrow/desktop';
import { approvalTimeoutFromEnv, createApprovalInbox } from '@toolrow/mcp-server';
import type { ToolContext } from '@toolrow/tools';
import { Hono, type MiddlewareHandler } from 'hono';
import {
  type AppAuth,
  appTokenFrom,
  createAppAuth,
  isApiPath,
  unauthorizedJson,
  unauthorizedPage,
} from './app-auth.ts';
import { chatOfConnection } from './chat-cache.ts';
import { HttpError, toErrorResponse } from './errors.ts';
import { checkRequest } from './guard.ts';
import {
  type AppConnections,
  connectionMiddleware,
  createAppConnections,
  type RequestConnection,
  type ServerEnv,
} from './request-connection.ts';
import { auditRoutes } from './routes/audit.ts';
import { chatRoutes } from './routes/chat.ts';
import { connectionRoutes } from './routes/connections.ts';
import type { RouteContext } from './routes/context.ts';
import { desktopRoutes } from './routes/desktop.ts';
import { evalRoutes } from './routes/eval.ts';
import { exportRoutes } from './routes/exports.ts';
import { mcpRoutes } from './routes/mcp.ts';
import { oauthRoutes } from './routes/oauth.ts';
import { queryRoutes } from './routes/queries.ts';
import { settingsRoutes } from './routes/settings.ts';
import { origin } from './routes/shared.ts';
import { specRoutes } from './routes/specs.ts';
import { stagingRoutes } from './routes/staging.ts';
import { statusRoutes } from './routes/status.ts';
import { tableRoutes } from './routes/tables.ts';
import { toolRoutes } from './routes/tools.ts';
import type { ToolrowServer, ToolrowServerOptions } from './server-types.ts';
import { teamConfigFrom } from './team/config.ts';
import { createTeamAuth } from './team/routes.ts';

export type { ChatContext, ChatHandler } from './chat.ts';
export type { McpMount, ToolrowServer, ToolrowServerOptions } from './server-types.ts';
export { NO_MODEL_HINT } from './server-types.ts';

/** What a refused workbench statement tells the person at it to do in the app instead. */
const WORKBENCH_ADVICE: StatementAdvice = {
  write:
    'The workbench only reads. To change data, open the table and edit its rows (double-click a cell, or select rows and Stage delete): edits wait in Staging until you commit them.',
  explain: 'run the SELECT alone; the agent can show its plan if you ask it',
  export: 'run the SELECT and use Export above the results instead',
  sample: "a table's column header shows its type, and the agent can list a column's common values",
  appState: 'Its contents are in the app itself: Staging, Exports and the Audit log.',
};

export async function createToolrowServer(options: ToolrowServerOptions): Promise<ToolrowServer> {
  const env = options.env ?? {};
  const log = options.log ?? ((message: string) => console.error(message));
  const _desktopDir = options.desktopDir === undefined ? DESKTOP_DIST_DIR : options.desktopDir;
  await options.state.profiles.ensure(options.profile ?? DEFAULT_PROFILE);

  // The chat: a fixed model (tests), else the profile's (Settings, else TOOLROW_MODEL).
  const fixedModel = options.model;
  const currentChat = chatOfConnection(options, env);

  // The active connection (the header's switcher changes it), and the one each request names.
  const connections: AppConnections = createAppConnections(
    {
      source: options.source,
      state: options.state,
      profile: options.profile ?? DEFAULT_PROFILE,
    },
    options.connections ?? null,
    async () => {
      await currentChat(connections.active());
    },
  );
  await currentChat(connections.active());

  /** The statement check of a connection's language (its engine's), its refusal told to a person. */
  async function checkStatement(runner: QueryRunner, text: string): Promise<{ statement: string }> {
    try {
      return await runner.check(text, { advice: WORKBENCH_ADVICE });
    } catch (error) {
      if (!isDataSourceError(error, 'permission')) throw error;
      throw new HttpError(
        400,
        'statement-refused',
        error.message,
        'The workbench runs one read-only SELECT at a time.',
      );
    }
  }

  const userContext = (
    { source, state, profile, person }: RequestConnection,
    signal?: AbortSignal,
  ): ToolContext => ({
    source,
    state,
    profile,
    actor: 'user',
    ...(person ? { person } : {}),
    ...(signal ? { signal } : {}),
  });

  const auth: AppAuth = createAppAuth(options.token ?? appTokenFrom(env), () => server.port);
  // Team mode (TOOLROW_OIDC_*): people sign in through the team's provider; the launch token opens nothing.
  const teamConfig = teamConfigFrom(env);
  const team = teamConfig ? createTeamAuth(teamConfig, () => options.state, log) : undefined;
  // The store is the team's from now on: its staging area wants a person and an approver on every path.
  if (teamConfig) await options.state.team.markTeamStore(teamConfig.issuer.href);
  const teamGuard = team?.guard;
  const approvals = options.approvals ?? createApprovalInbox({ timeoutMs: approvalTimeoutFromEnv(env) });
  const server: ToolrowServer = {
    app: new Hono<ServerEnv>(),
    port: 0,
    token: auth.token,
    approvals,
    listen: async () => {
      throw new Error('unreachable');
    },
    close: async () => {},
  };
  const app = server.app;

  app.onError((error, c) => {
    const { status, body } = toErrorResponse(error);
    // One line for failures the server understood (a tool, the database): the person reads the
    // message, not a trace. A stack only for the unexpected, or with TOOLROW_DEBUG=1.
    if (status >= 500) {
      const traced = body.error.code === 'internal' || env.TOOLROW_DEBUG === '1';
      log(
        `toolrow server: ${c.req.method} ${c.req.path}: ${traced ? (error.stack ?? error.message) : body.error.message}`,
      );
    }
    return c.json(body, status as 400);
  });

  const mcpPaths = options.mcp
    ? [...(options.mcp.paths ?? [options.mcp.path, options.mcp.metadataPath])]
    : [];
  app.use(
    '*',
    accessGuard({
      port: () => server.port,
      auth,
      mcpPaths,
      ...(options.mcp ? { mcpPath: options.mcp.path } : {}),
      ...(teamConfig ? { publicHost: teamConfig.publicUrl.host } : {}),
      ...(teamGuard ? { teamGuard } : {}),
    }),
  );

  // Every API request acts on one connection: the one it names, else the active one.
  app.use('/api/*', connectionMiddleware(connections));

  const ctx: RouteContext = {
    options,
    env,
    log,
    server,
    connections,
    fixedModel,
    approvals,
    currentChat,
    checkStatement,
    userContext,
  };
  if (team) app.route('/', team.routes);
  // The single-person app: nobody is signed in (the desktop asks before it starts).
  else app.get('/api/session', (c) => c.json({ user: null, role: null }));
  for (const routes of [
    statusRoutes(ctx),
    tableRoutes(ctx),
    queryRoutes(ctx),
    stagingRoutes(ctx),
    toolRoutes(ctx),
    specRoutes(ctx),
    exportRoutes(ctx),
    evalRoutes(ctx),
    auditRoutes(ctx),
    settingsRoutes(ctx),
    chatRoutes(ctx),
    connectionRoutes(ctx),
    oauthRoutes(ctx),
  ])
    app.route('/', routes);
  const mcp = mcpRoutes(ctx);
  app.route('/', mcp.app);
  app.route('/', desktopRoutes(ctx));

  // ── Listening ─────────────────────────────────────────────────────────────────────────────
  let node: ReturnType<typeof createAdaptorServer> | null = null;
  server.listen = async ({ port = 0, host = '127.0.0.1' } = {}) => {
    // One person's app answers this machine alone; a team's sits behind its load balancer and sign-in.
    if (host !== '127.0.0.1' && host !== 'localhost' && host !== '::1' && !teamConfig) {
      throw new Error(
        `Refusing to listen on ${host}: the single-person app binds to 127.0.0.1 only (anyone who reaches it acts as you). A team's Toolrow signs people in through its OpenID provider first: set TOOLROW_OIDC_ISSUER, TOOLROW_OIDC_CLIENT_ID, TOOLROW_OIDC_CLIENT_SECRET and TOOLROW_PUBLIC_URL to listen on ${host}.`,
      );
    }
    node = createAdaptorServer({ fetch: app.fetch, hostname: host });
    await new Promise<void>((resolve, reject) => {
      node?.once('error', (error: NodeJS.ErrnoException) =>
        reject(
          error.code === 'EADDRINUSE'
            ? new Error(
                `Port ${port} on ${host} is already in use (another program, or a Toolrow started earlier). Stop what runs there, or pick another port: npm start -- --port ${port + 1} (or TOOLROW_PORT=${port + 1}).`,
              )
            : error,
        ),
      );
      node?.listen(port, host, () => resolve());
    });
    const address = node.address() as AddressInfo;
    server.port = address.port;
    return { url: origin(address.port), port: address.port, openUrl: auth.openUrl(origin(address.port)) };
  };
  server.close = async () => {
    // Waiting calls end now, as refusals, rather than when their clients give up.
    if (!options.approvals) approvals.close();
    team?.close();
    await options.mcp?.close();
    await mcp.close();
    const listening = node;
    node = null;
    if (listening) {
      await new Promise<void>((resolve) => {
        (listening as { closeAllConnections?: () => void }).closeAllConnections?.();
        listening.close(() => resolve());
      });
    }
  };
  return server;
}

/**
 * Who may reach the app: a request from elsewhere is refused (host, origin), the MCP endpoint
 * checks its own tokens, a team's people sign in, and the single person's app wants its secret.
 */
function accessGuard(options: {
  port: () => number;
  auth: AppAuth;
  mcpPaths: readonly string[];
  mcpPath?: string;
  publicHost?: string;
  teamGuard?: MiddlewareHandler<ServerEnv>;
}): MiddlewareHandler<ServerEnv> {
  const { mcpPaths } = options;
  return async (c, next) => {
    const verdict = checkRequest(
      { method: c.req.method, path: c.req.path, headers: c.req.raw.headers },
      options.port(),
      { mcpPaths, ...(options.publicHost ? { publicHost: options.publicHost } : {}) },
    );
    if (!verdict.ok) {
      return c.json(
        { error: { message: verdict.message, hint: verdict.hint, code: 'refused' } },
        verdict.status,
      );
    }
    // The MCP endpoint checks its own bearer tokens (scoped per client); the app secret is not one.
    // Exactly these paths (and what lies under the endpoint itself): /oauth/token/x is not one.
    const mcp =
      mcpPaths.includes(c.req.path) ||
      (options.mcpPath !== undefined && c.req.path.startsWith(`${options.mcpPath}/`));
    if (mcp) return next();
    if (options.teamGuard) return options.teamGuard(c, next);
    const access = options.auth.check({ method: c.req.method, url: c.req.url, headers: c.req.raw.headers });
    if (access.kind === 'login') {
      const headers: Record<string, string> = {
        location: access.location,
        'cache-control': 'no-store',
        'referrer-policy': 'no-referrer',
      };
      if (access.setCookie) headers['set-cookie'] = access.setCookie;
      return new Response(null, { status: 302, headers });
    }
    if (access.kind === 'refused') {
      const challenge = { 'www-authenticate': 'Bearer realm="toolrow"', 'cache-control': 'no-store' };
      if (isApiPath(c.req.path)) return c.json(unauthorizedJson(access, options.port()), 401, challenge);
      return c.html(unauthorizedPage(access, options.port(), new URL(c.req.url)), 401, challenge);
    }
    await next();
  };
}
