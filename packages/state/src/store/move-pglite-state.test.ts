// A data dir made by Toolrow 0.1 (state in PGlite, schema version 8; fixture made at 725e5df by
// test/fixtures/README.md's script) opens in this release: its state moves to SQLite once, with
// a message, and every record works as before.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync } from 'node:zlib';
import { APP_SCHEMA, type DataSourceWith } from '@toolrow/datasource';
import { openDatabase } from '@toolrow/postgres';
import { testEngines } from '@toolrow/postgres/testing';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ToolrowState } from '../state.ts';
import { openState } from '../state.ts';

const FIXTURE = new URL('../../test/fixtures/state-v8-pglite.tar.br', import.meta.url);

async function dataDirOfRelease01(): Promise<{ root: string; dataDir: string }> {
  const root = await mkdtemp(join(tmpdir(), 'toolrow-v01-'));
  const dataDir = join(root, '.toolrow');
  await mkdir(dataDir, { mode: 0o700 });
  await chmod(dataDir, 0o700);
  const untar = spawnSync('tar', ['-x', '-C', dataDir], {
    input: brotliDecompressSync(await readFile(FIXTURE)),
  });
  if (untar.status !== 0) throw new Error(`tar failed: ${untar.stderr.toString()}`);
  return { root, dataDir };
}

describe('state left in PGlite by Toolrow 0.1', () => {
  let source: DataSourceWith;
  let root: string;
  let dataDir: string;
  beforeAll(async () => {
    source = await testEngines({})[0]!.open({ seed: { orders: 20 } });
  }, 60_000);
  afterAll(() => source.close());
  beforeEach(async () => {
    ({ root, dataDir } = await dataDirOfRelease01());
  });
  afterEach(() => rm(root, { recursive: true, force: true }));

  const open = (notices: string[]): Promise<ToolrowState> =>
    openState({ source, env: {}, dataDir, onNotice: (message) => notices.push(message) });

  it('moves to SQLite once, says so, and every record works as before', async () => {
    const tokens = JSON.parse(await readFile(join(dataDir, 'tokens.json'), 'utf8')) as Record<string, string>;
    const notices: string[] = [];
    const state = await open(notices);
    try {
      expect(notices).toHaveLength(2);
      expect(notices[0]).toMatch(
        /^Moving Toolrow's state from PGlite \(.*\/state\) to SQLite \(.*\/state\.db\)/,
      );
      expect(notices[1]).toMatch(/^Moved \d+ rows .* kept in .*state\.pglite-moved; delete that folder/);
      expect(state.db.dialect).toBe('sqlite');
      expect(existsSync(join(dataDir, 'state'))).toBe(false);
      expect(existsSync(join(dataDir, 'state.pglite-moved', 'PG_VERSION'))).toBe(true);

      expect((await state.profiles.list()).map((profile) => [profile.name, profile.mode])).toEqual([
        ['analytics', 'manual'],
        ['default', 'auto'],
      ]);
      expect(await state.profiles.hasGrant('default', 'mcp:claude', 'runQuery', 'public.anything')).toBe(
        true,
      );
      expect(await state.profiles.hasGrant('default', 'agent', 'runQuery', 'public.orders')).toBe(true);
      expect(await state.profiles.hasGrant('default', 'agent', 'runQuery', 'public.customers')).toBe(false);
      expect((await state.ui.get('default')).focusedTabId).toBe('t1');
      expect((await state.specs.get('big orders')).spec).toMatchObject({
        sql: 'select * from orders where total > 100',
      });
      expect(await state.history.list()).toHaveLength(1);
      expect((await state.audit.list())[0]).toMatchObject({
        tool: 'stageUpdate',
        decision: 'approved',
        table: 'public.orders',
      });
      const note = await state.attachments.get('notes.txt');
      expect(new TextDecoder().decode(note.content)).toBe('héllo \u0000 bytes');
      expect(note.sizeBytes).toBe(note.content.byteLength);
      expect((await state.conversations.list()).map((c) => c.id)).toEqual(['c2', 'c1']);
      expect((await state.conversations.get('c1')).title).toBe('How many orders shipped last week?');
      const [job] = await state.exportJobs.list();
      expect(job).toMatchObject({ state: 'done', format: 'csv', source: { table: 'public.orders' } });
      expect(job!.createdAt).toBeInstanceOf(Date);

      // Bearer tokens and OAuth connections keep working: the user reconnects nothing.
      expect(await state.tokens.verify(tokens.mcpToken!)).toMatchObject({ ok: true });
      expect((await state.tokens.list()).map((t) => [t.name, t.revokedAt !== null])).toEqual([
        ['cursor', false],
        ['old', true],
      ]);
      const access = await state.oauth.verifyAccess(tokens.accessToken!);
      expect(access).toMatchObject({ ok: true, grant: { actorName: 'claude', askViaClient: true } });
      const refreshed = await state.oauth.refresh(tokens.refreshToken!, {
        clientId: 'client-1',
        accessExpiresAt: new Date(Date.now() + 60_000),
      });
      expect(refreshed.ok).toBe(true);
      expect(
        await state.oauth.refresh(tokens.refreshToken!, {
          clientId: 'client-1',
          accessExpiresAt: new Date(),
        }),
      ).toMatchObject({
        ok: false,
        reason: 'reused',
      });

      // What was staged is still staged; what was committed stays committed.
      const staged = await state.staging.list();
      expect(staged.map((change) => [change.kind, change.table, change.key])).toEqual([
        ['update', 'public.orders', { id: 3 }],
        ['insert', 'public.customers', { id: 9001 }],
      ]);
      // Counters go on from where they were: new ids and "most recent" orders are above the old ones.
      const [added] = await state.staging.stageUpdate(
        'orders',
        [{ key: { id: 5 }, values: { status: 'x' } }],
        {
          actor: 'agent',
        },
      );
      expect(added!.id).toBeGreaterThan(Math.max(3, ...staged.map((change) => change.id)));
      await state.conversations.save({ id: 'c1', messages: [{ id: 'm2', role: 'user', parts: [] }] });
      expect((await state.conversations.list()).map((c) => c.id)).toEqual(['c1', 'c2']);
      const again = await state.tokens.create({ name: 'old', scope: 'tables:readonly' });
      expect(again.record.id).toBeGreaterThan(2);
    } finally {
      await state.close();
    }

    // Once: the next start opens the SQLite store and says nothing.
    const later: string[] = [];
    const reopened = await open(later);
    try {
      expect(later).toEqual([]);
      expect((await reopened.staging.list()).length).toBe(3);
    } finally {
      await reopened.close();
    }
  }, 120_000);

  it('a state it cannot move is left untouched, and the error says what to do', async () => {
    const legacy = await openDatabase({ env: {}, dataDir, pgdata: join(dataDir, 'state'), worker: false });
    await legacy.query(`DELETE FROM ${APP_SCHEMA}.schema_migrations WHERE version = 8`);
    await legacy.close();
    await expect(open([])).rejects.toThrow(
      /state in .*\/state is at version 7; this release moves only what Toolrow 0\.1 left \(version 8\)\. Open it once with Toolrow 0\.1/,
    );
    expect(existsSync(join(dataDir, 'state', 'PG_VERSION'))).toBe(true);
    expect(existsSync(join(dataDir, 'state.db'))).toBe(false);
    expect(existsSync(join(dataDir, 'state.db.moving'))).toBe(false);
  }, 120_000);
});
