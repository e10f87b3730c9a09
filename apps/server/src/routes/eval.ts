// The latest `toolrow eval` run, per row, for the Agent tools page.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { EvalLatest } from '@toolrow/desktop/wire';
import type { EvalReport } from '@toolrow/eval';
import { Hono } from 'hono';
import type { ServerEnv } from '../request-connection.ts';

import type { RouteContext } from './context.ts';

export function evalRoutes(ctx: RouteContext): Hono<ServerEnv> {
  const { options } = ctx;
  const app = new Hono<ServerEnv>();

  app.get('/api/eval/latest', async (c) =>
    c.json(
      await readLatestEval(
        options.latestEvalPath ?? join(c.var.connection.source.dataDir, 'eval', 'latest.json'),
      ),
    ),
  );
  return app;
}

/** The per-row figures of the run `toolrow eval` last wrote, or why there is none. */
export async function readLatestEval(path: string): Promise<EvalLatest> {
  const hint =
    'Run `npx toolrow eval --model <your model>` to measure how the agent finds and picks each tool (see the README).';
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    return { run: null, hint: `No eval run yet (${path} does not exist). ${hint}` };
  }
  let report: EvalReport;
  try {
    report = JSON.parse(text) as EvalReport;
  } catch {
    report = {} as EvalReport;
  }
  if (report.format !== 'toolrow-eval/1' || !Array.isArray(report.tools)) {
    return { run: null, hint: `${path} is not a toolrow eval report. ${hint}` };
  }
  return {
    run: {
      model: report.model,
      mode: report.mode,
      runs: report.runs,
      finishedAt: report.finishedAt,
      requests: report.requests?.length ?? 0,
      passRate: report.summary.passRate,
      searchRate: report.summary.discoverable.searchRate,
      tools: report.tools.map((tool) => ({
        tool: tool.tool,
        attempts: tool.attempts,
        passRate: tool.passRate,
        searchRate: tool.searchRate,
        foundRate: tool.foundRate,
        wrongTwinPicks: tool.wrongTwinPicks,
      })),
    },
  };
}
