// The role each request needs, table-driven: tools by what their rows write, routes by the table,
// anything unplaced closed to all but admins.
import { rowOf, TOOL_NAMES } from '@toolrow/catalog';
import { APP_ACTIONS } from '@toolrow/desktop/permissions';
import { describe, expect, it } from 'vitest';
import { roleNeeded } from './roles.ts';

describe('roleNeeded', () => {
  it.each([
    ['GET', '/api/staging', 'viewer'],
    ['POST', '/api/query', 'viewer'],
    ['POST', '/api/staging/update', 'analyst'],
    ['POST', '/api/chat', 'analyst'],
    ['POST', '/api/staging/commit', 'approver'],
    ['POST', '/api/staging/resolve', 'approver'],
    // Her own: the staging area refuses someone else's.
    ['POST', '/api/staging/discard', 'analyst'],
    ['POST', '/api/state/staging/discard', 'analyst'],
    ['POST', '/api/state/staging/list', 'viewer'],
    ['POST', '/api/state/staging/commit', 'approver'],
    ['POST', '/api/team/tokens', 'viewer'],
    ['DELETE', '/api/team/people/a@example.com', 'admin'],
    ['PUT', '/api/profile', 'admin'],
    ['POST', '/api/tools/countRows', 'viewer'],
    ['POST', '/api/tools/stageUpdateRows', 'analyst'],
    ['POST', '/api/tools/startExport', 'analyst'],
    ['POST', '/api/tools/notATool', 'analyst'],
    ['POST', '/api/tools/drawChart', 'viewer'],
    ['POST', '/api/specs/charts', 'analyst'],
    ['POST', '/api/something-new', 'admin'],
  ])('%s %s needs %s', (method, path, role) => {
    expect(roleNeeded(method, path).role).toBe(role);
  });

  it("every tool that stages or writes files needs an analyst; every other, a viewer (from the rows' writes)", () => {
    for (const name of TOOL_NAMES) {
      const { writes } = rowOf(name);
      expect(roleNeeded('POST', `/api/tools/${name}`).role, name).toBe(
        writes === 'staging' || writes === 'files' ? 'analyst' : 'viewer',
      );
    }
  });

  it('the app offers each action to the roles the server lets do it (its table is checked here)', () => {
    for (const [action, { role, method, path }] of Object.entries(APP_ACTIONS))
      expect(roleNeeded(method, path).role, action).toBe(role);
  });
});
