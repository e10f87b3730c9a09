// `toolrow staging`: the user's side of staging. Changes are staged the way the agent stages
// them (through @toolrow/datasource), then reviewed, committed and discarded through the CLI.
// Runs on PostgreSQL when TOOLROW_TEST_DATABASE_URL is set (cheap to open per command), else on a PGlite data dir.

import { sqlDatabaseOf } from '@toolrow/postgres';
import { openToolrow, type Toolrow } from '@toolrow/state';
import { createTestEnvironment, TEST_SEED_NOW, type TestEnvironment } from '@toolrow/state/testing';
import { serviceUrl } from '@toolrow/test-services';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, spawnCli } from '../testing.ts';

const engine = serviceUrl('postgres') ? 'postgres' : 'pglite';

describe(`toolrow staging on ${engine}`, () => {
  let environment: TestEnvironment;
  const cli = (...argv: string[]) => runCli(['staging', ...argv], environment.env, environment.cwd);

  async function withSource<T>(fn: (ds: Toolrow) => Promise<T>): Promise<T> {
    const ds = await openToolrow({ env: environment.env, cwd: environment.cwd });
    try {
      return await fn(ds);
    } finally {
      await ds.close();
    }
  }

  beforeAll(async () => {
    environment = await createTestEnvironment(engine);
    await withSource((ds) => ds.source.seed!({ orders: 100, now: TEST_SEED_NOW }));
  }, 120_000);
  afterAll(() => environment.cleanup());

  it('usage errors exit 2', async () => {
    expect((await cli()).stderr).toMatch(
      /Name a staging subcommand: list, diff, check, commit, discard or resolve/,
    );
    for (const argv of [['frob'], ['discard'], ['discard', '1', '--all'], ['commit', 'x'], ['list', '5']]) {
      const result = await cli(...argv);
      expect(result.code, argv.join(' ')).toBe(2);
      expect(result.stderr).toMatch(/Usage: toolrow staging/);
    }
  });

  it('lists and diffs what the agent staged, commits it, and the table changes only then', async () => {
    expect((await cli('list')).stdout).toBe('Nothing staged.\n');
    const before = await withSource(async (ds) => {
      const row = await ds.source.rows.get('orders', 1);
      await ds.state.staging.stageUpdate(
        'orders',
        [{ key: 1, values: { status: 'cancelled', note: 'customer called' } }],
        { actor: 'agent' },
      );
      await ds.state.staging.stageInsert(
        'customers',
        [{ name: 'Ada Lovelace', email: 'ada@example.com', city: 'London', country: 'GB' }],
        { actor: 'mcp:claude' },
      );
      await ds.state.staging.stageDelete('order_items', [{ id: 2 }], { actor: 'agent' });
      return row!;
    });

    const list = await cli('list');
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/^id +kind +table +key +what +by +staged at$/m);
    expect(list.stdout).toMatch(/^1 +update +public\.orders +id=1 +change note, status +agent /m);
    expect(list.stdout).toMatch(/^2 +insert +public\.customers +\(new row\) +set .*email.* +mcp:claude /m);
    expect(list.stdout).toMatch(/^3 +delete +public\.order_items +id=2 +delete row +agent /m);
    expect(list.stdout).toMatch(/3 staged changes\. Review with `toolrow staging diff`/);
    expect(JSON.parse((await cli('list', '--json', '--table', 'orders')).stdout)).toHaveLength(1);

    const diff = await cli('diff', '1');
    expect(diff.stdout).toMatch(/^#1 update public\.orders id=1 +\(by agent, /);
    expect(diff.stdout).toContain(`    ~ status: ${JSON.stringify(before.status)} → "cancelled"`);
    expect(diff.stdout).toContain('    ~ note: NULL → "customer called"');
    expect((await cli('diff')).stdout).toMatch(
      /#2 insert public\.customers \(new row\)[^\n]*\n( {4}\+ [a-z_]+: .*\n)+/,
    );

    expect(await withSource(async (ds) => (await ds.source.rows.get('orders', 1))!.status)).toBe(
      before.status,
    );
    // An id that is not staged is an error for every subcommand that takes ids, never "Nothing staged".
    for (const sub of ['commit', 'diff', 'discard']) {
      const missing = await cli(sub, '99');
      expect({ sub, code: missing.code }).toEqual({ sub, code: 1 });
      expect(missing.stderr).toMatch(/no staged change with id 99; see `toolrow staging list`/);
      expect(missing.stdout).toBe('');
    }

    const committed = await cli('commit');
    expect(committed.code, committed.stderr).toBe(0);
    expect(committed.stdout).toMatch(/^Committed 3 changes to .*: 1 inserted, 1 updated, 1 deleted\.\n$/);
    await withSource(async (ds) => {
      expect(await ds.source.rows.get('orders', 1)).toMatchObject({
        status: 'cancelled',
        note: 'customer called',
      });
      expect(
        await ds.source.rows.count('customers', { column: 'email', op: 'eq', value: 'ada@example.com' }),
      ).toBe(1);
      expect(await ds.source.rows.get('order_items', 2)).toBeUndefined();
    });
    expect((await cli('list')).stdout).toBe('Nothing staged.\n');
  });

  it('a conflict commits nothing, lists the rows and exits 1; discard then lets the rest through', async () => {
    const ids = await withSource(async (ds) => {
      const [stale] = await ds.state.staging.stageUpdate(
        'orders',
        [{ key: 5, values: { note: 'agent note' } }],
        {
          actor: 'agent',
        },
      );
      const [fine] = await ds.state.staging.stageUpdate('orders', [{ key: 6, values: { note: 'fine' } }], {
        actor: 'agent',
      });
      await sqlDatabaseOf(ds.source).query("UPDATE orders SET status = 'refunded' WHERE id = 5");
      return { stale: stale!.id, fine: fine!.id };
    });
    // check sees it first, read-only, and names only the stale change.
    const checked = await cli('check');
    expect(checked.code).toBe(1);
    expect(checked.stderr).toMatch(/^1 staged change is stale: a commit would apply nothing\./);
    expect(checked.stderr).toContain(
      `#${ids.stale} public.orders id=5: changed since it was staged (status)`,
    );
    expect(checked.stderr).not.toContain(`#${ids.fine} `);
    expect(await cli('check', String(ids.fine))).toMatchObject({
      code: 0,
      stdout: 'Every staged change still matches its row: a commit would apply them.\n',
    });
    const conflict = await cli('commit');
    expect(conflict.code).toBe(1);
    expect(conflict.stderr).toMatch(/^Nothing was committed: 1 row changed under the staged changes\./);
    expect(conflict.stderr).toContain(
      `#${ids.stale} public.orders id=5: changed since it was staged (status)`,
    );
    expect(conflict.stderr).toMatch(/toolrow staging discard <ids>/);
    const json = JSON.parse((await cli('commit', '--json')).stdout);
    expect(json).toMatchObject({
      ok: false,
      conflicts: [{ changeId: ids.stale, key: { id: 5 }, reason: 'changed' }],
    });
    expect(await withSource(async (ds) => (await ds.source.rows.get('orders', 6))!.note)).not.toBe('fine');

    expect((await cli('discard', String(ids.stale))).stdout).toBe('Discarded 1 staged change.\n');
    expect((await cli('commit')).stdout).toMatch(/Committed 1 change to /);
    expect(await withSource(async (ds) => (await ds.source.rows.get('orders', 6))!.note)).toBe('fine');
  });

  it('check names a delete a foreign key would refuse (orders still reference the customer), not "fine"; deleting those too is fine', async () => {
    const ids = await withSource(async (ds) => {
      await ds.state.staging.discard();
      const customer = (
        await sqlDatabaseOf(ds.source).query<{ id: number; n: number }>(
          'SELECT customer_id AS id, count(*)::int AS n FROM orders GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 1',
        )
      ).rows[0]!;
      const [gone] = await ds.state.staging.stageDelete('customers', [customer.id], { actor: 'agent' });
      return { change: gone!.id, customer: customer.id, orders: customer.n };
    });
    const checked = await cli('check');
    expect(checked.code).toBe(1);
    expect(checked.stderr).toMatch(
      /^1 staged delete is still referenced by other rows: a commit would apply nothing\./,
    );
    expect(checked.stderr).toContain(
      `#${ids.change} public.customers id=${ids.customer}: ${ids.orders} row${ids.orders === 1 ? '' : 's'} of public.orders still reference it (customer_id)`,
    );
    // The commit's database agrees: it refuses the delete, and nothing is applied.
    const refused = await cli('commit');
    expect(refused.code).toBe(1);
    // Staging the customer's orders' deletes too (their items cascade): nothing is left pointing at it.
    await withSource(async (ds) => {
      const orders = (
        await sqlDatabaseOf(ds.source).query<{ id: number }>('SELECT id FROM orders WHERE customer_id = $1', [
          ids.customer,
        ])
      ).rows;
      await ds.state.staging.stageDelete(
        'orders',
        orders.map((order) => order.id),
        { actor: 'agent' },
      );
    });
    expect((await cli('check')).code).toBe(0);
    await withSource((ds) => ds.state.staging.discard());
  });

  it('discard --all, and the real binary lists what is staged', async () => {
    await withSource((ds) => ds.state.staging.stageDelete('orders', [7, 8], { actor: 'agent' }));
    const listed = await spawnCli(['staging', 'list', '--json'], {
      env: environment.env,
      cwd: environment.cwd,
    });
    expect(listed.code, listed.stderr).toBe(0);
    expect(
      JSON.parse(listed.stdout).map((change: { kind: string; key: unknown }) => [change.kind, change.key]),
    ).toEqual([
      ['delete', { id: 7 }],
      ['delete', { id: 8 }],
    ]);
    expect((await cli('discard', '--all')).stdout).toBe('Discarded 2 staged changes.\n');
    expect(await withSource(async (ds) => ds.source.rows.count('orders'))).toBe(100);
  }, 60_000);
});
