// The README's "Connecting an MCP client" section, run as written: its stdio client config starts
// Toolrow through `npx` and a real SDK client talks to it; its HTTP path starts `npx toolrow serve
// --mcp`, makes a token with the README's command and connects to the endpoint its config names.
// If the README's commands or configs stop working, this fails.
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './testing.ts';

const ROOT = join(import.meta.dirname, '../../..');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const SECTION = README.slice(
  README.indexOf('### Connecting an MCP client'),
  README.indexOf('## What the model sees'),
);

interface ClientConfig {
  command?: string;
  args?: string[];
  type?: string;
  url?: string;
}
const CONFIGS: ClientConfig[] = [...SECTION.matchAll(/```json\n([\s\S]*?)```/g)].map(
  (match) => (JSON.parse(match[1]!) as { mcpServers: { toolrow: ClientConfig } }).mcpServers.toolrow,
);
/** A command the section writes in backticks, as words. */
const command = (pattern: RegExp): string[] => {
  const found = new RegExp(`\`(${pattern.source})\``).exec(SECTION)?.[1];
  if (!found) throw new Error(`The README's MCP section no longer shows ${pattern}`);
  return found.split(' ');
};

describe("the README's MCP section, run as written", () => {
  let dir: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'toolrow-readme-mcp-'));
    env = { TOOLROW_DATA_DIR: join(dir, 'data') };
    const seeded = await runCli(['db', 'seed', '--orders', '40'], env, ROOT);
    expect(seeded.code, seeded.stderr).toBe(0);
  }, 180_000);
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('shows a stdio config and an HTTP config side by side', () => {
    expect(CONFIGS.map((config) => (config.command ? 'stdio' : config.type))).toEqual(['stdio', 'http']);
    expect(SECTION).toMatch(/\| *\| over stdio[^|]*\| over HTTP/);
  });

  it('stdio: the config starts Toolrow through npx, and a client reads the tables at tables:readonly', async () => {
    const config = CONFIGS.find((each) => each.command)!;
    const transport = new StdioClientTransport({
      command: config.command!,
      args: config.args!,
      env: { ...(process.env as Record<string, string>), ...env },
      cwd: ROOT,
      stderr: 'pipe',
    });
    const client = new Client({ name: 'readme-stdio', version: '1.0.0' });
    await client.connect(transport);
    try {
      const names = (await client.listTools()).tools.map((tool) => tool.name);
      expect(names).toContain('countRows');
      expect(names).not.toContain('stageUpdateRows'); // readonly: nothing that stages
      const tables = await client.callTool({ name: 'listTables', arguments: {} });
      expect(JSON.stringify(tables.structuredContent)).toContain('orders');
      // A gated read in Manual mode with no app running: refused at once, saying where approvals happen.
      const counted = await client.callTool({ name: 'countRows', arguments: { table: 'orders' } });
      expect(counted.isError).toBe(true);
      expect(JSON.stringify(counted.content)).toMatch(/app/i);
    } finally {
      await client.close();
    }
  }, 120_000);

  it('HTTP: `npx toolrow serve --mcp`, a token from the README command, a client at the /mcp its config names', async () => {
    const serve = command(/npx toolrow serve --mcp/);
    const app = await start(serve, ['--port', '0', '--no-build'], env);
    try {
      const tokenCommand = command(/npx toolrow mcp token create --scope tables:readonly/).slice(2);
      const made = await runCli([...tokenCommand, '--json'], env, ROOT);
      expect(made.code, made.stderr).toBe(0);
      const { token } = JSON.parse(made.stdout) as { token: string };
      const config = CONFIGS.find((each) => each.type === 'http')!;
      const endpoint = new URL(config.url!);
      expect(endpoint.pathname).toBe('/mcp');
      // The README's URL is the default port; this run took a free one.
      const client = new Client({ name: 'readme-http', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(endpoint.pathname, app.url), {
          requestInit: { headers: { authorization: `Bearer ${token}` } },
        }),
      );
      try {
        // A silent read answers at once (a gated one would wait in the app's inbox, as the README says).
        const tables = await client.callTool({ name: 'listTables', arguments: {} });
        expect(JSON.stringify(tables.structuredContent)).toContain('orders');
        expect((await client.listTools()).tools.map((tool) => tool.name)).not.toContain('stageUpdateRows');
      } finally {
        await client.close();
      }
    } finally {
      // npx runs toolrow as its child: the signal goes to the whole group, as Ctrl-C would.
      process.kill(-app.child.pid!, 'SIGINT');
      await app.exit;
    }
  }, 180_000);
});

/** Runs a README command (`npx toolrow …`) and waits for the URL it serves at. */
function start(
  words: string[],
  extra: string[],
  env: Record<string, string>,
): Promise<{ child: ChildProcess; url: string; exit: Promise<number | null> }> {
  const child = spawn(words[0]!, [...words.slice(1), ...extra], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    stderr += chunk;
  });
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const check = () => {
      const match = /MCP +on at (http:\/\/127\.0\.0\.1:\d+)\/mcp/.exec(stdout);
      if (match?.[1]) resolve({ child, url: match[1], exit });
    };
    child.stdout?.on('data', check);
    void exit.then((code) => reject(new Error(`exited ${code} before serving:\n${stderr}`)));
  });
}
