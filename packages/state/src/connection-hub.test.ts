// Two live connections over one state store (what the app's switcher holds): each has its own data,
// staging and mode, and closing the hub leaves the first one working.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sqlDatabaseOf } from '@toolrow/postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addConnection } from './add-connection.ts';
import {
  type ConnectionHub,
  composeToolrow,
  createConnectionHub,
  openToolrow,
  type Toolrow,
} from './toolrow.ts';

let dir: string;
let first: Toolrow;
let hub: ConnectionHub;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'toolrow-hub-'));
  first = await openToolrow({ env: {}, dataDir: dir, data: { memory: true }, state: { memory: true } });
  await sqlDatabaseOf(first.source).exec('CREATE TABLE first_only (id int PRIMARY KEY, note text)');
  await first.source.schema.refresh();
  await addConnection(first.state, {
    name: 'other',
    url: `pglite:${join(dir, 'other-db')}`,
    mode: 'full-auto',
  });
  hub = createConnectionHub(first);
}, 120_000);

afterAll(async () => {
  await hub?.close();
  await first?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('a connection hub', () => {
  it('opens a named connection beside the first: its own data, profile and mode', async () => {
    const other = await hub.open('other');
    expect(other.connection).toEqual({ name: 'other', named: true, profile: 'other' });
    await sqlDatabaseOf(other.source).exec('CREATE TABLE other_only (id int PRIMARY KEY, note text)');
    await other.source.schema.refresh();
    const names = async (toolrow: Toolrow) => (await toolrow.source.schema.get()).tables.map((t) => t.name);
    expect(await names(other)).toEqual(['other_only']);
    expect(await names(first)).toEqual(['first_only']);
    expect((await other.state.profiles.ensure('other')).mode).toBe('full-auto');
    expect((await first.state.profiles.ensure('default')).mode).toBe('manual');
    // Each state lists its own connection as the active one.
    expect((await other.state.connections.list()).find((c) => c.active)?.name).toBe('other');
    expect((await first.state.connections.list()).find((c) => c.active)?.name).toBe('default');
    // The same handle on a second open; the first one under its own name.
    expect(await hub.open('other')).toBe(other);
    expect(await hub.open('default')).toBe(first);
    expect(hub.openNames().sort()).toEqual(['default', 'other']);
  });

  it('keeps each connection staging its own changes, and commits only them', async () => {
    const other = await hub.open('other');
    await other.state.staging.stageInsert('other_only', [{ id: 1, note: 'b' }], {
      actor: 'user',
      profile: 'other',
    });
    await first.state.staging.stageInsert('first_only', [{ id: 1, note: 'a' }], {
      actor: 'user',
      profile: 'default',
    });
    expect((await other.state.staging.list()).map((change) => change.table)).toEqual(['public.other_only']);
    expect((await first.state.staging.list()).map((change) => change.table)).toEqual(['public.first_only']);
    const result = await other.state.staging.commit({ profile: 'other' });
    expect(result).toMatchObject({ ok: true, applied: { insert: 1, update: 0, delete: 0 } });
    expect((await sqlDatabaseOf(other.source).query('SELECT note FROM other_only')).rows).toEqual([
      { note: 'b' },
    ]);
    expect(
      (await sqlDatabaseOf(first.source).query('SELECT count(*)::int AS n FROM first_only')).rows,
    ).toEqual([{ n: 0 }]);
    expect(await first.state.staging.list()).toHaveLength(1);
  });

  it('says why it cannot open a connection there is none of, and keeps no failed handle', async () => {
    await expect(hub.open('nope')).rejects.toThrow(/There is no connection named 'nope'.*other/);
    expect(hub.openNames()).not.toContain('nope');
  });

  it('refuses to open beside a Toolrow that openToolrow did not open', async () => {
    const bare = createConnectionHub(composeToolrow(first.source, first.state));
    await expect(bare.open('other')).rejects.toThrow(/was not opened by openToolrow/);
  });

  it('closes what it opened and leaves the first one (and the shared store) open', async () => {
    const other = await hub.open('other');
    await hub.close();
    await expect(other.source.schema.refresh()).rejects.toThrow();
    expect((await first.source.schema.refresh()).tables.map((t) => t.name)).toEqual(['first_only']);
    expect(await first.state.profiles.ensure('default')).toMatchObject({ mode: 'manual' });
    await expect(hub.open('other')).rejects.toThrow(/closed/);
  });
});
