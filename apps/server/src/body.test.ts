// Bad bodies and queries, route by route, against the real server: each gets a 400 naming the
// field, worded as the tools word theirs, and changes nothing.
import type { Toolrow } from '@toolrow/state';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, openSeededSource, startTestServer, type TestServer } from './test-support.ts';

let toolrow: Toolrow;
let app: TestServer;

beforeAll(async () => {
  toolrow = await openSeededSource(20);
  app = await startTestServer(toolrow);
}, 120_000);

afterAll(async () => {
  await app?.close();
  await toolrow?.close();
});

type Case = readonly [method: string, path: string, body: unknown, field: string, message: RegExp];

const CASES: readonly Case[] = [
  [
    'PUT',
    '/api/profile',
    { mode: 'yolo' },
    'mode',
    /^mode: expected one of "manual", "auto", "full-auto", got "yolo"$/,
  ],
  ['PUT', '/api/profile', { mode: 'auto', mdoe: 'auto' }, 'mdoe', /^mdoe: unknown field/],
  [
    'POST',
    '/api/tables/orders/rows',
    { limit: 0 },
    'limit',
    /^limit: expected at least 1, got the integer 0$/,
  ],
  ['POST', '/api/tables/orders/rows', { offset: 1.5 }, 'offset', /^offset: expected an integer/],
  [
    'POST',
    '/api/tables/orders/rows',
    { sort: [{ column: 'id', direction: 'up' }] },
    'sort[0].direction',
    /^sort\[0\]\.direction: expected one of "asc", "desc", got "up"$/,
  ],
  [
    'POST',
    '/api/tables/orders/rows',
    { filter: { combine: 'xor', conditions: [] } },
    'filter.combine',
    /^filter\.combine: expected one of "and", "or"/,
  ],
  ['POST', '/api/tables/orders/count', { filter: 'status = paid' }, 'filter', /^filter: expected an object/],
  ['POST', '/api/tables/orders/row', {}, 'key', /^key: /],
  ['POST', '/api/query', {}, 'sql', /^sql: required \(a string\) but missing$/],
  ['POST', '/api/query', { sql: 42 }, 'sql', /^sql: expected a string, got the integer 42$/],
  [
    'POST',
    '/api/staging/update',
    { table: 'orders', key: { id: 1 }, values: {} },
    'values',
    /^values: expected at least one column$/,
  ],
  ['POST', '/api/staging/delete', { table: 'orders', keys: [] }, 'keys', /^keys: expected at least 1 items/],
  [
    'POST',
    '/api/staging/insert',
    { table: '', rows: [{ id: 1 }] },
    'table',
    /^table: expected at least 1 characters/,
  ],
  ['POST', '/api/staging/insert', { table: 'orders', rows: [1] }, 'rows[0]', /^rows\[0\]: expected /],
  ['POST', '/api/staging/commit', { ids: [] }, 'ids', /^ids: expected at least 1 items/],
  ['POST', '/api/staging/discard', { ids: ['first'] }, 'ids[0]', /^ids\[0\]: /],
  ['POST', '/api/state/staging/list', { ids: [0] }, 'ids[0]', /^ids\[0\]: /],
  [
    'POST',
    '/api/tools/listTables',
    { waitForExports: 'yes' },
    'waitForExports',
    /^waitForExports: expected a boolean/,
  ],
  [
    'POST',
    '/api/exports',
    { table: 'orders', format: 'xlsx' },
    'format',
    /^format: expected one of "csv", "json", "ndjson", got "xlsx"$/,
  ],
  ['POST', '/api/exports', {}, 'table', /^table: required \(a table name, or sql\) but missing$/],
  ['GET', '/api/audit?limit=0', undefined, 'limit', /^limit: expected at least 1, got the integer 0$/],
  ['GET', '/api/conversations?limit=x', undefined, 'limit', /^limit: expected a number, got "x"$/],
  ['PUT', '/api/ui-state', { focusedTabId: null }, 'tabs', /^tabs: required \(an array\) but missing$/],
  [
    'PUT',
    '/api/ui-state',
    { tabs: [{ id: 't1', kind: 'chart' }], focusedTabId: null },
    'tabs[0].kind',
    /^tabs\[0\]\.kind: /,
  ],
  ['POST', '/api/chips/accept', { input: {} }, 'tool', /^tool: required \(a string\) but missing$/],
  ['POST', '/api/chat', { messages: 'hello' }, 'messages', /^messages: expected an array, got "hello"$/],
];

describe('request validation, route by route', () => {
  it.each(CASES)('%s %s %j: 400 naming %s', async (method, path, body, field, message) => {
    const before = await toolrow.state.staging.list({});
    const response = await fetch(`${app.url}${path}`, {
      method,
      headers: bearer(app.token, body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const { error } = (await response.json()) as {
      error: { message: string; code: string; details?: { issues: { path: string; message: string }[] } };
    };
    expect(response.status, error.message).toBe(400);
    expect(error.code).toBe('invalid-input');
    const route = path
      .split('?')[0]!
      .replace(/\/orders\//, '/:table/')
      .replace(/\/listTables$/, '/:name')
      .replace(/\/list$/, '/:action');
    expect(error.message).toMatch(
      new RegExp(`^Invalid (body|query) for ${method} ${route.replace(/[/.]/g, '\\$&')}: `),
    );
    expect(error.details?.issues.map((issue) => issue.path)).toContain(field);
    expect(error.details?.issues.map((issue) => issue.message)).toContainEqual(
      expect.stringMatching(message),
    );
    expect(await toolrow.state.staging.list({})).toEqual(before);
  });

  it('says what is wrong with a body that is not a JSON object', async () => {
    const send = (body: string) =>
      fetch(`${app.url}/api/query`, {
        method: 'POST',
        headers: bearer(app.token, { 'content-type': 'application/json' }),
        body,
      }).then(async (response) => ({
        status: response.status,
        ...((await response.json()) as { error: { message: string } }),
      }));
    expect(await send('{"sql": ')).toMatchObject({
      status: 400,
      error: { message: expect.stringMatching(/not valid JSON/) },
    });
    expect(await send('["select 1"]')).toMatchObject({
      status: 400,
      error: { message: 'The request body must be a JSON object.' },
    });
  });

  it('still serves a good body', async () => {
    const response = await fetch(`${app.url}/api/tables/orders/rows`, {
      method: 'POST',
      headers: bearer(app.token, { 'content-type': 'application/json' }),
      body: JSON.stringify({ limit: 3, sort: [{ column: 'id', direction: 'desc' }] }),
    });
    expect(response.status).toBe(200);
    const page = (await response.json()) as { rows: { id: number }[] };
    expect(page.rows.map((row) => row.id)).toEqual([20, 19, 18]);
  });
});
