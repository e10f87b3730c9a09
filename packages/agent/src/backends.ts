// The production adapters: tools from @toolrow/tools over the user's data, gate state in Toolrow's state.
import type { DataSource } from '@toolrow/datasource';
import type { ToolrowState } from '@toolrow/state';
import {
  implementationOf,
  invokeTool,
  isToolError,
  parseToolInput,
  type ToolContext,
  type ToolLimits,
  tablesOfCall,
} from '@toolrow/tools';
import type { GateStore, ToolBackend } from './ports.ts';

/** The real input schemas alone, for measuring or listing tools without a data source. */
export const toolSchemas: Pick<ToolBackend, 'inputSchema'> = {
  inputSchema: (name) => implementationOf(name).inputSchema,
};

/** Runs the real tool implementations over the user's data and Toolrow's state. */
export function toolsBackend(
  stores: { source: DataSource; state: ToolrowState },
  options: { limits?: Partial<ToolLimits> } = {},
): ToolBackend {
  const { source, state } = stores;
  const context = (
    profile: string,
    actor: ToolContext['actor'],
    signal?: AbortSignal,
    person?: string,
  ): ToolContext => ({
    source,
    state,
    profile,
    actor,
    ...(person ? { person } : {}),
    ...(signal ? { signal } : {}),
    ...(options.limits ? { limits: options.limits } : {}),
  });
  return {
    inputSchema: (name) => implementationOf(name).inputSchema,
    execute: (name, input, call) =>
      invokeTool(name, input, context(call.profileId, call.actor, call.abortSignal, call.person)),
    // Resolved through the schema cache ("public.orders"), so grants match however a call spells it.
    tablesOf: (_name, input) => tablesOfCall(input, context('default', 'agent')),
    describeInvalidInput(name, input) {
      try {
        parseToolInput(name, input);
        return undefined;
      } catch (error) {
        return isToolError(error) ? error.message : undefined;
      }
    },
  };
}

/** Permissions, grants and the audit log in Toolrow's state. */
export function appStateGateStore(app: ToolrowState): GateStore {
  return {
    async permissions(profileId) {
      const profile = await app.profiles.ensure(profileId);
      // The chat's own grants: a "yes" given to an MCP client is that client's alone.
      const grants = await app.profiles.grants(profileId, 'agent');
      return {
        mode: profile.mode,
        grants: grants.map((grant) => ({ tool: grant.tool, table: grant.table })),
      };
    },
    async rememberGrant(profileId, grant) {
      await app.profiles.addGrant({
        profile: profileId,
        grantee: 'agent',
        tool: grant.tool,
        table: grant.table,
        grantedBy: 'user',
      });
    },
    async appendAudit(entry) {
      await app.audit.record({
        tool: entry.tool,
        input: entry.input,
        decision: entry.decision,
        decidedBy: entry.decidedBy,
        profile: entry.profileId,
        table: entry.tables && entry.tables.length > 0 ? entry.tables.join(', ') : null,
        detail: entry.reason ?? null,
        person: entry.person ?? null,
      });
    },
  };
}
