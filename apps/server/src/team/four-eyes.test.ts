// One team, two instances on one PostgreSQL state store (and one PostgreSQL database of data),
// behind what a load balancer would be: both answer at one public URL, so a browser's cookie is
// good on either. People sign in through a real OpenID Provider on loopback (oidc-provider). An
// analyst stages on A, cannot commit; an approver commits on B, exactly once; nobody commits their
// own change; an approval covers exactly what was reviewed; the audit names each person; a removed
// person's sessions and tokens end within a minute.

import { openToolrow, type Toolrow } from '@toolrow/state';
import { createTestEnvironment, type TestEnvironment } from '@toolrow/state/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolrowServer, type ToolrowServer } from '../server.ts';
import { clearStaging, freePort, SEED_NOW } from '../test-support.ts';
import { signIn, startTestProvider, type TestProvider, teamClient } from './test-provider.ts';

interface Instance {
  toolrow: Toolrow;
  server: ToolrowServer;
  url: string;
}

type Json = Record<string, unknown> & { error?: { code: string; message: string } };

describe('a team on two instances sharing one PostgreSQL state store', () => {
  let environment: TestEnvironment;
  let provider: TestProvider;
  let a: Instance;
  let b: Instance;
  const logs: string[] = [];

  beforeAll(async () => {
    environment = await createTestEnvironment('postgres');
    const [portA, portB] = [await freePort(), await freePort()];
    const [urlA, urlB] = [`http://127.0.0.1:${portA}`, `http://127.0.0.1:${portB}`];
    provider = await startTestProvider([urlA]);
    // Both instances answer at A's URL as the public one (a load balancer's): sign-in returns there.
    const env = { ...environment.env, ...provider.env(urlA), TOOLROW_TEAM_RECHECK_SECONDS: '1' };
    const start = async (port: number, url: string): Promise<Instance> => {
      const toolrow = await openToolrow({ env, cwd: environment.cwd });
      const server = await createToolrowServer({
        source: toolrow.source,
        state: toolrow.state,
        env,
        model: null,
        log: (line) => logs.push(line),
      });
      await server.listen({ port });
      return { toolrow, server, url };
    };
    a = await start(portA, urlA);
    await a.toolrow.source.seed!({ orders: 40, now: SEED_NOW });
    b = await start(portB, urlB);
  }, 180_000);

  afterAll(async () => {
    for (const instance of [a, b]) {
      await instance?.server.close();
      await instance?.toolrow.close();
    }
    await provider?.close();
    await environment?.cleanup();
  });

  /** A person signed in (through A, the public URL) and their calls to either instance. */
  async function person(account: string) {
    const { b: browser, answer } = await signIn(a.url, provider.issuer, account);
    expect(answer.status).toBe(302);
    browser.share(a.url, b.url);
    return { browser, onA: teamClient(browser, a.url), onB: teamClient(browser, b.url) };
  }
  const json = async (response: Response) => (await response.json()) as Json;
  const noteOf = async (id: number) => (await a.toolrow.source.rows.get('orders', { id }))?.note;
  const stage = (client: ReturnType<typeof teamClient>, id: number, note: string) =>
    client.send('POST', '/api/staging/update', { table: 'orders', key: { id }, values: { note } });
  const review = async (client: ReturnType<typeof teamClient>) =>
    (await json(await client.get('/api/staging'))) as {
      changes: { id: string; person?: string }[];
      review: { digest: string; you: string; mayCommit: boolean; why?: string };
    };

  it('an analyst stages on A and cannot commit; a viewer cannot stage; an approver commits on B once; nobody commits their own', async () => {
    const ana = await person('ana');
    const vic = await person('vic');
    const abe = await person('abe');
    const amy = await person('amy');

    // The session made through A is good on B: it lives in the state store.
    expect(((await json(await abe.onB.get('/api/session'))) as { role: string }).role).toBe('approver');

    const staged = await stage(ana.onA, 1, 'ana was here');
    expect(staged.status).toBe(200);
    const anaCommit = await ana.onA.send('POST', '/api/staging/commit', {
      reviewed: (await review(ana.onA)).review.digest,
    });
    expect(anaCommit.status).toBe(403);
    expect((await json(anaCommit)).error?.message).toMatch(/As analyst you may not commit/);

    const vicStage = await stage(vic.onB, 2, 'vic?');
    expect(vicStage.status).toBe(403);
    expect((await json(vicStage)).error?.message).toMatch(/As viewer you may not stage changes/);

    // Abe stages one of his own on B: the review shows whose each change is, and that he may not commit it.
    expect((await stage(abe.onB, 3, 'abe was here')).status).toBe(200);
    const seen = await review(abe.onB);
    expect(seen.changes.map((change) => change.person)).toEqual(['ana@example.com', 'abe@example.com']);
    expect(seen.review).toMatchObject({
      you: 'abe@example.com',
      mayCommit: false,
      why: expect.stringMatching(/yours/),
    });
    const own = await abe.onB.send('POST', '/api/staging/commit', { reviewed: seen.review.digest });
    expect(own.status).toBe(403);
    expect((await json(own)).error?.message).toMatch(
      /Four eyes: abe@example\.com staged change #\d+ .*nobody commits their own change. Nothing was applied/,
    );
    expect(await noteOf(1)).not.toBe('ana was here');
    expect(await noteOf(3)).not.toBe('abe was here');

    // Abe commits Ana's change on B while Amy commits the same on A: it is applied once.
    const anaChange = seen.changes[0]!.id;
    const amySeen = await review(amy.onA);
    expect(amySeen.review.digest).toBe(seen.review.digest);
    const both = await Promise.all([
      abe.onB.send('POST', '/api/staging/commit', { ids: [anaChange], reviewed: seen.review.digest }),
      amy.onA.send('POST', '/api/staging/commit', { ids: [anaChange], reviewed: amySeen.review.digest }),
    ]);
    const answers = await Promise.all(both.map(json));
    const committed = answers.filter((answer, i) => both[i]!.status === 200 && answer.committed === 1);
    expect(committed).toHaveLength(1);
    // The other finds the listing changed (the change is committed or being committed) or nothing left to apply.
    const other = answers.find((answer) => answer !== committed[0])!;
    expect(
      other.committed === 0 ||
        other.error?.code === 'stale-review' ||
        /being committed/.test(other.error?.message ?? ''),
    ).toBe(true);
    expect(await noteOf(1)).toBe('ana was here');
    const applied = await a.toolrow.state.db.q
      .selectFrom('commits')
      .select(['person', 'state'])
      .where('state', '=', 'applied')
      .execute();
    expect(applied).toHaveLength(1);

    // Amy commits Abe's change: four eyes, two people.
    const left = await review(amy.onA);
    expect(left.changes.map((change) => change.person)).toEqual(['abe@example.com']);
    expect(left.review.mayCommit).toBe(true);
    const amyCommit = await amy.onA.send('POST', '/api/staging/commit', { reviewed: left.review.digest });
    expect(await json(amyCommit)).toMatchObject({ committed: 1 });
    expect(await noteOf(3)).toBe('abe was here');

    // The audit names each person, read on either instance.
    const audit = (await json(await abe.onB.get('/api/audit'))) as {
      entries: { tool: string; person?: string; detail: string | null }[];
    };
    const lines = audit.entries.map((entry) => `${entry.person} ${entry.tool} ${entry.detail}`);
    expect(lines).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^ana@example\.com stageUpdateRows .*staged an update of public\.orders/),
        expect.stringMatching(/^abe@example\.com stageUpdateRows /),
        expect.stringMatching(
          /^(abe|amy)@example\.com commitStaged .*approved and committed 1 change .* staged by ana@example\.com/,
        ),
        expect.stringMatching(/^amy@example\.com commitStaged .*staged by abe@example\.com/),
      ]),
    );
    expect(lines.some((line) => line.startsWith('vic@'))).toBe(false);
  });

  it('an approval covers exactly what was reviewed: a change staged after it voids it, and nothing is applied', async () => {
    const ana = await person('ana');
    const amy = await person('amy');
    expect((await stage(ana.onA, 5, 'first')).status).toBe(200);
    const seen = await review(amy.onB);
    expect((await stage(ana.onB, 6, 'slipped in after the review')).status).toBe(200);
    const stale = await amy.onB.send('POST', '/api/staging/commit', { reviewed: seen.review.digest });
    expect(stale.status).toBe(409);
    expect((await json(stale)).error).toMatchObject({
      code: 'stale-review',
      message: expect.stringMatching(/not the ones you reviewed.*Nothing was applied/),
    });
    expect(await noteOf(5)).not.toBe('first');
    expect(await noteOf(6)).not.toBe('slipped in after the review');
    // Without naming a review at all, a commit is refused as well.
    const blind = await amy.onB.send('POST', '/api/staging/commit', {});
    expect(blind.status).toBe(403);
    expect((await json(blind)).error?.message).toMatch(/names the review it approves/);
    // Reviewed again, it commits both.
    const again = await review(amy.onA);
    expect(
      await json(await amy.onA.send('POST', '/api/staging/commit', { reviewed: again.review.digest })),
    ).toMatchObject({
      committed: 2,
    });
  });

  it('the same four eyes hold in the staging area itself, whoever calls it', async () => {
    const ana = await person('ana');
    expect((await stage(ana.onA, 7, 'direct')).status).toBe(200);
    const listed = await a.toolrow.state.staging.list();
    const { reviewDigest } = await import('@toolrow/state');
    await expect(
      a.toolrow.state.staging.commit(undefined, {
        approver: { person: 'ana@example.com', reviewed: reviewDigest(listed) },
      }),
    ).rejects.toThrow(/Four eyes: ana@example\.com is an analyst, and only an approver commits/);
    // An approver reviewing her own change: refused inside the staging area too.
    await a.toolrow.state.db.q
      .updateTable('staged_changes')
      .set({ person: 'amy@example.com' })
      .where('commit_id', 'is', null)
      .execute();
    await expect(
      a.toolrow.state.staging.commit(undefined, {
        approver: { person: 'amy@example.com', reviewed: reviewDigest(await a.toolrow.state.staging.list()) },
      }),
    ).rejects.toThrow(/Four eyes: amy@example\.com staged change/);
    await expect(
      b.toolrow.state.staging.commit(undefined, {
        approver: { person: 'abe@example.com', reviewed: 'not-it' },
      }),
    ).rejects.toMatchObject({ code: 'stale-review' });
    expect(await noteOf(7)).not.toBe('direct');
    await clearStaging(a.toolrow);
  });

  it("a commit through the CLI's routes covers the listing it reviewed: one table's, not the others'", async () => {
    const ana = await person('ana');
    const amy = await person('amy');
    expect((await stage(ana.onA, 9, 'orders only')).status).toBe(200);
    const other = await ana.onA.send('POST', '/api/staging/update', {
      table: 'customers',
      key: { id: 1 },
      values: { city: 'Elsewhere' },
    });
    expect(other.status).toBe(200);
    const listed = (await json(
      await amy.onB.send('POST', '/api/state/staging/list', { table: 'orders' }),
    )) as {
      changes: { table: string }[];
      review: { digest: string };
    };
    expect(listed.changes.map((change) => change.table)).toEqual(['public.orders']);
    const committed = (await json(
      await amy.onB.send('POST', '/api/state/staging/commit', {
        table: 'orders',
        reviewed: listed.review.digest,
      }),
    )) as { result: { ok: boolean; changeIds: number[] } };
    expect(committed.result).toMatchObject({ ok: true, changeIds: [expect.any(Number)] });
    expect(await noteOf(9)).toBe('orders only');
    // The customers change was not in the review, and is still staged.
    expect((await a.toolrow.state.staging.list()).map((change) => change.table)).toEqual([
      'public.customers',
    ]);
    await clearStaging(a.toolrow);
  });

  it('exports made on one instance are listed on the other', async () => {
    const ana = await person('ana');
    const started = await json(
      await ana.onA.send('POST', '/api/exports', { table: 'orders', format: 'csv' }),
    );
    const jobs = (await json(await ana.onB.get('/api/exports'))) as { jobs: { id: string }[] };
    expect(jobs.jobs.map((job) => job.id)).toContain(started.id);
  });

  it("a personal token acts as its person, with the person's role, on either instance, until revoked", async () => {
    const ana = await person('ana');
    const made = await json(await ana.onA.send('POST', '/api/team/tokens', { name: 'laptop' }));
    expect(made).toMatchObject({ name: 'laptop', role: 'analyst', token: expect.stringMatching(/^trp_/) });
    const asToken = (path: string, init: { method?: string; body?: unknown } = {}) =>
      fetch(`${b.url}${path}`, {
        method: init.method ?? 'GET',
        headers: { authorization: `Bearer ${made.token}`, 'content-type': 'application/json' },
        ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
      });
    expect(await (await asToken('/api/session')).json()).toMatchObject({
      user: { email: 'ana@example.com' },
      role: 'analyst',
    });
    // No CSRF token: a bearer is no ambient credential.
    const staged = await asToken('/api/staging/update', {
      method: 'POST',
      body: { table: 'orders', key: { id: 8 }, values: { note: 'from the CLI' } },
    });
    expect(staged.status).toBe(200);
    expect((await a.toolrow.state.staging.list()).map((change) => change.person)).toEqual([
      'ana@example.com',
    ]);
    expect((await asToken('/api/staging/commit', { method: 'POST', body: { reviewed: 'x' } })).status).toBe(
      403,
    );
    // A token makes no token; the launch token and an MCP token open nothing.
    expect((await asToken('/api/team/tokens', { method: 'POST', body: { name: 'another' } })).status).toBe(
      403,
    );
    expect(
      (await fetch(`${b.url}/api/status`, { headers: { authorization: `Bearer ${b.server.token}` } })).status,
    ).toBe(401);
    const listed = (await json(await ana.onB.get('/api/team/tokens'))) as { tokens: { name: string }[] };
    expect(listed.tokens.map((token) => token.name)).toEqual(['laptop']);
    expect((await ana.onB.send('DELETE', '/api/team/tokens/laptop')).status).toBe(200);
    expect((await asToken('/api/session')).status).toBe(401);
    await clearStaging(a.toolrow);
  });

  /** Waits until `done` holds, asking again as the provider check runs (every second here). */
  async function eventually(done: () => Promise<boolean>, what: string) {
    const deadline = Date.now() + 60_000;
    while (!(await done())) {
      if (Date.now() > deadline) throw new Error(`not within a minute: ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  it('a person removed at the provider, or moved out of their group, loses sessions and tokens within a minute', async () => {
    const vic = await person('vic');
    const token = (await json(await vic.onA.send('POST', '/api/team/tokens', { name: 'cli' })))
      .token as string;
    const ana = await person('ana');
    expect((await vic.onB.get('/api/session')).status).toBe(200);
    delete provider.accounts.vic;
    await eventually(async () => (await vic.onB.get('/api/session')).status === 401, "vic's session ends");
    expect(
      (await fetch(`${a.url}/api/session`, { headers: { authorization: `Bearer ${token}` } })).status,
    ).toBe(401);
    expect(
      logs.some((line) => /vic@example\.com removed: the identity provider no longer accepts/.test(line)),
    ).toBe(true);
    // Ana leaves the data team: her analyst session ends; she signs in again as what she is now.
    provider.accounts.ana!.groups = ['sales'];
    await eventually(async () => (await ana.onA.get('/api/session')).status === 401, "ana's session ends");
    const again = await person('ana');
    expect(((await json(await again.onB.get('/api/session'))) as { role: string }).role).toBe('viewer');
    provider.accounts.ana!.groups = ['data-team'];
  });

  it('an admin removes a person: every session and token they hold ends at once, on both instances', async () => {
    const root = await person('root');
    const amy = await person('amy');
    await amy.onA.send('POST', '/api/team/tokens', { name: 'cli' });
    const people = (await json(await root.onB.get('/api/team/people'))) as { people: { email: string }[] };
    expect(people.people.map((p) => p.email)).toContain('amy@example.com');
    expect((await amy.onB.get('/api/team/people')).status).toBe(403);
    const removed = await json(await root.onB.send('DELETE', '/api/team/people/amy@example.com'));
    expect(removed).toMatchObject({ removed: 'amy@example.com', personalTokens: 1 });
    expect(removed.sessions as number).toBeGreaterThanOrEqual(1);
    expect((await amy.onA.get('/api/session')).status).toBe(401);
    expect((await amy.onB.get('/api/session')).status).toBe(401);
  });
});
