// Checks and paging every repository shares.
import { type Actor, DataSourceError, isActor } from '@toolrow/datasource';

export interface ListOptions {
  /** Newest first; default 50, at most 1000. */
  limit?: number;
  offset?: number;
  profile?: string;
  /** Only what this actor did (ran, decided, exported): what an MCP client sees of the others'. */
  actor?: Actor;
}

export function limitOf(options: ListOptions | undefined): { limit: number; offset: number } {
  const limit = Math.min(Math.max(Math.trunc(options?.limit ?? 50), 1), 1000);
  const offset = Math.max(Math.trunc(options?.offset ?? 0), 0);
  return { limit, offset };
}

export function checkActor(actor: string, field: string): Actor {
  if (!isActor(actor)) {
    throw new DataSourceError(
      'misuse',
      `${field} must be 'user', 'agent' or 'mcp:<token name>', got '${actor}'.`,
    );
  }
  return actor;
}
