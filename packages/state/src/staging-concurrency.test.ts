// The staging area's state machine under concurrency: staged → claimed (with its write
// transaction's id) → applied | freed. Whatever else runs at the same time (readers that settle
// interrupted commits, a second committer, a second process, a discard), a change is applied at
// most once, and a commit that reports it applied leaves nothing staged. Each race runs 50 rounds.
import { AsyncResource } from 'node:async_hooks';
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { isDataSourceError } from '@toolrow/datasource';
import { sqlDatabaseOf } from '@toolrow/postgres';
import { describeWithService } from '@toolrow/test-services';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CommitPoint, CommitResult } from './staging.ts';
import { createTestEnvironment, type TestEnvironment, testStores } from './testing.ts';
import { openToolrow, type Toolrow } from './toolrow.ts';

const ROUNDS = 50;

/** Lets other callers run: the event loop turns `turns` times (no timer involved). */
async function yieldTurns(turns: number): Promise<void> {
  for (let turn = 0; turn < turns; turn++) await new Promise((resolve) => setImmediate(resolve));
}

/** A commit that lost a race says so in words (it applies nothing); anything else is a failure. */
async function commitOrBusy(commit: Promise<CommitResult>): Promise<CommitResult | 'busy'> {
  try {
    return await commit;
  } catch (error) {
    if (isDataSourceError(error) && /still being applied/.test(error.message)) return 'busy';
    throw error;
  }
}

describe.each(testStores())('staging under concurrency on $name', ({ open }) => {
  let toolrow: Toolrow;
  let onClaimed: ((point: CommitPoint) => Promise<void>) | undefined;

  async function labels(): Promise<string[]> {
    const result = await sqlDatabaseOf(toolrow.source).query<{ label: string }>(
      'SELECT label FROM serial_rows ORDER BY id',
    );
    return result.rows.map((row) => row.label);
  }

  beforeAll(async () => {
    toolrow = await open({
      staging: {
        faults: async (point) => {
          await onClaimed?.(point);
        },
      },
    });
    // An insert whose key the database assigns: applied twice, it leaves two rows.
    await sqlDatabaseOf(toolrow.source).exec(
      'CREATE TABLE serial_rows (id int GENERATED ALWAYS AS IDENTITY PRIMARY KEY, label text NOT NULL)',
    );
    await toolrow.source.schema.refresh();
  }, 60_000);
  afterAll(async () => {
    onClaimed = undefined;
    await toolrow?.close();
  });

  it(`readers of the staging area while a commit sits between its claim and its write: ${ROUNDS} rounds, each applied once`, async () => {
    const { staging } = toolrow.state;
    // The hook runs inside the commit's own transaction; readers come from other requests.
    const elsewhere = AsyncResource.bind(<T>(read: () => Promise<T>) => read());
    for (let round = 0; round < ROUNDS; round++) {
      const label = `reader race ${round}`;
      await staging.stageInsert('serial_rows', [{ label }], { actor: 'agent' });
      const readers: Promise<unknown>[] = [];
      onClaimed = async (point) => {
        if (point !== 'claimed') return;
        // What `toolrow staging list`, the app's review and an MCP client's listStagedChanges do.
        readers.push(
          elsewhere(() => staging.list()),
          elsewhere(() => staging.diff()),
          elsewhere(() => staging.list({ table: 'serial_rows' })),
        );
        await yieldTurns(round % 7);
      };
      const result = await staging.commit();
      onClaimed = undefined;
      await Promise.all(readers);
      expect(result).toMatchObject({ ok: true, applied: { insert: 1, update: 0, delete: 0 } });
      expect(await staging.list()).toEqual([]);
      expect(await staging.commit()).toMatchObject({ ok: true, applied: { insert: 0 } });
      expect((await labels()).filter((seen) => seen === label)).toEqual([label]);
    }
  }, 240_000);

  it(`two commits of the same change at once: ${ROUNDS} rounds, each applied once`, async () => {
    const { staging } = toolrow.state;
    for (let round = 0; round < ROUNDS; round++) {
      const label = `commit race ${round}`;
      await staging.stageInsert('serial_rows', [{ label }], { actor: 'agent' });
      const outcomes = await Promise.all([commitOrBusy(staging.commit()), commitOrBusy(staging.commit())]);
      const inserted = outcomes.map((outcome) =>
        outcome === 'busy' ? 0 : outcome.ok ? outcome.applied.insert : 0,
      );
      expect(inserted.reduce((a, b) => a + b, 0)).toBe(1);
      expect(await staging.list()).toEqual([]);
      expect((await labels()).filter((seen) => seen === label)).toEqual([label]);
    }
  }, 240_000);

  it(`a discard racing a commit: ${ROUNDS} rounds, the change is applied or discarded, never both or twice`, async () => {
    const { staging } = toolrow.state;
    for (let round = 0; round < ROUNDS; round++) {
      const label = `discard race ${round}`;
      await staging.stageInsert('serial_rows', [{ label }], { actor: 'agent' });
      const [committed, discarded] = await Promise.all([commitOrBusy(staging.commit()), staging.discard()]);
      const applied = committed !== 'busy' && committed.ok ? committed.applied.insert : 0;
      const rows = (await labels()).filter((seen) => seen === label);
      expect(rows.length).toBe(applied);
      // Whatever was not applied was discarded (a claimed change cannot be discarded).
      expect(applied + discarded).toBe(1);
      expect(await staging.list()).toEqual([]);
    }
  }, 240_000);
});

