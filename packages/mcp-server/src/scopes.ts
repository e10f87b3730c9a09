// Scope arithmetic over the generated scope table. Nothing here names a tool: which tool needs
// which scope comes from MCP_REQUIRED_SCOPE, written by `npm run gen` from the rows.
import { type EngineView, isServedBy, isToolName, notServedMessage, type ToolName } from '@toolrow/catalog';
import {
  MCP_EXCLUDED_TOOLS,
  MCP_REQUIRED_SCOPE,
  MCP_SCOPE_TOOLS,
  MCP_SCOPES,
  type McpScope,
  type McpToolName,
} from './generated/mcp-scopes.ts';

const EXCLUDED: ReadonlySet<string> = new Set(MCP_EXCLUDED_TOOLS);

export function isMcpScope(value: string): value is McpScope {
  return (MCP_SCOPES as readonly string[]).includes(value);
}

/** Whether a tool is exposed over MCP at some scope (excluded rows and unknown names are not). */
export function isMcpToolName(name: string): name is McpToolName {
  return Object.hasOwn(MCP_REQUIRED_SCOPE, name);
}

export function isMcpExcluded(name: string): boolean {
  return EXCLUDED.has(name);
}

/**
 * Parses a scope as a user types it: the full name (`tables:staged`) or its level (`staged`).
 * Throws an error that lists the scopes for anything else.
 */
export function parseScope(text: string): McpScope {
  const trimmed = text.trim();
  const candidate = trimmed.includes(':') ? trimmed : `tables:${trimmed}`;
  if (isMcpScope(candidate)) return candidate;
  throw new Error(`Unknown MCP scope '${text}'. Use one of: ${MCP_SCOPES.join(', ')} (narrowest first).`);
}

/** Whether holding `held` allows what `needed` allows: the scopes nest, narrowest first. */
export function scopeCovers(held: McpScope, needed: McpScope): boolean {
  return MCP_SCOPES.indexOf(held) >= MCP_SCOPES.indexOf(needed);
}

/** `scope`, held to `ceiling`: the narrower of the two. */
export function capScope(scope: McpScope, ceiling: McpScope | undefined): McpScope {
  return ceiling !== undefined && !scopeCovers(ceiling, scope) ? ceiling : scope;
}

/** Every scope a holder of `scope` also holds, narrowest first (what goes into AuthInfo.scopes). */
export function impliedScopes(scope: McpScope): McpScope[] {
  return MCP_SCOPES.filter((candidate) => scopeCovers(scope, candidate));
}

/** The widest scope among granted scope strings (unknown strings are ignored); undefined if none. */
export function widestScope(granted: readonly string[]): McpScope | undefined {
  let widest: McpScope | undefined;
  for (const value of granted) {
    if (isMcpScope(value) && (widest === undefined || scopeCovers(value, widest))) widest = value;
  }
  return widest;
}

/**
 * Exactly the tools a holder of `scope` lists and may call on a connection of `engine`, in row
 * order: the scope's, less those whose needs the engine lacks (no engine: every one of them).
 */
export function toolsForScope(scope: McpScope, engine?: EngineView): readonly McpToolName[] {
  return MCP_SCOPE_TOOLS[scope].filter((name) => isServedBy(engine, name));
}

/** Why a call is refused before anything runs. */
export type McpRefusal =
  | { kind: 'unknown'; name: string; message: string }
  | { kind: 'excluded'; name: ToolName; message: string }
  | { kind: 'scope'; name: McpToolName; needed: McpScope; held: McpScope; message: string }
  | { kind: 'not-served'; name: McpToolName; engine: string | undefined; message: string };

/**
 * The refusal for calling `name` while holding `held`, or undefined when the call may run.
 * The one decision both transports use, so stdio and HTTP refuse exactly the same calls.
 */
export function refusalFor(
  name: string,
  held: McpScope,
  engine?: EngineView,
  /** The token's own scope when the connection's MCP exposure held it lower, and that connection. */
  capped?: { from: McpScope; connection: string },
): McpRefusal | undefined {
  if (isMcpToolName(name) && !isServedBy(engine, name))
    return { kind: 'not-served', name, engine: engine?.engine, message: notServedMessage(name, engine) };
  if (isMcpToolName(name)) {
    const needed = MCP_REQUIRED_SCOPE[name];
    if (scopeCovers(held, needed)) return undefined;
    return {
      kind: 'scope',
      name,
      needed,
      held,
      message:
        capped && scopeCovers(capped.from, needed)
          ? `Tool '${name}' needs scope ${needed}; connection '${capped.connection}' serves MCP clients at ${held} at most (this client's token holds ${capped.from}), so a new token would not help. Ask the user to widen the connection's MCP exposure (toolrow connections set ${capped.connection} --mcp ${needed.split(':')[1]}, or in the Toolrow app's connection settings).`
          : `Tool '${name}' needs scope ${needed}; this client holds ${held}. Ask the user for a token with scope ${needed} (toolrow mcp token create --scope ${needed}).`,
    };
  }
  if (isToolName(name)) {
    return {
      kind: 'excluded',
      name,
      message: `Tool '${name}' is not available over MCP at any scope: it only makes sense inside the Toolrow app. Tools you can call are in tools/list.`,
    };
  }
  return {
    kind: 'unknown',
    name,
    message: `There is no tool '${name}'. Tools you can call are in tools/list.`,
  };
}
