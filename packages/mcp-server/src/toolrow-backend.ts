// The production backend: the tool registry of @toolrow/tools running over an open
// @toolrow/datasource handle, with every decision in the app state's audit log.
import { type DataSource, DEFAULT_PROFILE } from '@toolrow/datasource';
import { parseToolInput, TOOL_IMPLEMENTATIONS, type ToolImplementation, toToolError } from '@toolrow/tools';
import type { McpBackend } from './backend.ts';

export interface ToolrowBackendOptions {
  source: DataSource;
  /** The profile whose tabs, selection and history the tools use (default 'default'). */
  profile?: string;
}

/** The table a call concerns, when its input names one: the audit log keeps it for review. */
function tableOf(input: unknown): string | null {
  const table = (input as { table?: unknown } | null)?.table;
  return typeof table === 'string' ? table : null;
}

export function createToolrowBackend(options: ToolrowBackendOptions): McpBackend {
  const profile = options.profile ?? DEFAULT_PROFILE;
  const { source } = options;
  return {
    inputSchemaOf: (name) => TOOL_IMPLEMENTATIONS[name].inputSchema,
    parseInput: (name, rawInput) => parseToolInput(name, rawInput),
    async run(name, input, call) {
      if (call.signal.aborted) throw toToolError(name, new Error('the client cancelled the call'));
      const implementation = TOOL_IMPLEMENTATIONS[name] as ToolImplementation;
      try {
        return await implementation.execute(input, {
          source,
          profile,
          actor: call.actor,
          signal: call.signal,
        });
      } catch (error) {
        throw toToolError(name, error);
      }
    },
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
