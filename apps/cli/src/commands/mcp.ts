import { randomUUID } from 'node:crypto';
import { type ParseArgsOptionsConfig, parseArgs } from 'node:util';
import type { Transport } from '@modelcontextprotocol/client';
import {
  APPROVAL_TIMEOUT_ENV,
  approvalTimeoutFromEnv,
  capScope,
  createMcpHttpHandler,
  createToken,
  createToolrowBackend,
  DEFAULT_MCP_PORT,
  DEFAULT_TOKEN_TTL,
  grantsMatching,
  isMcpScope,
  MCP_BRIDGE_HEADERS,
  MCP_BRIDGE_PATH,
  MCP_SCOPES,
  type McpApprovals,
  type McpPrincipal,
  type McpScope,
  parseScope,
  parseTtl,
  remoteApprovals,
  renderClientConfig,
  resolveStdioPrincipal,
  STDIO_ENV,
  scopeCovers,
  serveMcpHttp,
  serveMcpStdio,
  toWireClient,
  type WireMcpClient,
} from '@toolrow/mcp-server';
import {
  type AppStateHandle,
  DEFAULT_PROFILE,
  type McpToken,
  openAppState,
  resolveConnectionName,
  type Toolrow,
  UNNAMED_CONNECTION,
  unknownConnection,
  VERIFY_CACHE_TTL_MS,
} from '@toolrow/state';
import {
  type AppRoute,
  appHeaders,
  explainHeldDatabase,
  getFromApp,
  openOrApp,
  openToolrowWaiting,
  postToApp,
  runningApp,
} from '../app-client.ts';
import { type Command, type CommandIo, UsageError } from '../command.ts';
import { takeEarlyStdio } from '../early-stdio.js';
import { formatTable, formatTime, toJson } from '../format.ts';

const SCOPES = MCP_SCOPES.join(' | ');

const usage = `Usage: toolrow mcp --stdio [--scope <scope>] [--profile <name>]
       toolrow mcp --http [--port <n>] [--profile <name>]
       toolrow mcp token create --scope <scope> [--ttl <ttl>] [--name <name>] [--ask-via-client] [--json]
       toolrow mcp token list [--json]
       toolrow mcp token revoke <name>
       toolrow mcp clients [--all] [--json]
       toolrow mcp clients revoke <id | mcp:name | client_id>

Serve Toolrow's tools to MCP clients; each client sees exactly what its scope allows.
Scopes nest: ${SCOPES}.

  --stdio           one local client over stdin/stdout. Credentials come from the environment:
                    ${STDIO_ENV.token}=<token> runs as that token (its scope; --scope may only narrow it);
                    without it the client is you, at --scope, else ${STDIO_ENV.scope}, else tables:readonly.
                    While the app (npm start) holds the embedded database, the client is served through it.
  --http            Streamable HTTP on 127.0.0.1 only (port ${DEFAULT_MCP_PORT}; --port 0 picks a free one).
                    Every request needs a bearer token from \`toolrow mcp token create\`.
  --profile <name>  the profile whose mode, tabs and history the tools use (default: the connection's, ${DEFAULT_PROFILE} for the unnamed one)

Gated calls follow the profile's mode, as in chat: in Manual (and for what Auto asks) a call waits
for the user in the running Toolrow app's approval inbox (${APPROVAL_TIMEOUT_ENV}, seconds or 90s/5m,
default 5m), and is refused when no app is running or nobody answers in time.
  token create      prints a new token once (only its sha-256 is stored). --ttl: 30m, 12h, 7d, 4w
                    or never (default ${DEFAULT_TOKEN_TTL}); --name: how the audit log names the client
                    (mcp:<name>; default mcp-<n>); --ask-via-client: when the ladder asks, this
                    client may ask its own user (MCP elicitation) instead of the app's inbox, if it
                    declares the capability; --json prints {"token","scope","expiresAt"}.
  token list        every token: name, scope, status, created, expires, last used.
  token revoke      revokes a token by name; clients using it get 401 from then on.
  clients           MCP clients connected through OAuth (the app's consent page, when the app serves
                    MCP): who, scope, profile, expiry, last use. --all includes disconnected ones.
  clients revoke    disconnects a client: its tokens stop working at once. While the app runs,
                    these go through it.`;

