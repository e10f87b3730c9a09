// The seam between the MCP server and the rest of Toolrow: the tool implementations, the gating
// record (audit log) and nothing else. createToolrowBackend wires it to @toolrow/tools and
// @toolrow/datasource and @toolrow/state; tests can pass any object of this shape.
import type { StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import type { AuditDecision, Grant, ProfilePermissions } from '@toolrow/agent';
import type { EngineView, ToolName } from '@toolrow/catalog';
import type { McpScope, McpToolName } from './generated/mcp-scopes.ts';

/** 'mcp:<token name>': who acted, as the audit log and the tools record it. */
export type McpActor = `mcp:${string}`;

export interface McpToolCall {
  actor: McpActor;
  /** Team mode: the person the client's token belongs to. */
  person?: string;
  /** Aborted when the client cancels the request or disconnects. */
  signal: AbortSignal;
  /**
   * Reports progress of long work (an export, a slow query) to the client, when it asked for
   * progress (a progressToken); a no-op otherwise.
   */
  progress?: (update: { progress: number; total?: number; message?: string }) => void;
}

/** One gated decision an MCP call produced. */
export interface McpAuditRecord {
  tool: ToolName;
  input: unknown;
  /**
   * As in chat: 'auto' the profile's mode let it run; 'asked' the user (or the client's user) was
   * asked; 'approved' / 'denied' the answer (a timeout, a refused scope or nobody to ask is 'denied').
   */
  decision: AuditDecision;
  /** Always the client (mcp:<name>): who answered is in `detail`. */
  decidedBy: McpActor;
  /** Team mode: the person the client's token belongs to. */
  person?: string;
  /** Why, in a few words ("scope tables:staged", "needs tables:full, holds tables:readonly"). */
  detail: string;
  /** The tables the call concerns, when already known (else the backend works them out). */
  tables?: readonly string[];
}

export interface McpBackend {
  /** The input schema of an exposed tool: its JSON Schema is what tools/list shows. */
  inputSchemaOf(name: McpToolName): StandardSchemaWithJSON;
  /** The JSON Schema (2020-12) of what `run` returns for an exposed tool: tools/list shows it. */
  outputSchemaOf(name: McpToolName): { readonly [keyword: string]: unknown };
  /** Checks a raw input; throws an error naming each bad field. Runs before the audit and the tool. */
  parseInput(name: McpToolName, rawInput: unknown): unknown;
  /** Runs a tool on parsed input and returns its output (JSON-serialisable). */
  run(name: McpToolName, input: unknown, call: McpToolCall): Promise<unknown>;
  /** Appends one decision to the always-on audit log. */
  audit(record: McpAuditRecord): Promise<void>;
  /** The profile the tools act for (its mode decides what is asked). */
  readonly profile: string;
  /** The connection's engine (its id and features: a DataSource is one): only the tools it serves are listed or run. None: every tool. */
  readonly engine?: EngineView;
  /** The widest scope a client gets on this connection (its MCP exposure); none: what the token holds. */
  readonly scopeCeiling?: McpScope;
  /** The profile's rung on the permission ladder and this client's remembered grants, read per call. */
  permissions(actor: McpActor): Promise<ProfilePermissions>;
  /** The tables a call reads, for grants (Auto asks once per table); undefined when unknown. */
  tablesOf(name: McpToolName, input: unknown): Promise<readonly string[] | undefined>;
  /** Remembers a "yes" to a read of one table (Auto mode) for this client alone, as chat does for itself. */
  rememberGrant(grant: Grant, actor: McpActor): Promise<void>;
  /**
   * Stops an export the actor started (state cancelled, partial file removed) and returns the job:
   * a client that cancels the call following its export stops the export (omit: it runs on).
   */
  cancelExport?(id: string, actor: McpActor): Promise<unknown>;
  /** The user's tables, for resources/list (omit: no table resources). */
  tables?(): Promise<McpTableSummary[]>;
  /** One table's schema as describeTable returns it, for resources/read; throws for an unknown table. */
  describeTable?(qualifiedName: string): Promise<unknown>;
}

/** A table as resources/list shows it. */
export interface McpTableSummary {
  schema: string;
  name: string;
  kind: string;
  comment: string | null;
  rowEstimate: number;
}
