// The ladder over stdio: a real child process serving scripted tools, whose asks go over HTTP to
// an inbox served here (as `toolrow mcp --stdio` beside the running app), answered through the
// same HTTP routes the app mounts.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve } from '@hono/node-server';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { connectStdio, type Era } from '../test/helpers.ts';
import {
  APPROVALS_PATH,
  createApprovalInbox,
  createApprovalsHandler,
  type McpApprovalRequest,
} from './approvals.ts';

const APP_TOKEN = 'app-secret-for-this-test';
const inbox = createApprovalInbox();
const routes = createApprovalsHandler(inbox);
let appUrl = '';
let app: ReturnType<typeof serve>;

beforeAll(async () => {
  await new Promise<void>((resolve) => {
    // The app's routes sit behind its own auth; so do these.
    app = serve(
      {
        fetch: (request: Request) =>
          request.headers.get('authorization') === `Bearer ${APP_TOKEN}`
            ? routes(request)
            : Promise.resolve(new Response('unauthorized', { status: 401 })),
        port: 0,
        hostname: '127.0.0.1',
      },
      (info) => {
        appUrl = `http://127.0.0.1:${info.port}`;
        resolve();
      },
    );
  });
});
afterAll(async () => {
  inbox.close();
  await new Promise<void>((resolve) => app.close(() => resolve()));
});

function nextAsk(): Promise<McpApprovalRequest> {
  return new Promise((resolve) => {
    const stop = inbox.subscribe((event) => {
      if (event.type === 'asked') {
        stop();
        resolve(event.request);
      }
    });
  });
}

