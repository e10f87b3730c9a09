import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  approvalResponse,
  appStateGateStore,
  createAgent,
  type PermissionMode,
  toolsBackend,
} from '@toolrow/agent';
import { type EngineView, isServedBy } from '@toolrow/catalog';
import {
  type DataSource,
  DataSourceError,
  featureOf,
  isDataSourceError,
  SAMPLE_TABLES,
} from '@toolrow/datasource';
import { installedEngines } from '@toolrow/engines';
import { openEngine, openState, type Tab, type ToolrowState } from '@toolrow/state';
import type { LanguageModel, ModelMessage } from 'ai';
import type { EvalRequest, RequestContext } from './corpus.ts';
import { type Grade, grade, type TracedCall } from './grade.ts';

/** One attempt at one request: what the model did, its grade, and what it cost. */
export interface Attempt extends Grade {
  run: number;
  calls: TracedCall[];
  /** Model calls over the whole turn (all approval rounds). */
  steps: number;
  inputTokens: number | undefined;
  outputTokens: number | undefined;
  latencyMs: number;
  /** The model's last words. */
  text: string;
  error?: string;
}

export interface EvalProgress {
  done: number;
  total: number;
  request: EvalRequest;
  attempt: Attempt;
}

export interface RunEvalOptions {
  model: LanguageModel;
  requests: readonly EvalRequest[];
  /** Repeats of every request (default 1): cheap models are not deterministic. */
  runs?: number;
  /** Requests in flight at once (default 4). */
  concurrency?: number;
  /** The permission mode of the profile the turns run under (default manual, a new profile's mode). */
  mode?: PermissionMode;
  /** Orders in the sample shop (default 1000: the tools' behaviour, not the data's size, is measured). */
  orders?: number;
  /** Approval rounds per turn before the eval stops answering (default 4). */
  maxRounds?: number;
  onProgress?: (progress: EvalProgress) => void;
  signal?: AbortSignal;
  /**
   * Run on this connection instead of an embedded PostgreSQL (a `dynamodb://` URL, or a PostgreSQL
   * one): the sample shop is seeded there unless it is there already. Pass only the requests its
   * engine serves (`requestsServedBy`).
   */
  databaseUrl?: string;
}

export interface RequestAttempts {
  request: EvalRequest;
  attempts: Attempt[];
}

const PROFILE = 'default';

/**
 * Seeds the sample shop, or uses the one a connection has already, whatever its size (the
 * requests measure the tools, not the data's size). A database with only part of the shop is the
 * user's to decide about: the error says how to re-create it.
 */
async function seedUnlessThere(source: DataSource, orders: number, databaseUrl: string | undefined) {
  if (databaseUrl) {
    const names = new Set((await source.schema.get()).tables.map((table) => table.name));
    if (SAMPLE_TABLES.every((name) => names.has(name))) return;
  }
  try {
    await featureOf(source, 'seed')({ orders });
  } catch (error) {
    if (!databaseUrl || !isDataSourceError(error) || error.code !== 'seed') throw error;
    throw new DataSourceError(
      'seed',
      `${source.description} (--database-url) holds part of the sample shop, so the eval cannot seed it: ${error.message.replace(/ Re-run with --reset.*$/, '')} Re-create it first (DATABASE_URL='${databaseUrl}' npx toolrow db seed --reset --orders ${orders}; that deletes their rows), or point --database-url at an empty database.`,
      { cause: error },
    );
  }
}

/** The sample shop every request reads (the agent cannot write it) and a fresh state per request. */
class EvalShop {
  readonly source: DataSource;
  readonly exportsDir: string;

  private constructor(source: DataSource, exportsDir: string) {
    this.source = source;
    this.exportsDir = exportsDir;
  }

  static async open(orders: number, large = false, databaseUrl?: string): Promise<EvalShop> {
    const [source, exportsDir] = await Promise.all([
      databaseUrl
        ? openEngine({ url: databaseUrl, urlSource: '--database-url', env: {} })
        : // A small shop in memory: 16 MB of shared buffers instead of 128 MB is about 100 MB less resident.
          installedEngines.fallback.open({
            memory: true,
            env: {},
            embeddedSettings: ['shared_buffers = 16MB'],
          }),
      mkdtemp(join(tmpdir(), 'toolrow-eval-exports-')),
    ]);
    try {
      await seedUnlessThere(source, orders, databaseUrl);
      if (large) await featureOf(source, 'seed')({ shop: 'large' });
      await source.setUpReaderRole?.();
    } catch (error) {
      await source.close();
      throw error;
    }
    return new EvalShop(source, exportsDir);
  }

  /** Adds the large sample (a thousand tables) to this shop's database, for the requests on it. */
  async addLargeSample(): Promise<void> {
    await featureOf(this.source, 'seed')({ shop: 'large' });
    await this.source.setUpReaderRole?.();
  }

