import {
  CATALOG_ROWS,
  type EngineView,
  inlineToolsOf,
  isGated,
  isLoop,
  isServedBy,
  isToolName,
  proposeVariantOf,
  rowOf,
  TOOL_ACCESS,
  TOOL_NAMES,
  type ToolAccess,
  type ToolName,
} from '@toolrow/catalog';
import type { QueryLanguage } from '@toolrow/datasource';
import { outputForModel } from '@toolrow/tools';
import {
  asSchema,
  type FlexibleSchema,
  InvalidToolInputError,
  type JSONValue,
  jsonSchema,
  type ModelMessage,
  NoSuchToolError,
  type Schema,
  type Tool,
  type ToolApprovalStatus,
  type ToolSet,
  tool,
} from 'ai';
import type { z } from 'zod';
import type { AuditDecision, DecidedBy } from './audit.ts';
import {
  discoveredTools,
  namesInSearchOutput,
  pendingApprovalAnswers,
  SEARCH_TOOL,
  searchesThisTurn,
} from './history.ts';
import {
  coveredByGrants,
  type Grant,
  ladder,
  PERMISSION_MODE_LABELS,
  type PermissionMode,
} from './ladder.ts';
import type { ExecutableToolName, GateStore, ProfilePermissions, ToolBackend } from './ports.ts';
import { refusalMessage, ToolFailure, ToolRefusal } from './refusal.ts';
import { SEARCH_BUDGET, type SearchAnswer, searchAnswer } from './search/answer.ts';
import { searchToolsInputSchema } from './search/input-schema.ts';
import type { ToolMatch } from './search/scorer.ts';

/** searchTools calls allowed per agent turn. */
export { SEARCH_BUDGET };

/** Exactly what the model gets back from a search over budget (the scorer does not run). */
export interface SearchBudgetExhausted {
  error: 'search-budget-exhausted';
  budgetCap: number;
}

export function searchBudgetExhausted(): SearchBudgetExhausted {
  return { error: 'search-budget-exhausted', budgetCap: SEARCH_BUDGET };
}

/** What searchTools returns to the model. */
export type SearchToolsOutput = SearchAnswer;

export interface TurnOptions {
  /** The profile whose permission mode and grants gate this turn, and whose audit log records it. */
  profileId: string;
  /** Team mode: the signed-in person the turn is for (their email): their changes, their audit lines. */
  person?: string;
  /**
   * The engine of the connection the turn works on (its id and features: a DataSource is one): its
   * tools are the only ones active, searchable or callable, and the instructions name the language
   * its queries take. None: every tool.
   */
  engine?: EngineView & { readonly queries?: { readonly language: QueryLanguage } };
  abortSignal?: AbortSignal;
}

/** The model-facing text of a failed tool call is `String(error)`; make it ours, word for word. */
function replaceErrorText(error: Error, text: string): void {
  Object.defineProperty(error, 'message', { value: text, configurable: true, writable: true });
  Object.defineProperty(error, 'toString', { value: () => text, configurable: true, writable: true });
}

function issuesOf(error: unknown): string | undefined {
  for (let cause: unknown = error, depth = 0; cause && depth < 5; depth++) {
    const issues = (cause as { issues?: unknown }).issues;
    if (Array.isArray(issues)) {
      return issues
        .map((issue: { path?: PropertyKey[]; message?: string }) => {
          const path = (issue.path ?? []).map(String).join('.');
          return `${path || '(input)'}: ${issue.message ?? 'invalid'}`;
        })
        .join('; ');
    }
    cause = (cause as { cause?: unknown }).cause;
  }
  return undefined;
}

function denialHint(reason: string | undefined, propose: string): string {
  const said = reason?.trim() ? `The user said no: ${reason.trim()}` : 'The user said no.';
  return `${said} Nothing ran. If it still helps, offer ${propose} instead: a button the user can click, which changes nothing until they do.`;
}

/** Why the ladder asks, in the words the user and the audit log read (chat and MCP alike). */
export function askReason(access: ToolAccess, mode: PermissionMode): string {
  const label = PERMISSION_MODE_LABELS[mode];
  if (mode === 'manual') return `${label} mode asks before every gated action.`;
  if (access === 'read') return `${label} mode asks once per table before reading table data.`;
  if (access === 'export') return `${label} mode asks before writing an export file.`;
  return `${label} mode asks before changing what the user sees.`;
}

