// Stopping a turn stops the query it is running: the turn's abortSignal reaches runQuery's read
// through the real tools backend. Only engines that can stop a running statement: a PostgreSQL
// server and on-disk PGlite (in-memory PGlite checks the signal between statements only). The
// query never ends by itself, so a test that finishes was stopped by the abort.
import type { DataSource } from '@toolrow/datasource';
import { sqlDatabaseOf } from '@toolrow/postgres';
import type { Toolrow } from '@toolrow/state';
import { pgliteOnDiskStores, testStores } from '@toolrow/state/testing';
import type { ModelMessage } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent } from './agent.ts';
import { appStateGateStore, toolsBackend } from './backends.ts';
import { scriptedModel } from './testing.ts';

const RUNAWAY =
  'SELECT count(*) AS n FROM generate_series(1, 3000) a, generate_series(1, 3000) b, generate_series(1, 3000) c';
const ABORTED = /^The query was cancelled because the request was aborted/;

const engines = [...testStores().filter((engine) => engine.name === 'postgres'), pgliteOnDiskStores];

describe.each(engines)('a stopped turn on $name', ({ name, open }) => {
  let ds: Toolrow;
  beforeAll(async () => {
    ds = await open({ seed: { orders: 20 } });
  });
  afterAll(() => ds?.close());

  /** Statements running in this test's own (fresh) database, besides the asking one. */
  const running = async (like = '%') =>
    (
      await sqlDatabaseOf(ds.source).query(
        `SELECT pid FROM pg_stat_activity
          WHERE state = 'active' AND datname = current_database() AND pid <> pg_backend_pid() AND query LIKE $1`,
        [like],
      )
    ).rows.length;

  it('stops the runQuery it was running: nothing is left running, the history says why, the next turn works', async () => {
    const profile = 'stopper';
    await ds.state.profiles.ensure(profile);
    await ds.state.profiles.setMode(profile, 'full-auto');
    const agent = createAgent({
      model: scriptedModel([[{ tool: 'runQuery', input: { sql: RUNAWAY }, id: 'slow' }]]),
      backend: toolsBackend(ds, { limits: { statementTimeoutMs: 45_000 } }),
      store: appStateGateStore(ds.state),
    });
    const controller = new AbortController();
    const history: ModelMessage[] = [{ role: 'user', content: 'count every triple' }];
    const turn = agent.runTurn(history, { profileId: profile, abortSignal: controller.signal }).then(
      (result) => ({ result }),
      (error: unknown) => ({ error }),
    );
    if (name === 'postgres') await expect.poll(() => running('FETCH FORWARD%')).toBe(1);
    else await new Promise((resolve) => setTimeout(resolve, 1000));
    controller.abort();
    // The SDK ends the turn with its AbortError, perhaps before the tool call has settled: the
    // query's stop is awaited below by what it leaves behind.
    const outcome = await turn;
    expect('error' in outcome && (outcome.error as Error).name).toBe('AbortError');
    if (name === 'postgres') await expect.poll(() => running()).toBe(0);
    await expect
      .poll(async () => (await ds.state.history.list({ limit: 1, profile }))[0])
      .toMatchObject({ sql: RUNAWAY, rowCount: null, error: expect.stringMatching(ABORTED) });

    const next = createAgent({
      model: scriptedModel([
        [{ tool: 'runQuery', input: { sql: 'select count(*)::int as n from orders' }, id: 'quick' }],
        [{ text: '20 orders' }],
      ]),
      backend: toolsBackend(ds),
      store: appStateGateStore(ds.state),
    });
    const after = await next.runTurn([{ role: 'user', content: 'how many orders?' }], { profileId: profile });
    expect(after.toolErrors).toEqual([]);
    expect(after.toolResults).toEqual([
      expect.objectContaining({
        toolName: 'runQuery',
        output: expect.objectContaining({ rows: [{ n: 20 }] }),
      }),
    ]);
  });
});
