// `npm start`: build what is missing, open (or create and seed) the database, serve, print the URL.
import { createServer } from 'node:net';
import { type DataSource, featureOf, type SeedProgress } from '@toolrow/datasource';
import { desktopBuildState, ensureDesktopBuild } from '@toolrow/desktop';
import type { AppStatus } from '@toolrow/desktop/wire';
import { installedEngines } from '@toolrow/engines';
import { type ApprovalInbox, approvalTimeoutFromEnv, createApprovalInbox } from '@toolrow/mcp-server';
import {
  type ConnectionHub,
  createConnectionHub,
  openToolrow,
  resolveDataDir,
  type Toolrow,
} from '@toolrow/state';
import type { LanguageModel } from 'ai';
import { appTokenFrom } from './app-auth.ts';
import { AppAlreadyRunningError, findRunningApp, writeAppFile } from './app-file.ts';
import { loadApprovalSecret } from './approval-secret.ts';
import { type MountedMcp, mountMcp } from './mcp.ts';
import { createToolrowServer, type ToolrowServer } from './server.ts';
import { teamConfigFrom } from './team/config.ts';

/** The port `npm start` uses unless TOOLROW_PORT (or --port) says otherwise. */
export const DEFAULT_PORT = 4747;

export interface StartOptions {
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  /** Default: TOOLROW_PORT, else 4747. 0 picks a free port. */
  port?: number;
  /** The address to listen on (default TOOLROW_HOST, else 127.0.0.1); another than loopback is team mode's only. */
  host?: string;
  /** Mount the MCP endpoint (default: TOOLROW_MCP=1). */
  mcp?: boolean;
  /** Orders in the sample shop when the embedded database is new (default 50 000). */
  seedOrders?: number;
  /** Build the desktop bundle when it is missing or stale (default true). */
  build?: boolean;
  /** Use these instead of opening the configured data and state (tests). */
  toolrow?: Toolrow;
  /** Test-only: a scripted model instead of TOOLROW_MODEL. */
  model?: LanguageModel | null;
  /** Progress and the final banner (the CLI passes stderr and stdout). */
  out: (text: string) => void;
  err: (text: string) => void;
  /** True when err is a terminal: progress redraws one line. */
  tty?: boolean;
}

export interface StartedApp {
  /** The base URL, e.g. http://127.0.0.1:4747 (every request needs the token). */
  url: string;
  /** The link `npm start` prints: the base URL with `?token=`, which signs a browser in. */
  openUrl: string;
  /** This launch's app secret (TOOLROW_APP_TOKEN, else random). */
  token: string;
  /** `<data dir>/app.json`, where the CLI finds the app; removed by close(). */
  appFile: string;
  server: ToolrowServer;
  toolrow: Toolrow;
  mcp: MountedMcp | null;
  close(): Promise<void>;
}