/** Why the ladder let a gated call run without asking (chat and MCP alike). */
export function autoReason(
  access: ToolAccess,
  mode: PermissionMode,
  tables: readonly string[] | undefined,
): string {
  const label = PERMISSION_MODE_LABELS[mode];
  if (access === 'propose') return `${label} mode: a propose tool only offers a chip; the click is the ask.`;
  if (mode === 'full-auto') return `${label} mode runs every gated action; writes still only stage.`;
  if (access === 'read') return `${label} mode: remembered grant for ${(tables ?? []).join(', ')}.`;
  return `${label} mode runs ${access} tools; they write only to the staging area.`;
}

/** Dependencies of a turn: the tool implementations, the gate store and a clock. */
export interface TurnDependencies {
  backend: ToolBackend;
  store: GateStore;
  now: () => Date;
  /** The ranking searchTools uses (default: searchCatalog). */
  search?: (query: string) => ToolMatch[];
}

/**
 * One agent turn: the active set, the search budget and the gate, all derived from the
 * conversation so far. A turn paused for approvals and resumed with the answers is the same turn.
 */
export class Turn {
  readonly #deps: TurnDependencies;
  readonly #options: TurnOptions;
  readonly #permissions: ProfilePermissions;
  readonly #active: Set<ToolName>;
  readonly #engine: EngineView | undefined;
  /** The language the connection's queries take, when the turn knows its connection. */
  readonly language: QueryLanguage | undefined;
  #searches: number;
  /** Gated calls the ladder or the user cleared to run; the execute wrapper checks it. */
  readonly #cleared = new Set<string>();
  /** Calls the user already answered; the SDK asks the approval function again on replay. */
  readonly #answered = new Set<string>();
  /** Denials (by approval id) whose reason the model reads with the way out added. */
  readonly #denialHints = new Map<string, string>();

  private constructor(
    deps: TurnDependencies,
    options: TurnOptions,
    permissions: ProfilePermissions,
    history: readonly ModelMessage[],
  ) {
    this.#deps = deps;
    this.#options = options;
    this.#permissions = permissions;
    this.#engine = options.engine;
    this.language = options.engine?.queries?.language;
    const served = (name: ToolName) => isServedBy(this.#engine, name);
    this.#active = new Set<ToolName>([
      ...inlineToolsOf(this.#engine),
      ...[...discoveredTools(history)].filter(served),
    ]);
    this.#searches = searchesThisTurn(history);
  }

  /** Opens a turn over a history: reads the profile's permissions, then records the user's answers. */
  static async open(
    deps: TurnDependencies,
    history: readonly ModelMessage[],
    options: TurnOptions,
  ): Promise<Turn> {
    const permissions = await deps.store.permissions(options.profileId);
    const turn = new Turn(deps, options, permissions, history);
    await turn.#recordAnswers(history);
    return turn;
  }

  get mode(): PermissionMode {
    return this.#permissions.mode;
  }

  get searchesUsed(): number {
    return this.#searches;
  }

