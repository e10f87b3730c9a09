// Who acts on the staging area, held by the staging area itself (no route in front of it): every
// person's stage, every commit, discard and resolve in the audit log; on a team's store a change
// names its person, only an approver commits (reviewing, never their own), and an analyst discards
// only their own. The routes check roles as well; these hold without them.
import { isDataSourceError } from '@toolrow/datasource';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { reviewDigest } from './staging.ts';
import type { ToolrowState } from './state.ts';
import { testStores } from './testing.ts';
import type { Toolrow } from './toolrow.ts';

async function refusal(run: Promise<unknown>): Promise<{ code: string; message: string }> {
  const error = await run.then(
    () => new Error('it was not refused'),
    (caught: unknown) => caught,
  );
  expect(isDataSourceError(error), String(error)).toBe(true);
  return error as { code: string; message: string };
}

describe.each(testStores())('the staging area records who acts, on $name', ({ open }) => {
  let toolrow: Toolrow;
  let state: ToolrowState;
  beforeAll(async () => {
    toolrow = await open({ seed: { orders: 30 } });
    ({ state } = toolrow);
  }, 120_000);
  afterAll(() => toolrow?.close());

  const lines = async (tool: string) => state.audit.list({ tool, limit: 100 });

  it('a person’s stage, a commit, a discard: each one audit line; the agent’s stage is its gate’s', async () => {
    const before = (await state.audit.list({ limit: 1000 })).length;
    const [own] = await state.staging.stageUpdate(
      'orders',
      [{ key: { id: 1 }, values: { status: 'shipped' } }],
      { actor: 'user' },
    );
    await state.staging.stageUpdate('orders', [{ key: { id: 2 }, values: { status: 'shipped' } }], {
      actor: 'agent',
    });
    expect((await lines('stageUpdateRows'))[0]).toMatchObject({
      decidedBy: 'user',
      detail: `staged an update of public.orders (#${own!.id}).`,
    });
    expect((await state.audit.list({ limit: 1000 })).length).toBe(before + 1);

    const committed = await state.staging.commit({ ids: [own!.id] });
    expect(committed.ok).toBe(true);
    const [commit] = await lines('commitStaged');
    expect(commit).toMatchObject({ decidedBy: 'user', person: null });
    expect(commit!.detail).toBe(`committed 1 change (#${own!.id}) staged by user.`);

    expect(await state.staging.discard()).toBe(1);
    expect((await lines('discardStaged'))[0]!.detail).toMatch(
      /^discarded 1 staged change \(#\d+\) of public\.orders\.$/,
    );
    // A discard of nothing writes nothing.
    const count = (await state.audit.list({ limit: 1000 })).length;
    expect(await state.staging.discard()).toBe(0);
    expect((await state.audit.list({ limit: 1000 })).length).toBe(count);
  });
});

describe.each(testStores())('a team’s store, on $name', ({ open }) => {
  let toolrow: Toolrow;
  let state: ToolrowState;
  const ana = 'ana@example.com';
  const abe = 'abe@example.com';
  const amy = 'amy@example.com';

  beforeAll(async () => {
    toolrow = await open({ seed: { orders: 30 } });
    ({ state } = toolrow);
    await state.team.markTeamStore('https://id.example.com/');
    await state.team.signedIn(ana, { name: 'Ana', role: 'analyst', groups: ['analysts'] });
    await state.team.signedIn(abe, { name: 'Abe', role: 'approver', groups: ['leads'] });
    await state.team.signedIn(amy, { name: 'Amy', role: 'approver', groups: ['leads'] });
  }, 120_000);
  afterAll(() => toolrow?.close());
  beforeEach(async () => {
    // Clear what a test left, as an approver may.
    await state.staging.discard(undefined, { person: abe });
  });

  const stage = (person: string | null, id = 3) =>
    state.staging.stageUpdate('orders', [{ key: { id }, values: { status: 'cancelled' } }], {
      actor: 'user',
      person,
    });

  it('a change names its person: nobody’s stage is refused, saying how to go through the team', async () => {
    expect(await state.team.teamIssuer()).toBe('https://id.example.com/');
    const refused = await refusal(stage(null));
    expect(refused.code).toBe('permission');
    expect(refused.message).toContain(
      "This state store is a team's (people sign in through https://id.example.com/)",
    );
    expect(refused.message).toContain('TOOLROW_TOKEN');
    // The agent's stage without a person too: no path stages for nobody.
    await refusal(
      state.staging.stageUpdate('orders', [{ key: { id: 3 }, values: { status: 'cancelled' } }], {
        actor: 'agent',
      }),
    );
    expect(await state.staging.list()).toEqual([]);
    const [change] = await stage(ana);
    expect(change!.person).toBe(ana);
    expect((await state.audit.list({ person: ana, tool: 'stageUpdateRows' }))[0]!.detail).toMatch(
      /^ana@example\.com staged/,
    );
  });

  it('a commit: nobody, a non-approver, no review, a stale review and one’s own are refused; nothing applied', async () => {
    const [change] = await stage(ana);
    const digest = (await state.staging.review(undefined)).digest;
    expect(digest).toBe(reviewDigest([change!]));
    expect((await refusal(state.staging.commit())).message).toContain("This state store is a team's");
    expect(
      (await refusal(state.staging.commit(undefined, { approver: { person: ana, reviewed: digest } })))
        .message,
    ).toMatch(/Four eyes: ana@example\.com is an analyst, and only an approver commits/);
    expect((await refusal(state.staging.commit(undefined, { approver: { person: abe } }))).message).toMatch(
      /names the review it approves/,
    );
    expect(
      (
        await refusal(
          state.staging.commit(undefined, { approver: { person: 'eve@example.com', reviewed: digest } }),
        )
      ).message,
    ).toMatch(/no member of this team/);
    expect(
      (await refusal(state.staging.commit(undefined, { approver: { person: abe, reviewed: 'f00' } }))).code,
    ).toBe('stale-review');
    // Abe's own change, listed with Ana's: his review cannot commit it, nor the listing with it.
    const [his] = await stage(abe, 4);
    const both = (await state.staging.review(undefined)).digest;
    expect(
      (await refusal(state.staging.commit(undefined, { approver: { person: abe, reviewed: both } }))).message,
    ).toMatch(/Four eyes: abe@example\.com staged change/);
    expect(await state.staging.list()).toHaveLength(2);
    expect(await state.audit.list({ tool: 'commitStaged' })).toEqual([]);

    // Ana's alone, picked by id within the reviewed listing: applied, audited as Abe's approval.
    const result = await state.staging.commit(
      { ids: [change!.id] },
      { approver: { person: abe, reviewed: both } },
    );
    expect(result).toMatchObject({ ok: true, changeIds: [change!.id] });
    const [line] = await state.audit.list({ tool: 'commitStaged' });
    expect(line).toMatchObject({ person: abe, decidedBy: 'user' });
    expect(line!.detail).toBe(
      `abe@example.com approved and committed 1 change (#${change!.id}) staged by ana@example.com.`,
    );
    // Amy commits Abe's.
    const rest = (await state.staging.review(undefined)).digest;
    expect((await state.staging.commit(undefined, { approver: { person: amy, reviewed: rest } })).ok).toBe(
      true,
    );
    expect(await state.staging.list().then((list) => list.map((each) => each.id))).not.toContain(his!.id);
  });

  it('a discard: nobody’s refused, an analyst drops only her own, an approver any; each audited', async () => {
    const [hers] = await stage(ana, 5);
    const [his] = await stage(abe, 6);
    expect((await refusal(state.staging.discard())).message).toContain('a discard names the person');
    const refused = await refusal(state.staging.discard(undefined, { person: ana }));
    expect(refused.message).toContain(`#${his!.id}`);
    expect(refused.message).toContain('is someone else');
    expect(await state.staging.list()).toHaveLength(2);
    expect(await state.staging.discard({ ids: [hers!.id] }, { person: ana })).toBe(1);
    expect((await state.audit.list({ tool: 'discardStaged', person: ana }))[0]!.detail).toContain(
      `#${hers!.id}`,
    );
    expect(await state.staging.discard(undefined, { person: amy })).toBe(1);
    expect((await state.audit.list({ tool: 'discardStaged', person: amy }))[0]!.detail).toContain(
      `#${his!.id}`,
    );
  });

  it('resolving a commit is an approver’s', async () => {
    expect((await refusal(state.staging.resolve(99, 'staged'))).message).toContain('resolving a commit');
    expect((await refusal(state.staging.resolve(99, 'staged', { person: ana }))).message).toMatch(
      /Only an approver/,
    );
    expect(await state.staging.resolve(99, 'staged', { person: abe })).toBe(0);
  });
});
