// A commit killed mid-way (the process dies: SIGKILL, no cleanup) leaves the user's data and the
// staging area consistent, and is never applied twice nor reported as a conflict with itself.
// Real processes over real stores: the data and the state live in different databases, so the
// staging area recognises an applied commit by its write transaction's id (pg_xact_status).
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { sqlDatabaseOf } from '@toolrow/postgres';
import { serviceUrl } from '@toolrow/test-services';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CommitPoint } from './staging.ts';
import { createTestEnvironment, type TestEnvironment } from './testing.ts';
import { openToolrow, type Toolrow } from './toolrow.ts';

const POINTS: readonly CommitPoint[] = ['claimed', 'data-committed'];
// PostgreSQL when there is a server (in CI a missing one fails the run, test-services).
const ENGINES = serviceUrl('postgres') ? (['pglite', 'postgres'] as const) : (['pglite'] as const);

const INDEX = fileURLToPath(new URL('./index.ts', import.meta.url));

/** A separate Node process that commits and kills itself with SIGKILL at `point`. */
function commitAndDie(
  env: Record<string, string>,
  cwd: string,
  point: CommitPoint,
): Promise<NodeJS.Signals | number | null> {
  const script = `
    const { openToolrow } = await import(${JSON.stringify(INDEX)});
    const toolrow = await openToolrow({
      env: ${JSON.stringify(env)},
      cwd: ${JSON.stringify(cwd)},
      state: { staging: { faults: (at) => { if (at === ${JSON.stringify(point)}) process.kill(process.pid, 'SIGKILL'); } } },
    });
    await toolrow.state.staging.commit();
    console.log('the commit finished without being stopped');`;
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--conditions=@toolrow/source', '--input-type=module', '-e', script],
      { cwd, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (signal !== 'SIGKILL') reject(new Error(`the child was not killed (exit ${code}): ${output}`));
      else resolve(signal);
    });
  });
}

async function applying({ state }: Toolrow): Promise<number> {
  const rows = await state.db.q.selectFrom('commits').select('id').where('state', '=', 'applying').execute();
  return rows.length;
}

interface Snapshot {
  accounts: { id: number; balance: number }[];
  labels: string[];
}

describe.each(ENGINES)('a commit killed mid-way on %s', (engine) => {
  let environment: TestEnvironment;
  const open = () => openToolrow({ env: environment.env, cwd: environment.cwd });
  const snapshot = async ({ source }: Toolrow): Promise<Snapshot> => ({
    accounts: (
      await sqlDatabaseOf(source).query<{ id: number; balance: number }>(
        'SELECT id, balance FROM accounts ORDER BY id',
      )
    ).rows,
    labels: (
      await sqlDatabaseOf(source).query<{ label: string }>('SELECT label FROM serial_rows ORDER BY id')
    ).rows.map((row) => row.label),
  });

  beforeAll(async () => {
    environment = await createTestEnvironment(engine);
    const toolrow = await open();
    try {
      await sqlDatabaseOf(toolrow.source).exec(`
        CREATE TABLE accounts (id int PRIMARY KEY, balance int NOT NULL);
        CREATE TABLE serial_rows (id int GENERATED ALWAYS AS IDENTITY PRIMARY KEY, label text NOT NULL);`);
    } finally {
      await toolrow.close();
    }
  }, 120_000);
  afterAll(() => environment?.cleanup());

  it.each(POINTS)('killed at "%s": consistent, applied exactly once', async (point) => {
    // Stage: an update, a delete and an insert whose key the database assigns (applied twice, it
    // would leave two rows: the one change a double apply cannot hide).
    let before: Snapshot;
    let staged: number[];
    {
      const toolrow = await open();
      try {
        await toolrow.state.staging.discard();
        await sqlDatabaseOf(toolrow.source).exec(
          'DELETE FROM accounts; DELETE FROM serial_rows; INSERT INTO accounts VALUES (1, 100), (2, 200), (3, 300);',
        );
        await toolrow.source.schema.refresh();
        const meta = { actor: 'agent' as const };
        staged = [
          ...(await toolrow.state.staging.stageUpdate(
            'accounts',
            [{ key: 1, values: { balance: 150 } }],
            meta,
          )),
          ...(await toolrow.state.staging.stageDelete('accounts', [3], meta)),
          ...(await toolrow.state.staging.stageInsert('serial_rows', [{ label: `at ${point}` }], meta)),
        ].map((change) => change.id);
        before = await snapshot(toolrow);
      } finally {
        await toolrow.close();
      }
    }
    const applied: Snapshot = {
      accounts: [
        { id: 1, balance: 150 },
        { id: 2, balance: 200 },
      ],
      labels: [`at ${point}`],
    };

    expect(await commitAndDie(environment.env, environment.cwd, point)).toBe('SIGKILL');

    const toolrow = await open();
    try {
      const afterKill = await snapshot(toolrow);
      if (point === 'data-committed') {
        // The data committed before the process died: it stays, and the staging area knows.
        expect(afterKill).toEqual(applied);
        expect(await toolrow.state.staging.list()).toEqual([]);
        const again = await toolrow.state.staging.commit();
        expect(again).toEqual({ ok: true, applied: { insert: 0, update: 0, delete: 0 }, changeIds: [] });
        const record = await toolrow.state.db.q
          .selectFrom('commits')
          .select(['state', 'error'])
          .orderBy('id', 'desc')
          .limit(1)
          .executeTakeFirst();
        expect(record).toMatchObject({
          state: 'applied',
          error: expect.stringMatching(/recognised as applied/),
        });
      } else {
        // Nothing reached the data; the changes are back in the staging area, and commit once.
        expect(afterKill).toEqual(before);
        // On a server the killed client's transaction ends when its backend notices (a moment).
        await expect
          .poll(async () => {
            await toolrow.state.staging.list();
            return applying(toolrow);
          })
          .toBe(0);
        expect((await toolrow.state.staging.list()).map((change) => change.id)).toEqual(staged);
        const result = await toolrow.state.staging.commit();
        expect(result).toMatchObject({ ok: true, applied: { insert: 1, update: 1, delete: 1 } });
        expect(await snapshot(toolrow)).toEqual(applied);
      }
      // Never twice, whatever comes next.
      expect((await toolrow.state.staging.commit()).ok).toBe(true);
      expect(await snapshot(toolrow)).toEqual(applied);
      expect(await applying(toolrow)).toBe(0);
    } finally {
      await toolrow.close();
    }
  });
});
