/** One row as returned by a query: column name → value (see README "Values" for the JS types). */
export type Row = Record<string, unknown>;

/** Who did something: the user, the agent, or an MCP client by its token name ('mcp:<token name>'). */
export type Actor = 'user' | 'agent' | `mcp:${string}`;

/** A primary-key value: column name → value, e.g. `{ id: 42 }` or `{ order_id: 1, line: 3 }`. */
export type RowKey = Record<string, unknown>;

export function isActor(value: string): value is Actor {
  return value === 'user' || value === 'agent' || (value.startsWith('mcp:') && value.length > 4);
}

/** The profile used when none is named. */
export const DEFAULT_PROFILE = 'default';

/**
 * The schema Toolrow's own state lives in, in its own store (@toolrow/state), never in the user's
 * database. Earlier versions created it in the user's database; where it is found there it is
 * never listed or read as the user's data.
 */
export const APP_SCHEMA = 'toolrow_app';