export async function startApp(options: StartOptions): Promise<StartedApp> {
  const { env, err } = options;
  const port = options.port ?? portFrom(env.TOOLROW_PORT);
  const token = appTokenFrom(env);

  // Before anything opens: an app already serving this data dir keeps it (and its app.json).
  const dataDir = options.toolrow?.state.dataDir ?? resolveDataDir({ env, cwd: options.cwd });
  const running = findRunningApp(dataDir);
  if (running && running.pid !== process.pid) throw new AppAlreadyRunningError(dataDir, running);

  if (options.build ?? true) {
    const state = desktopBuildState();
    if (!state.built || state.stale) {
      err(
        state.built
          ? 'Rebuilding the desktop app (its sources changed)…\n'
          : 'Building the desktop app (first run)…\n',
      );
      await ensureDesktopBuild({ quiet: true });
    }
  }

  // Before the database opens: a second `npm start` must not open the same embedded database.
  if (port !== 0) await assertPortFree(port);

  const toolrow =
    options.toolrow ?? (await openToolrow({ env, ...(options.cwd ? { cwd: options.cwd } : {}) }));
  const { source, state } = toolrow;
  let mcp: MountedMcp | null = null;
  let approvals: ApprovalInbox | undefined;
  let hub: ConnectionHub | undefined;
  try {
    const tables = (await source.schema.get()).tables;
    if (tables.length === 0) {
      // Only the embedded sample is filled unasked; a connection the user named is theirs.
      if (installedEngines.driver(source.driver)?.driver.embedded && !toolrow.connection.named) {
        await seedWithProgress(source, options.seedOrders ?? 50_000, err, options.tty ?? false);
      } else {
        err(
          `The database (${source.description}) has no tables yet. Fill it with the sample shop: npx toolrow db seed${toolrow.connection.named ? ` --connection ${toolrow.connection.name}` : ''}\n`,
        );
      }
    }

    // The header's switcher (and OAuth clients granted another connection) open the other
    // connections beside this one, on the same state store.
    hub = createConnectionHub(toolrow);

    // One inbox for every MCP client: the app's endpoint and `toolrow mcp --stdio` beside it.
    approvals = createApprovalInbox({ timeoutMs: approvalTimeoutFromEnv(env) });
    const mcpOn = options.mcp ?? ['1', 'true', 'yes', 'on'].includes((env.TOOLROW_MCP ?? '').toLowerCase());
    if (mcpOn) {
      mcp = await mountMcp({
        source,
        state,
        profile: toolrow.connection.profile,
        hub,
        ...(env.TOOLROW_MCP_SCOPE ? { scope: env.TOOLROW_MCP_SCOPE } : {}),
        // Development mode: a client metadata document may be served from this machine.
        allowLoopbackClientDocuments: env.TOOLROW_DEV === '1',
        approvals,
        team: teamConfigFrom(env) !== undefined,
        onerror: (error) => err(`MCP: ${error.message}\n`),
      });
    }

    // Kept beside the data, so approvals pending in saved conversations survive a restart.
    const approvalSecret = env.TOOLROW_APPROVAL_SECRET || (await loadApprovalSecret(state.dataDir));
    const server = await createToolrowServer({
      source,
      state,
      profile: toolrow.connection.profile,
      connections: hub,
      cwd: options.cwd,
      env: { ...env, TOOLROW_APPROVAL_SECRET: approvalSecret },
      ...(options.model !== undefined ? { model: options.model } : {}),
      mcp: mcp?.mount ?? null,
      approvals,
      log: (message) => err(`${message}\n`),
      token,
    });
    const host = options.host ?? (env.TOOLROW_HOST?.trim() || undefined);
    const { url, port: listening, openUrl } = await server.listen({ port, ...(host ? { host } : {}) });
    let appFile: Awaited<ReturnType<typeof writeAppFile>>;
    try {
      appFile = await writeAppFile(state.dataDir, { url, port: listening, token });
    } catch (error) {
      await server.close();
      throw error;
    }

    const close = async () => {
      appFile.remove();
      approvals?.close();
      await server.close();
      await hub?.close();
      if (!options.toolrow) await toolrow.close();
    };
    const started: StartedApp = { url, openUrl, token, appFile: appFile.file, server, toolrow, mcp, close };
    const team = teamConfigFrom(env);
    if (team) {
      // A team's app: the launch token opens nothing, so its banner says where people sign in.
      options.out(
        `${[
          '',
          `  Toolrow serves a team at ${team.publicUrl.origin} (this instance listens on ${host ?? '127.0.0.1'}:${listening}).`,
          `  People sign in through ${team.issuer.href} at ${new URL('/auth/login', team.publicUrl).href};`,
          '  roles come from their groups (TOOLROW_OIDC_ROLES). The launch token opens nothing.',
          '',
          `  data      ${source.description}`,
          `  state     ${state.description}`,
          `  MCP       ${mcp ? `on at ${team.publicUrl.origin}/mcp (each person's own tokens and consents)` : 'off'}`,
          '',
          '  Press Ctrl+C to stop.',
          '',
        ].join('\n')}\n`,
      );
      return { ...started, openUrl: team.publicUrl.href };
    }
    const status = (await (
      await server.app.request('/api/status', {
        headers: { host: hostOf(url), authorization: `Bearer ${token}` },
      })
    ).json()) as AppStatus;
    const lines = [
      '',
      `  Toolrow is running at ${openUrl}`,
      '',
      '  Open that link: its token signs your browser in. The token is new on every start',
      '  (TOOLROW_APP_TOKEN fixes it); scripts send it as Authorization: Bearer <token>.',
      `  The toolrow CLI finds the app in ${appFile.file} and goes through it.`,
      '',
      `  data      ${source.description}`,
      `  state     ${state.description}`,
      `  model     ${status.model.configured ? status.model.id : 'none — the chat explains how to set TOOLROW_MODEL'}`,
      `  mode      ${status.mode} (change it in the app)`,
      `  MCP       ${mcp ? `on at ${url}/mcp, scope ${mcp.scope}` : 'off (TOOLROW_MCP=1 npm start to serve it)'}`,
    ];
    if (mcp) {
      lines.push(
        '',
        `  MCP clients that sign in with OAuth (Claude Desktop, VS Code, Cursor) need only the URL`,
        `  ${url}/mcp: they open a consent page here. \`toolrow mcp clients\` lists them.`,
        '  For a client without OAuth, paste this (the token is shown once, and replaced on every start):',
        '',
      );
      lines.push(
        ...mcp
          .clientConfig(url)
          .trimEnd()
          .split('\n')
          .map((line) => `    ${line}`),
      );
    }
    lines.push('', '  Press Ctrl+C to stop.', '');
    options.out(`${lines.join('\n')}\n`);

    return started;
  } catch (error) {
    await hub?.close().catch(() => {});
    if (!options.toolrow) await toolrow.close().catch(() => {});
    throw error;
  }
}

