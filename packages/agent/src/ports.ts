// The two things the agent needs from the rest of Toolrow, as small interfaces: the tool
// implementations (@toolrow/tools) and the state store (@toolrow/state). Tests can pass
// scripted versions; production passes the adapters in backends.ts.
import type { LoopToolName, ToolName } from '@toolrow/catalog';
import type { z } from 'zod';
import type { AuditEntry, DecidedBy } from './audit.ts';
import type { Grant, PermissionMode } from './ladder.ts';

/** Every tool except the loop tool, which the agent implements itself. */
export type ExecutableToolName = Exclude<ToolName, LoopToolName>;

/** Who runs a tool call and for which profile. */
export interface ToolCallContext {
  actor: DecidedBy;
  profileId: string;
  /** Team mode: the signed-in person the turn is for (their email). */
  person?: string;
  toolCallId?: string;
  abortSignal?: AbortSignal;
}

/** The tool implementations: a zod 4 input schema and an execute per tool. */
export interface ToolBackend {
  inputSchema(name: ExecutableToolName): z.ZodType;
  execute(name: ExecutableToolName, input: unknown, context: ToolCallContext): Promise<unknown>;
  /**
   * The tables a call reads, for remembered grants (Auto mode asks once per table). Return
   * undefined when unknown: the ladder then asks.
   */
  tablesOf?(
    name: ExecutableToolName,
    input: unknown,
  ): readonly string[] | undefined | Promise<readonly string[] | undefined>;
  /**
   * The message for an input that fails the tool's schema (the model reads it), naming the field
   * and what was expected; undefined when the input is valid or the backend has no opinion.
   */
  describeInvalidInput?(name: ExecutableToolName, input: unknown): string | undefined;
}

/** A profile's rung on the permission ladder and what it has remembered. */
export interface ProfilePermissions {
  mode: PermissionMode;
  grants: readonly Grant[];
}

/** Where permissions are read and every gated decision is written. */
export interface GateStore {
  permissions(profileId: string): Promise<ProfilePermissions>;
  rememberGrant(profileId: string, grant: Grant): Promise<void>;
  appendAudit(entry: AuditEntry): Promise<void>;
}
