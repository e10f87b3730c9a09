import type { Actor, DataSource } from '@toolrow/datasource';
import { DEFAULT_LIMITS, type ToolLimits } from './bounds.ts';

/**
 * What every tool execute receives. The caller (agent, MCP server, server app, CLI) opens the
 * data source once and builds one context per call or per conversation.
 */
export interface ToolContext {
  /** The open data source: database, schema cache, app state, row reader, staging, exports. */
  source: DataSource;
  /** The profile whose UI state, history and attachments the tools read and write. */
  profile: string;
  /** Who is calling: 'user', 'agent', or 'mcp:<token name>'. Recorded on staged changes, history and exports. */
  actor: Actor;
  /** Cancels the call; reads check it between steps. */
  signal?: AbortSignal;
  /** Overrides of the output caps (rows, value length, output size, statement timeout). */
  limits?: Partial<ToolLimits>;
}

export function limitsOf(ctx: ToolContext): ToolLimits {
  return { ...DEFAULT_LIMITS, ...ctx.limits };
}

/** The exports folder of the context's data source (absolute). */
export function exportsDirOf(ctx: ToolContext): string {
  return ctx.source.exports.dir;
}
