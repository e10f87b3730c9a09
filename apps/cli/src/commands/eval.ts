import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { isPermissionMode, PERMISSION_MODES, type PermissionMode, resolveModel } from '@toolrow/agent';
import { ensurePrivateDir } from '@toolrow/datasource-utils';
import { installedEngines } from '@toolrow/engines';
import {
  buildReport,
  CORPUS,
  compareReports,
  type EvalReport,
  formatComparison,
  formatSummary,
  parseReport,
  renderHtml,
  requestsServedBy,
  runEval,
  selectRequests,
} from '@toolrow/eval';
import { resolveDataDir } from '@toolrow/state';
import { type Command, type CommandIo, UsageError } from '../command.ts';
import { toJson } from '../format.ts';
import { modelForCommand } from '../model.ts';

const USAGE = `Usage: toolrow eval [--model <spec>] [--runs N] [--concurrency K] [--only <ids>] [--limit N]
                    [--mode manual|auto|full-auto] [--orders N] [--database-url <url>]
                    [--json <file>] [--html <file>]
                    [--fail-under <percent>]
       toolrow eval compare <before.json> <after.json>

Runs the ${CORPUS.length} requests of the corpus (as users type them) through the real agent loop and
tools, each on a fresh seeded sample shop (in memory; your data is never touched), and grades every
turn: the right tool picked, searched when the tool was discoverable, wrong-twin picks, refusals.

  --model <spec>      the model (default: TOOLROW_MODEL), e.g. bedrock:<model id> or
                      openai-compatible:http://127.0.0.1:11434/v1#qwen3:8b
  --runs N            repeats of every request (default 1)
  --concurrency K     requests in flight at once (default 4)
  --only <ids>        only requests whose id contains one of these comma-separated words
  --limit N           at most N requests
  --mode <mode>       the profile's permission mode (default manual); every ask is answered yes
  --orders N          orders in the sample shop (default 1000)
  --database-url <u>  run on this connection (dynamodb://…, postgres://…) instead of an embedded
                      PostgreSQL: the shop is seeded there unless it is there already, and only
                      the requests whose tools its engine serves run
  --json <file>       write the full report as JSON (compare reads it)
  --html <file>       write a self-contained HTML report with charts
  --fail-under <pct>  exit 1 when fewer than this percentage of attempts pass

The latest run is also kept in <data dir>/eval/latest.json, where the app's Agent tools page reads it.`;

/** Where the app finds the latest run. */
export function latestRunPath(io: Pick<CommandIo, 'env' | 'cwd'>): string {
  return join(resolveDataDir({ env: io.env, cwd: io.cwd }), 'eval', 'latest.json');
}

function whole(name: string, value: string | undefined, fallback: number, max: number): number {
  if (value === undefined) return fallback;
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1 || number > max) {
    throw new UsageError(`--${name} must be a whole number from 1 to ${max}, got '${value}'.`);
  }
  return number;
}

/** Redrawn in place on a terminal; a line every 10% otherwise (logs, CI). */
function progressBar(io: CommandIo, total: number) {
  const tty = io.env === process.env && process.stderr.isTTY === true;
  const width = 30;
  let lastStep = -1;
  let drawn = false;
  return {
    update(done: number, passed: number, label: string) {
      const ratio = total === 0 ? 1 : Math.min(1, done / total);
      const percent = Math.floor(ratio * 100);
      const tally = `${done}/${total}, ${passed} passed`;
      if (tty) {
        const filled = Math.round(ratio * width);
        io.stderr(`\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${tally} · ${label}\u001b[K`);
        drawn = true;
        return;
      }
      const step = Math.floor(percent / 10);
      if (step > lastStep) {
        lastStep = step;
        io.stderr(`eval: ${percent}% (${tally})\n`);
      }
    },
    end() {
      if (tty && drawn) io.stderr('\n');
    },
  };
}

async function write(path: string, text: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, text);
}

async function compare(paths: string[], io: CommandIo): Promise<number> {
  if (paths.length !== 2) {
    throw new UsageError(`eval compare needs two reports (before and after), got ${paths.length}.`);
  }
  const reports: EvalReport[] = [];
  for (const path of paths) {
    const file = resolve(io.cwd, path);
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch {
      throw new Error(`cannot read ${file}: write one with toolrow eval --json ${path}`);
    }
    reports.push(parseReport(text, file));
  }
  const [before, after] = reports as [EvalReport, EvalReport];
  io.stdout(formatComparison(before, after, compareReports(before, after)));
  return 0;
}

