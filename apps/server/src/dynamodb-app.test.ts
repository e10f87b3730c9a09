// The app over a DynamoDB connection (AWS's DynamoDB Local), in Chromium: the table view says how
// each read was done (a Scan, or a Query on the index a filter serves), and the workbench reads
// SQL (planned per table, with joins and GROUP BY) and PartiQL, and refuses a write.
import { randomInt } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CreateTableCommand,
  GetItemCommand,
  PutItemCommand,
  ScanCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { createClients, parseDynamoUrl } from '@toolrow/dynamodb';
import { createEscapeHarness, SQL_ESCAPES } from '@toolrow/dynamodb/testing';
import { openToolrow, type Toolrow } from '@toolrow/state';
import { describeWithService, serviceUrl } from '@toolrow/test-services';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  api,
  collectPageErrors,
  ensureBundle,
  launchBrowser,
  openFiltered,
  SEED_NOW,
  startTestServer,
  type TestServer,
} from './test-support.ts';

const dynamoUrl = serviceUrl('dynamodb');

describeWithService('dynamodb', 'the app on DynamoDB', () => {
  let dir: string;
  let toolrow: Toolrow;
  let app: TestServer;
  let browser: Browser;
  let toolrowUrl: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'toolrow-ddb-app-'));
    const url = new URL(dynamoUrl!);
    url.searchParams.set('region', `zz-app-${randomInt(1_000_000_000)}`);
    toolrowUrl = url.href;
    await ensureBundle();
    [toolrow, browser] = await Promise.all([
      openToolrow({ env: { DATABASE_URL: url.href }, dataDir: dir, state: { memory: true } }),
      launchBrowser(),
    ]);
    await toolrow.source.seed!({ orders: 120, now: SEED_NOW });
    app = await startTestServer(toolrow, {});
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await toolrow?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('the table view says Scan, and Query on the index once a filter has a key', async () => {
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const page = await context.newPage();
    const errors = collectPageErrors(page);
    try {
      await page.goto(app.openUrl);
      const nav = page.getByRole('navigation', { name: 'Tables and panels' });
      await nav.getByRole('button', { name: /^orders/ }).click();
      const badge = page.getByTestId('access-badge');
      await expect.poll(() => badge.textContent()).toMatch(/^Scan · read 120$/);
      await expect.poll(() => page.getByTestId('row-count').textContent()).toBe('120 rows');

      await page.getByRole('button', { name: '+ Filter' }).click();
      await page.getByLabel('Filter column').selectOption('customer_id');
      await page.getByLabel('Filter operator').selectOption('eq');
      await page.getByLabel('Filter value').fill('7');
      await page.getByLabel('Filter value').press('Enter');
      await expect
        .poll(() => badge.textContent())
        .toMatch(/^Query on by_customer \(customer_id = 7\) · read \d+$/);
      const expected = await toolrow.source.rows.count('orders', {
        column: 'customer_id',
        op: 'eq',
        value: 7,
      });
      await expect
        .poll(() => page.getByTestId('row-count').textContent())
        .toBe(`${expected} ${expected === 1 ? 'row' : 'rows'}`);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('items read as DynamoDB holds them: key badges, absent attributes, nested values, a new attribute staged and committed', async () => {
    // A new attribute (no sampled item has it) is staged on one customer and committed.
    const prefs = { newsletter: true, tags: { SS: ['vip', 'eu'] }, credit: { N: '12.50' }, note: '7' };
    const { ids } = await api<{ ids: string[] }>(app, '/api/staging/update', {
      body: { table: 'customers', key: { id: 3 }, values: { prefs } },
    });
    const { changes } = await api<{ changes: { changes: unknown[] }[] }>(app, '/api/staging');
    expect(changes[0]?.changes).toEqual([{ column: 'prefs', after: prefs }]);
    expect(await api(app, '/api/staging/commit', { body: { ids } })).toMatchObject({ committed: 1 });
    // Sets and maps are unordered in DynamoDB, and a number may come back as 12.5.
    const stored = (await toolrow.source.rows.get('customers', { id: 3 })) as { prefs: typeof prefs };
    expect({ ...stored.prefs, tags: { SS: [...stored.prefs.tags.SS].sort() } }).toEqual({
      ...prefs,
      tags: { SS: ['eu', 'vip'] },
      credit: { N: expect.stringMatching(/^12\.50?$/) },
    });
    // A name close to a known attribute is a typo, not a new attribute.
    const typo = await api(app, '/api/staging/update', {
      body: { table: 'orders', key: { id: 5 }, values: { stauts: 'x' } },
    }).catch((error: { status: number; data: { error: { message: string } } }) => error);
    expect(typo).toMatchObject({ status: 400 });
    expect((typo as { data: { error: { message: string } } }).data.error.message).toMatch(/status/);

    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const page = await context.newPage();
    const errors = collectPageErrors(page);
    try {
      await page.goto(app.openUrl);
      const nav = page.getByRole('navigation', { name: 'Tables and panels' });
      await nav.getByRole('button', { name: /^customers/ }).click();
      const grid = page.getByRole('grid', { name: /customers/ });
      await expect.poll(() => grid.getByRole('columnheader', { name: /^PK\s*id/ }).count()).toBe(1);
      // The attribute no sampled item had is a column of its own, readable, and absent elsewhere.
      const prefsCell = grid.getByRole('gridcell', { name: /newsletter: true/ });
      await expect.poll(() => prefsCell.count()).toBe(1);
      const shown = (await prefsCell.textContent()) ?? '';
      expect(shown).toMatch(/^\{.*\}$/);
      for (const part of ['newsletter: true', 'credit: 12.5', 'note: "7"', '"vip"', '"eu"'])
        expect(shown).toContain(part);
      expect(shown).toMatch(/tags: <<"(vip|eu)", "(vip|eu)">>/);
      expect(await grid.locator('.cell.absent').count()).toBeGreaterThan(0);
      expect(await grid.locator('.cell.null').count()).toBe(0);

      await nav.getByRole('button', { name: /^order_items/ }).click();
      const items = page.getByRole('grid', { name: /order_items/ });
      await expect.poll(() => items.getByRole('columnheader', { name: /^PK\s*order_id/ }).count()).toBe(1);
      expect(await items.getByRole('columnheader', { name: /^SK\s*id/ }).count()).toBe(1);
      // Numbers (N) sit right-aligned; narrowed to nothing, a number ends in an ellipsis, never cut on the left.
      await expect.poll(() => items.locator('.cell.number').count()).toBeGreaterThan(0);
      const headers = await items.getByRole('columnheader').allTextContents();
      const price = headers.findIndex((header) => header.includes('unit_price')) - 1;
      const prices = items.locator(`[id$="-c${price}"]`);
      await prices.first().click();
      for (let step = 0; step < 12; step++) await items.press('Alt+ArrowLeft');
      const cuts = await prices.locator('.cell-text').evaluateAll((spans) =>
        spans.map((span) => {
          const cell = span.parentElement!.getBoundingClientRect();
          const text = span.getBoundingClientRect();
          return {
            overflowing: span.scrollWidth > span.clientWidth,
            ellipsis: span.ownerDocument.defaultView?.getComputedStyle(span).textOverflow === 'ellipsis',
            cutOnTheLeft: text.left < cell.left - 0.5,
          };
        }),
      );
      expect(cuts.some((cut) => cut.overflowing)).toBe(true);
      expect(cuts.every((cut) => cut.ellipsis && !cut.cutOnTheLeft)).toBe(true);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('offers only what DynamoDB serves: no like or ends-with, sorts by the key a Query reads, a dropped sort says why', async () => {
    // The first test's orders tab (filtered on customer_id = 7) is saved with the profile's tabs
    // whenever its save lands: this one starts from no tabs, whatever the timing was.
    await toolrow.state.ui.update(toolrow.connection.profile, { tabs: [] });
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const page = await context.newPage();
    const errors = collectPageErrors(page);
    try {
      await page.goto(app.openUrl);
      const nav = page.getByRole('navigation', { name: 'Tables and panels' });
      await nav.getByRole('button', { name: /^orders/ }).click();
      await expect.poll(() => page.getByTestId('row-count').textContent()).toBe('120 rows');
      await page.getByRole('button', { name: '+ Filter' }).click();
      const offered = await page.getByLabel('Filter operator').locator('option').allTextContents();
      expect(offered).toContain('starts with');
      expect(offered).toContain('contains');
      for (const missing of ['ends with', 'like', 'like (any case)']) expect(offered).not.toContain(missing);

      // A header DynamoDB cannot sort by: nothing breaks, the rows stay, and the note says what would.
      const grid = page.getByRole('grid', { name: /orders/ });
      await grid.getByRole('columnheader', { name: /total/ }).click();
      const notice = page.getByTestId('sort-notice');
      await expect
        .poll(() => notice.textContent())
        .toMatch(/total cannot be sorted here: DynamoDB returns items in key order/);
      expect(await page.getByTestId('row-count').textContent()).toBe('120 rows');
      await expect.poll(() => grid.locator('.grid-row').count()).toBeGreaterThan(5);

      // Filtered on customer_id, the Query on by_customer reads in ordered_at order: that sort works.
      await page.getByLabel('Filter column').selectOption('customer_id');
      await page.getByLabel('Filter operator').selectOption('eq');
      await page.getByLabel('Filter value').fill('7');
      await page.getByLabel('Filter value').press('Enter');
      await expect
        .poll(() => page.getByTestId('access-badge').textContent())
        .toMatch(/^Query on by_customer/);
      // The refusal spoke of the filter before: it is gone with it (total was never the point now).
      await expect.poll(() => notice.count()).toBe(0);
      await grid.getByRole('columnheader', { name: /ordered_at/ }).click();
      await expect.poll(() => page.getByText('sorted: ordered_at asc').count()).toBe(1);
      expect(await notice.count()).toBe(0);

      // The filter changes to one no index serves (a Scan): the sort is dropped, saying why; rows stay.
      await page.getByLabel('Filter column').selectOption('total');
      await page.getByLabel('Filter operator').selectOption('gt');
      await page.getByLabel('Filter value').fill('100');
      await page.getByLabel('Filter value').press('Enter');
      await expect
        .poll(() => notice.textContent())
        .toMatch(/sort by ordered_at asc: DynamoDB returns items in key order only.*this read is a Scan/);
      await expect.poll(() => page.getByText('sorted: ordered_at asc').count()).toBe(0);
      const over = await toolrow.source.rows.count('orders', { column: 'total', op: 'gt', value: 100 });
      await expect.poll(() => page.getByTestId('row-count').textContent()).toBe(`${over} rows`);
      expect(await page.getByRole('button', { name: 'Clear filter' }).count()).toBe(0);
      // Another filter: the note about the dropped ordered_at sort no longer applies and goes.
      await page.getByLabel('Filter value').fill('200');
      await page.getByLabel('Filter value').press('Enter');
      await expect.poll(() => notice.count()).toBe(0);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('a map and a set are edited in the form they read in, and stored as DynamoDB types', async () => {
    // An item as another tool wrote it: a map of numbers and a string set.
    const other = createClients(parseDynamoUrl(toolrowUrl));
    try {
      await other.write().send(
        new UpdateItemCommand({
          TableName: 'customers',
          Key: { id: { N: '9' } },
          UpdateExpression: 'SET #g = :g, #t = :t',
          ExpressionAttributeNames: { '#g': 'geo', '#t': 'labels' },
          ExpressionAttributeValues: {
            ':g': { M: { lat: { N: '45.764' }, lon: { N: '4.8357' } } },
            ':t': { SS: ['vip'] },
          },
        }),
      );
      await toolrow.source.schema.refresh();
      const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
      const page = await context.newPage();
      const errors = collectPageErrors(page);
      try {
        await page.goto(app.openUrl);
        const nav = page.getByRole('navigation', { name: 'Tables and panels' });
        await nav.getByRole('button', { name: /^customers/ }).click();
        const grid = page.getByRole('grid', { name: /customers/ });
        const row = grid.locator('.grid-row').filter({ has: page.getByRole('gridcell', { name: /^9$/ }) });
        await expect.poll(() => row.count()).toBe(1);
        await row.getByRole('rowheader').dblclick();
        const geo = page.locator('#field-geo');
        await expect.poll(() => geo.inputValue()).toBe('{lat: 45.764, lon: 4.8357}');
        expect(await page.locator('#field-labels').inputValue()).toBe('<<"vip">>');
        await geo.fill('{lat: 45.75, lon: 4.85, label: "Lyon"}');
        await page.locator('#field-labels').fill('<<"vip", "eu">>');
        await page.getByRole('button', { name: 'Stage changes' }).click();
        await expect.poll(() => page.getByTestId('staged-count').textContent()).toBe('1');
        // A typo in the form is refused, saying how to write it; nothing more is staged.
        await geo.fill('{lat: 45.75, lon: }');
        await page.getByRole('button', { name: 'Stage changes' }).click();
        await expect
          .poll(() => page.getByRole('alert').first().textContent())
          .toMatch(/geo holds M: .*a map is \{name: "Ada"/);
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
      expect(await api(app, '/api/staging/commit', { body: {} })).toMatchObject({ committed: 1 });
      const stored = await other.read.send(
        new GetItemCommand({ TableName: 'customers', Key: { id: { N: '9' } } }),
      );
      expect(stored.Item?.geo).toEqual({
        M: { lat: { N: '45.75' }, lon: { N: '4.85' }, label: { S: 'Lyon' } },
      });
      expect([...(stored.Item?.labels?.SS ?? [])].sort()).toEqual(['eu', 'vip']);
    } finally {
      other.close();
    }
  });

  it('an edit based on a value another writer changed since it was read is refused, through the API and the record editor', async () => {
    const other = createClients(parseDynamoUrl(toolrowUrl));
    const setTotal = (id: number, total: string) =>
      other.write().send(
        new UpdateItemCommand({
          TableName: 'orders',
          Key: { id: { N: String(id) } },
          UpdateExpression: 'SET #t = :t',
          ExpressionAttributeNames: { '#t': 'total' },
          ExpressionAttributeValues: { ':t': { N: total } },
        }),
      );
    const totalOf = async (id: number) =>
      (await other.read.send(new GetItemCommand({ TableName: 'orders', Key: { id: { N: String(id) } } })))
        .Item?.total?.N;
    try {
      // Through the API: what the editor read, then another writer, then the edit.
      await setTotal(21, '200.55');
      const { row } = await api<{ row: { total: unknown } }>(app, '/api/tables/orders/row', {
        body: { key: { id: 21 } },
      });
      await setTotal(21, '250');
      const refused = await api(app, '/api/staging/update', {
        body: { table: 'orders', key: { id: 21 }, values: { total: '300.00' }, seen: { total: row.total } },
      }).catch((error: { status: number; data: { error: { code: string; message: string } } }) => error);
      expect(refused).toMatchObject({ status: 409, data: { error: { code: 'staging-conflict' } } });
      expect((refused as { data: { error: { message: string } } }).data.error.message).toMatch(
        /'total' is "?250"? now \(it was "?200\.55"? when read\)/,
      );
      expect((await api<{ changes: unknown[] }>(app, '/api/staging')).changes).toEqual([]);

      // Through the record editor in Chromium: the person types over a value another writer changes.
      // From no tabs: an earlier test's filtered orders tab may have been saved with the profile.
      await toolrow.state.ui.update(toolrow.connection.profile, { tabs: [] });
      await setTotal(22, '200.55');
      const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
      const page = await context.newPage();
      const errors = collectPageErrors(page);
      try {
        await page.goto(app.openUrl);
        await openFiltered(page, 'orders', ['id', 'eq', '22']);
        await expect.poll(() => page.getByTestId('row-count').textContent()).toBe('1 row');
        const grid = page.getByRole('grid', { name: /orders/ });
        await grid.locator('.grid-row').first().getByRole('rowheader').dblclick();
        const total = page.locator('#field-total');
        await expect.poll(() => total.inputValue()).toBe('200.55');
        await setTotal(22, '250.00');
        await total.fill('300.00');
        await page.getByRole('button', { name: 'Stage changes' }).click();
        await expect
          .poll(() => page.getByRole('alert').first().textContent())
          .toMatch(/changed after it was read: 'total' is "250(\.00)?" now \(it was "200\.55" when read\)/);
        expect(await page.getByTestId('staged-count').count()).toBe(0);
        expect(await totalOf(22)).toMatch(/^250(\.00)?$/);
        // The edit is kept and the form now holds the row as it is (the field says the stored
        // value): the person has seen it and stages again, against 250.
        expect(await total.inputValue()).toBe('300.00');
        await expect.poll(() => total.getAttribute('title')).toMatch(/^edited; stored value: 250(\.00)?$/);
        await page.getByRole('button', { name: 'Stage changes' }).click();
        await expect.poll(() => page.getByTestId('staged-count').textContent()).toBe('1');
        // The refusal is the 409 the browser logs; nothing else went wrong.
        expect(errors).toEqual([expect.stringMatching(/status of 409 \(Conflict\)/)]);
      } finally {
        await context.close();
      }
      expect(await api(app, '/api/staging/commit', { body: {} })).toMatchObject({ committed: 1 });
      expect(await totalOf(22)).toMatch(/^300(\.00)?$/);
    } finally {
      other.close();
    }
  });

  it('a connection that lists no tables says whose key it signs with and why tables made with another may not show, and seeds this one', async () => {
    const empty = new URL(dynamoUrl!);
    empty.searchParams.set('region', `zz-empty-${randomInt(1_000_000_000)}`);
    const emptyDir = await mkdtemp(join(tmpdir(), 'toolrow-ddb-empty-'));
    const other = await openToolrow({
      env: { DATABASE_URL: empty.href },
      dataDir: emptyDir,
      state: { memory: true },
    });
    const emptyApp = await startTestServer(other, { env: { DATABASE_URL: empty.href } });
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const page = await context.newPage();
    const errors = collectPageErrors(page);
    try {
      await page.goto(emptyApp.openUrl);
      const notice = page.getByTestId('empty-tables');
      await expect.poll(() => notice.textContent()).toContain('This connection lists no tables.');
      const text = (await notice.textContent()) ?? '';
      expect(text).toMatch(/Signs as (the access key|DynamoDB Local's stand-in key)/);
      expect(text).toContain('-sharedDb');
      expect(text).toContain('npx toolrow db seed (with the DATABASE_URL the app was started with)');
      expect(text).not.toContain('No tables yet');
      expect(errors).toEqual([]);

      // A table of the user's own: the workbench's first statements are written for it.
      const clients = createClients(parseDynamoUrl(empty.href));
      try {
        await clients.write().send(
          new CreateTableCommand({
            TableName: 'Devices',
            KeySchema: [{ AttributeName: 'deviceId', KeyType: 'HASH' }],
            AttributeDefinitions: [{ AttributeName: 'deviceId', AttributeType: 'S' }],
            BillingMode: 'PAY_PER_REQUEST',
          }),
        );
        await clients
          .write()
          .send(new PutItemCommand({ TableName: 'Devices', Item: { deviceId: { S: 'd-1' } } }));
      } finally {
        clients.close();
      }
      await other.source.schema.refresh();
      const status = await api<{ database: { languages: { name: string; example: string }[] } }>(
        emptyApp,
        '/api/status',
      );
      expect(status.database.languages.map((language) => [language.name, language.example])).toEqual([
        ['SQL', 'select * from "Devices" limit 20'],
        ['PartiQL', `SELECT * FROM "Devices" WHERE "deviceId" = '…'`],
      ]);
    } finally {
      await context.close();
      await emptyApp.close();
      await other.close();
      await rm(emptyDir, { recursive: true, force: true });
    }
  });

  it('a value reads the same in SQL, PartiQL and the grid: a number as DynamoDB keeps it, a list as a list', async () => {
    const other = createClients(parseDynamoUrl(toolrowUrl));
    try {
      for (const [id, total] of [
        [31, '5.6'],
        [32, '12.5'],
      ] as const)
        await other.write().send(
          new UpdateItemCommand({
            TableName: 'orders',
            Key: { id: { N: String(id) } },
            UpdateExpression: 'SET #t = :t, #l = :l',
            ExpressionAttributeNames: { '#t': 'total', '#l': 'lines' },
            ExpressionAttributeValues: {
              ':t': { N: total },
              ':l': { L: [{ M: { sku: { S: 'p9' }, qty: { N: '2' } } }] },
            },
          }),
        );
      await toolrow.source.schema.refresh();
      const sql = await api<{ rows: { total: unknown; lines: unknown }[] }>(app, '/api/query', {
        body: { sql: 'select total, lines from orders where id in (31, 32) order by id' },
      });
      expect(sql.rows.map((row) => row.total)).toEqual(['5.6', '12.5']);
      expect(sql.rows[0]!.lines).toEqual([{ sku: 'p9', qty: 2 }]);

      const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
      const page = await context.newPage();
      const errors = collectPageErrors(page);
      try {
        await page.goto(app.openUrl);
        await page.getByRole('button', { name: 'New query' }).click();
        const editor = page.getByLabel('SQL', { exact: true });
        const grid = page.getByRole('grid', { name: 'Query results' });
        const cells = () => grid.getByRole('gridcell').allTextContents();
        await editor.fill('select total, lines from orders where id = 31');
        await editor.press('Control+Enter');
        await expect.poll(cells).toEqual(['5.6', '[{sku: "p9", qty: 2}]']);
        await page.getByLabel('Query language').selectOption('PartiQL');
        await editor.fill('SELECT total, lines FROM "orders" WHERE "id" = 31');
        await editor.press('Control+Enter');
        await expect.poll(cells).toEqual(['5.6', '[{sku: "p9", qty: 2}]']);
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    } finally {
      other.close();
    }
  });

  it('the workbench reads SQL and PartiQL, plans before running, and refuses a write with a 400 that says why, as on every engine', async () => {
    const status = await api<{ database: { languages: { name: string }[] } }>(app, '/api/status');
    expect(status.database.languages.map((language) => language.name)).toEqual(['SQL', 'PartiQL']);
    // The unnamed connection is labelled with the engine it is open on, not PostgreSQL's.
    const connections = await api<{ connections: { name: string; engine: string }[] }>(
      app,
      '/api/connections',
    );
    expect(connections.connections.find((each) => each.name === 'default')?.engine).toBe('dynamodb');
    const read = await api<{
      rows: { id: string }[];
      reads: { table: string; operation: string; items: number }[];
    }>(app, '/api/query', { body: { sql: 'SELECT * FROM "orders" WHERE "id" = 5' } });
    expect(read.rows.map((row) => String(row.id))).toEqual(['5']);
    expect(read.reads).toEqual([
      expect.objectContaining({ table: 'orders', operation: 'GetItem', items: 1 }),
    ]);
    const partiql = await api<{ rows: { id: string }[] }>(app, '/api/query', {
      body: { sql: 'SELECT * FROM "orders"."by_customer" WHERE "customer_id" = 3', language: 'PartiQL' },
    });
    expect(partiql.rows.length).toBeGreaterThan(0);
    const plan = await api<{ lines: string[]; note: string }>(app, '/api/query/plan', {
      body: { sql: 'SELECT status, count(*) FROM orders WHERE customer_id = 3 GROUP BY status' },
    });
    expect(plan.lines[0]).toMatch(/^Query on orders index by_customer \(customer_id = 3\)/);
    const unknown = await api(app, '/api/query', { body: { sql: 'SELECT 1', language: 'Cypher' } }).catch(
      (error: { status: number; data: { error: { message: string } } }) => error,
    );
    expect(unknown).toMatchObject({ status: 400 });
    expect(JSON.stringify(unknown)).toMatch(/reads SQL or PartiQL, not Cypher/);
    const refused = await api(app, '/api/query', {
      body: { sql: `UPDATE "orders" SET "status" = 'x' WHERE "id" = 5` },
    }).catch((error: { status: number; data: { error: { message: string } } }) => error);
    expect(refused).toMatchObject({ status: 400 });
    expect((refused as { data: { error: { message: string } } }).data.error.message).toMatch(
      /Only a SELECT runs here/,
    );
    const refusedPartiql = await api(app, '/api/query', {
      body: { sql: `UPDATE "orders" SET "status" = 'x' WHERE "id" = 5`, language: 'PartiQL' },
    }).catch((error: { status: number }) => error);
    expect(refusedPartiql).toMatchObject({ status: 400 });
    expect(await toolrow.source.rows.get('orders', { id: 5 })).not.toMatchObject({ status: 'x' });
  });

  it("a read past the connection's bound is the person's to confirm: the API refuses it with the estimate, the workbench offers to read it anyway", async () => {
    // The same tables, through a connection whose URL allows 50 items a read.
    const bounded = new URL(toolrowUrl);
    bounded.searchParams.set('maxItemsRead', '50');
    const boundedDir = await mkdtemp(join(tmpdir(), 'toolrow-ddb-bound-'));
    const small = await openToolrow({
      env: { DATABASE_URL: bounded.href },
      dataDir: boundedDir,
      state: { memory: true },
    });
    const smallApp = await startTestServer(small, {});
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    try {
      const sql = 'select status, count(*) as n from orders group by status order by status';
      const refused = await api(smallApp, '/api/query', { body: { sql } }).catch((caught: unknown) => caught);
      expect((refused as { status: number }).status).toBe(413);
      expect((refused as { data: unknown }).data).toMatchObject({
        error: { code: 'too-large', details: { itemsToRead: 120, bound: 50 } },
      });
      const confirmed = await api<{ rows: { n: string }[] }>(smallApp, '/api/query', {
        body: { sql, maxItemsRead: 200 },
      });
      expect(confirmed.rows.reduce((sum, row) => sum + Number(row.n), 0)).toBe(120);

      const page = await context.newPage();
      const errors = collectPageErrors(page);
      await page.goto(smallApp.openUrl);
      await page.getByRole('button', { name: 'New query' }).click();
      await page.getByLabel('SQL', { exact: true }).fill(sql);
      await page.getByLabel('SQL', { exact: true }).press('Control+Enter');
      const offer = page.getByTestId('read-past-bound');
      await expect
        .poll(() => offer.textContent())
        .toMatch(/about 120 items, past the 50 this connection allows/);
      await offer.getByRole('button', { name: 'Read about 120 items anyway' }).click();
      await expect
        .poll(() => page.getByTestId('query-read').allTextContents())
        .toEqual([expect.stringMatching(/^Scan of orders · 120 items/)]);
      expect(await offer.count()).toBe(0);
      // The refusal itself, as the browser logs a 413; nothing else went wrong.
      expect(errors).toEqual([expect.stringMatching(/status of 413 \(Payload Too Large\)/)]);
    } finally {
      await context.close();
      await smallApp.close();
      await small.close();
      await rm(boundedDir, { recursive: true, force: true });
    }
  });

  it('in Chromium, the workbench plans and runs SQL with a join and GROUP BY, shows how each table was read, and reads PartiQL as a mode', async () => {
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const page = await context.newPage();
    const errors = collectPageErrors(page);
    try {
      await page.goto(app.openUrl);
      await page.getByRole('button', { name: 'New query' }).click();
      await expect
        .poll(() => page.getByTestId('workbench-language').textContent())
        .toMatch(/one SQL statement/);
      const editor = page.getByLabel('SQL', { exact: true });
      await editor.fill(
        'select o.status, count(*) as lines, sum(i.quantity) as units from orders o join order_items i on i.order_id = o.id where o.customer_id = 7 group by o.status order by o.status',
      );
      await page.getByRole('button', { name: 'Plan' }).click();
      const plan = page.getByTestId('query-plan');
      await expect
        .poll(() => plan.textContent())
        .toMatch(/Query on orders index by_customer \(customer_id = 7\)/);
      expect(await plan.textContent()).toMatch(
        /Query on order_items \(order_id = each o\.id kept, about \d+\)/,
      );
      await editor.press('Control+Enter');
      await expect
        .poll(() => page.getByTestId('query-read').allTextContents())
        .toEqual([
          expect.stringMatching(/^Query on orders index by_customer · \d+ items?( · [\d.]+ RCU)?$/),
          expect.stringMatching(/^Query on order_items · \d+ items?( · [\d.]+ RCU)?$/),
        ]);
      const expected = await api<{ rows: { status: string }[]; reads?: { capacity?: number }[] }>(
        app,
        '/api/query',
        {
          body: {
            sql: 'select distinct o.status from orders o join order_items i on i.order_id = o.id where o.customer_id = 7',
          },
        },
      );
      // The badges carry the read capacity the result reports, as the CLI's reads do.
      const badges = await page.getByTestId('query-read').allTextContents();
      if (expected.reads?.some((read) => read.capacity !== undefined))
        expect(badges.some((badge) => / · [\d.]+ RCU$/.test(badge))).toBe(true);
      await expect
        .poll(() => page.getByTestId('query-summary').textContent())
        .toMatch(new RegExp(`^${expected.rows.length} rows? ·`));
      // A plan of another statement does not sit over the last statement's rows.
      await editor.fill('select count(*) from customers');
      await page.getByRole('button', { name: 'Plan' }).click();
      await expect.poll(() => plan.textContent()).toMatch(/Scan of the whole table customers/);
      expect(await page.getByTestId('query-summary').count()).toBe(0);
      expect(await page.getByRole('grid', { name: 'Query results' }).count()).toBe(0);
      // PartiQL, DynamoDB's own language, names the index itself.
      await page.getByLabel('Query language').selectOption('PartiQL');
      await expect
        .poll(() => page.getByTestId('workbench-language').textContent())
        .toMatch(/one PartiQL statement/);
      await editor.fill('SELECT * FROM "orders"."by_customer" WHERE "customer_id" = 7');
      await editor.press('Control+Enter');
      await expect.poll(() => page.getByTestId('query-summary').textContent()).toMatch(/^\d+ rows? ·/);
      expect(await page.getByRole('button', { name: 'Export CSV' }).isDisabled()).toBe(true);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('the SQL escape corpus through every path of the app leaves no effect: tools, workbench (SQL and PartiQL), plans, exports', async () => {
    const harness = await createEscapeHarness();
    const clients = createClients(parseDynamoUrl(toolrowUrl));
    const items = async () => {
      const all: string[] = [];
      for (const table of ['customers', 'products', 'orders', 'order_items'])
        for (const item of (await clients.read.send(new ScanCommand({ TableName: table }))).Items ?? [])
          all.push(JSON.stringify(item));
      return all.sort();
    };
    const exported = async () => {
      const exportsDir = join(dir, 'exports');
      const files = (await readdir(exportsDir, { recursive: true })).map(String);
      return (
        await Promise.all(files.map((file) => readFile(join(exportsDir, file), 'utf8').catch(() => '')))
      ).join('\n');
    };
    const paths: [string, (sql: string) => Promise<unknown>][] = [
      ['runQuery', (sql) => api(app, '/api/tools/runQuery', { body: { input: { sql } } })],
      ['validateQuery', (sql) => api(app, '/api/tools/validateQuery', { body: { input: { sql } } })],
      ['explainQuery', (sql) => api(app, '/api/tools/explainQuery', { body: { input: { sql } } })],
      [
        'startExport',
        (sql) =>
          api(app, '/api/tools/startExport', {
            body: { input: { sql, format: 'csv' }, waitForExports: true },
          }),
      ],
      ['workbench SQL', (sql) => api(app, '/api/query', { body: { sql } })],
      ['workbench PartiQL', (sql) => api(app, '/api/query', { body: { sql, language: 'PartiQL' } })],
      ['plan SQL', (sql) => api(app, '/api/query/plan', { body: { sql } })],
      ['plan PartiQL', (sql) => api(app, '/api/query/plan', { body: { sql, language: 'PartiQL' } })],
      ['export', (sql) => api(app, '/api/exports', { body: { sql, format: 'csv' } })],
    ];
    try {
      const before = await items();
      const escaped: string[] = [];
      const ran: string[] = [];
      for (const entry of SQL_ESCAPES) {
        const sql = harness.fill(entry.sql);
        const outputs: string[] = [];
        for (const [path, send] of paths) {
          try {
            const answer = await send(sql);
            outputs.push(JSON.stringify(answer));
            // validateQuery answers; it must not find a statement valid that the engine refuses.
            if (path === 'validateQuery' ? (answer as { output: { ok: boolean } }).output.ok : true)
              ran.push(`${path}: ${entry.sql}`);
          } catch (error) {
            outputs.push(JSON.stringify((error as { data?: unknown }).data ?? String(error)));
          }
        }
        await toolrow.state.exports.idle();
        outputs.push(await exported());
        const found = await harness.effects(outputs.join('\n'));
        if (found.length > 0) escaped.push(`${entry.sql}: ${found.join('; ')}`);
        await harness.reset();
      }
      expect(escaped).toEqual([]);
      // With every layer on, nothing in the corpus answers on any path.
      expect(ran).toEqual([]);
      expect(await items()).toEqual(before);
    } finally {
      clients.close();
      await harness.close();
    }
  }, 600_000);
});
