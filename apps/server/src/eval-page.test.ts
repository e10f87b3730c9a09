// The latest `toolrow eval` run on the Agent tools page: the route reads the file the command
// writes, the production bundle in Chromium shows it next to each row.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TOOL_NAMES } from '@toolrow/catalog';
import type { EvalLatest } from '@toolrow/desktop/wire';
import { buildReport, CORPUS, grade, type TracedCall } from '@toolrow/eval';
import type { Toolrow } from '@toolrow/state';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  api,
  collectPageErrors,
  ensureBundle,
  launchBrowser,
  openSeededSource,
  startTestServer,
} from './test-support.ts';

let toolrow: Toolrow;
let browser: Browser;
let dir: string;

beforeAll(async () => {
  await ensureBundle();
  [toolrow, browser, dir] = await Promise.all([
    openSeededSource(200),
    launchBrowser(),
    mkdtemp(join(tmpdir(), 'toolrow-eval-page-')),
  ]);
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await toolrow?.close();
  await rm(dir, { recursive: true, force: true });
});

/** A run where the model found the audit log with a search and never searched for an export. */
function report() {
  const attempt = (id: string, calls: TracedCall[]) => {
    const request = CORPUS.find((r) => r.id === id)!;
    return {
      request,
      attempts: [
        {
          run: 0,
          calls,
          ...grade(request, calls),
          steps: 2,
          inputTokens: 5000,
          outputTokens: 40,
          latencyMs: 900,
          text: 'ok',
        },
      ],
    };
  };
  return buildReport(
    [
      attempt('audit-log', [
        { tool: 'searchTools', outcome: 'ran', query: 'audit log', found: ['listAuditLog'] },
        { tool: 'listAuditLog', outcome: 'ran' },
      ]),
      attempt('export-now', []),
    ],
    { model: 'bedrock:cheap-model', mode: 'manual', runs: 1, startedAt: new Date(), finishedAt: new Date() },
  );
}

describe('the latest eval run', () => {
  it('GET /api/eval/latest says how to make one before the first run, then serves its per-row figures', async () => {
    const path = join(dir, 'latest.json');
    const app = await startTestServer(toolrow, { latestEvalPath: path, desktopDir: null });
    try {
      const before = await api<EvalLatest>(app, '/api/eval/latest');
      expect(before.run).toBeNull();
      expect(before.hint).toContain(
        `No eval run yet (${path} does not exist). Run \`npx toolrow eval --model <your model>\``,
      );
      await writeFile(path, 'not json');
      expect((await api<EvalLatest>(app, '/api/eval/latest')).hint).toContain('is not a toolrow eval report');
      await writeFile(path, JSON.stringify(report()));
      const after = await api<EvalLatest>(app, '/api/eval/latest');
      expect(after.run).toMatchObject({
        model: 'bedrock:cheap-model',
        requests: 2,
        passRate: 0.5,
        searchRate: 0.5,
      });
      expect(after.run?.tools.find((tool) => tool.tool === 'listAuditLog')).toEqual({
        tool: 'listAuditLog',
        attempts: 1,
        passRate: 1,
        searchRate: 1,
        foundRate: 1,
        wrongTwinPicks: 0,
      });
    } finally {
      await app.close();
    }
  });

  it('the Agent tools page shows it next to each row', async () => {
    const path = join(dir, 'page.json');
    await writeFile(path, JSON.stringify(report()));
    const app = await startTestServer(toolrow, { latestEvalPath: path });
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const page = await context.newPage();
    const errors = collectPageErrors(page);
    try {
      await page.goto(app.openUrl);
      await page.getByRole('button', { name: 'Agent tools' }).click();
      const rows = page.getByTestId('tool-row');
      await expect.poll(() => rows.count()).toBe(TOOL_NAMES.length);
      await expect
        .poll(() => page.getByTestId('eval-summary').textContent())
        .toMatch(
          /^Latest eval: bedrock:cheap-model · 2 requests × 1 · 50% passed · searched in 50% of the requests that needed it/,
        );
      const cell = (name: string) =>
        rows.filter({ has: page.getByText(name, { exact: true }) }).getByTestId('tool-eval');
      expect(await cell('listAuditLog').textContent()).toBe('100% passed · 100% searched');
      expect(await cell('startExport').textContent()).toBe('0% passed · 0% searched');
      expect(await cell('setFilter').textContent()).toBe('–');
      expect(errors).toEqual([]);
    } finally {
      await context.close();
      await app.close();
    }
  });
});
