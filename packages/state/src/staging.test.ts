import type { DataSourceWith } from '@toolrow/datasource';
import { isDataSourceError } from '@toolrow/datasource';
import { sqlDatabaseOf } from '@toolrow/postgres';
import fc from 'fast-check';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ToolrowState } from './state.ts';
import { testStores } from './testing.ts';
import type { Toolrow } from './toolrow.ts';

interface Account {
  id: number;
  owner: string;
  balance: number;
}

const BASE: Account[] = Array.from({ length: 8 }, (_, index) => ({
  id: index + 1,
  owner: `owner ${index + 1}`,
  balance: 100 * (index + 1),
}));

describe.each(testStores())('staging on $name', ({ open }) => {
  let toolrow: Toolrow;
  let source: DataSourceWith;
  let state: ToolrowState;

  async function resetAccounts(rows: Account[] = BASE): Promise<void> {
    await state.staging.discard();
    await sqlDatabaseOf(source).query('DELETE FROM accounts');
    await sqlDatabaseOf(source).query(
      'INSERT INTO accounts (id, owner, balance) SELECT * FROM unnest($1::int[], $2::text[], $3::int[])',
      [rows.map((row) => row.id), rows.map((row) => row.owner), rows.map((row) => row.balance)],
    );
  }

  async function accounts(): Promise<Account[]> {
    return (await sqlDatabaseOf(source).query<Account>('SELECT id, owner, balance FROM accounts ORDER BY id'))
      .rows;
  }

  beforeAll(async () => {
    toolrow = await open();
    ({ state } = toolrow);
    source = toolrow.source as DataSourceWith;
    await sqlDatabaseOf(source).exec(`
      CREATE TABLE accounts (id int PRIMARY KEY, owner text NOT NULL, balance int NOT NULL DEFAULT 0 CHECK (balance >= 0),
        amount numeric(12,2), tags text[], meta jsonb, seen_at timestamptz);
      CREATE TABLE lines (order_id int, line int, qty int NOT NULL, PRIMARY KEY (order_id, line));
      CREATE TABLE loose (a int, b text);
      CREATE TABLE serial_rows (id int GENERATED ALWAYS AS IDENTITY PRIMARY KEY, label text NOT NULL);
      CREATE VIEW rich AS SELECT * FROM accounts WHERE balance > 500;
      INSERT INTO lines VALUES (1, 1, 5), (1, 2, 7);
      INSERT INTO loose VALUES (1, 'x');`);
    await source.schema.refresh();
  }, 60_000);
  afterAll(() => toolrow.close());
  beforeEach(() => resetAccounts());

  it('stages an update with the row as it was; values are canonical; the table is untouched until commit', async () => {
    const [change] = await state.staging.stageUpdate(
      'accounts',
      [
        {
          key: 3,
          values: {
            Balance: '350',
            amount: '12.5',
            tags: ['a', 'b c'],
            meta: { nested: [1, { x: true }] },
            seen_at: '2026-01-02T03:04:05Z',
          },
        },
      ],
      { actor: 'agent', profile: 'p1' },
    );
    expect(change).toMatchObject({
      kind: 'update',
      table: 'public.accounts',
      key: { id: 3 },
      before: { id: 3, owner: 'owner 3', balance: 300, amount: null, tags: null, meta: null, seen_at: null },
      values: {
        balance: 350,
        amount: 12.5,
        tags: ['a', 'b c'],
        meta: { nested: [1, { x: true }] },
        seen_at: '2026-01-02T03:04:05+00:00',
      },
      stagedBy: 'agent',
      profile: 'p1',
    });
    expect(await accounts()).toEqual(BASE);
    const [diff] = await state.staging.diff();
    const byColumn = Object.fromEntries(
      diff!.columns.map((column) => [column.column, [column.before, column.after]]),
    );
    expect(byColumn).toEqual({
      tags: [null, ['a', 'b c']],
      meta: [null, { nested: [1, { x: true }] }],
      amount: [null, 12.5],
      balance: [300, 350],
      seen_at: [null, '2026-01-02T03:04:05+00:00'],
    });
    const result = await state.staging.commit();
    expect(result).toEqual({
      ok: true,
      applied: { insert: 0, update: 1, delete: 0 },
      changeIds: [change!.id],
    });
    const row = (
      await sqlDatabaseOf(source).query(
        'SELECT balance, amount, tags, meta, seen_at FROM accounts WHERE id = 3',
      )
    ).rows[0];
    expect(row).toEqual({
      balance: 350,
      amount: '12.50',
      tags: ['a', 'b c'],
      meta: { nested: [1, { x: true }] },
      seen_at: new Date('2026-01-02T03:04:05Z'),
    });
    expect(await state.staging.list()).toEqual([]);
  });

  it('refuses bad changes up front with messages that say how to fix them', async () => {
    const meta = { actor: 'agent' as const };
    const cases: [() => Promise<unknown>, RegExp][] = [
      [
        () => state.staging.stageUpdate('accounts', [{ key: 999, values: { owner: 'x' } }], meta),
        /no row of 'public\.accounts' has the key \{"id":999\}/,
      ],
      [
        () => state.staging.stageUpdate('accounts', [{ key: 1, values: { balanse: 1 } }], meta),
        /Unknown column 'balanse'.*Did you mean 'balance'/,
      ],
      [
        () => state.staging.stageUpdate('accounts', [{ key: 1, values: { id: 2 } }], meta),
        /part of the primary key and cannot be updated/,
      ],
      [
        () => state.staging.stageUpdate('accounts', [{ key: 1, values: { balance: 'lots' } }], meta),
        /updates\[0\]\.values\.balance: invalid input syntax for type integer/,
      ],
      [() => state.staging.stageUpdate('accounts', [{ key: 1, values: {} }], meta), /no columns given/],
      [
        () => state.staging.stageInsert('accounts', [{ id: 50 }], meta),
        /'owner' is required \(NOT NULL without a default\)/,
      ],
      [() => state.staging.stageInsert('accounts', [], meta), /at least one row/],
      [
        () => state.staging.stageInsert('rich', [{ id: 1, owner: 'x' }], meta),
        /'public\.rich' is a view; only tables can be changed/,
      ],
      [() => state.staging.stageDelete('loose', [1], meta), /has no primary key/],
      [() => state.staging.stageDelete('lines', [1], meta), /must be \{ order_id: …, line: … \}/],
      [() => state.staging.stageDelete('lines', [{ order_id: 1 }], meta), /lacks line/],
      [
        () => state.staging.stageDelete('acounts', [1], meta),
        /Unknown table 'acounts'\. Did you mean 'public\.accounts'/,
      ],
      [() => state.staging.stageDelete('accounts', [1], { actor: 'robot' as 'agent' }), /needs an actor/],
    ];
    for (const [attempt, message] of cases) await expect(attempt()).rejects.toThrow(message);
    expect(await state.staging.list()).toEqual([]);
    expect(await accounts()).toEqual(BASE);
  });

  it('commits inserts, updates and deletes (composite keys, identity columns) in one go', async () => {
    const meta = { actor: 'mcp:claude' as const };
    await state.staging.stageInsert('accounts', [{ id: 9, owner: 'new' }], meta);
    await state.staging.stageInsert('serial_rows', [{ label: 'first' }, { label: 'second' }], meta);
    await state.staging.stageUpdate('lines', [{ key: { order_id: 1, line: 2 }, values: { qty: 70 } }], meta);
    await state.staging.stageDelete('lines', [{ order_id: 1, line: 1 }], meta);
    await state.staging.stageDelete('accounts', [2], meta);
    const listed = await state.staging.list();
    expect(listed.map((change) => [change.kind, change.table, change.key, change.stagedBy])).toEqual([
      ['insert', 'public.accounts', { id: 9 }, 'mcp:claude'],
      ['insert', 'public.serial_rows', null, 'mcp:claude'],
      ['insert', 'public.serial_rows', null, 'mcp:claude'],
      ['update', 'public.lines', { order_id: 1, line: 2 }, 'mcp:claude'],
      ['delete', 'public.lines', { order_id: 1, line: 1 }, 'mcp:claude'],
      ['delete', 'public.accounts', { id: 2 }, 'mcp:claude'],
    ]);
    expect((await state.staging.list({ table: 'lines' })).length).toBe(2);
    const result = await state.staging.commit();
    expect(result).toMatchObject({ ok: true, applied: { insert: 3, update: 1, delete: 2 } });
    expect((await sqlDatabaseOf(source).query('SELECT * FROM lines ORDER BY line')).rows).toEqual([
      { order_id: 1, line: 2, qty: 70 },
    ]);
    expect((await sqlDatabaseOf(source).query('SELECT label FROM serial_rows ORDER BY id')).rows).toEqual([
      { label: 'first' },
      { label: 'second' },
    ]);
    expect((await accounts()).map((row) => row.id)).toEqual([1, 3, 4, 5, 6, 7, 8, 9]);
    expect((await source.schema.resolveTable('lines')).columns).toHaveLength(3);
  });

  it('commits only the selected ids; discard drops by id or all', async () => {
    const [first] = await state.staging.stageUpdate('accounts', [{ key: 1, values: { owner: 'one' } }], {
      actor: 'agent',
    });
    const [second] = await state.staging.stageUpdate('accounts', [{ key: 2, values: { owner: 'two' } }], {
      actor: 'agent',
    });
    const [third] = await state.staging.stageUpdate('accounts', [{ key: 3, values: { owner: 'three' } }], {
      actor: 'agent',
    });
    expect(await state.staging.commit({ ids: [second!.id] })).toMatchObject({
      ok: true,
      changeIds: [second!.id],
    });
    expect((await accounts()).map((row) => row.owner).slice(0, 3)).toEqual(['owner 1', 'two', 'owner 3']);
    expect(await state.staging.discard({ ids: [first!.id] })).toBe(1);
    expect((await state.staging.list()).map((change) => change.id)).toEqual([third!.id]);
    expect(await state.staging.discard()).toBe(1);
    expect(await state.staging.list()).toEqual([]);
    expect(await state.staging.commit()).toEqual({
      ok: true,
      applied: { insert: 0, update: 0, delete: 0 },
      changeIds: [],
    });
  });

  it('a conflicting row blocks the whole commit and is reported by table, key and columns', async () => {
    await state.staging.stageUpdate('accounts', [{ key: 1, values: { owner: 'mine' } }], { actor: 'agent' });
    await state.staging.stageUpdate('accounts', [{ key: 2, values: { owner: 'mine too' } }], {
      actor: 'agent',
    });
    await state.staging.stageDelete('accounts', [3], { actor: 'agent' });
    await state.staging.stageInsert('accounts', [{ id: 20, owner: 'fresh' }], { actor: 'agent' });
    // Someone else edits row 2, deletes row 3 and takes id 20 meanwhile.
    await sqlDatabaseOf(source).query(
      "UPDATE accounts SET balance = balance + 1, owner = 'theirs' WHERE id = 2",
    );
    await sqlDatabaseOf(source).query('DELETE FROM accounts WHERE id = 3');
    await sqlDatabaseOf(source).query("INSERT INTO accounts (id, owner) VALUES (20, 'taken')");
    const before = await accounts();
    // The check before Commit finds the same three, changing nothing (and the fresh change is not among them).
    const found = await state.staging.check();
    expect(found.map((conflict) => [conflict.key, conflict.reason, conflict.changedColumns])).toEqual([
      [{ id: 2 }, 'changed', ['balance', 'owner']],
      [{ id: 3 }, 'missing', []],
      [{ id: 20 }, 'exists', []],
    ]);
    expect(found[0]!.current).toMatchObject({ id: 2, owner: 'theirs' });
    expect(await state.staging.check({ ids: [found[1]!.changeId] })).toHaveLength(1);
    expect(await accounts()).toEqual(before);
    const result = await state.staging.commit();
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(
      result.conflicts.map((conflict) => [
        conflict.table,
        conflict.key,
        conflict.reason,
        conflict.changedColumns,
      ]),
    ).toEqual([
      ['public.accounts', { id: 2 }, 'changed', ['balance', 'owner']],
      ['public.accounts', { id: 3 }, 'missing', []],
      ['public.accounts', { id: 20 }, 'exists', []],
    ]);
    expect(result.conflicts[0]!.current).toMatchObject({ id: 2, owner: 'theirs' });
    expect(await accounts()).toEqual(before);
    expect(await state.staging.list()).toHaveLength(4);
  });

  it('a change the database rejects at commit applies nothing and names the change', async () => {
    await state.staging.stageUpdate('accounts', [{ key: 1, values: { owner: 'fine' } }], { actor: 'agent' });
    const [bad] = await state.staging.stageUpdate('accounts', [{ key: 2, values: { balance: -5 } }], {
      actor: 'agent',
    });
    const error = await state.staging.commit().catch((e) => e);
    expect(isDataSourceError(error, 'invalid-change')).toBe(true);
    expect(error.message).toMatch(
      new RegExp(
        `Change #${bad!.id} \\(update public\\.accounts \\{"id":2\\}\\) failed: .*check constraint.*Nothing was applied`,
      ),
    );
    expect(await accounts()).toEqual(BASE);
  });

  type Op =
    | { kind: 'update'; id: number; owner: string; balance: number }
    | { kind: 'delete'; id: number }
    | { kind: 'insert'; id: number; owner: string; balance: number };

  const opArb: fc.Arbitrary<Op> = fc.oneof(
    fc.record({
      kind: fc.constant('update' as const),
      id: fc.integer({ min: 1, max: 8 }),
      owner: fc.string({ maxLength: 8 }),
      balance: fc.integer({ min: 0, max: 10_000 }),
    }),
    fc.record({ kind: fc.constant('delete' as const), id: fc.integer({ min: 1, max: 8 }) }),
    fc.record({
      kind: fc.constant('insert' as const),
      id: fc.integer({ min: 100, max: 110 }),
      owner: fc.string({ maxLength: 8 }),
      balance: fc.integer({ min: 0, max: 10_000 }),
    }),
  );

  /** Stages the ops the model accepts (each row touched once: no update-after-delete, no duplicate insert). */
  async function stageOps(ops: Op[]): Promise<{ staged: Op[]; model: Map<number, Account> }> {
    const model = new Map(BASE.map((row) => [row.id, { ...row }]));
    const touched = new Set<number>();
    const staged: Op[] = [];
    for (const op of ops) {
      if (touched.has(op.id)) continue;
      touched.add(op.id);
      if (op.kind === 'update') {
        await state.staging.stageUpdate(
          'accounts',
          [{ key: op.id, values: { owner: op.owner, balance: op.balance } }],
          { actor: 'agent' },
        );
        model.set(op.id, { id: op.id, owner: op.owner, balance: op.balance });
      } else if (op.kind === 'delete') {
        await state.staging.stageDelete('accounts', [op.id], { actor: 'agent' });
        model.delete(op.id);
      } else {
        await state.staging.stageInsert('accounts', [{ id: op.id, owner: op.owner, balance: op.balance }], {
          actor: 'agent',
        });
        model.set(op.id, { id: op.id, owner: op.owner, balance: op.balance });
      }
      staged.push(op);
    }
    return { staged, model };
  }

  it('property: committing staged changes yields exactly the modelled table', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 8 }), async (ops) => {
        await resetAccounts();
        const { staged, model } = await stageOps(ops);
        expect(await accounts()).toEqual(BASE);
        const result = await state.staging.commit();
        expect(result.ok).toBe(true);
        expect(await accounts()).toEqual([...model.values()].sort((a, b) => a.id - b.id));
        expect(result.ok && result.changeIds.length).toBe(staged.length);
        expect(await state.staging.list()).toEqual([]);
      }),
      { numRuns: 15 },
    );
  });

  it('property: if any staged row changed underneath, nothing is applied and exactly those rows are reported', async () => {
    const interference = fc.array(
      fc.oneof(
        fc.record({ kind: fc.constant('bump' as const), id: fc.integer({ min: 1, max: 8 }) }),
        fc.record({ kind: fc.constant('same' as const), id: fc.integer({ min: 1, max: 8 }) }),
        fc.record({ kind: fc.constant('remove' as const), id: fc.integer({ min: 1, max: 8 }) }),
        fc.record({ kind: fc.constant('take' as const), id: fc.integer({ min: 100, max: 110 }) }),
      ),
      { maxLength: 3 },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(opArb, { minLength: 1, maxLength: 6 }),
        interference,
        async (ops, meddling) => {
          await resetAccounts();
          const { staged } = await stageOps(ops);
          const changedIds = new Set<number>();
          for (const step of meddling) {
            if (step.kind === 'bump') {
              if (
                (
                  await sqlDatabaseOf(source).query(
                    'UPDATE accounts SET balance = balance + 1 WHERE id = $1',
                    [step.id],
                  )
                ).rowCount > 0
              )
                changedIds.add(step.id);
            } else if (step.kind === 'same') {
              // Writing the same values is not a change.
              await sqlDatabaseOf(source).query('UPDATE accounts SET owner = owner WHERE id = $1', [step.id]);
            } else if (step.kind === 'remove') {
              if (
                (await sqlDatabaseOf(source).query('DELETE FROM accounts WHERE id = $1', [step.id]))
                  .rowCount > 0
              )
                changedIds.add(step.id);
            } else if (
              (
                await sqlDatabaseOf(source).query(
                  "INSERT INTO accounts (id, owner) VALUES ($1, 'theirs') ON CONFLICT DO NOTHING",
                  [step.id],
                )
              ).rowCount > 0
            ) {
              changedIds.add(step.id);
            }
          }
          const expectedConflicts = staged.filter((op) => changedIds.has(op.id)).map((op) => op.id);
          const before = await accounts();
          const result = await state.staging.commit();
          if (expectedConflicts.length === 0) {
            expect(result.ok).toBe(true);
          } else {
            expect(result.ok).toBe(false);
            expect(!result.ok && result.conflicts.map((conflict) => conflict.key?.id)).toEqual(
              expectedConflicts,
            );
            expect(await accounts()).toEqual(before);
            expect(await state.staging.list()).toHaveLength(staged.length);
          }
        },
      ),
      { numRuns: 15 },
    );
  });
});
