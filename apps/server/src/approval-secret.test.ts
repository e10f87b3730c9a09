// The approval secret kept beside the data: stable across runs, so an approval pending in a saved
// conversation can still be answered after `npm start` restarts.
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readUIChunks, scriptedModel } from '@toolrow/agent/testing';
import type { Conversation } from '@toolrow/desktop/wire';
import { pgliteOnDiskStores } from '@toolrow/state/testing';
import type { UIMessage } from 'ai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { APPROVAL_SECRET_FILE, loadApprovalSecret } from './approval-secret.ts';
import { startApp } from './start.ts';
import { api, bearer } from './test-support.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'toolrow-secret-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

describe('loadApprovalSecret', () => {
  it('creates an owner-only secret once and returns the same one after', async () => {
    const first = await loadApprovalSecret(join(dir, 'data'));
    expect(first).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const file = join(dir, 'data', APPROVAL_SECRET_FILE);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(await loadApprovalSecret(join(dir, 'data'))).toBe(first);
    expect((await readFile(file, 'utf8')).trim()).toBe(first);
  });

  it('gives every process starting at once the same secret', async () => {
    const secrets = await Promise.all(Array.from({ length: 6 }, () => loadApprovalSecret(dir)));
    expect(new Set(secrets).size).toBe(1);
  });

  it('replaces a file too short to be a secret', async () => {
    await writeFile(join(dir, APPROVAL_SECRET_FILE), 'short\n');
    const secret = await loadApprovalSecret(dir);
    expect(secret).not.toBe('short');
    expect(secret.length).toBeGreaterThanOrEqual(32);
    expect(await loadApprovalSecret(dir)).toBe(secret);
  });
});

describe('npm start twice over one database', () => {
  it('an approval pending in a saved conversation is answerable after the restart', async () => {
    const toolrow = await pgliteOnDiskStores.open({ seed: { orders: 40 } });
    const options = { env: {}, out: () => {}, err: () => {}, cwd: dir, port: 0, build: false, toolrow };
    const send = async (app: { url: string; token: string }, messages: UIMessage[]) => {
      const response = await fetch(`${app.url}/api/chat`, {
        method: 'POST',
        headers: bearer(app.token, { 'content-type': 'application/json' }),
        body: JSON.stringify({ id: 'restart', messages }),
      });
      return readUIChunks(response);
    };
    const u1: UIMessage = { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'how many orders?' }] };
    try {
      const first = await startApp({
        ...options,
        model: scriptedModel([[{ tool: 'countRows', input: { table: 'orders' }, id: 'count-1' }]]),
      });
      try {
        await send(first, [u1]);
      } finally {
        await first.close();
      }
      expect((await stat(join(toolrow.state.dataDir, APPROVAL_SECRET_FILE))).isFile()).toBe(true);

      // A new server and agent: only the secret file carries over.
      const second = await startApp({ ...options, model: scriptedModel([[{ text: 'Counted.' }]]) });
      try {
        const stored = await api<Conversation>(second, '/api/conversations/restart');
        const answered = structuredClone(stored.messages[1]!);
        const part = toolPart(answered);
        expect(part.state).toBe('approval-requested');
        part.state = 'approval-responded';
        part.approval = { ...part.approval, approved: true };

        const chunks = await send(second, [u1, answered]);
        expect(chunks.filter((chunk) => chunk.type === 'error')).toEqual([]);
        const done = await api<Conversation>(second, '/api/conversations/restart');
        const ran = toolPart(done.messages[1]!);
        expect(ran.state).toBe('output-available');
        expect(ran.output).toMatchObject({ count: await toolrow.source.rows.count('orders') });
      } finally {
        await second.close();
      }
    } finally {
      await toolrow.close();
    }
  }, 120_000);
});

function toolPart(message: UIMessage) {
  const part = message.parts.find((candidate) => candidate.type === 'tool-countRows');
  if (!part) throw new Error(`No countRows part in ${JSON.stringify(message.parts)}`);
  return part as unknown as { state: string; output?: unknown; approval: { id: string; approved?: boolean } };
}