const INDEX = fileURLToPath(new URL('./index.ts', import.meta.url));

/** The committer process: opens the same data and state, commits everything on each 'commit'. */
const COMMITTER = `
  const { openToolrow } = await import(${JSON.stringify(INDEX)});
  const toolrow = await openToolrow();
  process.on('disconnect', () => toolrow.close().finally(() => process.exit(0)));
  process.on('message', async () => {
    try {
      process.send({ result: await toolrow.state.staging.commit() });
    } catch (error) {
      if (/still being applied/.test(error.message)) process.send({ busy: true });
      else process.send({ error: String(error.stack ?? error) });
    }
  });
  process.send({ ready: true });`;

/** A second Toolrow process on the same data and state, committing when told to. */
interface Committer {
  child: ChildProcess;
  commit(): Promise<CommitResult | 'busy'>;
}

function startCommitter(environment: TestEnvironment): Promise<Committer> {
  const child = spawn(
    process.execPath,
    ['--conditions=@toolrow/source', '--input-type=module', '-e', COMMITTER],
    {
      cwd: environment.cwd,
      env: { ...process.env, ...environment.env },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    },
  );
  let pending: ((reply: { result?: CommitResult; busy?: boolean; error?: string }) => void) | undefined;
  child.on(
    'message',
    (message: { ready?: boolean; result?: CommitResult; busy?: boolean; error?: string }) => {
      if (message.ready) return;
      pending?.(message);
    },
  );
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) =>
      reject(new Error(`the committer process exited (${code}) before it was ready`)),
    );
    child.once('message', (message: { ready?: boolean }) => {
      if (!message.ready) return reject(new Error(`unexpected first message ${JSON.stringify(message)}`));
      child.removeAllListeners('exit');
      resolve({
        child,
        commit: () =>
          new Promise((done, fail) => {
            pending = (reply) => {
              if (reply.error) fail(new Error(reply.error));
              else done(reply.busy ? 'busy' : reply.result!);
            };
            child.send('commit');
          }),
      });
    });
  });
}

// Two processes share one staging area only when it lives on a server (an embedded data dir
// belongs to one process: the second is turned away, tested in the data-dir lock's suite).
describeWithService('postgres', 'two processes committing the same staging area', () => {
  let environment: TestEnvironment;
  let committers: Committer[] = [];
  let toolrow: Toolrow;

  beforeAll(async () => {
    environment = await createTestEnvironment('postgres');
    toolrow = await openToolrow({ env: environment.env, cwd: environment.cwd });
    await sqlDatabaseOf(toolrow.source).exec(
      'CREATE TABLE serial_rows (id int GENERATED ALWAYS AS IDENTITY PRIMARY KEY, label text NOT NULL)',
    );
    await toolrow.source.schema.refresh();
    committers = await Promise.all([startCommitter(environment), startCommitter(environment)]);
  }, 120_000);
  afterAll(async () => {
    await Promise.all(
      committers.map(
        ({ child }) =>
          new Promise((resolve) => {
            child.once('exit', resolve);
            child.disconnect();
          }),
      ),
    );
    await toolrow?.close();
    await environment?.cleanup();
  });

  it(`${ROUNDS} rounds of the same staged insert committed by two processes while a third reads: applied once`, async () => {
    const { staging } = toolrow.state;
    for (let round = 0; round < ROUNDS; round++) {
      const label = `two processes ${round}`;
      await staging.stageInsert('serial_rows', [{ label }], { actor: 'agent' });
      const [first, second] = await Promise.all([
        committers[0]!.commit(),
        committers[1]!.commit(),
        staging.list(),
        staging.list(),
      ]);
      const inserted = [first, second].map((outcome) =>
        outcome === 'busy' || !outcome!.ok ? 0 : outcome!.applied.insert,
      );
      const rows = await sqlDatabaseOf(toolrow.source).query<{ n: number }>(
        'SELECT count(*)::int AS n FROM serial_rows WHERE label = $1',
        [label],
      );
      // A commit may lose the race (busy) and the winner may still be settling: finish it here.
      const rest = await commitOrBusy(staging.commit());
      const extra = rest === 'busy' || !rest.ok ? 0 : rest.applied.insert;
      const after = await sqlDatabaseOf(toolrow.source).query<{ n: number }>(
        'SELECT count(*)::int AS n FROM serial_rows WHERE label = $1',
        [label],
      );
      expect(rows.rows[0]!.n).toBeLessThanOrEqual(1);
      expect(after.rows[0]!.n).toBe(1);
      expect(inserted[0]! + inserted[1]! + extra).toBe(1);
    }
  }, 300_000);
});