  /** The active tools in row order (a stable order keeps provider prompt caches warm). */
  activeTools(): ToolName[] {
    return TOOL_NAMES.filter((name) => this.#active.has(name));
  }

  isActive(name: string): boolean {
    return isToolName(name) && this.#active.has(name);
  }

  async #audit(
    name: ToolName,
    input: unknown,
    decision: AuditDecision,
    decidedBy: DecidedBy,
    reason: string | undefined,
    tables: readonly string[] | undefined,
  ): Promise<void> {
    await this.#deps.store.appendAudit({
      tool: name,
      input,
      decision,
      decidedBy,
      profileId: this.#options.profileId,
      ...(this.#options.person ? { person: this.#options.person } : {}),
      at: this.#deps.now(),
      ...(tables && tables.length > 0 ? { tables } : {}),
      ...(reason !== undefined ? { reason } : {}),
    });
  }

  async #tables(name: ExecutableToolName, input: unknown): Promise<readonly string[] | undefined> {
    return this.#deps.backend.tablesOf ? await this.#deps.backend.tablesOf(name, input) : undefined;
  }

  async #recordAnswers(history: readonly ModelMessage[]): Promise<void> {
    for (const answer of pendingApprovalAnswers(history)) {
      if (!isToolName(answer.toolName) || !isGated(answer.toolName)) continue;
      const name = answer.toolName;
      this.#answered.add(answer.toolCallId);
      const tables = await this.#tables(name, answer.input);
      await this.#audit(
        name,
        answer.input,
        answer.approved ? 'approved' : 'denied',
        'user',
        answer.reason,
        tables,
      );
      if (!answer.approved) {
        // The safe way out after a "no": the propose twin, active from the next step.
        const propose = proposeVariantOf(name);
        if (propose) {
          this.#active.add(propose);
          this.#denialHints.set(answer.approvalId, denialHint(answer.reason, propose));
        }
        continue;
      }
      this.#cleared.add(answer.toolCallId);
      // Auto mode remembers a "yes" to a read, per table, so the next read of it runs.
      if (this.mode === 'auto' && TOOL_ACCESS[name] === 'read') {
        for (const table of tables ?? []) {
          const grant: Grant = { tool: name, table };
          await this.#deps.store.rememberGrant(this.#options.profileId, grant);
        }
      }
    }
  }

  /**
   * The history as the model should read it: a denied call that has a propose twin carries, in
   * its denial reason, the hint to offer that twin instead. The audit log keeps the user's words.
   */
  withDenialHints(history: readonly ModelMessage[]): ModelMessage[] {
    if (this.#denialHints.size === 0) return [...history];
    return history.map((message) => {
      if (message.role !== 'tool') return message;
      return {
        ...message,
        content: message.content.map((part) => {
          if (part.type === 'tool-approval-response') {
            const hint = this.#denialHints.get(part.approvalId);
            return hint ? { ...part, reason: hint } : part;
          }
          return part;
        }),
      };
    });
  }

  /** searchTools: rank the catalog and activate the matches, inside this execute, before the next step. */
  search(query: string): SearchToolsOutput | SearchBudgetExhausted {
    if (this.#searches >= SEARCH_BUDGET) {
      this.#searches++;
      return searchBudgetExhausted();
    }
    this.#searches++;
    const engine = this.#engine;
    const { answer, matches } = searchAnswer(query, {
      ...(engine ? { engine } : {}),
      searchesLeft: SEARCH_BUDGET - this.#searches,
      ...(this.#deps.search ? { rank: this.#deps.search } : {}),
    });
    // The next step's prepareStep reads this set; changing it here, not in a step hook, is what
    // makes the found tools callable in the very next step.
    for (const match of matches) this.#active.add(match.name);
    return answer;
  }

  /** The call-level approval: silent tools run, gated tools go up the ladder, and every decision is audited. */
  async approval(toolName: string, toolCallId: string, input: unknown): Promise<ToolApprovalStatus> {
    if (!isToolName(toolName) || !isGated(toolName) || !this.#active.has(toolName)) return 'not-applicable';
    // On replay the SDK asks again; only 'denied' would change anything, and the user already answered.
    if (this.#answered.has(toolCallId)) return 'user-approval';
    const access = TOOL_ACCESS[toolName];
    const tables = await this.#tables(toolName, input);
    const outcome = ladder(access, this.mode, coveredByGrants(this.#permissions.grants, tables));
    if (outcome === 'run') {
      await this.#audit(toolName, input, 'auto', 'agent', autoReason(access, this.mode, tables), tables);
      this.#cleared.add(toolCallId);
      return 'not-applicable';
    }
    const reason = askReason(access, this.mode);
    await this.#audit(toolName, input, 'asked', 'agent', reason, tables);
    return { type: 'user-approval', reason };
  }

  /** The execute every tool goes through: it refuses inactive tools and uncleared gated calls itself. */
  async execute(name: ExecutableToolName, input: unknown, toolCallId: string, abortSignal?: AbortSignal) {
    if (!this.#active.has(name))
      throw new ToolRefusal(refusalMessage(name, this.activeTools(), this.#engine));
    if (isGated(name) && !this.#cleared.has(toolCallId)) {
      throw new ToolRefusal(
        `Tool '${name}' needs the user's approval under ${PERMISSION_MODE_LABELS[this.mode]} mode and did not get it; nothing ran.`,
      );
    }
    try {
      return await this.#deps.backend.execute(name, input, {
        actor: 'agent',
        profileId: this.#options.profileId,
        ...(this.#options.person ? { person: this.#options.person } : {}),
        toolCallId,
        ...(abortSignal ? { abortSignal } : {}),
      });
    } catch (error) {
      // The tools write their errors for the model; keep the text and drop the "ToolError: " prefix.
      if (error instanceof Error) throw new ToolFailure(error.message, { cause: error });
      throw error;
    }
  }

  /**
   * repairToolCall: the SDK refuses a call to an inactive or unknown tool before any execute; this
   * replaces its generic text with the refusal that names the way out. Bad input gets a message
   * that names the field.
   */
  repair(toolName: string, rawInput: string, error: unknown): null {
    if (NoSuchToolError.isInstance(error)) {
      replaceErrorText(error, refusalMessage(toolName, this.activeTools(), this.#engine));
    } else if (InvalidToolInputError.isInstance(error)) {
      replaceErrorText(error, this.#invalidInputText(toolName, rawInput, error));
    }
    return null;
  }

  #invalidInputText(toolName: string, rawInput: string, error: InvalidToolInputError): string {
    const describe = this.#deps.backend.describeInvalidInput;
    if (describe && isToolName(toolName) && !isLoop(toolName)) {
      try {
        const described = describe(toolName as ExecutableToolName, JSON.parse(rawInput || '{}'));
        if (described) return described;
      } catch {
        // Not JSON: fall through to the generic text.
      }
    }
    const issues = issuesOf(error.cause);
    return `Invalid input for ${toolName}: ${issues ?? 'the input is not valid JSON'}. Call ${toolName} again with input that matches its schema.`;
  }
}

/**
 * The AI SDK tool set for every row: descriptions from the rows, input schemas from the backend,
 * executes bound to one turn. Without a turn, the tools carry no execute (for cost measurement).
 */
/**
 * The input schema as the model gets it: the SDK's conversion minus the `$schema` keyword, which
 * tells a model nothing and costs ~15 tokens per tool on every request. Validation is unchanged.
 */
export function modelInputSchema<T>(schema: FlexibleSchema<T>): Schema<T> {
  const converted = asSchema(schema);
  const { validate } = converted;
  return jsonSchema<T>(
    () =>
      Promise.resolve(converted.jsonSchema).then((json) => {
        const { $schema: _unused, ...rest } = json;
        return rest;
      }),
    validate ? { validate } : {},
  );
}

/** What the model reads of a tool's output: all of it but what only the surfaces draw. */
function modelOutput(output: unknown): ReturnType<NonNullable<Tool['toModelOutput']>> {
  const value = outputForModel(output);
  return typeof value === 'string'
    ? { type: 'text', value }
    : { type: 'json', value: JSON.parse(JSON.stringify(value ?? null)) as JSONValue };
}

export function buildToolSet(backend: Pick<ToolBackend, 'inputSchema'>, turn?: Turn): ToolSet {
  const tools: Record<string, Tool> = {};
  for (const row of CATALOG_ROWS) {
    const name = row.name;
    if (isLoop(name)) {
      tools[name] = turn
        ? tool({
            description: row.description,
            inputSchema: modelInputSchema(searchToolsInputSchema),
            execute: async ({ query }) => turn.search(query),
          })
        : tool({ description: row.description, inputSchema: modelInputSchema(searchToolsInputSchema) });
      continue;
    }
    const executable = name as ExecutableToolName;
    const inputSchema = modelInputSchema(
      backend.inputSchema(executable) as z.ZodType<Record<string, unknown>>,
    );
    tools[name] = turn
      ? tool({
          description: rowOf(name).description,
          inputSchema,
          execute: async (input, options) =>
            turn.execute(executable, input, options.toolCallId, options.abortSignal),
          toModelOutput: ({ output }) => modelOutput(output),
        })
      : tool({ description: rowOf(name).description, inputSchema });
  }
  return tools;
}

export { namesInSearchOutput, SEARCH_TOOL };
