// The README's "A team" section, run as written: its exports become the environment (the provider,
// the public URL and the databases swapped for a real OpenID Provider on loopback and test
// databases), its two `npx toolrow serve` lines start two real instances on one PostgreSQL state
// store, people sign in through one and are known to the other, an analyst stages on A and an
// approver commits on B, and the laptop line lists the staging area through the CLI with a
// personal token. If the README's lines stop working, this fails.
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTestEnvironment, type TestEnvironment } from '@toolrow/state/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../test-support.ts';
import {
  signIn,
  startTestProvider,
  TEST_CLIENT_SECRET,
  type TestProvider,
  teamClient,
} from './test-provider.ts';

const ROOT = join(import.meta.dirname, '../../../..');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const SECTION = README.slice(README.indexOf('### A team'), README.indexOf('### Connecting an MCP client'));
const [SERVER_BLOCK, LAPTOP_BLOCK] = [...SECTION.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1]!);

/** `export A=1 B="two words"` lines as an environment. */
function exportsOf(block: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of block.split('\n').filter((each) => each.startsWith('export '))) {
    for (const match of line.slice('export '.length).matchAll(/([A-Z_]+)=("([^"]*)"|\S+)/g))
      env[match[1]!] = match[3] ?? match[2]!;
  }
  return env;
}

