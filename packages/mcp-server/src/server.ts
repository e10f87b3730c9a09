// One MCP server per client session (stdio: per connection; HTTP: per request), never shared
// between clients (CVE-2026-25536). What is shared is what never differs between clients of one
// scope: the tools/list listing (names, descriptions, JSON Schemas, annotations) is built once per
// backend and scope and frozen, so a fresh server costs a handful of handler registrations, not 35
// tool registrations with their schema conversions (bench/http.ts measures it).
import {
  type CallToolResult,
  CLIENT_CAPABILITIES_META_KEY,
  type InputRequiredResult,
  isInputRequiredResult,
  type ListResourcesResult,
  type ListResourceTemplatesResult,
  type ListToolsResult,
  type LoggingLevel,
  ProtocolError,
  ProtocolErrorCode,
  type ReadResourceResult,
  ResourceNotFoundError,
  Server,
  type ServerContext,
  type StandardSchemaWithJSON,
  type Tool,
} from '@modelcontextprotocol/server';
import { isGated, rowOf, TOOL_ACCESS, titleOf } from '@toolrow/catalog';
import * as z from 'zod';
import { annotationsFor } from './annotations.ts';
import type { McpActor, McpBackend } from './backend.ts';
import type { InFlightCalls } from './cancellations.ts';
import { chartContent, chartDisplayOf } from './chart-content.ts';
import {
  CHART_VIEW_RESOURCE,
  CHART_VIEW_URI,
  chartViewHtml,
  clientTakesViews,
  VIEW_MIME_TYPE,
  withChartView,
} from './chart-view.ts';
import { gateCall, type McpGateOptions, verifyElicitState } from './gate.ts';
import type { McpScope, McpToolName } from './generated/mcp-scopes.ts';
import { iconsFor } from './icons.ts';
import { SERVER_CAPABILITIES, SERVER_INSTRUCTIONS, SERVER_NAME, SERVER_VERSION } from './info.ts';
import { type ProgressUpdate, progressOf, type RequestProgress } from './progress.ts';
import type { McpRefusal } from './scopes.ts';
import { isMcpToolName, refusalFor, scopeCovers, toolsForScope } from './scopes.ts';
import { isTerminal, type McpTaskStore, modernTaskOf, TASKS_EXTENSION } from './tasks.ts';
import { capOf, type McpPrincipal } from './tokens.ts';

export { SERVER_NAME, SERVER_VERSION } from './info.ts';

/** The URI template of a table's schema resource. */
export const TABLE_RESOURCE_TEMPLATE = 'toolrow://tables/{schema}/{table}';
const TABLE_URI = /^toolrow:\/\/tables\/([^/]+)\/([^/]+)$/;

export function tableResourceUri(schema: string, table: string): string {
  return `toolrow://tables/${encodeURIComponent(schema)}/${encodeURIComponent(table)}`;
}

/** How long a tool runs before the client (if it asked for progress) hears that it still runs. */
export const DEFAULT_HEARTBEAT_MS = 2000;

export function actorOf(principal: McpPrincipal): McpActor {
  return `mcp:${principal.name}`;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * A tool's output as an MCP result: the structured content, and the same document as compact JSON
 * text for clients that read text only. An output that is not an object rides as `{ result }`
 * (structured content must be an object). A chart's result also carries its PNG (chart-content.ts).
 */
export async function toCallToolResult(output: unknown): Promise<CallToolResult> {
  const structuredContent = isPlainObject(output) ? output : { result: output ?? null };
  const chart = chartDisplayOf(output);
  if (chart) return { content: await chartContent(structuredContent, chart), structuredContent };
  return { content: [{ type: 'text', text: JSON.stringify(structuredContent) }], structuredContent };
}

function errorResult(message: string): CallToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}

/**
 * The output schema a tool is listed with: the backend's (for Toolrow's own, generated from each
 * implementation's return type). Structured content is always an object, so an output that is
 * not one is described as toCallToolResult sends it, `{ result }`.
 */
export function outputSchemaOf(backend: McpBackend, name: McpToolName): Tool['outputSchema'] & object {
  const schema = backend.outputSchemaOf(name);
  if (schema.type === 'object') return schema as Tool['outputSchema'] & object;
  return { type: 'object', properties: { result: schema }, required: ['result'] };
}