function parse(args: string[], options: ParseArgsOptionsConfig) {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

function usageScope(text: string): ReturnType<typeof parseScope> {
  try {
    return parseScope(text);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/**
 * A named connection's MCP exposure: the widest scope its clients get. Off refuses to serve it,
 * saying how to turn it on; the unnamed connection has no ceiling (the token's scope decides).
 */
async function exposureOf(toolrow: Toolrow): Promise<McpScope | undefined> {
  if (!toolrow.connection.named) return undefined;
  return exposureNamed(toolrow.state.connections, toolrow.connection.name);
}

/** The MCP exposure of the connection of this name (none for the unnamed one); off is refused. */
async function exposureNamed(
  connections: AppStateHandle['connections'],
  name: string,
): Promise<McpScope | undefined> {
  if (name === UNNAMED_CONNECTION) return undefined;
  const found = await connections.get(name);
  if (!found) {
    const names = (await connections.list()).filter((each) => each.named).map((each) => each.name);
    throw unknownConnection(name, names);
  }
  if (!found.mcpScope || !isMcpScope(found.mcpScope)) {
    throw new Error(
      `The connection '${name}' is not exposed over MCP (its MCP exposure is off), so no MCP client is served on it. Expose it with: toolrow connections set ${name} --mcp readonly (or staged, full: the widest scope its clients get).`,
    );
  }
  return found.mcpScope;
}

/** A token made for one connection is never served on another: refused, naming both. */
function checkTokenConnection(principal: McpPrincipal, connection: string): void {
  if (principal.profile === undefined || principal.profile === connection) return;
  throw new Error(
    `The token ${principal.name} (${STDIO_ENV.token}) is for the connection '${principal.profile}', not '${connection}': nothing was read. Run toolrow --connection ${principal.profile} mcp --stdio, or make a token for '${connection}': toolrow --connection ${connection} mcp token create --scope ${principal.scope}.`,
  );
}

async function withSource<T>(io: CommandIo, fn: (toolrow: Toolrow) => Promise<T>): Promise<T> {
  const toolrow = await openToolrowWaiting(io);
  try {
    return await fn(toolrow);
  } finally {
    await toolrow.close();
  }
}

/** Toolrow's own records only: token commands read none of the user's data, so they open none. */
async function withAppState<T>(io: CommandIo, fn: (state: AppStateHandle) => Promise<T>): Promise<T> {
  const state = await openAppState({ env: io.env, cwd: io.cwd });
  try {
    return await fn(state);
  } finally {
    await state.close();
  }
}

function statusOf(token: McpToken, now: Date): string {
  if (token.revokedAt) return 'revoked';
  if (token.expiresAt && token.expiresAt <= now) return 'expired';
  return 'active';
}

async function tokenCommand(args: string[], io: CommandIo): Promise<number> {
  const [action, ...rest] = args;
  if (action === 'create') {
    const { values, positionals } = parse(rest, {
      scope: { type: 'string' },
      ttl: { type: 'string' },
      name: { type: 'string' },
      'ask-via-client': { type: 'boolean' },
      json: { type: 'boolean' },
    });
    if (positionals.length > 0) throw new UsageError(`Unexpected argument '${positionals[0]}'.`);
    if (values.scope === undefined) throw new UsageError(`token create needs --scope (${SCOPES}).`);
    const scope = usageScope(values.scope as string);
    let ttlMs: number | null;
    try {
      ttlMs = parseTtl((values.ttl as string | undefined) ?? DEFAULT_TOKEN_TTL);
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
    // Bound to the connection this command acts on: it is served there and nowhere else.
    const connection = await resolveConnectionName({ env: io.env, cwd: io.cwd });
    const created = await withAppState(io, async (state) => {
      const ceiling = await exposureNamed(state.connections, connection);
      if (ceiling && !scopeCovers(ceiling, scope)) {
        io.stderr(
          `Note: the connection '${connection}' is exposed at most at ${ceiling}, so clients with this token are served at ${ceiling} (widen it with: toolrow connections set ${connection} --mcp ${scope}).\n`,
        );
      }
      return createToken(state.tokens, {
        scope,
        ttlMs,
        connection,
        ...(values.name ? { name: values.name as string } : {}),
        ...(values['ask-via-client'] ? { askViaClient: true } : {}),
      });
    });
    if (values.json) {
      io.stdout(
        toJson({
          token: created.token,
          scope: created.scope,
          connection,
          expiresAt: created.expiresAt?.toISOString() ?? null,
          askViaClient: created.record.askViaClient,
        }),
      );
    } else {
      io.stdout(`${created.token}\n`);
      io.stderr(
        `Token '${created.name}' for the connection '${connection}' (${created.scope}, ${created.expiresAt ? `expires ${formatTime(created.expiresAt)}` : 'never expires'}). ` +
          'It is shown once: copy it now. Clients send it as "Authorization: Bearer <token>".\n',
      );
    }
    return 0;
  }
  if (action === 'list') {
    const { values, positionals } = parse(rest, { json: { type: 'boolean' } });
    if (positionals.length > 0) throw new UsageError(`Unexpected argument '${positionals[0]}'.`);
    const tokens = await withAppState(io, (state) => state.tokens.list());
    const now = new Date();
    if (values.json) {
      io.stdout(
        toJson(
          tokens.map((token) => ({
            name: token.name,
            scope: token.scope,
            connection: token.connection,
            status: statusOf(token, now),
            createdAt: token.createdAt.toISOString(),
            expiresAt: token.expiresAt?.toISOString() ?? null,
            revokedAt: token.revokedAt?.toISOString() ?? null,
            lastUsedAt: token.lastUsedAt?.toISOString() ?? null,
            askViaClient: token.askViaClient,
          })),
        ),
      );
      return 0;
    }
    if (tokens.length === 0) {
      io.stdout('No MCP tokens. Create one with: toolrow mcp token create --scope tables:readonly\n');
      return 0;
    }
    io.stdout(
      `${formatTable(
        ['name', 'scope', 'connection', 'status', 'created', 'expires', 'last used', 'asks'],
        tokens.map((token) => [
          token.name,
          token.scope,
          token.connection ?? '(unbound: an older token)',
          statusOf(token, now),
          formatTime(token.createdAt),
          token.expiresAt ? formatTime(token.expiresAt) : 'never',
          formatTime(token.lastUsedAt),
          token.askViaClient ? 'via client' : 'in app',
        ]),
      )}\n`,
    );
    return 0;
  }
  if (action === 'revoke') {
    const { positionals } = parse(rest, {});
    if (positionals.length !== 1)
      throw new UsageError('token revoke needs exactly one token name (see toolrow mcp token list).');
    const name = positionals[0] as string;
    const revoked = await withAppState(io, (state) => state.tokens.revoke(name));
    if (!revoked) {
      io.stderr(`No active token named '${name}'. See the names with: toolrow mcp token list\n`);
      return 1;
    }
    // A server already running in another process trusts a verified token for VERIFY_CACHE_TTL_MS.
    io.stdout(
      `Revoked '${name}'. Clients using it now get 401${runningApp(io) ? ` (from the running app within ${VERIFY_CACHE_TTL_MS / 1000} s)` : ''}.\n`,
    );
    return 0;
  }
  throw new UsageError(
    action
      ? `Unknown token action '${action}': use create, list or revoke.`
      : 'token needs an action: create, list or revoke.',
  );
}

/**
 * Where gated calls wait for the user: the running app's inbox (app.json beside the data), else
 * nowhere (the ladder then refuses what it would ask, saying to start the app).
 */
function appApprovals(io: CommandIo): { approvals?: McpApprovals; note: string } {
  let timeoutMs: number;
  try {
    timeoutMs = approvalTimeoutFromEnv(io.env);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const app = runningApp(io);
  if (!app) {
    return {
      note: 'no Toolrow app is running, so calls the profile asks about are refused until one is (npx toolrow serve)',
    };
  }
  return {
    approvals: remoteApprovals({ url: app.url, token: app.token, timeoutMs }),
    note: `calls the profile asks about wait in the app's approval inbox at ${app.url}/`,
  };
}

/**
 * The running app's end of a stdio client (it holds the data): the client's messages go there,
 * as `principal`, behind the app's token. The MCP client SDK loads only in this case.
 */
async function bridgeTo(
  app: AppRoute,
  principal: McpPrincipal,
  profile: string | undefined,
  io: CommandIo,
): Promise<Transport> {
  const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
  io.stderr(
    `toolrow mcp: serving ${principal.scope} over stdio as mcp:${principal.name} on the connection '${app.connection}' through the Toolrow app at ${app.url}/ (it holds the database); calls the profile asks about wait in its approval inbox\n`,
  );
  return new StreamableHTTPClientTransport(new URL(`${app.url}${MCP_BRIDGE_PATH}`), {
    requestInit: {
      headers: {
        ...appHeaders(app),
        [MCP_BRIDGE_HEADERS.principal]: JSON.stringify(principal),
        [MCP_BRIDGE_HEADERS.bridge]: randomUUID(),
        ...(profile ? { [MCP_BRIDGE_HEADERS.profile]: profile } : {}),
      },
    },
  });
}

/** Resolves on SIGINT or SIGTERM, whichever comes first. */
function untilSignal(): Promise<string> {
  return new Promise((resolve) => {
    const stop = (signal: string) => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve(signal);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

/** Runs against the app while it holds the database, else on the state directly. */
async function viaAppOrState<T>(
  io: CommandIo,
  viaApp: (app: Parameters<typeof getFromApp>[0]) => Promise<T>,
  direct: (toolrow: Toolrow) => Promise<T>,
): Promise<T> {
  const opened = await openOrApp(io);
  if ('app' in opened) return viaApp(opened.app);
  try {
    return await direct(opened.toolrow);
  } finally {
    await opened.toolrow.close();
  }
}

async function clientsCommand(args: string[], io: CommandIo): Promise<number> {
  if (args[0] === 'revoke') {
    const { positionals } = parse(args.slice(1), {});
    if (positionals.length !== 1)
      throw new UsageError('clients revoke needs exactly one id (see toolrow mcp clients).');
    const key = positionals[0] as string;
    const revoked = await viaAppOrState(
      io,
      async (app) => {
        try {
          return (
            await postToApp<{ revoked: WireMcpClient[] }>(
              app,
              `/api/mcp/clients/${encodeURIComponent(key)}/revoke`,
              {},
            )
          ).revoked;
        } catch (error) {
          if ((error as { status?: number }).status === 404) return [];
          throw error;
        }
      },
      async ({ state }) => {
        const matching = grantsMatching(await state.oauth.listGrants(), key);
        for (const grant of matching) await state.oauth.revokeGrant(grant.id);
        return matching.map((grant) => toWireClient({ ...grant, revokedAt: new Date() }));
      },
    );
    if (revoked.length === 0) {
      io.stderr(`No connected MCP client '${key}'. See the ids with: toolrow mcp clients\n`);
      return 1;
    }
    for (const client of revoked)
      io.stdout(
        `Disconnected ${client.clientName} (${client.actor}, ${client.id}): its tokens stop working now.\n`,
      );
    return 0;
  }
  const { values, positionals } = parse(args, { json: { type: 'boolean' }, all: { type: 'boolean' } });
  if (positionals.length > 0) throw new UsageError(`Unknown clients action '${positionals[0]}': use revoke.`);
  const clients = await viaAppOrState(
    io,
    async (app) =>
      (await getFromApp<{ clients: WireMcpClient[] }>(app, `/api/mcp/clients${values.all ? '?all=1' : ''}`))
        .clients,
    async ({ state }) => (await state.oauth.listGrants({ all: Boolean(values.all) })).map(toWireClient),
  );
  if (values.json) {
    io.stdout(toJson(clients));
    return 0;
  }
  if (clients.length === 0) {
    io.stdout(
      'No MCP clients connected through OAuth. Serve MCP from the app (TOOLROW_MCP=1 npm start) and add its /mcp URL to your client: it opens the consent page.\n',
    );
    return 0;
  }
  const when = (iso: string | null) => (iso ? formatTime(new Date(iso)) : '-');
  io.stdout(
    `${formatTable(
      ['id', 'client', 'actor', 'scope', 'profile', 'status', 'expires', 'last used'],
      clients.map((client) => [
        client.id,
        client.clientName,
        client.actor,
        client.scope,
        client.profile,
        client.status,
        client.expiresAt ? when(client.expiresAt) : 'never',
        when(client.lastUsedAt),
      ]),
    )}\n`,
  );
  return 0;
}

export const mcpCommand: Command = {
  usage,
  async run(args, io) {
    if (args[0] === 'token') return tokenCommand(args.slice(1), io);
    if (args[0] === 'clients') return clientsCommand(args.slice(1), io);
    const { values, positionals } = parse(args, {
      stdio: { type: 'boolean' },
      http: { type: 'boolean' },
      scope: { type: 'string' },
      port: { type: 'string' },
      profile: { type: 'string' },
    });
    if (positionals.length > 0) throw new UsageError(`Unknown argument '${positionals[0]}'.`);
    if (Boolean(values.stdio) === Boolean(values.http))
      throw new UsageError('Pick one transport: --stdio or --http.');
    const profileOption = values.profile as string | undefined;

    if (values.stdio) {
      if (values.port !== undefined) throw new UsageError('--port goes with --http, not --stdio.');
      const scope = values.scope === undefined ? undefined : usageScope(values.scope as string);
      // stdout is the protocol channel from here on: everything else goes to stderr.
      // The token is checked first (Toolrow's own store only, milliseconds): a bad one serves nothing.
      const connection = await resolveConnectionName({ env: io.env, cwd: io.cwd });
      const asked = await withAppState(io, (state) =>
        resolveStdioPrincipal({ env: io.env, scope, tokens: state.tokens }),
      );
      const { approvals, note } = appApprovals(io);
      // Refusals that need no data (a token for another connection) are answered inside MCP too.
      const refusal = (async () => checkTokenConnection(asked, connection))();
      // The data opens while the client initializes: initialize is answered before it is warm,
      // and the first list or call waits for it. When the running app holds the data, everything
      // after the handshake goes to the app instead, which serves the client on its behalf.
      const opening = refusal.then(() => openOrApp(io));
      const forward = opening.then(
        (opened) => ('app' in opened ? bridgeTo(opened.app, asked, profileOption, io) : undefined),
        () => undefined,
      );
      const ready = opening.then(async (opened) => {
        if ('app' in opened) return new Promise<never>(() => {});
        const { toolrow } = opened;
        const { source, state } = toolrow;
        const profile = profileOption ?? toolrow.connection.profile;
        const ceiling = await exposureOf(toolrow);
        const capped = capScope(asked.scope, ceiling);
        const principal: McpPrincipal = {
          ...asked,
          scope: capped,
          ...(capped !== asked.scope ? { cappedFrom: asked.scope } : {}),
        };
        const { mode } = await state.profiles.ensure(profile);
        io.stderr(
          `toolrow mcp: serving ${principal.scope} over stdio as mcp:${principal.name}; profile ${profile} is in ${mode} mode; ${note}\n`,
        );
        return { backend: createToolrowBackend({ source, state, profile }), principal };
      });
      // The bin may have answered the handshake already, while this loaded.
      const early = takeEarlyStdio();
      const running = serveMcpStdio({
        ...(early ? { wire: early } : {}),
        backend: ready.then((opened) => opened.backend),
        principal: ready.then((opened) => opened.principal),
        forward,
        ...(approvals ? { approvals } : {}),
        onerror: (error) => io.stderr(`toolrow mcp: ${error.message}\n`),
      });
      // Data that cannot be served (a connection not exposed, a token for another one, a server
      // down): the client gets the reason as the error of each request it makes, which it shows
      // its user, and stderr says it once; the process ends when the client goes.
      let failure: string | undefined;
      ready.catch((error: unknown) => {
        failure =
          explainHeldDatabase('mcp', error, io) ?? (error instanceof Error ? error.message : String(error));
        io.stderr(`toolrow mcp: ${failure}\n`);
      });
      try {
        await Promise.race([running.closed, untilSignal()]);
        await running.close();
        if (failure !== undefined) return 1;
      } finally {
        await opening
          .then((opened) => ('toolrow' in opened ? opened.toolrow.close() : undefined))
          .catch(() => {});
      }
      return 0;
    }

    if (values.scope !== undefined) {
      throw new UsageError(
        "--scope goes with --stdio; over HTTP the scope is the token's (toolrow mcp token create --scope …).",
      );
    }
    const port = values.port === undefined ? DEFAULT_MCP_PORT : Number(values.port);
    if (!Number.isInteger(port) || port < 0 || port > 65535)
      throw new UsageError(`Bad --port '${values.port}': use 0-65535.`);
    return withSource(io, async (toolrow) => {
      const { source, state } = toolrow;
      const profile = profileOption ?? toolrow.connection.profile;
      const ceiling = await exposureOf(toolrow);
      const backend = createToolrowBackend({ source, state, profile });
      const { approvals, note } = appApprovals(io);
      const handler = createMcpHttpHandler({
        backend,
        // A token made for another connection is refused here, naming both.
        connection: toolrow.connection.name,
        ...(ceiling ? { scopeCeiling: ceiling } : {}),
        tokens: state.tokens,
        // The app's OAuth tokens are bound to the app's /mcp: here they are refused, saying so.
        oauth: state.oauth,
        ...(approvals ? { approvals } : {}),
        onerror: (error) => io.stderr(`toolrow mcp: ${error.message}\n`),
      });
      const running = await serveMcpHttp(handler, port);
      io.stdout(
        `Toolrow MCP server on ${running.url} (Streamable HTTP, 127.0.0.1 only; bearer token required).\n` +
          'Create a token: toolrow mcp token create --scope tables:readonly\n' +
          `Gated calls: ${note}.\n` +
          `Client config:\n${renderClientConfig({ kind: 'http', url: running.url })}`,
      );
      const signal = await untilSignal();
      io.stderr(`toolrow mcp: ${signal}, shutting down\n`);
      await running.close();
      return 0;
    });
  },
};
