import type { Actor, DataSource, ReadPriority } from '@toolrow/datasource';
import type { ToolrowState } from '@toolrow/state';
import { DEFAULT_LIMITS, type ToolLimits } from './bounds.ts';

/**
 * What every tool execute receives. The caller (agent, MCP server, server app, CLI) opens the
 * data source once and builds one context per call or per conversation.
 */
export interface ToolContext {
  /** The user's data: the connection, schema cache, row reader. */
  source: DataSource;
  /** Toolrow's own state: UI state, specs, history, audit, attachments, the staging area, exports. */
  state: ToolrowState;
  /** The profile whose UI state, history and attachments the tools read and write. */
  profile: string;
  /** Who is calling: 'user', 'agent', or 'mcp:<token name>'. Recorded on staged changes, history and exports. */
  actor: Actor;
  /** Team mode: the signed-in person the actor acts for (their email); recorded on staged changes. */
  person?: string;
  /**
   * Cancels the call (the user stopped the turn, the MCP client cancelled): every table read gets
   * it, so a running statement is stopped too, and the call fails with ToolError 'aborted'.
   */
  signal?: AbortSignal;
  /** Overrides of the output caps (rows, value length, output size, statement timeout). */
  limits?: Partial<ToolLimits>;
  /**
   * What the caller sees of the staging area, query history, audit log and export jobs: 'own'
   * (what this actor did) or 'all'. Default: 'own' for MCP clients — one client never reads what
   * the user or another client staged, ran or decided unless the user granted it — 'all' for the
   * user and the agent.
   */
  visibility?: 'own' | 'all';
}

/** `{ actor }` when the caller sees only its own records: spread into a state list's filter. */
export function ownRecords(ctx: ToolContext): { actor?: Actor } {
  const visibility = ctx.visibility ?? (ctx.actor.startsWith('mcp:') ? 'own' : 'all');
  return visibility === 'own' ? { actor: ctx.actor } : {};
}

/** `{ signal }` when the call has one: spread into a data-source read's options. */
export function signalOf(ctx: ToolContext): { signal?: AbortSignal } {
  return ctx.signal ? { signal: ctx.signal } : {};
}

/**
 * A table read's options: the statement time limit, the call's signal, and whose read it is (an
 * MCP client's gives way to the user's own on the shared embedded database).
 */
export function readOptions(ctx: ToolContext): {
  timeoutMs: number;
  signal?: AbortSignal;
  priority: ReadPriority;
} {
  return {
    timeoutMs: limitsOf(ctx).statementTimeoutMs,
    ...signalOf(ctx),
    priority: ctx.actor.startsWith('mcp:') ? 'background' : 'interactive',
  };
}

export function limitsOf(ctx: ToolContext): ToolLimits {
  return { ...DEFAULT_LIMITS, ...ctx.limits };
}

/** The exports folder of the context's data source (absolute). */
export function exportsDirOf(ctx: ToolContext): string {
  return ctx.state.exports.dir;
}