  /** Toolrow's state as a user has it when typing the request: saved specs, history, an attachment, the open tab. */
  async freshState(context: RequestContext | undefined, mode: PermissionMode): Promise<ToolrowState> {
    // SQLite in memory: a new, migrated state per request costs about a millisecond.
    const state = await openState({
      source: this.source,
      memory: true,
      env: {},
      exportsDir: this.exportsDir,
    });
    try {
      await state.profiles.ensure(PROFILE);
      await state.profiles.setMode(PROFILE, mode);
      await state.specs.save({
        name: 'big spenders',
        kind: 'view',
        description: 'Orders over 500',
        spec: { table: 'orders', filter: { column: 'total', op: 'gt', value: 500 } },
      });
      // SQL every engine's runQuery takes (DynamoDB's through its SQL runner).
      await state.specs.save({
        name: 'monthly revenue',
        kind: 'query',
        description: 'Revenue per month',
        spec: {
          sql: "select date_trunc('month', ordered_at) as month, sum(total) from orders group by 1 order by 1",
        },
      });
      for (const sql of [
        "select date_trunc('month', ordered_at), sum(total) as revenue from orders group by 1",
        "select count(*) from customers where country = 'DE'",
      ]) {
        await state.history.add({
          profile: PROFILE,
          actor: 'user',
          sql,
          rowCount: 12,
          durationMs: 40,
          error: null,
        });
      }
      await state.attachments.add({
        profile: PROFILE,
        name: 'new_customers.csv',
        mediaType: 'text/csv',
        content:
          'name,email,city,country\nAda Lovelace,ada@example.com,London,GB\nAlan Turing,alan@example.com,Wilmslow,GB\n',
      });
      const tab: Tab | undefined = context?.workbench
        ? { id: 'tab-1', kind: 'workbench', sql: context.workbench }
        : context?.tab
          ? {
              id: 'tab-1',
              kind: 'table',
              table: context.tab.table,
              ...(context.tab.filter ? { filter: context.tab.filter as never } : {}),
            }
          : undefined;
      if (tab) {
        await state.ui.update(PROFILE, {
          tabs: [tab],
          focusedTabId: tab.id,
          selection:
            context?.selection && context.tab
              ? { tabId: tab.id, table: context.tab.table, keys: context.selection.map((id) => ({ id })) }
              : null,
        });
      }
      return state;
    } catch (error) {
      await state.close();
      throw error;
    }
  }

  async close(): Promise<void> {
    await this.source.close();
    await rm(this.exportsDir, { recursive: true, force: true });
  }
}

function isRefusal(toolName: string, error: string): boolean {
  return error.startsWith(`Tool '${toolName}' not in active set`);
}

/** The calls of a turn in the order the model made them, with what became of each. */
function traceOf(
  messages: readonly ModelMessage[],
  results: Map<string, Omit<TracedCall, 'tool'>>,
  asked: Set<string>,
): TracedCall[] {
  const calls: TracedCall[] = [];
  for (const message of messages) {
    if (message.role !== 'assistant' || typeof message.content === 'string') continue;
    for (const part of message.content) {
      if (part.type !== 'tool-call') continue;
      calls.push({
        tool: part.toolName,
        outcome: 'pending',
        ...results.get(part.toolCallId),
        ...(asked.has(part.toolCallId) ? { asked: true } : {}),
      });
    }
  }
  return calls;
}

