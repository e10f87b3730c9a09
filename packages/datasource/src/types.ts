/** One row as returned by a query: column name → value (see README "Values" for the JS types). */
export type Row = Record<string, unknown>;

/** Who did something: the user, the agent, or an MCP client by its token name ('mcp:<token name>'). */
export type Actor = 'user' | 'agent' | `mcp:${string}`;

/** A primary-key value: column name → value, e.g. `{ id: 42 }` or `{ order_id: 1, line: 3 }`. */
export type RowKey = Record<string, unknown>;

/** Which engine serves the connection. */
export type Engine = 'pglite' | 'postgres';

export function isActor(value: string): value is Actor {
  return value === 'user' || value === 'agent' || (value.startsWith('mcp:') && value.length > 4);
}
