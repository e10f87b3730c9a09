// A chart from one request through the CLI (a file a person opens) and MCP (the real SDK client
// over stdio and over HTTP: structured content with the data, a PNG image, a text summary).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { hostileSpecs } from '@toolrow/charts/hostile-specs';
import { openToolrow } from '@toolrow/state';
import { createTestEnvironment, TEST_SEED_NOW } from '@toolrow/state/testing';
import { serviceUrl } from '@toolrow/test-services';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, TOOLROW_BIN } from '../testing.ts';

const serverUrl = serviceUrl('postgres');
const dataDir = mkdtempSync(join(tmpdir(), 'toolrow-cli-chart-'));
const env: Record<string, string> = { TOOLROW_DATA_DIR: dataDir, DATABASE_URL: '' };
let dropDatabase: (() => Promise<void>) | undefined;

const PER_STATUS = {
  sql: 'SELECT status, count(*) AS n FROM orders GROUP BY status',
  spec: { mark: 'bar', encoding: { x: { field: 'status' }, y: { field: 'n' } } },
  title: 'Orders per status',
};
const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
let statuses: string[] = [];

beforeAll(async () => {
  if (serverUrl) {
    const database = await createTestEnvironment('postgres');
    env.DATABASE_URL = database.env.DATABASE_URL!;
    env.TOOLROW_STATE_URL = database.env.TOOLROW_STATE_URL!;
    dropDatabase = database.cleanup;
  }
  const ds = await openToolrow({ env, cwd: dataDir });
  try {
    await ds.source.seed!({ orders: 80, now: TEST_SEED_NOW });
    await ds.source.schema.refresh({ analyze: true });
    // MCP calls here run at once; what the modes ask is tested in mcp-ladder.test.ts.
    await ds.state.profiles.setMode('default', 'full-auto');
    const { rows } = await ds.source.queries.run(PER_STATUS.sql, { maxRows: 100 });
    statuses = rows.map((row) => String(row.status));
  } finally {
    await ds.close();
  }
}, 120_000);

afterAll(async () => {
  await dropDatabase?.();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('toolrow call drawChart --out', () => {
  it('writes an SVG a person opens: the title, one bar per status, nothing fetched', async () => {
    const file = join(dataDir, 'chart.svg');
    const result = await runCli(['call', 'drawChart', JSON.stringify(PER_STATUS), '--out', file], env);
    expect(result.code, result.stderr).toBe(0);
    const printed = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(printed).toMatchObject({ written: file, mark: 'bar', points: statuses.length });
    expect(printed).not.toHaveProperty('display');
    const svg = readFileSync(file, 'utf8');
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg).toContain('Orders per status');
    for (const status of statuses) expect(svg).toContain(`>${status}<`);
  });

  it('writes a PNG', async () => {
    const file = join(dataDir, 'chart.png');
    const result = await runCli(['call', 'drawChart', JSON.stringify(PER_STATUS), '--out', file], env);
    expect(result.code, result.stderr).toBe(0);
    expect([...readFileSync(file).subarray(0, 8)]).toEqual(PNG_SIGNATURE);
  });

  it.each([
    [
      ['call', 'drawChart', JSON.stringify(PER_STATUS), '--out', 'chart.pdf'],
      2,
      "--out writes a chart as .svg or .png; 'chart.pdf'",
    ],
    [['call', 'countRows', '{"table":"orders"}', '--out', 'x.svg'], 2, "countRows's output has none"],
    [
      [
        'call',
        'drawChart',
        JSON.stringify({ ...PER_STATUS, spec: { mark: 'bar', encoding: { x: { field: 'statu' } } } }),
        '--out',
        'x.svg',
      ],
      1,
      "'statu' is not a column of the result: did you mean 'status'?",
    ],
  ])('%j exits %i: %s', async (argv, code, message) => {
    const result = await runCli(argv as string[], env);
    expect(result.code).toBe(code);
    expect(result.stderr).toContain(message);
  });
});

interface ChartCallResult {
  content: { type: string; text?: string; data?: string; mimeType?: string }[];
  structuredContent?: { points: number; display: { spec: { data: { values: unknown[] } } } };
  isError?: boolean;
}

async function expectChartOverMcp(client: Client): Promise<void> {
  const result = (await client.callTool({ name: 'drawChart', arguments: PER_STATUS })) as ChartCallResult;
  expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
  // The spec with its data, for hosts that draw it themselves.
  expect(result.structuredContent?.display.spec.data.values).toHaveLength(statuses.length);
  // A text summary without the data, for clients that read text.
  const text = JSON.parse(result.content[0]?.text ?? '{}') as Record<string, unknown>;
  expect(text).toMatchObject({ mark: 'bar', points: statuses.length });
  expect(text).not.toHaveProperty('display');
  // The chart as a PNG image, for hosts that show images.
  const image = result.content.find((block) => block.type === 'image');
  expect(image?.mimeType).toBe('image/png');
  expect([...Buffer.from(image?.data ?? '', 'base64').subarray(0, 8)]).toEqual(PNG_SIGNATURE);
  // Refusals reach the client as tool errors naming the fix, hostile specs included.
  const wrong = (await client.callTool({
    name: 'drawChart',
    arguments: {
      ...PER_STATUS,
      spec: { mark: 'bar', encoding: { x: { field: 'n' }, y: { field: 'status', type: 'quantitative' } } },
    },
  })) as ChartCallResult;
  expect(wrong.isError).toBe(true);
  expect(wrong.content[0]?.text).toContain("'status' holds text");
  for (const hostile of hostileSpecs('http://127.0.0.1:9')) {
    const refused = (await client.callTool({
      name: 'drawChart',
      arguments: { sql: PER_STATUS.sql, spec: hostile.spec },
    })) as ChartCallResult;
    expect(refused.isError, hostile.name).toBe(true);
  }
}

describe('drawChart over MCP', () => {
  it('over stdio: the data, a PNG and a summary', async () => {
    const client = new Client({ name: 'chart-test', version: '0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [TOOLROW_BIN, 'mcp', '--stdio'],
        env: { PATH: process.env.PATH ?? '', ...env },
        stderr: 'pipe',
      }),
    );
    try {
      await expectChartOverMcp(client);
    } finally {
      await client.close();
    }
  }, 120_000);

  it('over HTTP: the same', async () => {
    const created = await runCli(
      ['mcp', 'token', 'create', '--scope', 'tables:readonly', '--name', 'chart-http', '--json'],
      env,
    );
    expect(created.code, created.stderr).toBe(0);
    const { token } = JSON.parse(created.stdout) as { token: string };
    const child = spawn(process.execPath, [TOOLROW_BIN, 'mcp', '--http', '--port', '0'], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    try {
      const url = await new Promise<URL>((resolve, reject) => {
        let stdout = '';
        child.stdout.on('data', (chunk: Buffer) => {
          stdout += chunk.toString('utf8');
          const match = /on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(stdout);
          if (match) resolve(new URL(match[1] as string));
        });
        child.once('exit', (code) => reject(new Error(`toolrow mcp --http exited ${code}`)));
      });
      const client = new Client({ name: 'chart-test', version: '0' });
      await client.connect(
        new StreamableHTTPClientTransport(url, {
          requestInit: { headers: { Authorization: `Bearer ${token}` } },
        }),
      );
      try {
        await expectChartOverMcp(client);
      } finally {
        await client.close();
      }
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  }, 120_000);
});
