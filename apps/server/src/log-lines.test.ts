// What the server's terminal shows when a request fails: one line saying what failed for the
// failures it understands (a tool's, the database's), a stack trace only for the unexpected.
import type { Toolrow } from '@toolrow/state';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, openSeededSource, startTestServer, type TestServer } from './test-support.ts';

let toolrow: Toolrow;
let app: TestServer;
const logged: string[] = [];

beforeAll(async () => {
  toolrow = await openSeededSource(20);
  app = await startTestServer(toolrow, { desktopDir: null, log: (line) => logged.push(line) });
}, 120_000);

afterAll(async () => {
  await app?.close();
  await toolrow?.close();
});

describe('the server log', () => {
  it.each([
    ['a query the database cannot run', 'runQuery', { sql: 'select 1/0 as broken' }],
    ['a row of a table that is not there', 'getRow', { table: 'ordrs', key: { id: 1 } }],
    ['a bad input', 'countRows', { table: 42 }],
  ])('%s: the answer says why; the log has at most one line and no stack', async (_label, tool, input) => {
    const before = logged.length;
    const response = await fetch(`${app.url}/api/tools/${tool}`, {
      method: 'POST',
      headers: bearer(app.token, { 'content-type': 'application/json' }),
      body: JSON.stringify({ input }),
    });
    expect(response.status).toBeGreaterThanOrEqual(400);
    const body = (await response.json()) as { error: { message: string } };
    expect(body.error.message.length).toBeGreaterThan(10);
    const lines = logged.slice(before);
    expect(lines.length).toBeLessThanOrEqual(1);
    for (const line of lines) {
      expect(line.split('\n')).toHaveLength(1);
      expect(line).not.toMatch(/\n\s+at /);
    }
  });
});
