// A commit to DynamoDB killed mid-way (SIGKILL, no cleanup) is applied once or not at all. DynamoDB
// keeps no record of a transaction to ask about, so the staging area decides from the items: all
// as the commit left them, or all as they were staged (a transaction is all or nothing).
import { spawn } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeWithService, serviceUrl } from '@toolrow/test-services';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { CommitPoint } from './staging.ts';
import { openToolrow, type Toolrow } from './toolrow.ts';

const dynamoUrl = serviceUrl('dynamodb');
const INDEX = fileURLToPath(new URL('./index.ts', import.meta.url));
const POINTS: readonly CommitPoint[] = ['claimed', 'data-committed'];

function commitAndDie(env: Record<string, string>, point: CommitPoint): Promise<NodeJS.Signals | null> {
  const script = `
    const { openToolrow } = await import(${JSON.stringify(INDEX)});
    const toolrow = await openToolrow({
      env: ${JSON.stringify(env)},
      state: { staging: { faults: (at) => { if (at === ${JSON.stringify(point)}) process.kill(process.pid, 'SIGKILL'); } } },
    });
    await toolrow.state.staging.commit();
    console.log('the commit finished without being stopped');`;
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--conditions=@toolrow/source', '--input-type=module', '-e', script],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('error', reject);
    child.on('exit', (code, signal) =>
      signal === 'SIGKILL'
        ? resolve(signal)
        : reject(new Error(`the child was not killed (exit ${code}): ${output}`)),
    );
  });
}

describeWithService('dynamodb', 'a commit to DynamoDB killed mid-way', () => {
  let dir: string;
  let env: Record<string, string>;
  const open = () => openToolrow({ env });
  const snapshot = async ({ source }: Toolrow) =>
    Promise.all([1, 2, 9001].map(async (id) => (await source.rows.get('orders', { id }))?.status ?? null));

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'toolrow-ddb-commit-'));
    const url = new URL(dynamoUrl!);
    url.searchParams.set('region', `zz-commit-${randomInt(1_000_000_000)}`);
    env = { DATABASE_URL: url.href, TOOLROW_DATA_DIR: dir };
    const toolrow = await open();
    try {
      await toolrow.source.seed!({ orders: 10, now: new Date('2026-11-15T00:00:00Z') });
    } finally {
      await toolrow.close();
    }
  }, 120_000);
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it.each(POINTS)('killed at "%s": consistent, applied exactly once', async (point) => {
    let before: (string | null | unknown)[];
    {
      const toolrow = await open();
      try {
        await toolrow.state.staging.discard();
        await toolrow.source.seed!({ orders: 10, reset: true, now: new Date('2026-11-15T00:00:00Z') });
        const meta = { actor: 'agent' as const };
        await toolrow.state.staging.stageUpdate(
          'orders',
          [{ key: { id: '1' }, values: { status: 'refunded' } }],
          meta,
        );
        await toolrow.state.staging.stageDelete('orders', [{ id: '2' }], meta);
        await toolrow.state.staging.stageInsert(
          'orders',
          [
            {
              id: '9001',
              customer_id: '1',
              status: 'pending',
              ordered_at: '2026-11-14T00:00:00Z',
              total: '1.00',
              currency: 'USD',
            },
          ],
          meta,
        );
        before = await snapshot(toolrow);
        expect(before[2]).toBeNull();
      } finally {
        await toolrow.close();
      }
    }
    const applied = ['refunded', null, 'pending'];

    expect(await commitAndDie(env, point)).toBe('SIGKILL');

    const toolrow = await open();
    try {
      if (point === 'data-committed') {
        expect(await snapshot(toolrow)).toEqual(applied);
        // The items say the transaction landed: the staging area settles it as applied.
        expect(await toolrow.state.staging.list()).toEqual([]);
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
        expect(await snapshot(toolrow)).toEqual(before);
        expect(await toolrow.state.staging.list()).toHaveLength(3);
        expect(await toolrow.state.staging.commit()).toMatchObject({
          ok: true,
          applied: { insert: 1, update: 1, delete: 1 },
        });
      }
      // Never twice, whatever comes next.
      expect(await toolrow.state.staging.commit()).toMatchObject({ ok: true, changeIds: [] });
      expect(await snapshot(toolrow)).toEqual(applied);
    } finally {
      await toolrow.close();
    }
  });
});