async function attempt(
  shop: EvalShop,
  request: EvalRequest,
  run: number,
  options: RunEvalOptions,
): Promise<Attempt> {
  const mode = options.mode ?? 'manual';
  let state: ToolrowState;
  try {
    state = await shop.freshState(request.context, mode);
  } catch (caught) {
    // The harness failed, not the model: record it on this attempt and let the others run.
    const error = `could not open a fresh state: ${caught instanceof Error ? caught.message : String(caught)}`;
    return {
      run,
      calls: [],
      ...grade(request, [], error),
      steps: 0,
      inputTokens: undefined,
      outputTokens: undefined,
      latencyMs: 0,
      text: '',
      error,
    };
  }
  const started = performance.now();
  const history: ModelMessage[] = [{ role: 'user', content: request.text }];
  const outcomes = new Map<string, Omit<TracedCall, 'tool'>>();
  const asked = new Set<string>();
  let steps = 0;
  let inputTokens: number | undefined;
  let outputTokens: number | undefined;
  let text = '';
  let error: string | undefined;
  const add = (total: number | undefined, more: number | undefined) =>
    total === undefined && more === undefined ? undefined : (total ?? 0) + (more ?? 0);
  try {
    const agent = createAgent({
      model: options.model,
      backend: toolsBackend({ source: shop.source, state }),
      store: appStateGateStore(state),
    });
    const rounds = options.maxRounds ?? 4;
    for (let round = 0; round < rounds; round++) {
      const result = await agent.runTurn(history, {
        profileId: PROFILE,
        engine: shop.source,
        ...(options.signal ? { abortSignal: options.signal } : {}),
      });
      history.push(...result.messages);
      steps += result.steps;
      inputTokens = add(inputTokens, result.usage.inputTokens);
      outputTokens = add(outputTokens, result.usage.outputTokens);
      if (result.text) text = result.text;
      for (const call of result.toolResults) {
        const output = call.output as { query?: unknown; results?: { name?: unknown }[] } | undefined;
        outcomes.set(call.toolCallId, {
          outcome: 'ran',
          ...(call.toolName === 'searchTools'
            ? {
                query:
                  typeof output?.query === 'string'
                    ? output.query
                    : String((call.input as { query?: unknown })?.query ?? ''),
                found: (output?.results ?? []).map((match) => String(match.name)),
              }
            : {}),
        });
      }
      for (const call of result.toolErrors) {
        outcomes.set(call.toolCallId, {
          outcome: isRefusal(call.toolName, call.error) ? 'refused' : 'failed',
          error: call.error.length > 300 ? `${call.error.slice(0, 299)}…` : call.error,
        });
      }
      if (result.approvals.length === 0) break;
      for (const approval of result.approvals) asked.add(approval.toolCallId);
      // The user who typed the request wants it done: every ask gets a yes.
      history.push(
        approvalResponse(result.approvals.map((a) => ({ approvalId: a.approvalId, approved: true }))),
      );
    }
  } catch (caught) {
    error = caught instanceof Error ? caught.message : String(caught);
  } finally {
    await state.close().catch(() => {});
  }
  const latencyMs = Math.round(performance.now() - started);
  const calls = traceOf(history, outcomes, asked);
  return {
    run,
    calls,
    ...grade(request, calls, error),
    steps,
    inputTokens,
    outputTokens,
    latencyMs,
    text,
    ...(error !== undefined ? { error } : {}),
  };
}

/**
 * The requests a connection of `engine` can pass: each step names a tool it serves, and the large
 * sample (a thousand tables) only where the engine can hold it. Derived from the rows' engines.
 */
export function requestsServedBy(requests: readonly EvalRequest[], engine: EngineView): EvalRequest[] {
  return requests.filter(
    (request) =>
      (request.shop !== 'large' || engine.features.includes('largeShop')) &&
      request.expect.every((step) =>
        (typeof step === 'string' ? [step] : step).some((name) => isServedBy(engine, name)),
      ),
  );
}

/** Runs every request `runs` times through the real agent loop, `concurrency` at a time. */
export async function runEval(options: RunEvalOptions): Promise<RequestAttempts[]> {
  const runs = Math.max(1, options.runs ?? 1);
  const concurrency = Math.max(1, options.concurrency ?? 4);
  const orders = options.orders ?? 1000;
  const results = options.requests.map((request) => ({ request, attempts: [] as Attempt[] }));
  const jobs = results.flatMap((entry) => Array.from({ length: runs }, (_, run) => ({ entry, run })));
  let done = 0;
  // One embedded database for the whole run: the requests on the sample shop first, then the large
  // sample's thousand tables are added to the same database for the requests on it (a second
  // database beside the first held hundreds of MB more).
  const phases = [
    { large: false, jobs: jobs.filter((job) => job.entry.request.shop !== 'large') },
    { large: true, jobs: jobs.filter((job) => job.entry.request.shop === 'large') },
  ].filter((phase) => phase.jobs.length > 0);
  const shop = await EvalShop.open(orders, false, options.databaseUrl);
  // The large sample lives in the embedded database, never in the user's --database-url.
  const largeShop =
    phases.some((phase) => phase.large) && options.databaseUrl
      ? await EvalShop.open(orders, true)
      : undefined;
  try {
    for (const phase of phases) {
      if (options.signal?.aborted) break;
      if (phase.large && !largeShop) await shop.addLargeSample();
      const target = phase.large ? (largeShop ?? shop) : shop;
      let nextJob = 0;
      const worker = async () => {
        for (;;) {
          if (options.signal?.aborted) return;
          const job = phase.jobs[nextJob++];
          if (!job) return;
          const result = await attempt(target, job.entry.request, job.run, options);
          job.entry.attempts.push(result);
          done++;
          options.onProgress?.({ done, total: jobs.length, request: job.entry.request, attempt: result });
        }
      };
      await Promise.all(Array.from({ length: Math.min(concurrency, phase.jobs.length) }, worker));
    }
  } finally {
    await shop.close();
    await largeShop?.close();
  }
  for (const entry of results) entry.attempts.sort((a, b) => a.run - b.run);
  return results;
}
