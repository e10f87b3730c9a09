// The production backend: the tool registry of @toolrow/tools running over the user's data and
// Toolrow's state, with every decision written through the agent's audit store, so
// the log reads the same whoever decided.
import { appStateGateStore } from '@toolrow/agent';
import { type DataSource, DEFAULT_PROFILE } from '@toolrow/datasource';
import type { ToolrowState } from '@toolrow/state';
import {
  implementationOf,
  missingImplementationMessage,
  parseToolInput,
  TOOL_IMPLEMENTATIONS,
  TOOL_OUTPUT_SCHEMAS,
  type ToolImplementation,
  tablesOfCall,
  toToolError,
  UNIMPLEMENTED_TOOLS,
} from '@toolrow/tools';
import type { McpBackend } from './backend.ts';
import { createFairShare, type FairShare } from './fair-share.ts';
import type { McpScope } from './generated/mcp-scopes.ts';

export interface ToolrowBackendOptions {
  source: DataSource;
  state: ToolrowState;
  /** The profile whose tabs, selection and history the tools use (default 'default'). */
  profile?: string;
  /**
   * How many calls clients may run at once (see fair-share.ts); share one between the backends of
   * one process. Default: one of its own.
   */
  fairShare?: FairShare;
  /** The widest scope a client gets on this connection (a named connection's MCP exposure). */
  scopeCeiling?: McpScope;
}

export function createToolrowBackend(options: ToolrowBackendOptions): McpBackend {
  // Fail at start-up, not on the first client's tools/list.
  if (UNIMPLEMENTED_TOOLS.length > 0)
    throw new Error(UNIMPLEMENTED_TOOLS.map(missingImplementationMessage).join('\n'));
  const profile = options.profile ?? DEFAULT_PROFILE;
  const fairShare = options.fairShare ?? createFairShare();
  const { source, state } = options;
  const gate = appStateGateStore(state);
  const context = { source, state, profile } as const;
  let ensured: Promise<unknown> | undefined;
  return {
    profile,
    engine: source,
    ...(options.scopeCeiling ? { scopeCeiling: options.scopeCeiling } : {}),
    // profiles.ensure is an upsert (a write): once per backend, then the mode is a plain read, and
    // grants only matter (and are read) in Auto mode.
    async permissions(actor) {
      ensured ??= state.profiles.ensure(profile).catch((error: unknown) => {
        ensured = undefined;
        throw error;
      });
      await ensured;
      const found = (await state.profiles.list()).find((candidate) => candidate.name === profile);
      const mode = found?.mode ?? (await state.profiles.ensure(profile)).mode;
      if (mode !== 'auto') return { mode, grants: [] };
      // This client's grants only: a "yes" given to another client (or the chat) is not its.
      const grants = await state.profiles.grants(profile, actor);
      return { mode, grants: grants.map((grant) => ({ tool: grant.tool, table: grant.table })) };
    },
    tablesOf: async (_name, input) => tablesOfCall(input, { ...context, actor: 'agent' }),
    rememberGrant: (grant, actor) =>
      state.profiles
        .addGrant({ profile, grantee: actor, tool: grant.tool, table: grant.table, grantedBy: 'user' })
        .then(() => {}),
    async cancelExport(id, actor) {
      // Only the actor's own job: getExportStatus sees only those (another's id is not found).
      const status = () =>
        implementationOf('getExportStatus').execute(parseToolInput('getExportStatus', { id }), {
          ...context,
          actor,
        });
      await status();
      await state.exports.cancel(id);
      return status();
    },
    async tables() {
      return (await source.schema.get()).tables.map((table) => ({
        schema: table.schema,
        name: table.name,
        kind: table.kind,
        comment: table.comment,
        rowEstimate: table.rowEstimate,
      }));
    },
    // The describeTable tool's own output, so the resource and the tool never disagree.
    describeTable: (qualifiedName) =>
      (TOOL_IMPLEMENTATIONS.describeTable as ToolImplementation).execute(
        parseToolInput('describeTable', { table: qualifiedName }),
        { ...context, actor: 'agent' },
      ),
    inputSchemaOf: (name) => implementationOf(name).inputSchema,
    // Generated from each implementation's return type (npm run gen).
    outputSchemaOf: (name) => TOOL_OUTPUT_SCHEMAS[name],
    parseInput: (name, rawInput) => parseToolInput(name, rawInput),
    async run(name, input, call) {
      if (call.signal.aborted) throw toToolError(name, new Error('the client cancelled the call'));
      const implementation = TOOL_IMPLEMENTATIONS[name] as ToolImplementation;
      try {
        return await fairShare.run(call.actor, call.signal, () =>
          implementation.execute(input, {
            source,
            state,
            profile,
            actor: call.actor,
            ...(call.person ? { person: call.person } : {}),
            signal: call.signal,
          }),
        );
      } catch (error) {
        throw toToolError(name, call.signal.aborted ? new Error('the client cancelled the call') : error);
      }
    },
    async audit(record) {
      const tables =
        record.tables ?? (await tablesOfCall(record.input, { ...context, actor: record.decidedBy }));
      await gate.appendAudit({
        tool: record.tool,
        input: record.input,
        decision: record.decision,
        decidedBy: record.decidedBy,
        profileId: profile,
        ...(record.person ? { person: record.person } : {}),
        ...(tables && tables.length > 0 ? { tables } : {}),
        at: new Date(),
        reason: record.detail,
      });
    },
  };
}
