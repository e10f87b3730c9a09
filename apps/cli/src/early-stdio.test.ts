// The bin answers `toolrow mcp --stdio`'s handshake before the rest loads (early-stdio.js): which
// arguments do that, and that what it answers is exactly what the real server would have, after
// which the real server (attached later) serves the same client.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { createToolrowMcpServer, SERVER_NAME, SERVER_VERSION } from '@toolrow/mcp-server';
import { describe, expect, it } from 'vitest';
import { rowsListedAt } from '../../../packages/mcp-server/test/expected.ts';
import { servesStdio } from './early-stdio.js';
import { TOOLROW_BIN } from './testing.ts';

describe('servesStdio', () => {
  it.each([
    [['mcp', '--stdio'], true],
    [['mcp', '--stdio', '--scope', 'tables:staged'], true],
    [['--connection', 'shop', 'mcp', '--stdio'], true],
    [['--connection=shop', 'mcp', '--stdio'], true],
    [['mcp', '--stdio', '--help'], false],
    [['mcp', '--http'], false],
    [['mcp', '--stdio', '--http'], false],
    [['mcp', 'token', 'list'], false],
    [['call', '--stdio'], false],
    [[], false],
  ])('%j → %s', (argv, expected) => {
    expect(servesStdio(argv)).toBe(expected);
  });
});

describe('the early answer to initialize', () => {
  it('is what the real server answers, and the real server then serves the same client', async () => {
    // The real server's own handshake, in process.
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const backend = new Promise<never>(() => {});
    const real = createToolrowMcpServer(backend, backend);
    await real.connect(serverSide);
    const reference = new Client({ name: 'reference', version: '0' });
    await reference.connect(clientSide);

    const dir = await mkdtemp(join(tmpdir(), 'toolrow-early-stdio-'));
    const client = new Client({ name: 'early', version: '0' });
    try {
      await client.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: [TOOLROW_BIN, 'mcp', '--stdio'],
          env: { PATH: process.env.PATH ?? '', TOOLROW_DATA_DIR: join(dir, 'data'), DATABASE_URL: '' },
          stderr: 'pipe',
        }),
      );
      expect(client.getServerVersion()).toEqual({ name: SERVER_NAME, version: SERVER_VERSION });
      expect(client.getServerVersion()).toEqual(reference.getServerVersion());
      expect(client.getServerCapabilities()).toEqual(reference.getServerCapabilities());
      expect(client.getInstructions()).toBe(reference.getInstructions());
      await client.ping();
      // Attached once loaded: the list comes from the real server (its initialize answer dropped).
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(
        rowsListedAt('tables:readonly'),
      );
      await client.ping();
    } finally {
      await client.close();
      await reference.close();
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
