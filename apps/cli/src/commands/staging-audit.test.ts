// Every commit and every discard is in the audit log, whichever way the person reached the one
// staging area: the app's review (its HTTP routes), `toolrow staging` alone on the data dir, and
// `toolrow staging` while the app runs (through it). A matrix: each path × commit and discard,
// each its own change, each exactly one line naming that change. MCP clients stage (their gate's
// line) but reach no commit or discard: no tool does either.
import { MCP_SCOPE_TOOLS } from '@toolrow/mcp-server';
import { type StartedApp, startApp } from '@toolrow/server';
import { type AppStateHandle, openAppState, openToolrow, STAGING_ACTIONS } from '@toolrow/state';
import { createTestEnvironment, TEST_SEED_NOW, type TestEnvironment } from '@toolrow/state/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../testing.ts';

type Path = 'app' | 'cli alone' | 'cli through the app';
type Action = 'commit' | 'discard';
const PATHS: readonly Path[] = ['cli alone', 'app', 'cli through the app'];
const ACTIONS: readonly Action[] = ['commit', 'discard'];

describe('the audit log has every commit and discard, from every path', () => {
  let environment: TestEnvironment;
  let app: StartedApp | undefined;
  // The state store beside the app (both may open it): where the audit log is read.
  let store: AppStateHandle | undefined;
  const cli = (...argv: string[]) => runCli(argv, environment.env, environment.cwd);
  // Which change each path × action acted on (orders 1…6, one note each).
  const changeOf = new Map<string, number>();
  const cell = (path: Path, action: Action) => `${path} × ${action}`;

  beforeAll(async () => {
    environment = await createTestEnvironment('pglite');
    const toolrow = await openToolrow({ env: environment.env, cwd: environment.cwd });
    try {
      await toolrow.source.seed!({ orders: 20, now: TEST_SEED_NOW });
      let order = 1;
      for (const path of PATHS)
        for (const action of ACTIONS) {
          const [change] = await toolrow.state.staging.stageUpdate(
            'orders',
            [{ key: order, values: { note: `${path} ${action}` } }],
            { actor: 'user' },
          );
          changeOf.set(cell(path, action), change!.id);
          order++;
        }
    } finally {
      await toolrow.close();
    }

    // Alone: the CLI opens the data dir itself.
    for (const action of ACTIONS) {
      const result = await cli('staging', action, String(changeOf.get(cell('cli alone', action))));
      expect(result.code, result.stderr).toBe(0);
    }
    app = await startApp({
      env: environment.env,
      cwd: environment.cwd,
      port: 0,
      build: false,
      out: () => {},
      err: () => {},
    });
    // The app's review: what its Commit and Discard buttons send.
    for (const action of ACTIONS) {
      const response = await fetch(`${app.url}/api/staging/${action}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${app.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ ids: [String(changeOf.get(cell('app', action)))] }),
      });
      expect(response.status, await response.clone().text()).toBe(200);
    }
    // The CLI while the app runs: through it (app.json), never the database directly.
    for (const action of ACTIONS) {
      const result = await cli('staging', action, String(changeOf.get(cell('cli through the app', action))));
      expect(result.code, result.stderr).toBe(0);
    }
    store = await openAppState({ env: environment.env, cwd: environment.cwd });
  }, 240_000);

  afterAll(async () => {
    await store?.close();
    await app?.close();
    await environment?.cleanup();
  });

  const auditLines = (tool: string) => store!.audit.list({ tool, limit: 100 });

  it.each(PATHS.flatMap((path) => ACTIONS.map((action) => [path, action] as const)))(
    '%s: the %s is one audit line naming its change',
    async (path, action) => {
      const id = changeOf.get(cell(path, action))!;
      const lines = (await auditLines(action === 'commit' ? 'commitStaged' : 'discardStaged')).filter(
        (line) => new RegExp(`#${id}\\b`).test(line.detail ?? ''),
      );
      expect(lines, `${path} ${action} #${id}`).toHaveLength(1);
    },
  );

  it('the staging area is empty and nothing else was audited as a commit or discard', async () => {
    expect((await cli('staging', 'list')).stdout).toBe('Nothing staged.\n');
    expect(await auditLines('commitStaged')).toHaveLength(PATHS.length);
    expect(await auditLines('discardStaged')).toHaveLength(PATHS.length);
  });

  it('MCP reaches no commit or discard: no tool it lists is a staging action', () => {
    const listed = new Set(Object.values(MCP_SCOPE_TOOLS).flat() as string[]);
    expect(listed.size).toBeGreaterThan(0);
    for (const action of STAGING_ACTIONS) expect(listed.has(action), action).toBe(false);
  });
});
