import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { EvalReport } from '@toolrow/eval';
import { type ChatServer, floorModel, searchingModel, startChatServer } from '@toolrow/eval/testing';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, spawnCli } from '../testing.ts';

// Five requests that need a discoverable tool, three that an inline tool answers.
const ONLY = [
  'audit-log',
  'specs-mine',
  'export-done',
  'rel-references',
  'propose-export-button',
  'tables-what',
  'count-pending',
  'propose-open-refunds',
].join(',');

describe('toolrow eval, through a real OpenAI-compatible server', () => {
  let floor: ChatServer;
  let searching: ChatServer;
  let dir: string;
  let env: Record<string, string>;
  const runs: Record<
    'floor' | 'searching',
    { code: number; stdout: string; stderr: string; report: EvalReport }
  > = {} as never;

  beforeAll(async () => {
    [floor, searching, dir] = await Promise.all([
      startChatServer(floorModel()),
      startChatServer(searchingModel()),
      mkdtemp(join(tmpdir(), 'toolrow-eval-cli-')),
    ]);
    env = { TOOLROW_DATA_DIR: join(dir, 'data'), TOOLROW_MODEL: '' };
    for (const [name, server] of [
      ['floor', floor],
      ['searching', searching],
    ] as const) {
      const result = await runCli(
        [
          'eval',
          '--model',
          `openai-compatible:${server.baseURL}#${name}`,
          '--only',
          ONLY,
          '--concurrency',
          '4',
          '--orders',
          '200',
          '--json',
          `${name}.json`,
          '--html',
          `${name}.html`,
        ],
        env,
        dir,
      );
      const report = JSON.parse(await readFile(join(dir, `${name}.json`), 'utf8')) as EvalReport;
      runs[name] = { ...result, report };
    }
    // Two eval runs of 8 requests, each on its own in-memory shop: minutes on a loaded 2-core machine.
  }, 600_000);
  afterAll(async () => {
    await Promise.all([floor?.close(), searching?.close()]);
    await rm(dir, { recursive: true, force: true });
  });

  it('tells the floor model from the searching one in search rate and success on discoverable tools', () => {
    const a = runs.floor.report.summary;
    const b = runs.searching.report.summary;
    expect(runs.floor.code).toBe(0);
    expect(runs.searching.code).toBe(0);
    expect([a.attempts, a.discoverable.attempts, a.inline.attempts]).toEqual([8, 5, 3]);
    expect(a.discoverable).toMatchObject({ searchRate: 0, passRate: 0 });
    expect(b.discoverable).toMatchObject({ searchRate: 1, passRate: 1 });
    // Inline requests need no search: both pass them.
    expect([a.inline.passRate, b.inline.passRate]).toEqual([1, 1]);
    expect(b.errors + a.errors).toBe(0);
    // The provider reported usage over real HTTP; the approval ladder asked for countRows and got a yes.
    expect(b.meanInputTokens).toBeGreaterThan(1000);
    const count = runs.searching.report.requests.find((r) => r.id === 'count-pending')?.attempts[0];
    expect(count?.calls).toEqual([{ tool: 'countRows', outcome: 'ran', asked: true }]);
    const audit = runs.searching.report.tools.find((t) => t.tool === 'listAuditLog');
    expect(audit).toMatchObject({
      visibility: 'discoverable',
      attempts: 1,
      passRate: 1,
      searchRate: 1,
      foundRate: 1,
    });
    // Both went over the wire: the floor model was never sent a tool it could not see.
    expect(floor.requests.every((request) => !request.tools.includes('listAuditLog'))).toBe(true);
    expect(searching.requests.some((request) => request.tools.includes('listAuditLog'))).toBe(true);
  });

  it('prints a summary and progress, and keeps the latest run where the app reads it', async () => {
    expect(runs.floor.stdout).toContain(
      'toolrow eval · openai-compatible.chat:floor · manual mode · 8 requests × 1 run',
    );
    expect(runs.floor.stdout).toMatch(/needing a search\s+0% of 5; searched in 0%/);
    expect(runs.searching.stdout).toMatch(/needing a search\s+100% of 5; searched in 100%/);
    expect(runs.floor.stdout).toMatch(/audit-log\s+0%\s+expected listAuditLog; called no tool/);
    expect(runs.floor.stderr).toContain('eval: 100% (8/8, 3 passed)');
    const latest = JSON.parse(await readFile(join(dir, 'data', 'eval', 'latest.json'), 'utf8')) as EvalReport;
    expect(latest.model).toBe('openai-compatible.chat:searching');
    expect(latest.startedAt).toBe(runs.searching.report.startedAt);
  });

  it('compare shows what got better and what got worse', async () => {
    const forward = await runCli(['eval', 'compare', 'floor.json', 'searching.json'], env, dir);
    expect(forward.code).toBe(0);
    expect(forward.stdout).toMatch(/search-needing requests passed\s+0%\s+100%\s+▲ \+100/);
    expect(forward.stdout).toMatch(/worse \(0\):/);
    expect(forward.stdout).toMatch(/better \(\d+\):[\s\S]*listAuditLog passed\s+0%\s+100%/);
    const back = await runCli(['eval', 'compare', 'searching.json', 'floor.json'], env, dir);
    expect(back.stdout).toMatch(/worse \(\d+\):[\s\S]*audit-log\s+100%\s+0%\s+▼ -100/);
    expect(back.stdout).toMatch(/better \(0\):/);
  });

  it('writes an HTML report whose charts render in Chromium', async () => {
    const browser = await chromium.launch({
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: ['--headless', '--no-sandbox', '--disable-gpu'],
    });
    try {
      const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
      await page.goto(pathToFileURL(join(dir, 'searching.html')).href);
      const chart = page.locator('#chart-tools');
      // Two bars per tool that has requests: passed and searched.
      const tools = runs.searching.report.tools.filter((tool) => tool.attempts > 0).length;
      expect(await chart.locator('rect').count()).toBe(tools * 2);
      expect(await page.locator('#chart-tokens rect').count()).toBe(8 * 2);
      // The first tool in row order with requests, listTables, passed every attempt: its bar is
      // drawn full width in the pass colour. Read the pixel from a real screenshot.
      const shot = await chart.screenshot();
      const box = await chart.boundingBox();
      const bar = await chart.locator('rect').first().boundingBox();
      expect(box).not.toBeNull();
      expect(bar?.width).toBeGreaterThan(400);
      const at = {
        png: shot.toString('base64'),
        x: Math.round(bar!.x - box!.x + bar!.width / 2),
        y: Math.round(bar!.y - box!.y + 4),
      };
      // A string, because this package's types have no DOM: it runs in the page.
      const pixel = await page.evaluate(`(async ({ png, x, y }) => {
        const image = new Image();
        image.src = 'data:image/png;base64,' + png;
        await image.decode();
        const canvas = document.createElement('canvas');
        canvas.width = image.width;
        canvas.height = image.height;
        const context = canvas.getContext('2d');
        context.drawImage(image, 0, 0);
        return [...context.getImageData(x, y, 1, 1).data.slice(0, 3)];
      })(${JSON.stringify(at)})`);
      expect(pixel).toEqual([0x2f, 0x9e, 0x44]);
      expect(await page.title()).toBe('toolrow eval · openai-compatible.chat:searching');
    } finally {
      await browser.close();
    }
  });

  it('the real bin reads TOOLROW_MODEL, and --fail-under fails a run below it', {
    timeout: 300_000,
  }, async () => {
    const result = await spawnCli(['eval', '--only', 'audit-log,tables-what', '--fail-under', '75'], {
      env: { ...env, TOOLROW_MODEL: `openai-compatible:${floor.baseURL}#floor-bin` },
      cwd: dir,
    });
    expect(result.stdout).toContain(
      'toolrow eval · openai-compatible.chat:floor-bin · manual mode · 2 requests × 1 run',
    );
    expect(result.stdout).toMatch(/passed\s+50% of 2 attempts/);
    expect(result.stderr).toContain('toolrow eval: 50% passed, under --fail-under 75%.');
    expect(result.code).toBe(1);
  });

  it('names bad arguments with exit code 2, and a missing model with 1', async () => {
    const zero = await runCli(['eval', '--runs', '0'], env, dir);
    expect([zero.code, zero.stderr]).toEqual([
      2,
      expect.stringContaining("--runs must be a whole number from 1 to 100, got '0'."),
    ]);
    const none = await runCli(['eval', '--only', 'no-such-request'], env, dir);
    expect([none.code, none.stderr]).toEqual([
      2,
      expect.stringContaining("--only 'no-such-request' matches no request id"),
    ]);
    const one = await runCli(['eval', 'compare', 'floor.json'], env, dir);
    expect([one.code, one.stderr]).toEqual([2, expect.stringContaining('eval compare needs two reports')]);
    const bad = await runCli(['eval', 'compare', 'floor.html', 'floor.json'], env, dir);
    expect([bad.code, bad.stderr]).toEqual([1, expect.stringContaining('is not JSON')]);
    const model = await runCli(['eval', '--only', 'audit-log'], env, dir);
    expect([model.code, model.stderr]).toEqual([
      1,
      expect.stringContaining('No model is set for profile default. Pick one in the app'),
    ]);
    expect(existsSync(join(dir, 'data', 'pgdata'))).toBe(false);
  });

  it('a model it cannot reach fails the run (exit 1) and keeps the last real run', async () => {
    const latest = join(dir, 'data', 'eval', 'latest.json');
    const before = await readFile(latest, 'utf8');
    const result = await runCli(
      [
        'eval',
        '--model',
        'openai-compatible:http://127.0.0.1:1/v1#nowhere',
        '--only',
        'audit-log',
        '--orders',
        '50',
      ],
      env,
      dir,
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /every attempt failed before a turn could finish, so nothing was graded and the last run \(.*latest\.json\) was kept\. The first error: .*Cannot connect/,
    );
    expect(result.stderr).toContain('Check the model (openai-compatible');
    expect(await readFile(latest, 'utf8')).toBe(before);
  }, 120_000);
});