/** The README's command lines (comments dropped), as words. */
const commandsOf = (block: string, start: string): string[][] =>
  block
    .split('\n')
    .map((line) => line.replace(/#.*$/, '').trim())
    .filter((line) => line.startsWith(start))
    .map((line) => line.split(/\s+/));

function run(
  words: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(words[0]!, words.slice(1), { cwd: ROOT, env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Starts a README serve line and waits for its banner. */
function serve(
  words: string[],
  env: Record<string, string>,
): Promise<{ child: ChildProcess; exit: Promise<unknown> }> {
  const child = spawn(words[0]!, [...words.slice(1), '--no-build'], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  const exit = new Promise((resolve) => child.once('exit', resolve));
  return new Promise((resolve, reject) => {
    const seen = (chunk: Buffer) => {
      output += chunk;
      if (output.includes('Toolrow serves a team')) resolve({ child, exit });
    };
    child.stdout!.on('data', seen);
    child.stderr!.on('data', seen);
    void exit.then(() => reject(new Error(`toolrow serve exited before serving:\n${output}`)));
  });
}

describe("the README's team section, run as written", () => {
  let environment: TestEnvironment;
  let provider: TestProvider;
  const instances: { child: ChildProcess; exit: Promise<unknown> }[] = [];
  let urls: string[] = [];

  beforeAll(async () => {
    environment = await createTestEnvironment('postgres');
    const ports = [await freePort(), await freePort()];
    urls = ports.map((port) => `http://127.0.0.1:${port}`);
    provider = await startTestProvider([urls[0]!]);
    const written = exportsOf(SERVER_BLOCK!);
    expect(Object.keys(written).sort()).toEqual([
      'DATABASE_URL',
      'TOOLROW_OIDC_CLIENT_ID',
      'TOOLROW_OIDC_CLIENT_SECRET',
      'TOOLROW_OIDC_ISSUER',
      'TOOLROW_OIDC_ROLES',
      'TOOLROW_OIDC_SCOPES',
      'TOOLROW_PUBLIC_URL',
      'TOOLROW_STATE_URL',
    ]);
    // Where the README names the team's own things, the test's stand in; the rest is as written.
    const env = {
      ...written,
      TOOLROW_OIDC_ISSUER: provider.issuer,
      TOOLROW_OIDC_CLIENT_SECRET: TEST_CLIENT_SECRET,
      TOOLROW_PUBLIC_URL: urls[0]!,
      TOOLROW_STATE_URL: environment.env.TOOLROW_STATE_URL!,
      DATABASE_URL: environment.env.DATABASE_URL!,
      TOOLROW_MODEL: '',
    };
    // The README's ROLES map data-leads to approvers, as the provider's accounts are grouped.
    expect(written.TOOLROW_OIDC_ROLES).toMatch(/data-team=analyst.*data-leads=approver/);
    const seeded = await run(['npx', 'toolrow', 'db', 'seed', '--orders', '30'], {
      ...env,
      TOOLROW_DATA_DIR: join(environment.cwd, 'seed'),
    });
    expect(seeded.code, seeded.stderr).toBe(0);
    const lines = commandsOf(SERVER_BLOCK!, 'npx toolrow serve');
    expect(lines).toHaveLength(2);
    for (const [index, words] of lines.entries()) {
      // Each instance its own port here (one machine) and its own data dir (its app file, its exports).
      const port = words.indexOf('--port');
      const own = words.with(port + 1, String(ports[index]));
      instances.push(
        await serve(own, { ...env, TOOLROW_DATA_DIR: join(environment.cwd, `instance-${index}`) }),
      );
    }
  }, 240_000);

  afterAll(async () => {
    for (const instance of instances) {
      process.kill(-instance.child.pid!, 'SIGINT');
      await instance.exit;
    }
    await provider?.close();
    await environment?.cleanup();
  });

  it('two instances serve one team: a session from A is good on B, A stages, B commits, the CLI lists through B', async () => {
    const [a, b] = urls as [string, string];
    const ana = await signIn(a, provider.issuer, 'ana');
    const abe = await signIn(a, provider.issuer, 'abe');
    abe.b.share(a, b);
    const onA = teamClient(ana.b, a);
    const abeOnB = teamClient(abe.b, b);
    expect(await (await abeOnB.get('/api/session')).json()).toMatchObject({ role: 'approver' });

    const staged = await onA.send('POST', '/api/staging/update', {
      table: 'orders',
      key: { id: 3 },
      values: { note: 'from the README' },
    });
    expect(staged.status).toBe(200);

    // Ana's CLI, as the laptop line runs it, through B with her personal token.
    const { token } = (await (await onA.send('POST', '/api/team/tokens', { name: 'laptop' })).json()) as {
      token: string;
    };
    const [laptop] = commandsOf(LAPTOP_BLOCK!, 'TOOLROW_URL=');
    const assignments = Object.fromEntries(
      laptop!.filter((word) => /^[A-Z_]+=/.test(word)).map((word) => word.split('=', 2) as [string, string]),
    );
    expect(Object.keys(assignments)).toEqual(['TOOLROW_URL', 'TOOLROW_TOKEN']);
    const listed = await run(
      laptop!.filter((word) => !/^[A-Z_]+=/.test(word)),
      { TOOLROW_URL: b, TOOLROW_TOKEN: token, TOOLROW_DATA_DIR: join(environment.cwd, 'laptop') },
    );
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(/orders/);

    const review = (await (await abeOnB.get('/api/staging')).json()) as { review: { digest: string } };
    const committed = await abeOnB.send('POST', '/api/staging/commit', { reviewed: review.review.digest });
    expect(await committed.json()).toMatchObject({ committed: 1 });
    const after = (await (await onA.get('/api/staging')).json()) as { changes: unknown[] };
    expect(after.changes).toEqual([]);
  }, 120_000);

  it('the CLI on a team: an approver commits exactly the listing it showed; alone, with no token, it commits and stages nothing', async () => {
    const [a, b] = urls as [string, string];
    const ana = await signIn(a, provider.issuer, 'ana');
    const abe = await signIn(a, provider.issuer, 'abe');
    abe.b.share(a, b);
    const tokenOf = async (client: ReturnType<typeof teamClient>, name: string) =>
      ((await (await client.send('POST', '/api/team/tokens', { name })).json()) as { token: string }).token;
    const anaToken = await tokenOf(teamClient(ana.b, a), 'cli');
    const abeToken = await tokenOf(teamClient(abe.b, a), 'cli');
    const laptop = (token: string) => ({
      TOOLROW_URL: b,
      TOOLROW_TOKEN: token,
      TOOLROW_DATA_DIR: join(environment.cwd, 'laptop'),
    });
    const cli = (words: string[], env: Record<string, string>) => run(['npx', 'toolrow', ...words], env);

    // Ana stages through her personal token; the audit names her.
    const staged = await cli(
      [
        'call',
        'stageUpdateRows',
        '{"table":"orders","updates":[{"key":{"id":4},"values":{"note":"from the CLI"}}]}',
      ],
      laptop(anaToken),
    );
    expect(staged.code, staged.stderr).toBe(0);
    const abeOnB = teamClient(abe.b, b);
    const audit = (await (await abeOnB.get('/api/audit')).json()) as {
      entries: { tool: string; person?: string; detail: string | null }[];
    };
    expect(audit.entries.find((entry) => entry.tool === 'stageUpdateRows')).toMatchObject({
      person: 'ana@example.com',
      detail: expect.stringContaining('ana@example.com staged an update of public.orders'),
    });
    // She cannot commit it: the CLI says why.
    const hers = await cli(['staging', 'commit'], laptop(anaToken));
    expect(hers.code).toBe(1);
    expect(hers.stderr).toContain('As analyst you stage; an approver commits.');

    // Abe lists: the listing names Ana and the line that commits exactly it.
    const listed = await cli(['staging', 'list'], laptop(abeToken));
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain('ana@example.com');
    const line =
      /Commit exactly these as abe@example\.com: (toolrow staging commit --reviewed [0-9a-f]{16})/.exec(
        listed.stdout,
      )?.[1];
    expect(line, listed.stdout).toBeDefined();
    // Without --reviewed the CLI shows the diff and that line, and commits nothing.
    const blind = await cli(['staging', 'commit'], laptop(abeToken));
    expect(blind.code).toBe(1);
    expect(blind.stderr).toContain('~ note:');
    expect(blind.stderr).toContain('nothing was committed');
    expect(blind.stderr).toContain(line!);
    // With it: committed, in the audit as Abe's approval of Ana's change.
    const committed = await cli(line!.split(' ').slice(1), laptop(abeToken));
    expect(committed.code, committed.stderr).toBe(0);
    expect(committed.stdout).toMatch(/^Committed 1 change/);
    const lines = (await (await abeOnB.get('/api/audit')).json()) as {
      entries: { tool: string; person?: string; detail: string | null }[];
    };
    expect(lines.entries.find((entry) => entry.tool === 'commitStaged')).toMatchObject({
      person: 'abe@example.com',
      detail: expect.stringMatching(/approved and committed 1 change .* staged by ana@example\.com/),
    });
    // A stale digest: refused, nothing applied.
    expect(
      (
        await teamClient(ana.b, a).send('POST', '/api/staging/update', {
          table: 'orders',
          key: { id: 5 },
          values: { note: 'later' },
        })
      ).status,
    ).toBe(200);
    const stale = await cli(line!.split(' ').slice(1), laptop(abeToken));
    expect(stale.code).toBe(1);
    expect(stale.stderr).toMatch(/not the ones you reviewed/);

    // The CLI alone, with the team's environment and no token: nobody, so nothing.
    const alone = {
      DATABASE_URL: environment.env.DATABASE_URL!,
      TOOLROW_STATE_URL: environment.env.TOOLROW_STATE_URL!,
      TOOLROW_DATA_DIR: join(environment.cwd, 'alone'),
      TOOLROW_URL: '',
      TOOLROW_TOKEN: '',
    };
    const commitAlone = await cli(['staging', 'commit'], alone);
    expect(commitAlone.code).toBe(1);
    expect(commitAlone.stderr).toContain("This state store is a team's");
    expect(commitAlone.stderr).toContain('TOOLROW_TOKEN');
    const stageAlone = await cli(
      [
        'call',
        'stageUpdateRows',
        '{"table":"orders","updates":[{"key":{"id":6},"values":{"note":"nobody"}}]}',
      ],
      alone,
    );
    expect(stageAlone.code).toBe(1);
    expect(stageAlone.stderr).toContain("This state store is a team's");
    const left = (await (await abeOnB.get('/api/staging')).json()) as { changes: { person: string }[] };
    expect(left.changes.map((change) => change.person)).toEqual(['ana@example.com']);
  }, 180_000);
});
