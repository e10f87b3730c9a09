// MCP clients are isolated: through the tools, a client sees its own staged changes, query
// history, audit entries and export jobs, never what the user, the agent or another client did,
// unless the user granted it (visibility 'all'). The user and the agent see everything.
import type { Actor } from '@toolrow/datasource';
import type { Toolrow } from '@toolrow/state';
import { testStores } from '@toolrow/state/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolContext } from './context.ts';
import { invokeTool } from './registry.ts';
import { contextFor } from './test-fixtures.ts';

const ACTORS: readonly Actor[] = ['user', 'agent', 'mcp:alpha', 'mcp:beta'];

describe.each(testStores())('what each caller sees on $name', ({ open }) => {
  let ds: Toolrow;
  const exportOf = new Map<Actor, string>();
  const ctx = (actor: Actor, extra: Partial<ToolContext> = {}) => contextFor(ds, { actor, ...extra });

  beforeAll(async () => {
    ds = await open({ seed: { orders: 30 } });
    for (const [index, actor] of ACTORS.entries()) {
      // One of everything per actor: a staged change, a query, an audited decision, an export.
      await ds.state.staging.stageUpdate('orders', [{ key: index + 1, values: { status: 'shipped' } }], {
        actor,
      });
      await invokeTool('runQuery', { sql: `select ${index} as marker` }, ctx(actor));
      await ds.state.audit.record({
        tool: 'runQuery',
        input: { index },
        decision: 'approved',
        decidedBy: actor,
        profile: 'default',
      });
      const job = await invokeTool(
        'startExport',
        { table: 'orders', format: 'csv', path: `by-${actor.replace(':', '-')}.csv` },
        ctx(actor),
      );
      exportOf.set(actor, job.id);
    }
    await ds.state.exports.idle();
  }, 120_000);
  afterAll(() => ds?.close());

  const seen = async (context: ToolContext) => ({
    staged: (await invokeTool('listStagedChanges', {}, context)).changes.map((change) => change.stagedBy),
    diffed: (await invokeTool('diffStagedChanges', {}, context)).diffs.length,
    history: (await invokeTool('listQueryHistory', {}, context)).entries.map((entry) => entry.by),
    audit: (await invokeTool('listAuditLog', {}, context)).entries.map((entry) => entry.decidedBy),
  });

  it.each(['mcp:alpha', 'mcp:beta'] as const)('%s sees only its own records', async (actor) => {
    const view = await seen(ctx(actor));
    expect(view.staged).toEqual([actor]);
    expect(view.diffed).toBe(1);
    expect(new Set(view.history)).toEqual(new Set([actor]));
    expect(new Set(view.audit)).toEqual(new Set([actor]));
    const own = await invokeTool('getExportStatus', { id: exportOf.get(actor)! }, ctx(actor));
    expect(own.state).toBe('done');
    for (const other of ACTORS.filter((item) => item !== actor)) {
      // Someone else's export reads exactly like one that does not exist.
      await expect(
        invokeTool('getExportStatus', { id: exportOf.get(other)! }, ctx(actor)),
      ).rejects.toMatchObject({
        code: 'not-found',
        message: expect.stringContaining(`No export job with id '${exportOf.get(other)}'`),
      });
    }
  });

  it.each([
    ['user', {}],
    ['agent', {}],
    ['mcp:alpha', { visibility: 'all' as const }],
  ] as const)('%s (%o) sees every caller', async (actor, extra) => {
    const view = await seen(ctx(actor, extra));
    expect(new Set(view.staged)).toEqual(new Set(ACTORS));
    expect(view.diffed).toBe(ACTORS.length);
    expect(new Set(view.history)).toEqual(new Set(ACTORS));
    expect(new Set(view.audit)).toEqual(new Set(ACTORS));
    for (const other of ACTORS) {
      expect(
        (await invokeTool('getExportStatus', { id: exportOf.get(other)! }, ctx(actor, extra))).state,
      ).toBe('done');
    }
  });

  it("a client's own view can be narrowed on purpose ('own' for the user too)", async () => {
    const view = await seen(ctx('user', { visibility: 'own' }));
    expect(view.staged).toEqual(['user']);
  });
});