export const evalCommand: Command = {
  usage: USAGE,
  async run(args, io) {
    if (args[0] === 'compare') return compare(args.slice(1), io);
    let values: Record<string, string | undefined>;
    try {
      values = parseArgs({
        args,
        options: {
          model: { type: 'string' },
          runs: { type: 'string' },
          concurrency: { type: 'string' },
          only: { type: 'string' },
          limit: { type: 'string' },
          mode: { type: 'string' },
          json: { type: 'string' },
          html: { type: 'string' },
          orders: { type: 'string' },
          'database-url': { type: 'string' },
          'fail-under': { type: 'string' },
        },
        allowPositionals: false,
      }).values as Record<string, string | undefined>;
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
    const runs = whole('runs', values.runs, 1, 100);
    const concurrency = whole('concurrency', values.concurrency, 4, 64);
    const orders = whole('orders', values.orders, 1000, 1_000_000);
    const limit = values.limit === undefined ? undefined : whole('limit', values.limit, 1, 100_000);
    if (values.mode !== undefined && !isPermissionMode(values.mode)) {
      throw new UsageError(`--mode must be one of ${PERMISSION_MODES.join(', ')}, not '${values.mode}'.`);
    }
    const mode = (values.mode ?? 'manual') as PermissionMode;
    const failUnder = values['fail-under'] === undefined ? undefined : Number(values['fail-under']);
    if (failUnder !== undefined && !(failUnder >= 0 && failUnder <= 100)) {
      throw new UsageError(`--fail-under must be a percentage from 0 to 100, got '${values['fail-under']}'.`);
    }
    const databaseUrl = values['database-url'];
    // On another engine only the requests whose tools it serves (the rows' engines decide).
    const descriptor = databaseUrl
      ? installedEngines.forUrl(databaseUrl, '--database-url')
      : installedEngines.fallback;
    const engine = { engine: descriptor.id, features: descriptor.features };
    const requests = selectRequests(requestsServedBy(CORPUS, engine), values.only, limit);
    if (requests.length === 0) {
      throw new UsageError(
        `--only '${values.only}' matches no request id. Ids look like ${CORPUS.slice(0, 3)
          .map((r) => r.id)
          .join(', ')}.`,
      );
    }
    // --model, else the model saved in Settings, else TOOLROW_MODEL.
    const model = values.model
      ? await resolveModel({ ...io.env, TOOLROW_MODEL: values.model }, { settingName: '--model' })
      : (await modelForCommand(io)).model;
    // Reports name the model as the provider does (short, stable across base URLs).
    const modelName = `${model.provider}:${model.modelId}`;
    io.stderr(
      `toolrow eval: ${requests.length} requests × ${runs} on ${modelName} (${mode} mode, ${concurrency} at a time)\n`,
    );
    const bar = progressBar(io, requests.length * runs);
    let passed = 0;
    const startedAt = new Date();
    const results = await runEval({
      model,
      requests,
      runs,
      concurrency,
      mode,
      orders,
      ...(databaseUrl ? { databaseUrl } : {}),
      onProgress: ({ done, request, attempt }) => {
        if (attempt.pass) passed++;
        bar.update(done, passed, `${request.id} ${attempt.pass ? 'ok' : 'FAIL'}`);
      },
    });
    bar.end();
    // Every attempt failed before a turn finished (the model unreachable, a bad key): that grades
    // the set-up, not the model, and must not replace the last real run.
    const attempts = results.flatMap((result) => result.attempts);
    const broken = attempts.find((attempt) => attempt.error !== undefined);
    if (attempts.length > 0 && attempts.every((attempt) => attempt.error !== undefined)) {
      io.stderr(
        `toolrow eval: every attempt failed before a turn could finish, so nothing was graded and the last run (${latestRunPath(io)}) was kept. The first error: ${broken?.error}\nCheck the model (${modelName}): is it running and reachable, and is its key set?\n`,
      );
      return 1;
    }
    const report = buildReport(results, { model: modelName, mode, runs, startedAt, finishedAt: new Date() });
    io.stdout(formatSummary(report));
    const json = toJson(report);
    const written: string[] = [];
    if (values.json) {
      const path = resolve(io.cwd, values.json);
      await write(path, json);
      written.push(`JSON: ${path}`);
    }
    if (values.html) {
      const path = resolve(io.cwd, values.html);
      await write(path, renderHtml(report));
      written.push(`HTML: ${path}`);
    }
    const latest = latestRunPath(io);
    // The data dir is the user's alone; this may be the first thing written into it.
    await ensurePrivateDir(resolveDataDir({ env: io.env, cwd: io.cwd }), 'The Toolrow data directory');
    await write(latest, json);
    written.push(`latest run (the app's Agent tools page): ${latest}`);
    io.stdout(`\n${written.join('\n')}\n`);
    if (failUnder !== undefined && report.summary.passRate * 100 < failUnder) {
      io.stderr(
        `toolrow eval: ${Math.round(report.summary.passRate * 100)}% passed, under --fail-under ${failUnder}%.\n`,
      );
      return 1;
    }
    return 0;
  },
};
