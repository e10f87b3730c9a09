// DynamoDB commits that record the truth and never jam, 50 rounds of each case, on DynamoDB Local:
// a reader during a commit never decides for the live committer; a committer that dies after its
// claim while another writer changes a claimed item blocks nobody, and its outcome is learnt (the
// exact transaction resent with its token) or, past DynamoDB's idempotency window, released for
// the user to resolve; two committers of the same changes apply them once; an attribute another
// writer adds before a delete stops it, and a version attribute closes the last moment too.
import { spawnSync } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type AttributeValue,
  DeleteItemCommand,
  GetItemCommand,
  PutItemCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { createClients, parseDynamoUrl } from '@toolrow/dynamodb';
import { describeWithService, serviceUrl } from '@toolrow/test-services';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { CommitPoint } from './staging.ts';
import { openToolrow, type Toolrow } from './toolrow.ts';

const dynamoUrl = serviceUrl('dynamodb');
const ROUNDS = 50;

/** A pid that no process has now: a holder that died. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  return Number(child.stdout.toString());
}

describeWithService('dynamodb', 'DynamoDB commits that record the truth and never jam', () => {
  let dir: string;
  let url: string;
  let env: Record<string, string>;
  let other: ReturnType<typeof createClients>;
  const opened: Toolrow[] = [];
  const open = async (staging: Record<string, unknown> = {}, urlOverride?: string) => {
    const toolrow = await openToolrow({
      env: { ...env, ...(urlOverride ? { DATABASE_URL: urlOverride } : {}) },
      state: { staging },
    });
    opened.push(toolrow);
    return toolrow;
  };
  const item = async (id: number) =>
    (
      await other.read.send(
        new GetItemCommand({ TableName: 'orders', Key: { id: { N: String(id) } }, ConsistentRead: true }),
      )
    ).Item;
  /** Another writer, outside Toolrow: #s is status, #g gift, #v version. */
  const setElsewhere = (id: number, set: string, values: Record<string, AttributeValue>) =>
    other.write().send(
      new UpdateItemCommand({
        TableName: 'orders',
        Key: { id: { N: String(id) } },
        UpdateExpression: set,
        ExpressionAttributeNames: Object.fromEntries(
          (
            [
              ['#s', 'status'],
              ['#g', 'gift'],
              ['#v', 'version'],
            ] as const
          ).filter(([name]) => set.includes(name)),
        ),
        ExpressionAttributeValues: values,
      }),
    );

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'toolrow-ddb-truth-'));
    const fresh = new URL(dynamoUrl!);
    fresh.searchParams.set('region', `zz-truth-${randomInt(1_000_000_000)}`);
    url = fresh.href;
    env = { DATABASE_URL: url, TOOLROW_DATA_DIR: dir };
    other = createClients(parseDynamoUrl(url));
    const toolrow = await open();
    await toolrow.source.seed!({ orders: ROUNDS + 10, now: new Date('2026-11-15T00:00:00Z') });
  }, 180_000);
  afterAll(async () => {
    for (const toolrow of opened) await toolrow.close().catch(() => {});
    other?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it(`a reader during a commit leaves it to its committer (${ROUNDS} rounds)`, async () => {
    let paused: (() => void) | undefined;
    let reached: (() => void) | undefined;
    const committer = await open({
      faults: async (point: CommitPoint) => {
        if (point !== 'claimed') return;
        reached?.();
        await new Promise<void>((resolve) => {
          paused = resolve;
        });
      },
    });
    const reader = await open();
    for (let round = 1; round <= ROUNDS; round++) {
      const [change] = await committer.state.staging.stageUpdate(
        'orders',
        [{ key: { id: round }, values: { status: `read-during-${round}` } }],
        { actor: 'agent' },
      );
      const atClaim = new Promise<void>((resolve) => {
        reached = resolve;
      });
      const committing = committer.state.staging.commit({ ids: [change!.id] });
      await atClaim;
      // Between the claim and TransactWriteItems: everything a reader does runs recovery.
      const listed = await reader.state.staging.list({ ids: [change!.id] });
      expect(
        listed.map((each) => each.id),
        `round ${round}`,
      ).toEqual([change!.id]);
      expect(await reader.state.staging.discard({ ids: [change!.id] }), `round ${round}`).toBe(0);
      const record = await reader.state.db.q
        .selectFrom('commits')
        .select('state')
        .orderBy('id', 'desc')
        .executeTakeFirstOrThrow();
      expect(record.state, `round ${round}`).toBe('applying');
      paused!();
      const result = await committing;
      expect(result, `round ${round}`).toMatchObject({ ok: true, changeIds: [change!.id] });
      expect((await item(round))?.status?.S, `round ${round}`).toBe(`read-during-${round}`);
      expect(await reader.state.staging.list({ ids: [change!.id] }), `round ${round}`).toEqual([]);
    }
  }, 300_000);

  it(`a committer dead after its claim while another writer changes the item blocks nobody (${ROUNDS} rounds)`, async () => {
    const dead = `${hostname()}:${deadPid()}:gone`;
    // Its claims name a process that no longer exists; it stops at the claim for good.
    const dying = await open({
      holder: dead,
      faults: (point: CommitPoint) => (point === 'claimed' ? new Promise<void>(() => {}) : undefined),
    });
    const user = await open();
    for (let round = 1; round <= ROUNDS; round++) {
      const id = ROUNDS + 1 + (round % 9);
      const [abandoned] = await dying.state.staging.stageUpdate(
        'orders',
        [{ key: { id }, values: { status: `abandoned-${round}` } }],
        { actor: 'agent' },
      );
      void dying.state.staging.commit({ ids: [abandoned!.id] });
      await expect.poll(() => commitOf(user, abandoned!.id), { timeout: 20_000 }).not.toBeNull();
      await setElsewhere(id, 'SET #s = :s', { ':s': { S: `elsewhere-${round}` } }).catch(() => {});
      // Some rounds lose the window: DynamoDB forgets a token after ten minutes.
      const pastWindow = round % 5 === 0;
      if (pastWindow) {
        await user.state.db.q
          .updateTable('commits')
          .set({ created_at: new Date(Date.now() - 20 * 60_000) })
          .where('id', '=', (await commitOf(user, abandoned!.id))!)
          .execute();
      }
      // Another change commits at once: nothing waits for the dead committer.
      const [mine] = await user.state.staging.stageUpdate(
        'orders',
        [{ key: { id: round }, values: { note: `mine-${round}` } }],
        { actor: 'user' },
      );
      const result = await user.state.staging.commit({ ids: [mine!.id] });
      expect(result, `round ${round}`).toMatchObject({ ok: true, changeIds: [mine!.id] });
      // The dead commit is settled: not applied (the item moved on), its change staged again.
      const [back] = await user.state.staging.list({ ids: [abandoned!.id] });
      expect(back, `round ${round}`).toBeDefined();
      expect((await item(id))?.status?.S, `round ${round}`).toBe(`elsewhere-${round}`);
      if (pastWindow) {
        // The items cannot say: released, flagged for the user, who records what they found.
        expect(back!.uncertainCommit, `round ${round}`).toBeGreaterThan(0);
        expect(await user.state.staging.resolve(back!.uncertainCommit!, 'staged')).toBe(1);
        expect((await user.state.staging.list({ ids: [abandoned!.id] }))[0]?.uncertainCommit).toBeUndefined();
      } else {
        // Resent with its token, the transaction was refused: it never applied.
        expect(back!.uncertainCommit, `round ${round}`).toBeUndefined();
      }
      // Committing it now tells the truth: the item changed since it was staged.
      const again = await user.state.staging.commit({ ids: [abandoned!.id] });
      expect(again.ok, `round ${round}`).toBe(false);
      await user.state.staging.discard({ ids: [abandoned!.id] });
    }
  }, 600_000);

  it(`two committers of the same changes apply them once (${ROUNDS} rounds)`, async () => {
    const first = await open();
    const second = await open();
    for (let round = 1; round <= ROUNDS; round++) {
      await first.state.staging.stageUpdate(
        'orders',
        [{ key: { id: round }, values: { status: `twice-${round}`, note: `n${round}` } }],
        { actor: 'agent' },
      );
      await first.state.staging.stageInsert(
        'orders',
        [
          {
            id: String(100_000 + round),
            customer_id: '1',
            status: 'new',
            ordered_at: '2026-11-14T00:00:00Z',
            total: '1.00',
            currency: 'USD',
          },
        ],
        { actor: 'agent' },
      );
      const results = await Promise.all([first.state.staging.commit(), second.state.staging.commit()]);
      const applied = results.flatMap((result) => (result.ok ? result.changeIds : []));
      expect(applied, `round ${round}`).toHaveLength(2);
      for (const result of results)
        if (!result.ok) throw new Error(`round ${round}: ${JSON.stringify(result)}`);
      expect((await item(round))?.status?.S).toBe(`twice-${round}`);
      expect(await first.state.staging.list()).toEqual([]);
    }
  }, 300_000);

  it(`an attribute another writer adds before a delete stops the delete (${ROUNDS} rounds)`, async () => {
    const user = await open();
    for (let round = 1; round <= ROUNDS; round++) {
      const id = 200_000 + round;
      await putOrder(id);
      await user.source.schema.refresh();
      const [change] = await user.state.staging.stageDelete('orders', [{ id }], { actor: 'user' });
      await setElsewhere(id, 'SET #g = :g', { ':g': { BOOL: true } });
      const result = await user.state.staging.commit({ ids: [change!.id] });
      expect(result.ok, `round ${round}`).toBe(false);
      if (!result.ok) expect(result.conflicts[0]?.changedColumns, `round ${round}`).toEqual(['gift']);
      expect((await item(id))?.gift?.BOOL, `round ${round}`).toBe(true);
      await user.state.staging.discard({ ids: [change!.id] });
    }
  }, 300_000);

  it(`a version attribute closes the moment between the check and the transaction (${ROUNDS} rounds each, and the limit without one)`, async () => {
    let between: (() => Promise<void>) | undefined;
    const faults = async (point: CommitPoint) => {
      if (point === 'claimed') await between?.();
    };
    const versioned = new URL(url);
    versioned.searchParams.set('version', 'version');
    const withVersion = await open({ faults }, versioned.href);
    const without = await open({ faults });
    for (const [toolrow, protectedByVersion] of [
      [withVersion, true],
      [without, false],
    ] as const) {
      for (let round = 1; round <= ROUNDS; round++) {
        const id = (protectedByVersion ? 300_000 : 400_000) + round;
        await putOrder(id);
        await toolrow.source.schema.refresh();
        const [change] = await toolrow.state.staging.stageDelete('orders', [{ id }], { actor: 'user' });
        // After the whole-item check, before TransactWriteItems, another writer adds an attribute:
        // one that keeps the version (as DynamoDBMapper's writers do) bumps it; without a version
        // attribute there is nothing for it to bump, and no condition can name what it adds.
        between = () =>
          (protectedByVersion
            ? setElsewhere(id, 'SET #g = :g, #v = #v + :one', { ':g': { BOOL: true }, ':one': { N: '1' } })
            : setElsewhere(id, 'SET #g = :g', { ':g': { BOOL: true } })
          ).then(() => {});
        const result = await toolrow.state.staging.commit({ ids: [change!.id] });
        between = undefined;
        if (protectedByVersion) {
          expect(result.ok, `round ${round}`).toBe(false);
          expect((await item(id))?.gift?.BOOL, `round ${round}`).toBe(true);
          await toolrow.state.staging.discard({ ids: [change!.id] });
        } else {
          // Without one, that moment is the documented limit: the delete lands, gift and all.
          expect(result.ok, `round ${round}`).toBe(true);
          expect(await item(id), `round ${round}`).toBeUndefined();
        }
      }
    }
    // Toolrow keeps the version too: its update bumps it, so other writers' conditions see it.
    await putOrder(500_001);
    await withVersion.source.schema.refresh();
    const [update] = await withVersion.state.staging.stageUpdate(
      'orders',
      [{ key: { id: 500_001 }, values: { status: 'shipped' } }],
      { actor: 'user' },
    );
    expect(await withVersion.state.staging.commit({ ids: [update!.id] })).toMatchObject({ ok: true });
    expect(await item(500_001)).toMatchObject({ status: { S: 'shipped' }, version: { N: '2' } });
    const table = await withVersion.source.schema.resolveTable('orders');
    expect(withVersion.source.changes!.protectionOf?.(table)).toMatchObject({
      kind: 'version',
      attribute: 'version',
    });
    expect(without.source.changes!.protectionOf?.(table)).toMatchObject({ kind: 'check' });
  }, 600_000);

  it('an item without its version attribute is at version 0: checked, committed once as version 1, and a versioning writer in between is caught', async () => {
    let between: (() => Promise<void>) | undefined;
    const versioned = new URL(url);
    versioned.searchParams.set('version', 'version');
    const toolrow = await open(
      {
        faults: async (point: CommitPoint) => {
          if (point === 'claimed') await between?.();
        },
      },
      versioned.href,
    );
    await putOrder(600_000); // a versioned item, so the table is known to keep one
    await putOrder(600_001, { versioned: false });
    await putOrder(600_002, { versioned: false });
    await toolrow.source.schema.refresh();
    const [update] = await toolrow.state.staging.stageUpdate(
      'orders',
      [{ key: { id: 600_001 }, values: { status: 'shipped' } }],
      { actor: 'user' },
    );
    // The check runs what the commit will: both say it applies, and it does, once.
    expect(await toolrow.state.staging.check({ ids: [update!.id] })).toEqual([]);
    expect(await toolrow.state.staging.commit({ ids: [update!.id] })).toMatchObject({ ok: true });
    expect(await item(600_001)).toMatchObject({ status: { S: 'shipped' }, version: { N: '1' } });

    // A writer that versions the item between the check and the transaction stops the commit.
    const [remove] = await toolrow.state.staging.stageDelete('orders', [{ id: 600_002 }], { actor: 'user' });
    between = () =>
      setElsewhere(600_002, 'SET #v = :one', { ':one': { N: '1' } }).then(() => {
        between = undefined;
      });
    const refused = await toolrow.state.staging.commit({ ids: [remove!.id] });
    expect(refused.ok).toBe(false);
    expect(await item(600_002)).toMatchObject({ version: { N: '1' } });
  });

  it('staging check and the commit agree: whatever was staged and whatever another writer did since, check finds exactly what the commit refuses (random cases)', async () => {
    const versioned = new URL(url);
    versioned.searchParams.set('version', 'version');
    const byVersion = await open({}, versioned.href);
    const plain = await open();
    type Staged = 'status' | 'gift' | 'delete';
    type Meanwhile = 'nothing' | 'status' | 'gift' | 'version' | 'deleted';
    let next = 800_000;
    await fc.assert(
      fc.asyncProperty(
        fc.boolean(),
        fc.array(
          fc.record({
            versionedItem: fc.boolean(),
            staged: fc.constantFrom<Staged>('status', 'gift', 'delete'),
            meanwhile: fc.constantFrom<Meanwhile>('nothing', 'status', 'gift', 'version', 'deleted'),
          }),
          { minLength: 1, maxLength: 3 },
        ),
        async (withVersion, items) => {
          const toolrow = withVersion ? byVersion : plain;
          const ids: number[] = [];
          for (const each of items) {
            const id = next++;
            ids.push(id);
            await putOrder(id, { versioned: each.versionedItem });
          }
          await putOrder(next++); // a versioned item, so the table is known to keep one
          await toolrow.source.schema.refresh();
          const changeIds: number[] = [];
          for (const [index, each] of items.entries()) {
            const id = ids[index]!;
            const [change] =
              each.staged === 'delete'
                ? await toolrow.state.staging.stageDelete('orders', [{ id }], { actor: 'user' })
                : await toolrow.state.staging.stageUpdate(
                    'orders',
                    [
                      {
                        key: { id },
                        values: each.staged === 'status' ? { status: 'shipped' } : { gift: true },
                      },
                    ],
                    { actor: 'user' },
                  );
            changeIds.push(change!.id);
            // Another writer, after staging and before the check.
            if (each.meanwhile === 'status') await setElsewhere(id, 'SET #s = :s', { ':s': { S: 'lost' } });
            if (each.meanwhile === 'gift') await setElsewhere(id, 'SET #g = :g', { ':g': { BOOL: false } });
            if (each.meanwhile === 'version')
              await setElsewhere(id, 'SET #v = :v', { ':v': { N: String(randomInt(2, 9)) } });
            if (each.meanwhile === 'deleted')
              await other
                .write()
                .send(new DeleteItemCommand({ TableName: 'orders', Key: { id: { N: String(id) } } }));
          }
          const checked = await toolrow.state.staging.check({ ids: changeIds });
          const result = await toolrow.state.staging.commit({ ids: changeIds });
          const refused = result.ok ? [] : result.conflicts.map((conflict) => conflict.changeId);
          expect(
            checked.map((conflict) => conflict.changeId).sort(),
            JSON.stringify({ withVersion, items, result }),
          ).toEqual(refused.sort());
          if (!result.ok) await toolrow.state.staging.discard({ ids: changeIds });
        },
      ),
      { numRuns: 40 },
    );
  }, 600_000);

  /** An order as another tool writes it, with a version attribute. */
  async function putOrder(id: number, { versioned = true } = {}) {
    await other.write().send(new DeleteItemCommand({ TableName: 'orders', Key: { id: { N: String(id) } } }));
    await other.write().send(
      new PutItemCommand({
        TableName: 'orders',
        Item: {
          id: { N: String(id) },
          customer_id: { N: '1' },
          status: { S: 'pending' },
          ordered_at: { S: '2026-11-14T00:00:00Z' },
          total: { N: '1' },
          ...(versioned ? { version: { N: '1' } } : {}),
        },
      }),
    );
  }

  async function commitOf(toolrow: Toolrow, changeId: number): Promise<number | null> {
    const row = await toolrow.state.db.q
      .selectFrom('staged_changes')
      .select('commit_id')
      .where('id', '=', changeId)
      .executeTakeFirst();
    return row?.commit_id == null ? null : Number(row.commit_id);
  }
});
