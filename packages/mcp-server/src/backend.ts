// The seam between the MCP server and the rest of Toolrow: the tool implementations, the gating
// record (audit log) and nothing else. createToolrowBackend wires it to @toolrow/tools and
// @toolrow/datasource and @toolrow/state; tests can pass any object of this shape.
import type { StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import type { ToolName } from '@toolrow/catalog';
import type { McpToolName } from './generated/mcp-scopes.ts';

/** 'mcp:<token name>': who acted, as the audit log and the tools record it. */
export type McpActor = `mcp:${string}`;

export interface McpToolCall {
  actor: McpActor;
  /** Aborted when the client cancels the request or disconnects. */
  signal: AbortSignal;
}

/** One gated decision an MCP call produced. */
export interface McpAuditRecord {
  tool: ToolName;
  input: unknown;
  /** 'auto': in scope, ran without asking (the token's scope is the user's standing grant). 'denied': refused unrun. */
  decision: 'auto' | 'denied';
  decidedBy: McpActor;
  /** Why, in a few words ("scope tables:staged", "needs tables:full, holds tables:readonly"). */
  detail: string;
}

export interface McpBackend {
  /** The input schema of an exposed tool: its JSON Schema is what tools/list shows. */
  inputSchemaOf(name: McpToolName): StandardSchemaWithJSON;
  /** Checks a raw input; throws an error naming each bad field. Runs before the audit and the tool. */
  parseInput(name: McpToolName, rawInput: unknown): unknown;
  /** Runs a tool on parsed input and returns its output (JSON-serialisable). */
  run(name: McpToolName, input: unknown, call: McpToolCall): Promise<unknown>;
  /** Appends one decision to the always-on audit log. */
  audit(record: McpAuditRecord): Promise<void>;
}
