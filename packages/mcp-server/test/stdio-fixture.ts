// A stdio MCP server with scripted tools, for stdio.test.ts and stdio-ladder.test.ts: it appends
// every run, audit record and grant to the JSON-lines file named by FIXTURE_LOG, so the test can
// see what happened. FIXTURE_MODE sets the profile's mode (default full-auto); with
// FIXTURE_APPROVALS_URL and _TOKEN, asks go to that app's inbox over HTTP, as `toolrow mcp --stdio`
// does beside a running app.
import { appendFileSync } from 'node:fs';
import { isPermissionMode } from '@toolrow/agent';
import { remoteApprovals } from '../src/approvals.ts';
import { parseScope } from '../src/scopes.ts';
import { serveMcpStdio } from '../src/stdio.ts';
import { scriptedBackend } from './scripted.ts';

const env = process.env;
const log = (entry: unknown) => appendFileSync(env.FIXTURE_LOG as string, `${JSON.stringify(entry)}\n`);
const mode = env.FIXTURE_MODE ?? 'full-auto';
if (!isPermissionMode(mode)) throw new Error(`FIXTURE_MODE ${mode} is no mode`);
const { backend } = scriptedBackend({ log, mode });
const running = serveMcpStdio({
  backend,
  principal: {
    name: 'fixture',
    scope: parseScope(env.FIXTURE_SCOPE as string),
    ...(env.FIXTURE_ASK_VIA_CLIENT === '1' ? { askViaClient: true } : {}),
  },
  ...(env.FIXTURE_APPROVALS_URL
    ? {
        approvals: remoteApprovals({
          url: env.FIXTURE_APPROVALS_URL,
          token: env.FIXTURE_APPROVALS_TOKEN as string,
          timeoutMs: Number(env.FIXTURE_TIMEOUT_MS ?? 60_000),
        }),
        progressIntervalMs: 50,
      }
    : {}),
});
await running.closed;
