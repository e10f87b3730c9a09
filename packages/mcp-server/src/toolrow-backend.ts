// The production backend: tool implementations from @toolrow/tools, running over an open
// @toolrow/datasource handle, with every decision in the app state's audit log.
import { type DataSource, DEFAULT_PROFILE } from '@toolrow/datasource';
import type { z } from 'zod';
import type { McpBackend } from './backend.ts';
import type { McpToolName } from './generated/mcp-scopes.ts';

/** What the MCP server needs of one tool implementation (the shape of @toolrow/tools' registry entries). */
export interface McpToolImplementation {
  readonly inputSchema: z.ZodType;
  execute(
    input: never,
    ctx: { source: DataSource; profile: string; actor: `mcp:${string}`; signal?: AbortSignal },
  ): Promise<unknown>;
}

export type McpToolImplementations = { readonly [Name in McpToolName]: McpToolImplementation };

export interface ToolrowBackendOptions {
  source: DataSource;
  /** The tool registry (@toolrow/tools). */
  implementations: McpToolImplementations;
  /** The profile whose UI state and history the tools use (default 'default'). */
  profile?: string;
}

/** The table a call concerns, when its input names one: the audit log keeps it for review. */
function tableOf(input: unknown): string | null {
  const table = (input as { table?: unknown } | null)?.table;
  return typeof table === 'string' ? table : null;
}

export function createToolrowBackend(options: ToolrowBackendOptions): McpBackend {
  const profile = options.profile ?? DEFAULT_PROFILE;
  const { source, implementations } = options;
  return {
    inputSchemaOf: (name) => implementations[name].inputSchema,
    run: (name, input, call) =>
      implementations[name].execute(input as never, {
        source,
        profile,
        actor: call.actor,
        signal: call.signal,
      }),
    async audit(record) {
      await source.app.audit.record({
        tool: record.tool,
        input: record.input,
        decision: record.decision,
        decidedBy: record.decidedBy,
        profile,
        table: tableOf(record.input),
        detail: record.detail,
      });
    },
  };
}