/** The user's click, through the app's route. */
async function answer(id: string, body: { approved: boolean; reason?: string }): Promise<number> {
  const response = await fetch(`${appUrl}${APPROVALS_PATH}/${id}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${APP_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  await response.text();
  return response.status;
}

const textOf = (result: { content?: unknown }) =>
  ((result.content as { text?: string }[] | undefined) ?? []).map((part) => part.text).join('');

describe.each(['legacy', 'auto'] as const)('the ladder over stdio, %s era', (era: Era) => {
  const dir = mkdtempSync(join(tmpdir(), 'toolrow-mcp-ladder-'));
  const logFile = join(dir, 'log.jsonl');
  const clients: Client[] = [];
  const entries = () =>
    readFileSync(logFile, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { kind: string; name?: string; decision?: string; detail?: string });
  const decisions = () =>
    entries()
      .filter((entry) => entry.kind === 'audit')
      .map((entry) => entry.decision);
  const runs = () =>
    entries()
      .filter((entry) => entry.kind === 'run')
      .map((entry) => entry.name);

  async function spawn(env: Record<string, string>, elicit?: 'accept' | 'decline'): Promise<Client> {
    const { client } = await connectStdio(
      {
        command: process.execPath,
        args: ['--conditions=@toolrow/source', join(import.meta.dirname, '../test/stdio-fixture.ts')],
        env: {
          FIXTURE_LOG: logFile,
          FIXTURE_SCOPE: 'tables:full',
          FIXTURE_APPROVALS_URL: appUrl,
          FIXTURE_APPROVALS_TOKEN: APP_TOKEN,
          PATH: process.env.PATH ?? '',
          ...env,
        },
      },
      era,
      elicit
        ? {
            capabilities: { elicitation: { form: {} } },
            elicit: () =>
              elicit === 'accept' ? { action: 'accept', content: { approve: true } } : { action: 'decline' },
          }
        : undefined,
    );
    clients.push(client);
    return client;
  }

  beforeAll(() => writeFileSync(logFile, ''));
  afterEach(async () => {
    for (const client of clients.splice(0)) await client.close();
    writeFileSync(logFile, '');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('Manual: the call waits for the click in the app, with progress, and runs only after it', async () => {
    const client = await spawn({ FIXTURE_MODE: 'manual' });
    const asked = nextAsk();
    let progressed!: (message: string) => void;
    const progress = new Promise<string>((resolve) => {
      progressed = resolve;
    });
    const call = client.callTool(
      { name: 'openTable', arguments: { table: 'orders' } },
      { onprogress: (update) => progressed(update.message ?? '') },
    );
    const request = await asked;
    // The name the client declared, beside the principal's.
    expect(request).toMatchObject({ client: 'toolrow-test (fixture)', tool: 'openTable', mode: 'manual' });
    expect(await progress).toContain('Waiting for the user to approve openTable');
    expect(runs()).toEqual([]);
    expect(await answer(request.id, { approved: true })).toBe(200);
    expect((await call).isError).toBeFalsy();
    expect(runs()).toEqual(['openTable']);
    expect(decisions()).toEqual(['asked', 'approved']);
    // Answered already: a second click finds nothing.
    expect(await answer(request.id, { approved: true })).toBe(404);
  });

  it('Manual: a denial in the app refuses', async () => {
    const client = await spawn({ FIXTURE_MODE: 'manual' });
    const asked = nextAsk();
    const call = client.callTool({ name: 'countRows', arguments: { table: 'orders' } });
    expect(await answer((await asked).id, { approved: false, reason: 'too big' })).toBe(200);
    const result = await call;
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('The user said no: too big');
    expect(runs()).toEqual([]);
    expect(decisions()).toEqual(['asked', 'denied']);
  });

  it('Manual: an unanswered ask times out into a refusal', async () => {
    const client = await spawn({ FIXTURE_MODE: 'manual', FIXTURE_TIMEOUT_MS: '300' });
    const settled = new Promise<string>((resolve) => {
      const stop = inbox.subscribe((event) => {
        if (event.type === 'settled') {
          stop();
          resolve(event.outcome.kind);
        }
      });
    });
    const result = await client.callTool({ name: 'startExport', arguments: { table: 'orders' } });
    expect(await settled).toBe('timeout');
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('Nobody answered within 300 ms');
    expect(runs()).toEqual([]);
    expect(decisions()).toEqual(['asked', 'denied']);
  });

  it('a trusted client that declares elicitation asks its own user; the inbox stays empty', async () => {
    const accepting = await spawn({ FIXTURE_MODE: 'manual', FIXTURE_ASK_VIA_CLIENT: '1' }, 'accept');
    expect(
      (await accepting.callTool({ name: 'openTable', arguments: { table: 'orders' } })).isError,
    ).toBeFalsy();
    expect(runs()).toEqual(['openTable']);
    const declining = await spawn({ FIXTURE_MODE: 'manual', FIXTURE_ASK_VIA_CLIENT: '1' }, 'decline');
    const refused = await declining.callTool({ name: 'startExport', arguments: { table: 'orders' } });
    expect(refused.isError).toBe(true);
    expect(runs()).toEqual(['openTable']);
    expect(decisions()).toEqual(['asked', 'approved', 'asked', 'denied']);
    expect(inbox.pending()).toEqual([]);
  });

  it('Auto: stage runs, a read asks once per table, Full Auto runs everything', async () => {
    const auto = await spawn({ FIXTURE_MODE: 'auto' });
    await auto.callTool({ name: 'stageInsertRows', arguments: { table: 'orders', rows: [] } });
    const asked = nextAsk();
    const read = auto.callTool({ name: 'countRows', arguments: { table: 'orders' } });
    await answer((await asked).id, { approved: true });
    await read;
    await auto.callTool({ name: 'runQuery', arguments: { table: 'orders' } });
    expect(decisions()).toEqual(['auto', 'asked', 'approved', 'auto']);
    expect(entries().filter((entry) => entry.kind === 'grant')).toHaveLength(1);

    const fullAuto = await spawn({ FIXTURE_MODE: 'full-auto' });
    for (const name of ['openTable', 'startExport', 'getRow'])
      expect((await fullAuto.callTool({ name, arguments: { table: 'orders' } })).isError).toBeFalsy();
    expect(decisions().slice(4)).toEqual(['auto', 'auto', 'auto']);
    expect(runs()).toEqual([
      'stageInsertRows',
      'countRows',
      'runQuery',
      'openTable',
      'startExport',
      'getRow',
    ]);
  });
});
