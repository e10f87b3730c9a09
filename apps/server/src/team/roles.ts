// What each role may change, by route. GET reads are a viewer's; a route that changes something
// and is not listed here needs an admin: a new route is closed until it is placed.
import { isToolName, rowOf } from '@toolrow/catalog';
import type { McpScope } from '@toolrow/mcp-server';
import { TEAM_ROLES, type TeamRole } from '@toolrow/state';

/** The widest MCP scope a person's token or OAuth grant may hold: never more than their role. */
export const ROLE_MCP_SCOPE: Readonly<Record<TeamRole, McpScope>> = {
  viewer: 'tables:readonly',
  analyst: 'tables:full',
  approver: 'tables:full',
  admin: 'tables:full',
};

const RULES: readonly [method: string, path: RegExp, role: TeamRole, what: string][] = [
  ['POST', /^\/api\/query(\/plan)?$/, 'viewer', 'read with a query'],
  ['POST', /^\/api\/tables\/[^/]+\/(count|row|rows)$/, 'viewer', 'read rows'],
  ['PUT', /^\/api\/ui-state$/, 'viewer', 'keep open tabs'],
  ['POST', /^\/auth\/logout$/, 'viewer', 'sign out'],
  ['POST', /^\/api\/team\/tokens$/, 'viewer', 'make a personal token'],
  ['DELETE', /^\/api\/team\/tokens\/[^/]+$/, 'viewer', 'revoke a personal token'],
  ['POST', /^\/api\/team\/mcp-tokens$/, 'viewer', 'make an MCP token'],
  ['DELETE', /^\/api\/team\/mcp-tokens\/[^/]+$/, 'viewer', 'revoke an MCP token'],
  // The consent form carries its own CSRF token (and is same-origin only).
  ['POST', /^\/oauth\/consent$/, 'viewer', 'connect an MCP client'],
  ['POST', /^\/api\/staging\/(update|insert|delete|check)$/, 'analyst', 'stage changes'],
  ['POST', /^\/api\/tools\/[^/]+$/, 'analyst', 'run tools'],
  ['POST', /^\/api\/(chat|chips\/accept)$/, 'analyst', 'run the agent'],
  ['POST', /^\/api\/exports(\/[^/]+\/cancel)?$/, 'analyst', 'export'],
  ['POST', /^\/api\/specs\/charts$/, 'analyst', 'save a chart'],
  // An analyst discards her own changes; the staging area refuses anyone else's (people.ts).
  ['POST', /^\/api\/staging\/discard$/, 'analyst', 'discard staged changes'],
  ['POST', /^\/api\/staging\/(commit|resolve)$/, 'approver', 'commit staged changes'],
  // The CLI's view of the staging area (TOOLROW_URL with a personal token).
  ['POST', /^\/api\/state\/staging\/(list|diff|check)$/, 'viewer', 'read the staging area'],
  ['POST', /^\/api\/state\/staging\/discard$/, 'analyst', 'discard staged changes'],
  ['POST', /^\/api\/state\/staging\/(commit|resolve)$/, 'approver', 'commit staged changes'],
];

export const rank = (role: TeamRole): number => TEAM_ROLES.indexOf(role);

/** The least role a request needs, and what it does in words. */
export function roleNeeded(method: string, path: string): { role: TeamRole; what: string } {
  if (method === 'GET' || method === 'HEAD' || method === 'OPTIONS') return { role: 'viewer', what: 'read' };
  // A tool by what its row writes: reading and one's own tabs are a viewer's, staging and files an analyst's.
  const tool = method === 'POST' ? /^\/api\/tools\/([^/]+)$/.exec(path)?.[1] : undefined;
  if (tool !== undefined && isToolName(tool)) {
    const { writes } = rowOf(tool);
    return writes === 'staging' || writes === 'files'
      ? {
          role: 'analyst',
          what: `run ${tool} (it ${writes === 'files' ? 'writes files' : 'stages changes'})`,
        }
      : { role: 'viewer', what: `run ${tool}` };
  }
  const rule = RULES.find(([ruleMethod, pattern]) => ruleMethod === method && pattern.test(path));
  return rule
    ? { role: rule[2], what: rule[3] }
    : { role: 'admin', what: 'change settings, connections or exposure' };
}
