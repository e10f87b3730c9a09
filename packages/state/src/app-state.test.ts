import { sqlDatabaseOf } from '@toolrow/postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tab } from './app-types.ts';
import { digestInput } from './repositories/audit.ts';
import type { ToolrowState } from './state.ts';
import { MIGRATIONS, migrate } from './store/migrations.ts';
import { testStores } from './testing.ts';
import { hashToken } from './token-hash.ts';
import type { Toolrow } from './toolrow.ts';

describe('digestInput', () => {
  it('is the sha-256 of canonical JSON: key order does not matter, values do', () => {
    expect(digestInput({ b: 1, a: [1, { d: 2, c: 3 }] })).toBe(digestInput({ a: [1, { c: 3, d: 2 }], b: 1 }));
    expect(digestInput({ a: 1 })).not.toBe(digestInput({ a: 2 }));
    expect(digestInput({ a: 1, skip: undefined })).toBe(digestInput({ a: 1 }));
    expect(digestInput({ a: '1' })).not.toBe(digestInput({ a: 1 }));
    expect(digestInput({})).toMatch(/^[0-9a-f]{64}$/);
    // sha256('{}')
    expect(digestInput({})).toBe('44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a');
  });
});

describe.each(testStores())('app state on $name', ({ open }) => {
  let toolrow: Toolrow;
  let state: ToolrowState;
  beforeAll(async () => {
    toolrow = await open();
    ({ state } = toolrow);
  }, 60_000);
  afterAll(() => toolrow.close());

  it('migrations are recorded, and running them again applies nothing', async () => {
    const rows = await state.db.q
      .selectFrom('schema_migrations')
      .select(['version', 'name'])
      .orderBy('version')
      .execute();
    expect(rows).toEqual(
      MIGRATIONS.map((migration) => ({ version: migration.version, name: migration.name })),
    );
    expect(await migrate(state.db)).toEqual([]);
  });

  it('a new migration applies once; a database newer than the code is refused', async () => {
    const next = {
      version: 1000,
      name: 'test table',
      sql: (t: { s: string }) => `CREATE TABLE ${t.s}test_extra (id int)`,
    };
    expect(await migrate(state.db, [...MIGRATIONS, next])).toEqual([1000]);
    expect(await migrate(state.db, [...MIGRATIONS, next])).toEqual([]);
    await expect(migrate(state.db)).rejects.toThrow(
      new RegExp(
        `version 1000, newer than this Toolrow knows \\(${MIGRATIONS.at(-1)!.version}\\)\\. Upgrade Toolrow`,
      ),
    );
    await state.db.q.schema.dropTable('test_extra').execute();
    await state.db.q.deleteFrom('schema_migrations').where('version', '=', 1000).execute();
    // The first statement succeeds and the second fails: the transaction takes both back.
    const broken = {
      version: 1001,
      name: 'broken',
      sql: (t: { s: string }) => `CREATE TABLE ${t.s}half_made (id int);\nCREATE TABLE nope (`,
    };
    await expect(migrate(state.db, [...MIGRATIONS, broken])).rejects.toThrow(
      /State migration 1001 \(broken\) failed: .*The store was left at the previous version/,
    );
    expect(
      await state.db.q
        .selectFrom('schema_migrations')
        .select('version')
        .where('version', '=', 1001)
        .execute(),
    ).toEqual([]);
    await expect(
      state.db.q
        .selectFrom('half_made' as never)
        .selectAll()
        .execute(),
    ).rejects.toThrow(/half_made/);
  });

  it('profiles: created on demand in manual mode; modes and remembered grants', async () => {
    const profile = await state.profiles.ensure('alice');
    expect(profile).toMatchObject({ name: 'alice', mode: 'manual' });
    expect((await state.profiles.setMode('alice', 'auto')).mode).toBe('auto');
    await expect(state.profiles.setMode('alice', 'yolo' as 'auto')).rejects.toThrow(
      /manual, auto, full-auto/,
    );
    expect(await state.profiles.hasGrant('alice', 'agent', 'runQuery', 'public.orders')).toBe(false);
    await state.profiles.addGrant({
      profile: 'alice',
      grantee: 'agent',
      tool: 'runQuery',
      table: 'public.orders',
      grantedBy: 'user',
    });
    await state.profiles.addGrant({
      profile: 'alice',
      grantee: 'agent',
      tool: 'countRows',
      table: '*',
      grantedBy: 'user',
    });
    await state.profiles.addGrant({
      profile: 'alice',
      grantee: 'mcp:client-a',
      tool: 'runQuery',
      table: 'public.customers',
      grantedBy: 'user',
    });
    // Each grantee holds its own: the chat's grants are not a client's, nor one client's another's.
    const holds = async (
      grantee: 'agent' | `mcp:${string}`,
      tool: string,
      table: string,
      profile = 'alice',
    ) => state.profiles.hasGrant(profile, grantee, tool, table);
    expect(await holds('agent', 'runQuery', 'public.orders')).toBe(true);
    expect(await holds('agent', 'runQuery', 'public.customers')).toBe(false);
    expect(await holds('agent', 'countRows', 'public.customers')).toBe(true);
    expect(await holds('agent', 'runQuery', 'public.orders', 'bob')).toBe(false);
    expect(await holds('mcp:client-a', 'runQuery', 'public.customers')).toBe(true);
    expect(await holds('mcp:client-a', 'runQuery', 'public.orders')).toBe(false);
    expect(await holds('mcp:client-b', 'runQuery', 'public.customers')).toBe(false);
    expect(
      (await state.profiles.grants('alice', 'agent')).map((grant) => `${grant.tool}:${grant.table}`),
    ).toEqual(['countRows:*', 'runQuery:public.orders']);
    expect(
      (await state.profiles.grants('alice')).map((grant) => `${grant.grantee} ${grant.tool}:${grant.table}`),
    ).toEqual([
      'agent countRows:*',
      'agent runQuery:public.orders',
      'mcp:client-a runQuery:public.customers',
    ]);
    await expect(
      state.profiles.addGrant({
        profile: 'alice',
        grantee: 'agent',
        tool: 'x',
        table: 't',
        grantedBy: 'someone' as 'user',
      }),
    ).rejects.toThrow(/'user', 'agent' or 'mcp:<token name>'/);
    await expect(
      state.profiles.addGrant({
        profile: 'alice',
        grantee: 'user' as 'agent',
        tool: 'x',
        table: 't',
        grantedBy: 'user',
      }),
    ).rejects.toThrow(/belongs to 'agent' \(the chat\) or one MCP client/);
    expect(await state.profiles.revokeGranteeGrants('mcp:client-a')).toBe(1);
    expect(await state.profiles.revokeGrants('alice', { tool: 'runQuery' })).toBe(1);
    expect(await state.profiles.revokeGrants('alice')).toBe(1);
    expect(await state.profiles.grants('alice')).toEqual([]);
    expect((await state.profiles.list()).map((item) => item.name)).toContain('alice');
  });

  it('UI state per profile: tabs, focus and selection; closing a tab drops its focus and selection', async () => {
    expect(await state.ui.get('ui-test')).toMatchObject({ tabs: [], focusedTabId: null, selection: null });
    const tabs: Tab[] = [
      {
        id: 't1',
        kind: 'table',
        table: 'public.orders',
        filter: { column: 'status', op: 'eq', value: 'paid' },
        sort: [{ column: 'id', direction: 'desc' }],
      },
      { id: 't2', kind: 'workbench', sql: 'select 1' },
      { id: 't3', kind: 'row', table: 'public.orders', key: { id: 5 } },
    ];
    await state.ui.update('ui-test', { tabs, focusedTabId: 't1' });
    await state.ui.update('ui-test', {
      selection: { tabId: 't1', table: 'public.orders', keys: [{ id: 1 }, { id: 2 }] },
    });
    const ui = await state.ui.get('ui-test');
    expect(ui.tabs).toEqual(tabs);
    expect(ui.focusedTabId).toBe('t1');
    expect(ui.selection?.keys).toEqual([{ id: 1 }, { id: 2 }]);
    expect((await state.ui.get('other')).tabs).toEqual([]);
    await expect(state.ui.update('ui-test', { focusedTabId: 'nope' })).rejects.toThrow(
      /'nope' is not an open tab; open tabs: t1, t2, t3/,
    );
    await expect(state.ui.update('ui-test', { tabs: [tabs[0]!, tabs[0]!] })).rejects.toThrow(
      /Two tabs share the id 't1'/,
    );
    const closed = await state.ui.update('ui-test', { tabs: tabs.slice(1) });
    expect(closed.focusedTabId).toBeNull();
    expect(closed.selection).toBeNull();
  });

  it('saved specs: save replaces by name; get names the specs there are when missing', async () => {
    await state.specs.save({ name: 'paid orders', kind: 'view', spec: { table: 'orders' } });
    const saved = await state.specs.save({
      name: 'paid orders',
      kind: 'view',
      description: 'v2',
      spec: { table: 'orders', sort: [] },
    });
    expect(saved).toMatchObject({
      name: 'paid orders',
      description: 'v2',
      spec: { table: 'orders', sort: [] },
    });
    expect((await state.specs.list()).map((spec) => spec.name)).toEqual(['paid orders']);
    await expect(state.specs.get('paid order')).rejects.toThrow(
      /No saved spec named 'paid order'\. Did you mean 'paid orders'\?/,
    );
    expect(await state.specs.delete('paid orders')).toBe(true);
    expect(await state.specs.delete('paid orders')).toBe(false);
  });

  it('query history and audit log: newest first, filtered, input only as a digest', async () => {
    await state.history.add({
      profile: 'h',
      actor: 'agent',
      sql: 'select 1',
      rowCount: 1,
      durationMs: 3,
      error: null,
    });
    await state.history.add({
      profile: 'h',
      actor: 'mcp:claude',
      sql: 'select 2',
      rowCount: null,
      durationMs: null,
      error: 'boom',
    });
    await state.history.add({
      profile: 'other',
      actor: 'user',
      sql: 'select 3',
      rowCount: 0,
      durationMs: 1,
      error: null,
    });
    expect(
      (await state.history.list({ profile: 'h' })).map((entry) => [entry.sql, entry.actor, entry.error]),
    ).toEqual([
      ['select 2', 'mcp:claude', 'boom'],
      ['select 1', 'agent', null],
    ]);
    expect(await state.history.list({ profile: 'h', limit: 1 })).toHaveLength(1);

    const input = { sql: 'select secret from vault' };
    const entry = await state.audit.record({
      tool: 'runQuery',
      input,
      decision: 'asked',
      decidedBy: 'agent',
      profile: 'h',
      table: 'public.vault',
    });
    await state.audit.record({
      tool: 'runQuery',
      input,
      decision: 'approved',
      decidedBy: 'user',
      profile: 'h',
      detail: 'clicked allow',
    });
    await state.audit.record({
      tool: 'startExport',
      input: {},
      decision: 'denied',
      decidedBy: 'mcp:ci',
      profile: 'h',
    });
    expect(entry.inputDigest).toBe(digestInput(input));
    // What the call did, in a line that keeps none of its values.
    expect(entry.summary).toBe('Run query (SQL of 24 characters)');
    const stored = JSON.stringify(await state.db.q.selectFrom('audit_log').selectAll().execute());
    expect(stored).not.toContain('secret from vault');
    expect((await state.audit.list({ profile: 'h' })).map((item) => item.decision)).toEqual([
      'denied',
      'approved',
      'asked',
    ]);
    expect(
      (await state.audit.list({ tool: 'runQuery', decision: 'approved' })).map((item) => item.detail),
    ).toEqual(['clicked allow']);
    await expect(
      state.audit.record({
        tool: 'x',
        input: {},
        decision: 'maybe' as 'auto',
        decidedBy: 'user',
        profile: 'h',
      }),
    ).rejects.toThrow(/asked, approved, denied, auto/);
  });

  it('attachments keep name, media type and exact bytes; found by id or newest of a name', async () => {
    const bytes = new Uint8Array([0, 1, 2, 250, 255]);
    const first = await state.attachments.add({
      name: 'data.bin',
      mediaType: 'application/octet-stream',
      content: bytes,
    });
    expect(first.sizeBytes).toBe(5);
    await state.attachments.add({ name: 'notes.txt', mediaType: 'text/plain', content: 'old' });
    await state.attachments.add({ name: 'notes.txt', mediaType: 'text/plain', content: 'héllo' });
    expect([...(await state.attachments.get(first.id)).content]).toEqual([...bytes]);
    expect(new TextDecoder().decode((await state.attachments.get('notes.txt')).content)).toBe('héllo');
    await expect(state.attachments.get('note.txt')).rejects.toThrow(
      /No attachment 'note\.txt'\. Did you mean 'notes\.txt'\?/,
    );
    expect((await state.attachments.list()).map((item) => item.name).sort()).toEqual([
      'data.bin',
      'notes.txt',
      'notes.txt',
    ]);
    expect(await state.attachments.delete(first.id)).toBe(true);
  });

  it("connections: the user's data is the active one, listed without secrets; saving a password is refused", async () => {
    const list = await state.connections.list();
    expect(list[0]).toEqual({
      name: 'default',
      engine: sqlDatabaseOf(toolrow.source).engine,
      description: sqlDatabaseOf(toolrow.source).description,
      active: true,
    });
    expect(JSON.stringify(list)).not.toMatch(/:[^@/\s]+@/);
    await state.connections.save({
      name: 'warehouse',
      engine: 'postgres',
      description: 'PostgreSQL me@wh:5432/dw',
    });
    expect((await state.connections.list()).map((item) => [item.name, item.active])).toEqual([
      ['default', true],
      ['warehouse', false],
    ]);
    await expect(
      state.connections.save({
        name: 'leaky',
        engine: 'postgres',
        description: 'postgres://me:hunter2@wh/dw',
      }),
    ).rejects.toThrow(/must not hold a password/);
  });

  it('MCP tokens: only the sha-256 is stored; verify tells unknown, expired and revoked apart', async () => {
    const { token, record } = await state.tokens.create({
      name: 'claude-desktop',
      scope: 'tables:readonly',
    });
    expect(token).toMatch(/^trw_[A-Za-z0-9_-]{43}$/);
    expect(record.tokenHash).toBe(hashToken(token));
    const stored = JSON.stringify(await state.db.q.selectFrom('mcp_tokens').selectAll().execute());
    expect(stored).not.toContain(token);
    const valid = await state.tokens.verify(token);
    expect(valid.ok).toBe(true);
    expect(valid.ok && valid.token.lastUsedAt).toBeInstanceOf(Date);
    expect(await state.tokens.verify(`${token}x`)).toEqual({ ok: false, reason: 'unknown' });
    expect(await state.tokens.verify('')).toEqual({ ok: false, reason: 'unknown' });
    await expect(state.tokens.create({ name: 'claude-desktop', scope: 'tables:full' })).rejects.toThrow(
      /exists already/,
    );
    await expect(state.tokens.create({ name: 'bad name!', scope: 'tables:full' })).rejects.toThrow(
      /not allowed/,
    );
    await expect(
      state.tokens.create({ name: 'past', scope: 'tables:full', expiresAt: new Date(Date.now() - 1000) }),
    ).rejects.toThrow(/in the past/);

    const short = await state.tokens.create({
      name: 'short',
      scope: 'tables:staged',
      expiresAt: new Date(Date.now() + 60_000),
    });
    await state.db.q
      .updateTable('mcp_tokens')
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where('name', '=', 'short')
      .execute();
    expect(await state.tokens.verify(short.token)).toMatchObject({ ok: false, reason: 'expired' });

    expect(await state.tokens.revoke('claude-desktop')).toBe(true);
    expect(await state.tokens.revoke('claude-desktop')).toBe(false);
    expect(await state.tokens.verify(token)).toMatchObject({ ok: false, reason: 'revoked' });
    // The name is free again once revoked.
    const again = await state.tokens.create({ name: 'claude-desktop', scope: 'tables:readonly' });
    expect((await state.tokens.verify(again.token)).ok).toBe(true);
    expect((await state.tokens.list()).map((item) => [item.name, item.revokedAt !== null])).toEqual([
      ['claude-desktop', true],
      ['short', false],
      ['claude-desktop', false],
    ]);
  });
});