async function assertPortFree(port: number): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const probe = createServer();
    probe.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        error.code === 'EADDRINUSE'
          ? new Error(
              `127.0.0.1:${port} is already in use (by another program, or a Toolrow that runs already: then open http://127.0.0.1:${port}/). Stop it, or pick another port: npm start -- --port ${port + 1} (or TOOLROW_PORT=${port + 1}; a second Toolrow also needs its own TOOLROW_DATA_DIR).`,
            )
          : error,
      ),
    );
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve()));
  });
}

function portFrom(value: string | undefined): number {
  if (value === undefined || value === '') return DEFAULT_PORT;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new Error(
      `TOOLROW_PORT=${value} is not a port: use a number from 1 to 65535 (or 0 for any free port).`,
    );
  }
  return port;
}

const hostOf = (url: string) => new URL(url).host;

async function seedWithProgress(
  source: DataSource,
  orders: number,
  err: (text: string) => void,
  tty: boolean,
) {
  err(`Creating the sample shop (${orders.toLocaleString('en-US')} orders) in ${source.description}…\n`);
  let lastTable = '';
  let lastShown = 0;
  const result = await featureOf(
    source,
    'seed',
  )({
    orders,
    onProgress(progress: SeedProgress) {
      const percent = progress.total > 0 ? Math.floor((progress.done / progress.total) * 100) : 100;
      if (tty) {
        err(`\r  ${progress.table.padEnd(12)} ${bar(percent)} ${String(percent).padStart(3)}%`);
        if (progress.done >= progress.total) err('\n');
      } else if (
        progress.table !== lastTable ||
        percent >= lastShown + 50 ||
        progress.done >= progress.total
      ) {
        if (progress.table !== lastTable) lastShown = 0;
        if (percent > lastShown || progress.table !== lastTable) err(`  ${progress.table}: ${percent}%\n`);
        lastTable = progress.table;
        lastShown = percent;
      }
    },
  });
  const counts = Object.entries(result.counts)
    .map(([table, count]) => `${count.toLocaleString('en-US')} ${table}`)
    .join(', ');
  err(`  done in ${(result.durationMs / 1000).toFixed(1)} s: ${counts}\n`);
}

function bar(percent: number): string {
  const filled = Math.round(percent / 5);
  return `[${'#'.repeat(filled)}${'.'.repeat(20 - filled)}]`;
}
