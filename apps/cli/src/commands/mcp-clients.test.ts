// `toolrow mcp clients`: the OAuth connections in the state (made here as the consent would make
// them), listed with scope, profile and last use, and disconnected so their tokens stop at once.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openToolrow } from '@toolrow/state';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../testing.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'toolrow-cli-mcp-clients-'));
const env = { TOOLROW_DATA_DIR: dataDir, DATABASE_URL: '', TOOLROW_STATE_URL: '' };
let accessToken = '';
let grantId = '';

beforeAll(async () => {
  const toolrow = await openToolrow({ env, cwd: dataDir });
  try {
    await toolrow.state.oauth.saveClient({
      id: 'trwclient_cli_test',
      kind: 'registered',
      name: 'Claude Desktop',
      redirectUris: ['http://127.0.0.1:3000/callback'],
      metadata: {},
    });
    const grant = await toolrow.state.oauth.createGrant({
      clientId: 'trwclient_cli_test',
      scope: 'tables:staged',
      profile: 'default',
      resource: 'http://127.0.0.1:5173/mcp',
      actorName: 'claude-desktop-abc123',
      expiresAt: null,
    });
    grantId = grant.id;
    // A consent the client never finished: its code was never redeemed.
    await toolrow.state.oauth.createGrant({
      clientId: 'trwclient_cli_test',
      scope: 'tables:readonly',
      profile: 'default',
      resource: 'http://127.0.0.1:5173/mcp',
      actorName: 'claude-desktop-unfinished',
      expiresAt: null,
    });
    const tokens = await toolrow.state.oauth.issueTokens(grant.id, {
      accessExpiresAt: new Date(Date.now() + 3_600_000),
    });
    accessToken = tokens.accessToken;
    expect((await toolrow.state.oauth.verifyAccess(accessToken)).ok).toBe(true);
  } finally {
    // Closing writes the last use the verification remembered.
    await toolrow.close();
  }
}, 120_000);

afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('toolrow mcp clients', () => {
  it('lists the connection with its scope, profile and last use', async () => {
    const listed = await runCli(['mcp', 'clients', '--json'], env, dataDir);
    expect(listed.code).toBe(0);
    const clients = JSON.parse(listed.stdout) as Record<string, unknown>[];
    expect(clients).toHaveLength(2);
    // Not shown as connected: the client never came back for its tokens.
    expect(clients[1]).toMatchObject({ actor: 'mcp:claude-desktop-unfinished', status: 'not finished' });
    expect(clients[0]).toMatchObject({
      id: grantId,
      clientName: 'Claude Desktop',
      actor: 'mcp:claude-desktop-abc123',
      scope: 'tables:staged',
      profile: 'default',
      status: 'connected',
      expiresAt: null,
    });
    expect(clients[0]?.lastUsedAt).toEqual(expect.any(String));
    const table = await runCli(['mcp', 'clients'], env, dataDir);
    expect(table.stdout).toMatch(
      /Claude Desktop\s+mcp:claude-desktop-abc123\s+tables:staged\s+default\s+connected\s+never/,
    );
  });

  it('revokes by audit name; the token stops working and the client leaves the list', async () => {
    const unknown = await runCli(['mcp', 'clients', 'revoke', 'nobody'], env, dataDir);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/No connected MCP client 'nobody'/);
    const usage = await runCli(['mcp', 'clients', 'revoke'], env, dataDir);
    expect(usage.code).toBe(2);

    const revoked = await runCli(['mcp', 'clients', 'revoke', 'mcp:claude-desktop-abc123'], env, dataDir);
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).toMatch(/Disconnected Claude Desktop/);
    expect(
      (
        JSON.parse((await runCli(['mcp', 'clients', '--json'], env, dataDir)).stdout) as { actor: string }[]
      ).map((client) => client.actor),
    ).toEqual(['mcp:claude-desktop-unfinished']);
    const all = JSON.parse((await runCli(['mcp', 'clients', '--all', '--json'], env, dataDir)).stdout);
    expect(all[0]).toMatchObject({ id: grantId, status: 'revoked' });

    const toolrow = await openToolrow({ env, cwd: dataDir });
    try {
      expect(await toolrow.state.oauth.verifyAccess(accessToken)).toMatchObject({
        ok: false,
        reason: 'revoked',
      });
    } finally {
      await toolrow.close();
    }
  });
});
