import type { AppState } from './app-state.ts';
import type { Database } from './database.ts';

/** sha-256 hex of the canonical JSON of a tool input (object keys sorted), for the audit log. */
export function digestInput(_input: unknown): string {
  throw new Error('not implemented');
}

/** sha-256 hex of an MCP bearer token, as stored. */
export function hashToken(_token: string): string {
  throw new Error('not implemented');
}

export function createAppState(_db: Database, _options: { activeConnection: string }): AppState {
  throw new Error('not implemented');
}