// JSON Schema conversions, kept per input schema: shared by every listing that shows the schema.
const converted = new WeakMap<object, Record<string, unknown>>();

/** A tool's input schema as tools/list shows it (JSON Schema 2020-12, object-rooted). */
export function inputJsonSchema(schema: StandardSchemaWithJSON): Tool['inputSchema'] {
  let json = converted.get(schema);
  if (!json) {
    const raw = schema['~standard'].jsonSchema.input({ target: 'draft-2020-12' });
    json = deepFreeze({ type: 'object', ...raw });
    converted.set(schema, json);
  }
  return json as Tool['inputSchema'];
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

/** Whether a client may run the tool as a task (tasks.ts): an export can outlast any request timeout. */
export function runsAsTask(name: McpToolName): boolean {
  return TOOL_ACCESS[name as keyof typeof TOOL_ACCESS] === 'export';
}

interface Listing {
  result: ListToolsResult;
  byName: ReadonlyMap<string, Tool>;
}

// Per backend (its schemas) and scope: built on first use, frozen, shared by every server after.
const listings = new WeakMap<McpBackend, Map<McpScope, Listing>>();

/** The scope's tools/list result for this backend, built once. */
export function listingFor(backend: McpBackend, scope: McpScope): Listing {
  let byScope = listings.get(backend);
  if (!byScope) {
    byScope = new Map();
    listings.set(backend, byScope);
  }
  let listing = byScope.get(scope);
  if (!listing) {
    const tools = toolsForScope(scope, backend.engine).map((name): Tool => {
      const row = rowOf(name);
      return {
        name,
        title: titleOf(name),
        description: row.description,
        inputSchema: inputJsonSchema(backend.inputSchemaOf(name)),
        outputSchema: outputSchemaOf(backend, name),
        annotations: annotationsFor(row),
        icons: iconsFor(row),
        ...(runsAsTask(name) ? { execution: { taskSupport: 'optional' as const } } : {}),
      };
    });
    listing = deepFreeze({ result: { tools }, byName: new Map(tools.map((tool) => [tool.name, tool])) });
    byScope.set(scope, listing);
  }
  return listing;
}

export interface ToolrowServerOptions extends McpGateOptions {
  /** A running tool tells a client that asked for progress that it still runs, every this many ms. */
  heartbeatMs?: number;
  /**
   * Stateless HTTP: the calls in flight, where a cancellation from the same bearer token finds
   * the call it names (over stdio the SDK delivers cancellations itself).
   */
  inFlight?: { calls: InFlightCalls; token: string };
  /** Where this client's tasks are kept, and whose they are (the token, or the connection). */
  tasks?: { store: McpTaskStore; owner: string };
}

/**
 * An out-of-scope call as a tool result (isError): what it needs, what the client holds, and what
 * to do, where no step-up exists (stdio, and stdio through the app). Nothing ran.
 */
export function scopeRefusalResult(refusal: Extract<McpRefusal, { kind: 'scope' }>): CallToolResult {
  return {
    isError: true,
    content: [{ type: 'text', text: refusal.message }],
    _meta: { 'toolrow/requiredScope': refusal.needed, 'toolrow/heldScope': refusal.held },
  };
}

/** The server options a transport passes on from its own (which carry more). */
export function serverOptionsOf(options: ToolrowServerOptions): ToolrowServerOptions {
  return {
    ...(options.approvals ? { approvals: options.approvals } : {}),
    ...(options.progressIntervalMs ? { progressIntervalMs: options.progressIntervalMs } : {}),
    ...(options.unprogressedWaitMs ? { unprogressedWaitMs: options.unprogressedWaitMs } : {}),
    ...(options.heartbeatMs ? { heartbeatMs: options.heartbeatMs } : {}),
  };
}

/**
 * A fresh server for one client that holds `principal`'s scope: tools/list shows exactly the
 * scope's tools, a gated call goes up the permission ladder (gate.ts), the tables' schemas are
 * resources, and the logging capability carries what the ladder decided. `principal` undefined
 * yields a server with no tools (defence in depth: the transports refuse unauthenticated clients
 * before they get here).
 */
export function createToolrowMcpServer(
  backendOrPromise: McpBackend | Promise<McpBackend>,
  principalOrPromise: McpPrincipal | undefined | Promise<McpPrincipal | undefined>,
  options: ToolrowServerOptions = {},
): Server {
  // Either may still be opening (stdio answers initialize before the data is warm): every handler
  // but initialize waits for both, and a failure to open is each request's error.
  const ready = Promise.all([backendOrPromise, principalOrPromise]);
  ready.catch(() => {});
  const listingOf = async () => {
    const [backend, principal] = await ready;
    return { backend, principal, listing: principal ? listingFor(backend, principal.scope) : undefined };
  };
  const server = new Server(
    { name: SERVER_NAME, version: SERVER_VERSION },
    {
      capabilities: SERVER_CAPABILITIES,
      instructions: SERVER_INSTRUCTIONS,
      requestState: { verify: verifyElicitState },
    },
  );
  server.setRequestHandler('tools/list', async () => {
    const result = (await listingOf()).listing?.result ?? { tools: [] };
    // A client that takes MCP Apps views gets the chart tools linked to the chart view.
    return clientTakesViews(server.getClientCapabilities())
      ? { ...result, tools: withChartView(result.tools) }
      : result;
  });
  server.setRequestHandler('tools/call', async (request, ctx) => {
    const { backend, principal, listing } = await listingOf();
    const name = request.params.name;
    const tool = listing?.byName.get(name);
    // Over HTTP out-of-scope calls never get here (the endpoint answers 403, the step-up); over
    // stdio they do, audited by the transport. Excluded and unknown names are no tool of this
    // server, as the SDK's own servers say.
    if (principal && !tool && isMcpToolName(name)) {
      // A tool of the catalog that this connection's engine does not serve: a result the model
      // can read, naming what to use instead (the transports audited it as refused).
      const refusal = refusalFor(name, principal.scope, backend.engine, capOf(principal, backend.profile));
      if (refusal?.kind === 'not-served')
        return { isError: true, content: [{ type: 'text', text: refusal.message }] };
      // Out of scope where no step-up exists (stdio, and CLI tokens over HTTP; an OAuth token over
      // HTTP gets the endpoint's 403 first).
      if (refusal?.kind === 'scope') return scopeRefusalResult(refusal);
    }
    if (!principal || !tool || !isMcpToolName(name)) {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Tool ${name} not found`);
    }
    const requestedTask = (request.params as { task?: { ttl?: number } }).task;
    // 2025-11-25: the client asks for a task. 2026-07-28: the server decides, for a request that
    // declares the Tasks extension; an export can outlast any request, so it always is one.
    const modern = declaresTasksExtension(ctx);
    if ((requestedTask || modern) && options.tasks && runsAsTask(name)) {
      // The task works on after this request is answered: it has a signal of its own (tasks/cancel
      // aborts it), says what it does in its status, and never asks through the client (there is
      // no request left to ask on), so an ask waits in the app's inbox.
      const { store, owner } = options.tasks;
      const task = store.start(owner, requestedTask, async ({ signal, status }) => {
        const progress: RequestProgress = {
          beat: status,
          report: (update) => status(update.message ?? `${update.progress} done.`),
        };
        const result = await callTool(
          server,
          backend,
          principal,
          name,
          request.params.arguments ?? {},
          taskContext(ctx, signal),
          options,
          { progress },
        );
        if (isInputRequiredResult(result))
          return errorResult(`'${name}' needed an answer that a task cannot ask for.`);
        return server.projectCallToolResult(result, tool.outputSchema) as CallToolResult;
      });
      // CreateTaskResult. The SDK checks every tools/call answer as a CallToolResult, which keeps
      // unknown keys but wants content: an empty one rides along, and task clients read `task`
      // (2025) or the `resultType: 'task'` discriminator and the task's own fields (2026).
      if (modern) return { resultType: 'task', content: [], ...modernTaskOf({ task }) } as CallToolResult;
      return { content: [], task } as CallToolResult;
    }
    const tracked = options.inFlight?.calls.track(options.inFlight.token, ctx);
    let result: Awaited<ReturnType<typeof callTool>>;
    try {
      result = await callTool(
        server,
        backend,
        principal,
        name,
        request.params.arguments ?? {},
        tracked?.ctx ?? ctx,
        options,
      );
    } finally {
      tracked?.done();
    }
    if (isInputRequiredResult(result)) return result;
    return server.projectCallToolResult(result, tool.outputSchema);
  });
  registerResources(server, ready);
  registerTasks(server, options);
  return server;
}

/** The request's context as a task's work sees it: the task's signal, and nothing sent on the request. */
function taskContext(ctx: ServerContext, signal: AbortSignal): ServerContext {
  const { progressToken: _dropped, ...meta } = (ctx.mcpReq._meta ?? {}) as Record<string, unknown>;
  const mcpReq = Object.create(ctx.mcpReq, {
    signal: { value: signal },
    _meta: { value: meta },
    log: { value: async () => {} },
    notify: { value: async () => {} },
  });
  return { ...ctx, mcpReq } as ServerContext;
}

/** What the client declared: on the request (2026-07-28), else at initialize (2025). */
function declaredCapabilities(ctx: ServerContext, server: Server): unknown {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  return envelope?.[CLIENT_CAPABILITIES_META_KEY] ?? server.getClientCapabilities();
}

/** A 2026-07-28 request (its client capabilities ride on it) that declares the Tasks extension. */
function declaresTasksExtension(ctx: ServerContext): boolean {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const capabilities = envelope?.[CLIENT_CAPABILITIES_META_KEY] as { extensions?: unknown } | undefined;
  const extensions = capabilities?.extensions as Record<string, unknown> | undefined;
  return isPlainObject(extensions?.[TASKS_EXTENSION]);
}

/** A request of the 2026-07-28 era, whose tasks/* are the Tasks extension's (SEP-2663). */
const isModernRequest = (ctx: ServerContext) => ctx.mcpReq.envelope !== undefined;

/**
 * tasks/get, tasks/result, tasks/cancel and tasks/list over the client's own tasks (2025-11-25),
 * and the Tasks extension's tasks/get, tasks/update and tasks/cancel (2026-07-28).
 */
function registerTasks(server: Server, options: ToolrowServerOptions): void {
  const tasks = () => {
    if (!options.tasks) {
      throw new ProtocolError(ProtocolErrorCode.InvalidRequest, 'This connection keeps no tasks.');
    }
    return options.tasks;
  };
  const byId = { params: z.looseObject({ taskId: z.string() }) };
  server.setRequestHandler('tasks/get', byId, async ({ taskId }, ctx) => {
    const { store, owner } = tasks();
    return isModernRequest(ctx)
      ? { ...modernTaskOf(store.detail(owner, taskId)) }
      : { ...store.get(owner, taskId) };
  });
  // 2026-07-28: the answers to a task's input requests. Toolrow's tasks never ask through the
  // client (an ask waits in the app's inbox), so none is outstanding and every answer is ignored,
  // as the extension says of answers to keys not outstanding.
  const update = { params: z.looseObject({ taskId: z.string(), inputResponses: z.unknown().optional() }) };
  server.setRequestHandler('tasks/update', update, async ({ taskId }) => {
    const { store, owner } = tasks();
    store.detail(owner, taskId);
    return {};
  });
  server.setRequestHandler('tasks/result', byId, async ({ taskId }, ctx) => {
    const { store, owner } = tasks();
    return { ...(await store.result(owner, taskId, ctx.mcpReq.signal)) };
  });
  server.setRequestHandler('tasks/cancel', byId, async ({ taskId }, ctx) => {
    const { store, owner } = tasks();
    if (!isModernRequest(ctx)) return { ...store.cancel(owner, taskId) };
    // 2026-07-28: an acknowledgement, also when the work finished first (cancel is cooperative).
    if (!isTerminal(store.get(owner, taskId).status)) store.cancel(owner, taskId);
    return {};
  });
  const page = { params: z.looseObject({ cursor: z.string().optional() }).optional() };
  server.setRequestHandler('tasks/list', page, async (params) => {
    const { store, owner } = tasks();
    return { ...store.list(owner, params?.cursor) };
  });
}

async function callTool(
  server: Server,
  backend: McpBackend,
  principal: McpPrincipal,
  name: McpToolName,
  rawInput: unknown,
  ctx: ServerContext,
  options: ToolrowServerOptions,
  /** A task's call: where its progress goes (and no elicitation: no request to ask on). */
  task?: { progress: RequestProgress },
): Promise<CallToolResult | InputRequiredResult> {
  const actor = actorOf(principal);
  const log = (level: LoggingLevel, data: Record<string, unknown>) =>
    ctx.mcpReq.log(level, { tool: name, ...data }, SERVER_NAME).catch(() => {});
  try {
    const input = await backend.parseInput(name, rawInput);
    if (isGated(name)) {
      const verdict = await gateCall({
        backend,
        principal,
        actor,
        name,
        input,
        ctx,
        initializedCapabilities: server.getClientCapabilities(),
        declaredName: server.getClientVersion()?.name,
        options,
        ...(task ? { task } : {}),
      });
      if (verdict.kind === 'elicit') {
        await log('info', { message: `${name} waits for your answer (the Toolrow permission ladder asks).` });
        return verdict.result;
      }
      if (verdict.kind === 'refuse') {
        await log('warning', { message: `${name} did not run.`, refusal: textOf(verdict.result) });
        return verdict.result;
      }
    }
    const output = await runWithProgress(
      backend,
      name,
      input,
      { actor, ...(principal.person ? { person: principal.person } : {}) },
      ctx,
      options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS,
      task ? task.progress : progressOf(ctx),
    );
    return await toCallToolResult(output);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    await log('error', { message });
    return errorResult(message);
  }
}

const textOf = (result: CallToolResult) =>
  result.content.map((part) => (part.type === 'text' ? part.text : '')).join('');

/**
 * Runs the tool; when the client asked for progress, long work reports it: a heartbeat while the
 * tool runs (a slow query), and for an export, the job's rows until it finishes (the call then
 * returns the finished job). Without a progressToken an export returns at once, as in chat.
 */
async function runWithProgress(
  backend: McpBackend,
  name: McpToolName,
  input: unknown,
  { actor, person }: { actor: McpActor; person?: string },
  ctx: ServerContext,
  heartbeatMs: number,
  // One line for the whole call (the approval wait beat on it already): values only rise.
  line: RequestProgress | undefined,
): Promise<unknown> {
  const progress = line ? (update: ProgressUpdate) => line.report(update) : undefined;
  const started = Date.now();
  const timer = line
    ? setInterval(
        () => line.beat(`${name} is still running (${Math.round((Date.now() - started) / 1000)} s).`),
        heartbeatMs,
      )
    : undefined;
  try {
    const output = await backend.run(name, input, {
      actor,
      ...(person ? { person } : {}),
      signal: ctx.mcpReq.signal,
      ...(progress ? { progress } : {}),
    });
    if (progress && isGated(name) && TOOL_ACCESS[name as keyof typeof TOOL_ACCESS] === 'export')
      return await followExport(backend, output, actor, ctx, progress);
    return output;
  } finally {
    if (timer) clearInterval(timer);
  }
}

interface ExportSummary {
  id?: unknown;
  state?: unknown;
  rowsDone?: unknown;
  rowsEstimate?: unknown;
}

const EXPORT_POLL_MS = 250;

/** Waits `ms`, or less when `signal` aborts first; true when it has. */
function stopped(signal: AbortSignal, ms: number): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(true);
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve(signal.aborted);
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

/**
 * Follows an export job until it settles, reporting its rows; returns the settled job. A
 * cancelled call cancels the export (it would otherwise write on with nobody to read it).
 */
async function followExport(
  backend: McpBackend,
  started: unknown,
  actor: McpActor,
  ctx: ServerContext,
  progress: (update: ProgressUpdate) => void,
): Promise<unknown> {
  const id = (started as ExportSummary | null)?.id;
  if (typeof id !== 'string') return started;
  let job = started as ExportSummary;
  let sent = 0;
  while (job.state === 'queued' || job.state === 'running') {
    const done = typeof job.rowsDone === 'number' ? job.rowsDone : 0;
    if (done > sent) {
      sent = done;
      progress({
        progress: done,
        ...(typeof job.rowsEstimate === 'number' && job.rowsEstimate >= done
          ? { total: job.rowsEstimate }
          : {}),
        message: `Export ${id}: ${done} rows written.`,
      });
    }
    if (await stopped(ctx.mcpReq.signal, EXPORT_POLL_MS)) {
      // The client cancelled the call that follows the export: the export stops with it.
      job = (backend.cancelExport ? await backend.cancelExport(id, actor) : job) as ExportSummary;
      break;
    }
    job = (await backend.run(
      'getExportStatus',
      { id },
      { actor, signal: ctx.mcpReq.signal },
    )) as ExportSummary;
  }
  return { ...job, note: settledNote(id, job) };
}

/** startExport's note once the call has followed the job to its end (its output schema has one). */
function settledNote(id: string, job: ExportSummary): string {
  const rows = typeof job.rowsDone === 'number' ? job.rowsDone : 0;
  return `Export ${id} ended ${String(job.state)} after ${rows} rows.`;
}

/** The tables' schemas as resources, for any scope that may describe tables. */
function registerResources(
  server: Server,
  ready: Promise<readonly [McpBackend, McpPrincipal | undefined]>,
): void {
  const allowedOn = async () => {
    const [backend, principal] = await ready;
    const allowed =
      principal !== undefined &&
      backend.tables !== undefined &&
      scopeCovers(principal.scope, 'tables:readonly') &&
      toolsForScope(principal.scope, backend.engine).includes('describeTable' as McpToolName);
    return { backend, allowed };
  };
  server.setRequestHandler('resources/list', async (_request, ctx): Promise<ListResourcesResult> => {
    const { backend, allowed } = await allowedOn();
    const views = clientTakesViews(declaredCapabilities(ctx, server)) ? [CHART_VIEW_RESOURCE] : [];
    if (!allowed) return { resources: views };
    const tables = await backend.tables!();
    return {
      resources: [
        ...views,
        ...tables.map((table) => ({
          uri: tableResourceUri(table.schema, table.name),
          name: `${table.schema}.${table.name}`,
          title: `${table.schema}.${table.name} (${table.kind})`,
          description:
            table.comment ??
            `The ${table.kind} ${table.schema}.${table.name}: columns, keys, indexes and foreign keys, about ${table.rowEstimate} rows.`,
          mimeType: 'application/json',
        })),
      ],
    };
  });
  server.setRequestHandler(
    'resources/templates/list',
    async (): Promise<ListResourceTemplatesResult> => ({
      resourceTemplates: (await allowedOn()).allowed
        ? [
            {
              uriTemplate: TABLE_RESOURCE_TEMPLATE,
              name: 'table-schema',
              title: "A table's schema",
              description:
                'Columns (types, nullability, defaults, common values), primary key, indexes and foreign keys of one table, as describeTable returns them.',
              mimeType: 'application/json',
            },
          ]
        : [],
    }),
  );
  server.setRequestHandler('resources/read', async (request): Promise<ReadResourceResult> => {
    const uri = request.params.uri;
    if (uri === CHART_VIEW_URI)
      return {
        contents: [
          { uri, mimeType: VIEW_MIME_TYPE, text: chartViewHtml(), _meta: CHART_VIEW_RESOURCE._meta },
        ],
      };
    const { backend, allowed } = await allowedOn();
    const match = TABLE_URI.exec(uri);
    if (!allowed || !match) {
      throw new ResourceNotFoundError(
        uri,
        `No resource ${uri}: table schemas are at ${TABLE_RESOURCE_TEMPLATE} (see resources/list).`,
      );
    }
    const schema = decodeURIComponent(match[1] as string);
    const table = decodeURIComponent(match[2] as string);
    let description: unknown;
    try {
      description = await backend.describeTable!(`${schema}.${table}`);
    } catch (error) {
      throw new ResourceNotFoundError(uri, `No table ${schema}.${table}: ${(error as Error).message}`);
    }
    return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(description) }] };
  });
}

/** Records a refused call as a 'denied' decision; unknown names are no tool, so nothing to record. */
export async function auditRefusal(
  backend: McpBackend,
  refusal: McpRefusal,
  input: unknown,
  principal: McpPrincipal,
): Promise<void> {
  if (refusal.kind === 'unknown') return;
  const detail =
    refusal.kind === 'scope'
      ? `needs ${refusal.needed}, holds ${refusal.held}`
      : refusal.kind === 'not-served'
        ? `not served on ${refusal.engine} connections`
        : 'not exposed over MCP';
  await backend.audit({
    tool: refusal.name,
    input,
    decision: 'denied',
    decidedBy: actorOf(principal),
    ...(principal.person ? { person: principal.person } : {}),
    detail,
  });
}
