import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAgent, type PermissionMode } from '@toolrow/agent';
import { fakeOpenAIServer, memoryGateStore, recordingBackend, scriptedModel } from '@toolrow/agent/testing';
import { startChatServer } from '@toolrow/eval/testing';
import { openAppState, writeModelKey } from '@toolrow/state';
import { describe, expect, it } from 'vitest';
import { runCli, spawnCli } from '../testing.ts';
import { runChat } from './chat.ts';

async function* linesOf(lines: readonly string[]) {
  for (const line of lines) yield line;
}

describe('toolrow chat (in process, scripted model)', () => {
  it('asks for approvals at the prompt, shows proposals as numbered choices, and accepts one', async () => {
    const chip = {
      kind: 'chip',
      proposedBy: 'proposeOpenTable',
      tool: 'openTable',
      label: 'Open orders',
      input: { table: 'orders' },
    };
    const backend = recordingBackend({
      results: {
        runQuery: () => ({ rows: [{ n: 200 }] }),
        proposeOpenTable: () => chip,
        openTable: () => ({ opened: 'orders' }),
      },
    });
    const store = memoryGateStore('manual');
    const model = scriptedModel([
      [{ tool: 'runQuery', input: { sql: 'select count(*) as n from orders' } }],
      [{ text: 'There are 200 orders.' }],
      [{ tool: 'proposeOpenTable', input: { table: 'orders' } }],
      [{ text: 'Click to open them.' }],
      [{ tool: 'stageDeleteRows', input: { table: 'orders', keys: [1] } }],
      [{ text: 'Fine, nothing deleted.' }],
    ]);
    let mode: PermissionMode = 'manual';
    let out = '';
    await runChat({
      agent: createAgent({ model, backend, store }),
      profileId: 'p',
      lines: linesOf([
        'how many orders?',
        'y',
        'show them',
        '1',
        'delete order 1',
        'n',
        '/mode auto',
        '/mode nope',
        '/exit',
        'never read',
      ]),
      write: (text) => {
        out += text;
      },
      mode: async () => mode,
      setMode: async (next) => {
        mode = next;
      },
    });
    expect(out).toContain(
      '  ? Run query: select count(*) as n from orders\n    Manual mode asks before every gated action.\n    Allow? [y/N] ',
    );
    expect(out).toContain('  · runQuery {"sql":"select count(*) as n from orders"} → {"rows":[{"n":200}]}');
    expect(out).toContain('There are 200 orders.\n');
    expect(out).toContain('  · proposeOpenTable {"table":"orders"} → proposal: Open orders');
    expect(out).toContain('  Proposals (type a number to accept):\n    [1] Open orders\n');
    expect(out).toContain('  ✓ Open orders: {"opened":"orders"}');
    expect(out).toContain('Fine, nothing deleted.');
    expect(out).toMatch(/\(tokens: 200 in, 40 cached, 20 out\)/);
    expect(out).toContain('  Permission mode: Auto\n');
    expect(out).toContain('  Usage: /mode manual|auto|full-auto (now Auto)');
    expect(mode).toBe('auto');
    expect(backend.calls.map((call) => [call.name, call.context.actor])).toEqual([
      ['runQuery', 'agent'],
      ['proposeOpenTable', 'agent'],
      ['openTable', 'user'],
    ]);
    expect(store.audit.map((entry) => [entry.tool, entry.decision, entry.decidedBy])).toEqual([
      ['runQuery', 'asked', 'agent'],
      ['runQuery', 'approved', 'user'],
      ['proposeOpenTable', 'auto', 'agent'],
      ['openTable', 'approved', 'user'],
      ['stageDeleteRows', 'asked', 'agent'],
      ['stageDeleteRows', 'denied', 'user'],
    ]);
  });

  it('refuses a bad --mode and a missing model with messages that say what to set', async () => {
    const bad = await runCli(['chat', '--mode', 'yolo']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--mode must be one of manual, auto, full-auto, not 'yolo'.");
    const noModel = await runCli(['chat'], { TOOLROW_MODEL: undefined });
    expect(noModel.code).toBe(1);
    expect(noModel.stderr).toMatch(
      /No model is set for profile default\. Pick one in the app .*, or set TOOLROW_MODEL/,
    );
  });
});

describe('toolrow chat (a real process, a real OpenAI-compatible socket)', () => {
  it('answers, asks at the prompt, and leaves at the end of input', async () => {
    const server = await fakeOpenAIServer([
      [{ tool: 'listConnections', input: {} }],
      [{ tool: 'runQuery', input: { sql: 'select 1' } }],
      [{ text: 'I did not run it.' }],
    ]);
    const dataDir = await mkdtemp(join(tmpdir(), 'toolrow-chat-'));
    try {
      const result = await spawnCli(['chat', '--profile', 'cli-test', '--mode', 'manual'], {
        env: {
          TOOLROW_MODEL: `openai-compatible:${server.url}#tiny`,
          TOOLROW_DATA_DIR: dataDir,
          DATABASE_URL: undefined,
        },
        input: 'count something\nn\n',
      });
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(
        /^Toolrow chat · openai-compatible:http:\/\/127\.0\.0\.1:\d+\S*#tiny · PGlite at .*pgdata · profile cli-test \(Manual mode\)/,
      );
      expect(result.stdout).toMatch(/ {2}· listConnections \{\} → .*"active":true/);
      expect(result.stdout).toContain('  ? Run query: select 1\n');
      expect(result.stdout).toContain('I did not run it.');
      expect(result.stdout).toContain('(tokens: 360 in, 300 cached, 21 out)');
      expect(server.requests).toHaveLength(3);
    } finally {
      await server.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('toolrow chat uses the model saved in the app’s Settings', () => {
  it('the saved model and its sealed key win over TOOLROW_MODEL, for that profile', async () => {
    const key = 'sk-cli-9b8a7c6d5e4f';
    const server = await startChatServer(() => ({ text: 'Hello from the saved model.' }), { apiKey: key });
    const root = await mkdtemp(join(tmpdir(), 'toolrow-chat-saved-'));
    const env = { TOOLROW_DATA_DIR: join(root, 'data'), XDG_CONFIG_HOME: join(root, 'config') };
    try {
      const state = await openAppState({ env, cwd: root });
      try {
        await state.models.set('cli-saved', {
          provider: 'openai-compatible',
          baseURL: server.baseURL,
          modelId: 'saved-model',
        });
        await writeModelKey(env, state.dataDir, 'cli-saved', key);
      } finally {
        await state.close();
      }
      const result = await spawnCli(['chat', '--profile', 'cli-saved'], {
        env: { ...env, DATABASE_URL: undefined, TOOLROW_MODEL: 'openai:gpt-no-key-here' },
        input: 'hello\n',
      });
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      expect(result.stdout).toContain(`Toolrow chat · openai-compatible:${server.baseURL}#saved-model · `);
      expect(result.stdout).toContain('Hello from the saved model.');
      expect(server.requests.map((request) => [request.model, request.authorization])).toEqual([
        ['saved-model', `Bearer ${key}`],
      ]);
    } finally {
      await server.close();
      await rm(root, { recursive: true, force: true });
    }
  }, 120_000);
});
