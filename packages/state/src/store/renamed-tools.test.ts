// A renamed tool keeps its grants and its history: grants remembered under its former name move
// to its name (one already there is kept once), and its audit entries are listed under its name.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openAppState } from '../state.ts';
import { carryRenamedGrants, namesOf } from './renamed-tools.ts';

describe('a renamed tool', () => {
  let state: Awaited<ReturnType<typeof openAppState>>;
  beforeAll(async () => {
    state = await openAppState({ memory: true, env: {} });
  });
  afterAll(() => state?.close());

  it('keeps its remembered grants under its new name, once', async () => {
    const grant = {
      profile: 'default',
      grantee: 'agent' as const,
      table: 'public.orders',
      grantedBy: 'user' as const,
    };
    await state.profiles.ensure('default');
    await state.profiles.addGrant({ ...grant, tool: 'countOldRows' });
    await state.profiles.addGrant({ ...grant, tool: 'countOldRows', table: 'public.customers' });
    // One already under the new name: not doubled.
    await state.profiles.addGrant({ ...grant, tool: 'countRows', table: 'public.customers' });
    expect(await carryRenamedGrants(state.db, { countOldRows: 'countRows' })).toBe(2);
    const grants = (await state.profiles.grants('default', 'agent')).map(
      (each) => `${each.tool} ${each.table}`,
    );
    expect(grants).toEqual(['countRows public.customers', 'countRows public.orders']);
    // Idempotent: the next open moves nothing.
    expect(await carryRenamedGrants(state.db, { countOldRows: 'countRows' })).toBe(0);
  });

  it('lists its audit entries under its name, former names included', () => {
    expect(namesOf('countRows', { countOldRows: 'countRows', countAll: 'countRows', other: 'x' })).toEqual([
      'countRows',
      'countOldRows',
      'countAll',
    ]);
  });
});
