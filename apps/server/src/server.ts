import { createReadStream, existsSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { join, relative, sep } from 'node:path';
import { Readable } from 'node:stream';
import { createAdaptorServer } from '@hono/node-server';
import { MODEL_FORMS } from '@toolrow/agent';
import { isPropose, PROPOSE_TWINS, type ProposeToolName } from '@toolrow/catalog';
import {
  APP_SCHEMA,
  type ChangeProtection,
  type DataSource,
  DEFAULT_PROFILE,
  EXPORT_FORMATS,
  type ExportFormat,
  type ExportSource,
  isDataSourceError,
  type QueryRunner,
  unknownNameHint,
} from '@toolrow/datasource';
import { DESKTOP_DIST_DIR } from '@toolrow/desktop';
import type { AppStatus, EvalLatest, Filter, UiState } from '@toolrow/desktop/wire';
import { installedEngines } from '@toolrow/engines';
import type { EvalReport } from '@toolrow/eval';
import {
  APPROVALS_PATH,
  type ApprovalInbox,
  approvalTimeoutFromEnv,
  createApprovalInbox,
  createApprovalsHandler,
  isMcpScope,
} from '@toolrow/mcp-server';
import {
  type ConnectionHub,
  PERMISSION_MODES,
  type StagingFilter,
  type Toolrow,
  type ToolrowState,
} from '@toolrow/state';
import { checkReadOnlySql, invokeTool, isImplementedTool, type ToolContext } from '@toolrow/tools';
import {
  createUIMessageStream,
  createUIMessageStreamResponse,
  type LanguageModel,
  type UIMessage,
  type UIMessageChunk,
} from 'ai';
import { Hono } from 'hono';
import { z } from 'zod';
import {
  type AppAuth,
  appTokenFrom,
  createAppAuth,
  isApiPath,
  unauthorizedJson,
  unauthorizedPage,
} from './app-auth.ts';
import {
  changeIds,
  nonEmpty,
  queryInteger,
  readBody,
  readQuery,
  rowKey,
  wireFilter,
  wireSort,
  wireUiState,
} from './body.ts';
import { mountConnectionRoutes } from './connections.ts';
import {
  conversationIdOf,
  mountConversationRoutes,
  savingStream,
  withoutFailedTurns,
} from './conversations.ts';
import { badRequest, HttpError, toErrorResponse } from './errors.ts';
import { checkRequest } from './guard.ts';
import { mountMcpBridge } from './mcp-bridge.ts';
import { mountModelRoutes } from './model-routes.ts';
import { type ConsentService, mountMcpClientRoutes, mountOAuthRoutes } from './oauth.ts';
import {
  type AppConnections,
  connectionMiddleware,
  createAppConnections,
  type RequestConnection,
  type ServerEnv,
} from './request-connection.ts';
import { serveDesktop } from './static.ts';
import {
  columnTypesOf,
  forFilterBar,
  jsonRow,
  toDsFilter,
  toDsSort,
  toDsUiPatch,
  toTableSummary,
  toWireAudit,
  toWireChange,
  toWireConflict,
  toWireJob,
  toWireTableInfo,
  toWireUiState,
} from './wire.ts';

/** Runs one chat turn; the server builds one from @toolrow/agent (see chat.ts). */
export interface ChatHandler {
  /** The model's id for the status bar. */
  modelId: string;
  /**
   * The turn as a stream of UI message chunks (what useChat reads). The server streams it to the
   * browser and saves the conversation when it ends. Throwing before the stream starts (a bad
   * history) answers the request with a JSON error.
   */
  uiMessageStream(
    messages: UIMessage[],
    options: { profileId: string; engine: string; abortSignal: AbortSignal },
  ): Promise<ReadableStream<UIMessageChunk>>;
  /** Runs a clicked chip's tool as the user (audited as approved by the user). */
  acceptChip?(
    chip: { tool: string; input: unknown; label: string },
    options: { profileId: string },
  ): Promise<unknown>;
}

export interface ToolrowServerOptions {
  /** The user's data (the active connection's at start); the server does not close it. */
  source: DataSource;
  /** Toolrow's own state; the server does not close it. */
  state: ToolrowState;
  /** The profile whose mode, UI state and grants the app uses (default 'default'): the connection's name. */
  profile?: string;
  /**
   * The connections the app may switch between (the header's switcher; GET/POST /api/connections).
   * Without it the app stays on `source` and says so when asked to switch.
   */
  connections?: ConnectionHub;
  /** Relative pglite: paths of connections added in the app resolve against this (default process.cwd()). */
  cwd?: string;
  /** Settings: TOOLROW_MODEL and friends. */
  env?: Readonly<Record<string, string | undefined>>;
  /**
   * The chat's language model. Omit it to use TOOLROW_MODEL; pass null for "no model"; tests pass
   * a scripted MockLanguageModelV4 (this option is how end-to-end tests script the agent).
   */
  model?: LanguageModel | null;
  /** Builds the chat from a model; the default is @toolrow/agent (chat.ts). */
  createChat?: (model: LanguageModel, context: ChatContext) => Promise<ChatHandler> | ChatHandler;
  /** Mount the MCP endpoint (off by default). */
  mcp?: McpMount | null;
  /**
   * The MCP approval inbox the app shows and answers (GET/POST /api/mcp/approvals). Pass the one
   * the MCP mount asks into; default a new one with TOOLROW_MCP_APPROVAL_TIMEOUT's wait.
   */
  approvals?: ApprovalInbox;
  /** The desktop build to serve at `/` (default apps/desktop/dist); null serves no UI. */
  desktopDir?: string | null;
  /** Version shown in the status bar. */
  version?: string;
  /** Logs server-side errors (default console.error). */
  log?: (message: string) => void;
  /**
   * The secret every /api route and page requires (default: TOOLROW_APP_TOKEN from env, else a
   * random one). See app-auth.ts; the MCP paths keep their own bearer tokens.
   */
  token?: string;
  /**
   * The latest `toolrow eval` run, which the Agent tools page shows next to each row (default
   * <data dir>/eval/latest.json, where the command writes it). Read on every request; never written.
   */
  latestEvalPath?: string;
}

export interface ChatContext {
  source: DataSource;
  state: ToolrowState;
  profile: string;
  env: Readonly<Record<string, string | undefined>>;
  /** How the model reads in the status bar (as TOOLROW_MODEL spells it). */
  modelId?: string;
}

/** A fetch handler for the MCP paths, built by the caller from @toolrow/mcp-server (see mcp.ts). */
export interface McpMount {
  path: string;
  metadataPath: string;
  /** Every path it serves, outside the app's login (default: path and metadataPath). */
  paths?: readonly string[];
  /** The authorization server's consent requests, when the mount is one (see oauth.ts). */
  consent?: ConsentService;
  fetch(request: Request): Promise<Response>;
  close(): Promise<void>;
}

export interface ToolrowServer {
  app: Hono<ServerEnv>;
  /** The port the guard accepts in Host headers; set by listen(), or by tests using app.request. */
  port: number;
  /** The app secret: `Authorization: Bearer <token>`, or the cookie the `?token=` link sets. */
  readonly token: string;
  /** Gated MCP calls waiting for the user (Manual mode, and what Auto asks). */
  readonly approvals: ApprovalInbox;
  /** `url` is the base (no token); `openUrl` the link that signs a browser in. */
  listen(options?: { port?: number; host?: string }): Promise<{ url: string; port: number; openUrl: string }>;
  close(): Promise<void>;
}

/** How to set a model, for the chat's answer and the status bar when there is none (forms from @toolrow/agent). */
export const NO_MODEL_HINT = `Pick one in Settings (click the model in the status bar): it applies to the next message. Or set TOOLROW_MODEL to one of these before \`npm start\`:\n${MODEL_FORMS.map((form) => `  ${form.replace(/\s{2,}/, ' — ')}`).join('\n')}`;

const ROWS_PAGE_MAX = 1000;
const WORKBENCH_MAX_ROWS = 1000;
const WORKBENCH_TIMEOUT_MS = 30_000;

export async function createToolrowServer(options: ToolrowServerOptions): Promise<ToolrowServer> {
  const env = options.env ?? {};
  const log = options.log ?? ((message: string) => console.error(message));
  const desktopDir = options.desktopDir === undefined ? DESKTOP_DIST_DIR : options.desktopDir;
  await options.state.profiles.ensure(options.profile ?? DEFAULT_PROFILE);

  // ── The chat: a fixed model (tests), else the profile's (Settings, else TOOLROW_MODEL) ─────
  // Resolved when a turn starts, so a model saved in Settings answers the next message; the chat
  // is rebuilt only when the connection, the profile or its model changed.
  const fixedModel = options.model;
  // One chat per connection, kept until its model changes.
  const chatCache = new Map<DataSource, { key: string; chat: ChatHandler | null; problem: string | null }>();
  async function currentChat({
    source,
    state,
    profile,
  }: RequestConnection): Promise<{ chat: ChatHandler | null; problem: string | null }> {
    const saved = fixedModel ? null : await state.models.get(profile);
    // null: no model unless one is saved in Settings (TOOLROW_MODEL is not read).
    const modelEnv = fixedModel === undefined ? env : { ...env, TOOLROW_MODEL: undefined };
    const key = JSON.stringify([profile, saved?.setting, saved?.updatedAt, modelEnv.TOOLROW_MODEL]);
    const cached = chatCache.get(source);
    if (cached?.key === key) return cached;
    const context = { source, state, profile, env };
    let chat: ChatHandler | null = null;
    let problem: string | null = null;
    try {
      const createChat = options.createChat ?? (await import('./chat.ts')).createAgentChat;
      if (fixedModel) chat = await createChat(fixedModel, context);
      else {
        const { resolveProfileModel } = await import('@toolrow/agent');
        const resolved = await resolveProfileModel({ state, dataDir: state.dataDir, profile, env: modelEnv });
        if (resolved) chat = await createChat(resolved.model, { ...context, modelId: resolved.label });
      }
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      problem = saved
        ? `The model saved in Settings for ${profile} could not be used: ${reason}`
        : `TOOLROW_MODEL=${modelEnv.TOOLROW_MODEL} could not be used: ${reason}`;
    }
    const entry = { key, chat, problem };
    chatCache.set(source, entry);
    return entry;
  }

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

  /** The statement check of a connection's dialect: the engine's own, else the PostgreSQL-grammar guard. */
  async function checkStatement(source: DataSource, text: string): Promise<{ statement: string }> {
    if (source.queries.check) return await source.queries.check(text);
    return checkReadOnlySql(text, { hiddenSchemas: [APP_SCHEMA], audience: 'user' });
  }

  const userContext = ({ source, state, profile }: RequestConnection, signal?: AbortSignal): ToolContext => ({
    source,
    state,
    profile,
    actor: 'user',
    ...(signal ? { signal } : {}),
  });

  const auth: AppAuth = createAppAuth(options.token ?? appTokenFrom(env), () => server.port);
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
  app.use('*', async (c, next) => {
    const verdict = checkRequest(
      { method: c.req.method, path: c.req.path, headers: c.req.raw.headers },
      server.port,
      { mcpPaths },
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
      mcpPaths.includes(c.req.path) || (options.mcp != null && c.req.path.startsWith(`${options.mcp.path}/`));
    if (mcp) return next();
    const access = auth.check({ method: c.req.method, url: c.req.url, headers: c.req.raw.headers });
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
      if (isApiPath(c.req.path)) return c.json(unauthorizedJson(access, server.port), 401, challenge);
      return c.html(unauthorizedPage(access, server.port, new URL(c.req.url)), 401, challenge);
    }
    await next();
  });

  // Every API request acts on one connection: the one it names, else the active one.
  app.use('/api/*', connectionMiddleware(connections));

  // ── Status and profile ────────────────────────────────────────────────────────────────────
  app.get('/api/status', async (c) => {
    const { source, state, profile } = c.var.connection;
    const current = await state.profiles.ensure(profile);
    const listed = await state.connections.list().catch(() => []);
    const active = listed.find((connection) => connection.active);
    const { chat, problem: chatProblem } = await currentChat(c.var.connection);
    const status: AppStatus = {
      version: options.version ?? '0.1.0',
      database: {
        engine: active?.engine ?? source.driver,
        typedValues: installedEngines.find(source.engine)?.capabilities.typedValues ?? false,
        location: active?.description ?? source.dataDir,
        language: { ...source.queries.language },
        languages: [source.queries, ...(source.queries.modes ?? [])].map((runner) => ({
          ...runner.language,
        })),
      },
      model: chat
        ? { configured: true, id: chat.modelId }
        : { configured: false, hint: chatProblem ? `${chatProblem}. ${NO_MODEL_HINT}` : NO_MODEL_HINT },
      mcp: options.mcp
        ? { enabled: true, url: `${origin(server.port)}${options.mcp.path}` }
        : { enabled: false },
      profile,
      mode: current.mode,
      connection: profile,
    };
    return c.json(status);
  });

  app.put('/api/profile', async (c) => {
    const { state, profile } = c.var.connection;
    const body = await readBody(c, z.strictObject({ mode: z.enum(PERMISSION_MODES) }));
    const updated = await state.profiles.setMode(profile, body.mode);
    return c.json({ mode: updated.mode });
  });

  // ── Tables ────────────────────────────────────────────────────────────────────────────────
  app.get('/api/tables', async (c) => {
    const { source } = c.var.connection;
    const snapshot = await source.schema.get();
    return c.json({ tables: snapshot.tables.map(toTableSummary) });
  });

  app.get('/api/tables/:table', async (c) => {
    const { source } = c.var.connection;
    const table = await source.schema.resolveTable(c.req.param('table'));
    return c.json(toWireTableInfo(table, source.rows.filterOps));
  });

  app.post('/api/tables/:table/rows', async (c) => {
    const { source } = c.var.connection;
    const body = await readBody(
      c,
      z.strictObject({
        filter: wireFilter.optional(),
        sort: wireSort.optional(),
        offset: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).default(0),
        limit: z.number().int().min(1).max(ROWS_PAGE_MAX).default(200),
      }),
    );
    const { offset, limit } = body;
    const filter = toDsFilter(body.filter as Filter | undefined);
    const select = (sort: ReturnType<typeof toDsSort>) =>
      source.rows
        .select(c.req.param('table'), { ...(filter ? { filter } : {}), sort, offset, limit })
        .catch((error: unknown) => {
          throw forFilterBar(error, body.filter as Filter | undefined);
        });
    // A sort the engine cannot serve under this filter (DynamoDB reads in key order) is dropped,
    // saying why, rather than leaving the grid empty: the rows are still the filter's.
    let sortDropped: string | undefined;
    const page = await select(toDsSort(body.sort)).catch((error: unknown) => {
      if (!isDataSourceError(error, 'invalid-sort')) throw error;
      sortDropped = error.message;
      return select([]);
    });
    return c.json({
      ...(sortDropped ? { sortDropped } : {}),
      ...(page.sortable ? { sortable: page.sortable } : {}),
      rows: page.rows.map(jsonRow),
      offset,
      hasMore: page.hasMore,
      // How the engine read it, where it says (DynamoDB: Query on which key, or Scan).
      ...(page.access ? { access: page.access } : {}),
      // Values over the cap come back null and are named here; a page over its byte cap stops early.
      ...(page.truncated ? { truncated: true } : {}),
      ...(page.oversized ? { oversized: page.oversized } : {}),
    });
  });

  app.post('/api/tables/:table/count', async (c) => {
    const { source } = c.var.connection;
    const body = await readBody(c, z.strictObject({ filter: wireFilter.optional() }));
    const count = await source.rows
      .count(c.req.param('table'), toDsFilter(body.filter as Filter | undefined))
      .catch((error: unknown) => {
        throw forFilterBar(error, body.filter as Filter | undefined);
      });
    return c.json({ count });
  });

  app.post('/api/tables/:table/row', async (c) => {
    const { source } = c.var.connection;
    const body = await readBody(c, z.strictObject({ key: primaryKey }));
    const row = await source.rows.get(c.req.param('table'), body.key);
    return c.json({ row: row ? jsonRow(row) : null });
  });

  // ── The SQL workbench: the tools' read-only guard, then a capped read-only cursor ─────────
  app.post('/api/query', async (c) => {
    const { source, state, profile } = c.var.connection;
    const body = await readBody(
      c,
      z.strictObject({
        sql: nonEmpty().describe('one SELECT statement'),
        language: z
          .string()
          .optional()
          .describe("the connection's language to read it in (default its first)"),
      }),
    );
    const runner = runnerFor(source, body.language);
    const statement =
      runner === source.queries ? await checkStatement(source, body.sql) : await runner.check!(body.sql);
    const started = performance.now();
    try {
      const result = await runner.run(statement.statement, {
        maxRows: WORKBENCH_MAX_ROWS,
        timeoutMs: WORKBENCH_TIMEOUT_MS,
      });
      const elapsedMs = Math.round(performance.now() - started);
      await state.history.add({
        profile,
        actor: 'user',
        sql: statement.statement,
        rowCount: result.rows.length,
        durationMs: elapsedMs,
        error: null,
      });
      return c.json({
        columns: result.fields.map((field) => field.name),
        rows: result.rows.map(jsonRow),
        rowCount: result.rows.length,
        truncated: result.truncated,
        elapsedMs,
        // How each table was read (DynamoDB: GetItem, Query on which index, or Scan, and items read).
        ...(result.reads ? { reads: result.reads } : {}),
      });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      await state.history.add({
        profile,
        actor: 'user',
        sql: statement.statement,
        rowCount: null,
        durationMs: Math.round(performance.now() - started),
        error: message,
      });
      if (isDataSourceError(error)) throw error;
      throw new HttpError(
        400,
        'query-failed',
        `The query failed: ${message}`,
        `${unknownNameHint(message, (await source.schema.get()).tables).trim() || 'Check the table and column names'} (the table list on the left has every table; a header shows each column).`,
      );
    }
  });

  // The plan of a workbench statement, before anything runs.
  app.post('/api/query/plan', async (c) => {
    const { source } = c.var.connection;
    const body = await readBody(c, z.strictObject({ sql: nonEmpty(), language: z.string().optional() }));
    const runner = runnerFor(source, body.language);
    const statement =
      runner === source.queries ? await checkStatement(source, body.sql) : await runner.check!(body.sql);
    const plan = await runner.plan(statement.statement, { timeoutMs: WORKBENCH_TIMEOUT_MS });
    return c.json({ lines: plan.lines, ...(plan.note ? { note: plan.note } : {}) });
  });

  // ── Staging review: the user's own edits, and commit / discard (user only) ─────────────────
  app.get('/api/staging', async (c) => {
    const { source, state, profile } = c.var.connection;
    const [diffs, snapshot] = await Promise.all([state.staging.diff({ profile }), source.schema.get()]);
    const typeOf = columnTypesOf(snapshot.tables);
    const max = source.changes.maxChangesPerTransaction;
    return c.json({
      changes: diffs.map((diff) => toWireChange(diff, typeOf)),
      // What protects each table's items between the last check and the write (the review says it).
      protection: await protectionOf(source, diffs),
      // The most one transaction takes (DynamoDB: 100): more is committed in parts, when confirmed.
      ...(max !== undefined ? { maxPerTransaction: max } : {}),
    });
  });

  // Read-only: which staged changes a commit would refuse now, so the review shows them first.
  app.post('/api/staging/check', async (c) => {
    const { state, profile } = c.var.connection;
    const body = await readBody(c, idsBody);
    const conflicts = await state.staging.check({ profile, ...(body.ids ? { ids: body.ids } : {}) });
    return c.json({ conflicts: conflicts.map(toWireConflict) });
  });

  app.post('/api/staging/update', async (c) => {
    const { state, profile } = c.var.connection;
    const body = await readBody(
      c,
      z.strictObject({
        table: nonEmpty(),
        key: primaryKey,
        values: rowKey.refine((values) => Object.keys(values).length > 0, 'expected at least one column'),
      }),
    );
    const { table } = body;
    const changes = await state.staging.stageUpdate(table, [{ key: body.key, values: body.values }], {
      actor: 'user',
      profile,
    });
    return c.json({ ids: changes.map((change) => String(change.id)) });
  });

  app.post('/api/staging/delete', async (c) => {
    const { state, profile } = c.var.connection;
    const body = await readBody(c, z.strictObject({ table: nonEmpty(), keys: z.array(primaryKey).min(1) }));
    const { table } = body;
    const changes = await state.staging.stageDelete(table, body.keys, { actor: 'user', profile });
    return c.json({ ids: changes.map((change) => String(change.id)) });
  });

  app.post('/api/staging/insert', async (c) => {
    const { state, profile } = c.var.connection;
    const body = await readBody(c, z.strictObject({ table: nonEmpty(), rows: z.array(rowKey).min(1) }));
    const { table } = body;
    const changes = await state.staging.stageInsert(table, body.rows, { actor: 'user', profile });
    return c.json({ ids: changes.map((change) => String(change.id)) });
  });

  app.post('/api/staging/commit', async (c) => {
    const { state, profile } = c.var.connection;
    const body = await readBody(
      c,
      z.strictObject({ ids: changeIds.nullish(), inParts: z.boolean().optional() }),
    );
    const result = await state.staging.commit(
      { profile, ...(body.ids ? { ids: body.ids } : {}) },
      { inParts: body.inParts === true },
    );
    const count = (applied: { insert: number; update: number; delete: number }) =>
      applied.insert + applied.update + applied.delete;
    if (result.ok) {
      return c.json({
        committed: count(result.applied),
        conflicts: [],
        ...(result.parts ? { parts: result.parts } : {}),
      });
    }
    return c.json({
      committed: result.appliedBefore ? count(result.appliedBefore.applied) : 0,
      conflicts: result.conflicts.map(toWireConflict),
      ...(result.appliedBefore ? { parts: result.appliedBefore.parts } : {}),
    });
  });

  // A commit whose outcome could not be told: the user records what they found.
  app.post('/api/staging/resolve', async (c) => {
    const { state } = c.var.connection;
    const body = await readBody(
      c,
      z.strictObject({ commit: z.number().int().positive(), outcome: z.enum(['applied', 'staged']) }),
    );
    const resolved = await state.staging.resolve(body.commit, body.outcome);
    if (resolved === 0)
      throw new HttpError(
        404,
        'not-found',
        `No commit ${body.commit} waits to be resolved.`,
        'Reload the staging view.',
      );
    return c.json({ resolved });
  });

  app.post('/api/staging/discard', async (c) => {
    const { state, profile } = c.var.connection;
    const body = await readBody(c, idsBody);
    const discarded = await state.staging.discard({ profile, ...(body.ids ? { ids: body.ids } : {}) });
    return c.json({ discarded });
  });

  // ── The staging area as @toolrow/state has it: what `toolrow staging` uses while the app runs ─
  // Every profile unless the filter names one, and the state's own objects, so the CLI prints
  // the same through the app as over the database itself.
  app.post('/api/state/staging/:action', async (c) => {
    const { source, state } = c.var.connection;
    const body = await readBody(c, stagingFilterBody);
    const filter: StagingFilter = {
      ...(body.ids ? { ids: body.ids } : {}),
      ...(body.table === undefined ? {} : { table: body.table }),
      ...(body.profile === undefined ? {} : { profile: body.profile }),
    };
    switch (c.req.param('action')) {
      case 'list':
        return c.json({ changes: await state.staging.list(filter) });
      case 'diff': {
        const diffs = await state.staging.diff(filter);
        return c.json({ diffs, protection: await protectionOf(source, diffs) });
      }
      case 'commit':
        return c.json({
          result: await state.staging.commit(filter, { inParts: body.inParts === true }),
          writer: source.changes.writer.description,
        });
      case 'check':
        return c.json({ conflicts: await state.staging.check(filter) });
      case 'discard':
        return c.json({ discarded: await state.staging.discard(filter) });
      case 'resolve': {
        if (body.commit === undefined || body.outcome === undefined)
          throw badRequest('resolve needs { commit, outcome: "applied" | "staged" }.');
        return c.json({ resolved: await state.staging.resolve(body.commit, body.outcome) });
      }
      default:
        throw new HttpError(
          404,
          'not-found',
          `No staging action '${c.req.param('action')}'.`,
          'Use list, diff, check, commit or discard.',
        );
    }
  });

  // ── One tool, run as the user: what `toolrow call` uses while the app runs ─────────────────
  app.post('/api/tools/:name', async (c) => {
    const { state, profile } = c.var.connection;
    const name = c.req.param('name');
    const body = await readBody(
      c,
      z.strictObject({
        input: z.unknown().optional(),
        profile: nonEmpty().optional(),
        waitForExports: z.boolean().optional(),
      }),
    );
    if (!isImplementedTool(name)) {
      throw badRequest(
        `There is no tool '${name}' to run here.`,
        'List the tools with `toolrow catalog`; searchTools is the agent’s and runs only in a chat.',
      );
    }
    const runAs = body.profile ?? profile;
    await state.profiles.ensure(runAs);
    const output = await invokeTool(name, body.input ?? {}, {
      ...userContext(c.var.connection, c.req.raw.signal),
      profile: runAs,
    });
    // `toolrow call startExport` ends when the file is complete, through the app as without it.
    if (body.waitForExports === true) await state.exports.idle();
    return c.json({ output: output ?? null });
  });

  // ── Exports ───────────────────────────────────────────────────────────────────────────────
  app.get('/api/exports', async (c) => {
    const { state, profile } = c.var.connection;
    const jobs = await state.exportJobs.list({ profile, limit: 50 });
    return c.json({ jobs: jobs.map(toWireJob) });
  });

  app.post('/api/exports', async (c) => {
    const { source, state, profile } = c.var.connection;
    const body = await readBody(
      c,
      z
        .strictObject({
          table: nonEmpty().optional(),
          sql: nonEmpty().optional(),
          filter: wireFilter.optional(),
          sort: wireSort.optional(),
          format: z.enum(EXPORT_FORMATS).default('csv'),
        })
        .refine((value) => value.table !== undefined || value.sql !== undefined, {
          message: 'required (a table name, or sql) but missing',
          path: ['table'],
        }),
    );
    const format: ExportFormat = body.format;
    let exportSource: ExportSource;
    if (body.sql !== undefined) {
      const statement = await checkStatement(source, body.sql);
      exportSource = { sql: statement.statement };
    } else {
      const table = await source.schema.resolveTable(body.table ?? '');
      const filter = toDsFilter(body.filter as Filter | undefined);
      const sort = toDsSort(body.sort);
      exportSource = {
        table: table.qualifiedName,
        ...(filter ? { filter } : {}),
        ...(sort.length ? { sort } : {}),
      };
    }
    const job = await state.exports.start({ source: exportSource, format, actor: 'user', profile });
    return c.json(toWireJob(job));
  });

  app.get('/api/exports/:id', async (c) =>
    c.json(toWireJob(await c.var.connection.state.exports.status(c.req.param('id')))),
  );

  // Stops a running export: the job says cancelled with the rows it wrote, and its partial file is removed.
  app.post('/api/exports/:id/cancel', async (c) =>
    c.json(toWireJob(await c.var.connection.state.exports.cancel(c.req.param('id')))),
  );

  app.get('/api/exports/:id/download', async (c) => {
    const { state } = c.var.connection;
    const job = await state.exports.status(c.req.param('id'));
    if (job.state !== 'done') {
      throw new HttpError(
        409,
        'export-not-done',
        `Export ${job.id} is ${job.state}, not done.`,
        'Wait for it to finish (see Exports).',
      );
    }
    // The file must still be inside the exports folder (the engine only writes there; this re-checks).
    const path = await state.exports.resolvePath(relative(state.exports.dir, job.path));
    if (!existsSync(path)) {
      throw new HttpError(
        410,
        'export-gone',
        `The file of export ${job.id} is gone from ${state.exports.dir}.`,
        'Export again.',
      );
    }
    const name = path.split(sep).pop() ?? 'export';
    return new Response(Readable.toWeb(createReadStream(path)) as ReadableStream, {
      headers: {
        'content-type': EXPORT_TYPES[job.format],
        'content-length': String(statSync(path).size),
        'content-disposition': `attachment; filename="${name.replace(/["\\\r\n]/g, '_')}"`,
      },
    });
  });

  // ── The latest eval run, per row ──────────────────────────────────────────────────────────
  app.get('/api/eval/latest', async (c) =>
    c.json(
      await readLatestEval(
        options.latestEvalPath ?? join(c.var.connection.source.dataDir, 'eval', 'latest.json'),
      ),
    ),
  );

  // ── Audit log ─────────────────────────────────────────────────────────────────────────────
  app.get('/api/audit', async (c) => {
    const { state, profile } = c.var.connection;
    const { limit } = readQuery(c, z.object({ limit: queryInteger(1, 1000, 200) }));
    const entries = await state.audit.list({ limit, profile });
    return c.json({ entries: entries.map(toWireAudit) });
  });

  // ── UI state: the desktop writes it, the agent's open tools change it, both read it ────────
  app.get('/api/ui-state', async (c) => {
    const { state, profile } = c.var.connection;
    return c.json(toWireUiState(await state.ui.get(profile)));
  });

  app.put('/api/ui-state', async (c) => {
    const { state, profile } = c.var.connection;
    const body = (await readBody(c, wireUiState)) as UiState;
    const updated = await state.ui.update(profile, toDsUiPatch({ ...body, selection: body.selection ?? [] }));
    return c.json(toWireUiState(updated));
  });

  // ── Chips: a click runs the propose row's twin as the user ──────────────────────────────────
  app.post('/api/chips/accept', async (c) => {
    const { state, profile } = c.var.connection;
    // The desktop sends the whole chip (kind, note, …): fields beyond these are ignored.
    const body = await readBody(
      c,
      z.object({ tool: nonEmpty(), input: z.unknown().optional(), label: z.string().optional() }),
    );
    const { tool } = body;
    // The label only describes the click in the audit log; the tool and input are what run.
    const label = typeof body.label === 'string' ? body.label.slice(0, 200) : tool;
    const twins = new Set<string>(Object.values(PROPOSE_TWINS));
    if (!twins.has(tool)) {
      throw badRequest(
        `'${tool}' is not a tool a chip can run; chips run the immediate twin of a propose tool (${[...twins].join(', ')}).`,
      );
    }
    const { chat } = await currentChat(c.var.connection);
    const output = chat?.acceptChip
      ? await chat.acceptChip({ tool, input: body.input, label }, { profileId: profile })
      : await acceptChipAsUser(c.var.connection, tool, body.input, label);
    return c.json({ uiState: toWireUiState(await state.ui.get(profile)), output });
  });

  async function acceptChipAsUser(
    connection: RequestConnection,
    tool: string,
    input: unknown,
    label: string,
  ) {
    const { state, profile } = connection;
    const proposer = (Object.entries(PROPOSE_TWINS) as [ProposeToolName, string][]).find(
      ([, twin]) => twin === tool,
    )?.[0];
    await state.audit.record({
      tool,
      input,
      decision: 'approved',
      decidedBy: 'user',
      profile,
      detail: `The user clicked the chip "${label}"${proposer && isPropose(proposer) ? ` (from ${proposer})` : ''}.`,
    });
    return invokeTool(tool, input, userContext(connection));
  }

  // ── Chat ──────────────────────────────────────────────────────────────────────────────────
  // useChat's body: { id, messages, trigger, messageId }. With an id the conversation is saved
  // when the turn ends (see conversations.ts); without one the turn runs unsaved.
  app.post('/api/chat', async (c) => {
    const { source, state, profile } = c.var.connection;
    // useChat sends more (trigger, messageId, …); the messages are checked by the AI SDK's own schema.
    const body = await readBody(c, z.object({ id: z.unknown().optional(), messages: z.array(z.unknown()) }));
    const conversationId = conversationIdOf(body.id);
    const { chat, problem } = await currentChat(c.var.connection);
    if (!chat) return noModelResponse(problem);
    // The notes of earlier failed turns stay in the saved conversation, not in what the model reads.
    const messages = withoutFailedTurns(body.messages as UIMessage[]);
    const turn = await chat.uiMessageStream(messages, {
      profileId: profile,
      engine: source.engine,
      abortSignal: c.req.raw.signal,
    });
    return createUIMessageStreamResponse({
      stream: savingStream(turn, { state, profile, conversationId, messages, log }),
    });
  });

  mountConversationRoutes(app);
  mountModelRoutes(app, {
    env: fixedModel === undefined ? env : { ...env, TOOLROW_MODEL: undefined },
    current: async (connection) => {
      const { chat, problem } = await currentChat(connection);
      return { label: chat?.modelId ?? null, problem };
    },
  });
  mountConnectionRoutes(app, {
    hub: options.connections ?? null,
    activate: (toolrow) => connections.activate(toolrow),
    env,
    ...(options.cwd ? { cwd: options.cwd } : {}),
  });
  mountMcpClientRoutes(app);
  if (options.mcp?.consent) {
    const startProfile = options.profile ?? DEFAULT_PROFILE;
    const startState = options.state;
    mountOAuthRoutes(app, {
      consent: options.mcp.consent,
      state: startState,
      profile: startProfile,
      port: () => server.port,
      async connections() {
        const all = await startState.connections.list();
        const own = all.find((connection) => connection.name === startProfile);
        const exposure = (scope: string | null | undefined) =>
          scope && isMcpScope(scope) ? { ceiling: scope } : {};
        return [
          // The app's own: a named one only while it is exposed (its clients are refused otherwise).
          ...(own?.named && !own.mcpScope
            ? []
            : [
                {
                  name: startProfile,
                  description: own?.url ?? own?.description ?? 'the connection the app started on',
                  engine: options.source.engine,
                  ...(own?.named ? exposure(own.mcpScope) : {}),
                },
              ]),
          ...all
            .filter(
              (connection) => connection.named && connection.name !== startProfile && connection.mcpScope,
            )
            .map((connection) => ({
              name: connection.name,
              description: connection.url ?? connection.description,
              engine: installedEngines.driver(connection.engine)?.engine.id ?? connection.engine,
              ...exposure(connection.mcpScope),
            })),
        ];
      },
    });
  }

  // ── MCP approvals: the inbox of gated MCP calls waiting for the user (behind the app's auth) ──
  const approvalRoutes = createApprovalsHandler(approvals);
  app.all(APPROVALS_PATH, (c) => approvalRoutes(c.req.raw));
  app.all(`${APPROVALS_PATH}/*`, (c) => approvalRoutes(c.req.raw));

  // ── MCP over stdio, forwarded by `toolrow mcp --stdio` while the app holds the data ─────────
  const bridge = mountMcpBridge(app, { approvals, log });

  app.all('/api/*', (c) =>
    c.json({ error: { message: `No API route ${c.req.method} ${c.req.path}.`, code: 'not-found' } }, 404),
  );

  // ── MCP (off unless mounted) ──────────────────────────────────────────────────────────────
  if (options.mcp) {
    const mcp = options.mcp;
    app.all(mcp.path, (c) => mcp.fetch(c.req.raw));
    app.all(`${mcp.path}/*`, (c) => mcp.fetch(c.req.raw));
    app.get(mcp.metadataPath, (c) => mcp.fetch(c.req.raw));
    for (const path of mcp.paths ?? []) {
      if (path !== mcp.path && path !== mcp.metadataPath) app.all(path, (c) => mcp.fetch(c.req.raw));
    }
  }

  // Protocol paths never fall through to the app shell.
  for (const prefix of ['/oauth/*', '/.well-known/*'])
    app.all(prefix, (c) =>
      c.json({ error: 'not_found', error_description: `Nothing is served at ${c.req.path}.` }, 404),
    );

  // ── The desktop build at / ────────────────────────────────────────────────────────────────
  app.get('*', async (c) => {
    if (!desktopDir) return c.text('This server runs without the desktop UI; the API is under /api.', 404);
    return serveDesktop(desktopDir, c.req.path);
  });

  // ── Listening ─────────────────────────────────────────────────────────────────────────────
  let node: ReturnType<typeof createAdaptorServer> | null = null;
  server.listen = async ({ port = 0, host = '127.0.0.1' } = {}) => {
    if (host !== '127.0.0.1' && host !== 'localhost' && host !== '::1') {
      throw new Error(`Refusing to listen on ${host}: the Toolrow server binds to 127.0.0.1 only.`);
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
    await options.mcp?.close();
    await bridge.close();
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

const origin = (port: number) => `http://127.0.0.1:${port}`;

const EXPORT_TYPES: Record<ExportFormat, string> = {
  csv: 'text/csv; charset=utf-8',
  json: 'application/json; charset=utf-8',
  ndjson: 'application/x-ndjson; charset=utf-8',
};

/** A chat answer that explains how to configure a model, as a normal UI message stream. */
function noModelResponse(problem: string | null): Response {
  const text = `${problem ? `${problem}.\n\n` : 'No language model is configured, so I cannot answer yet.\n\n'}${NO_MODEL_HINT}\n\nEverything else — tables, the SQL workbench, staging, exports, the audit log — works without a model.`;
  const stream = createUIMessageStream({
    execute({ writer }) {
      writer.write({ type: 'text-start', id: 'no-model' });
      writer.write({ type: 'text-delta', id: 'no-model', delta: text });
      writer.write({ type: 'text-end', id: 'no-model' });
    },
  });
  return createUIMessageStreamResponse({ stream });
}

/** A row's primary key: column → value, or the value alone for a one-column key. */
const primaryKey = z.union([rowKey, z.string(), z.number()]);

const idsBody = z.strictObject({ ids: changeIds.nullish() });

/** `{ ids?, table?, profile? }` of the state routes: the CLI's filter. */
const stagingFilterBody = z.object({
  ids: changeIds.nullish(),
  table: nonEmpty().optional(),
  profile: nonEmpty().optional(),
  inParts: z.boolean().optional(),
  commit: z.number().int().positive().optional(),
  outcome: z.enum(['applied', 'staged']).optional(),
});

/** The runner of the language a workbench request names (default the connection's first). */
function runnerFor(source: DataSource, language: string | undefined): QueryRunner {
  if (language === undefined) return source.queries;
  const runners = [source.queries, ...(source.queries.modes ?? [])];
  const found = runners.find((runner) => runner.language.name.toLowerCase() === language.toLowerCase());
  if (!found || (found !== source.queries && !found.check))
    throw badRequest(
      `This connection reads ${runners.map((runner) => runner.language.name).join(' or ')}, not ${language}.`,
    );
  return found;
}

/** What protects each staged table's items between the last check and the write (null: a row lock). */
async function protectionOf(
  source: DataSource,
  diffs: readonly { change: { table: string } }[],
): Promise<Record<string, ChangeProtection | null>> {
  const names = [...new Set(diffs.map((diff) => diff.change.table))];
  return Object.fromEntries(
    await Promise.all(
      names.map(async (name) => {
        const table = await source.schema.resolveTable(name).catch(() => undefined);
        return [name, (table && source.changes.protectionOf?.(table)) || null] as const;
      }),
    ),
  );
}

/** The per-row figures of the run `toolrow eval` last wrote, or why there is none. */
export async function readLatestEval(path: string): Promise<EvalLatest> {
  const hint =
    'Run `npx toolrow eval --model <your model>` to measure how the agent finds and picks each tool (see the README).';
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    return { run: null, hint: `No eval run yet (${path} does not exist). ${hint}` };
  }
  let report: EvalReport;
  try {
    report = JSON.parse(text) as EvalReport;
  } catch {
    report = {} as EvalReport;
  }
  if (report.format !== 'toolrow-eval/1' || !Array.isArray(report.tools)) {
    return { run: null, hint: `${path} is not a toolrow eval report. ${hint}` };
  }
  return {
    run: {
      model: report.model,
      mode: report.mode,
      runs: report.runs,
      finishedAt: report.finishedAt,
      requests: report.requests?.length ?? 0,
      passRate: report.summary.passRate,
      searchRate: report.summary.discoverable.searchRate,
      tools: report.tools.map((tool) => ({
        tool: tool.tool,
        attempts: tool.attempts,
        passRate: tool.passRate,
        searchRate: tool.searchRate,
        foundRate: tool.foundRate,
        wrongTwinPicks: tool.wrongTwinPicks,
      })),
    },
  };
}
