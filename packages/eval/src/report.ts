import { CATALOG_ROWS, isDiscoverable, type ToolVisibility } from '@toolrow/catalog';
import { type EvalRequest, toolsOf } from './corpus.ts';
import type { Attempt, RequestAttempts } from './run.ts';

/** The JSON `toolrow eval --json` writes; `toolrow eval compare` and the app read it. */
export interface EvalReport {
  format: 'toolrow-eval/1';
  model: string;
  mode: string;
  runs: number;
  startedAt: string;
  finishedAt: string;
  summary: EvalSummary;
  tools: ToolFigures[];
  requests: RequestFigures[];
}

export interface EvalSummary {
  attempts: number;
  passRate: number;
  /** Attempts whose request needs a discoverable tool. */
  discoverable: { attempts: number; passRate: number; searchRate: number };
  inline: { attempts: number; passRate: number };
  /** The requests on the large sample (1,000 more tables), when the run had any. */
  largeSchema?: { attempts: number; passRate: number; meanInputTokens: number | null };
  wrongTwinPicks: number;
  unaskedWrites: number;
  refusals: number;
  recovered: number;
  errors: number;
  meanSteps: number;
  meanInputTokens: number | null;
  meanOutputTokens: number | null;
  latencyP50Ms: number;
  latencyP95Ms: number;
}

export interface ToolFigures {
  tool: string;
  visibility: ToolVisibility;
  /** Attempts at requests whose steps name this tool. */
  attempts: number;
  passRate: number;
  /** Of those, the share where the model called searchTools. */
  searchRate: number;
  /** The share where one of the model's searches returned this tool. */
  foundRate: number;
  /** Times the model picked this tool where its twin was right. */
  wrongTwinPicks: number;
}

export interface RequestFigures {
  id: string;
  text: string;
  tools: string[];
  needsSearch: boolean;
  passRate: number;
  searchRate: number;
  meanInputTokens: number | null;
  meanOutputTokens: number | null;
  meanLatencyMs: number;
  attempts: Attempt[];
}

const share = (count: number, total: number) => (total === 0 ? 0 : count / total);
const mean = (values: readonly number[]) =>
  values.length === 0 ? 0 : values.reduce((sum, value) => sum + value, 0) / values.length;
function meanKnown(values: readonly (number | undefined)[]): number | null {
  const known = values.filter((value): value is number => value !== undefined);
  return known.length === 0 ? null : mean(known);
}
function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)] ?? 0;
}

export function buildReport(
  results: readonly RequestAttempts[],
  meta: { model: string; mode: string; runs: number; startedAt: Date; finishedAt: Date },
): EvalReport {
  const all = results.flatMap((entry) =>
    entry.attempts.map((attempt) => ({ request: entry.request, attempt })),
  );
  const attempts = all.map((item) => item.attempt);
  const discoverable = attempts.filter((a) => a.needsSearch);
  const inline = attempts.filter((a) => !a.needsSearch);
  const large = all.filter((item) => item.request.shop === 'large').map((item) => item.attempt);
  const passes = (list: readonly Attempt[]) => share(list.filter((a) => a.pass).length, list.length);
  const searches = (list: readonly Attempt[]) => share(list.filter((a) => a.searched).length, list.length);
  const sum = (pick: (a: Attempt) => number) => attempts.reduce((total, a) => total + pick(a), 0);

  const tools: ToolFigures[] = CATALOG_ROWS.map((row) => {
    const mine = all
      .filter((item) => (toolsOf(item.request) as string[]).includes(row.name))
      .map((i) => i.attempt);
    return {
      tool: row.name,
      visibility: row.visibility,
      attempts: mine.length,
      passRate: passes(mine),
      searchRate: searches(mine),
      foundRate: share(
        mine.filter((a) => a.calls.some((call) => call.found?.includes(row.name))).length,
        mine.length,
      ),
      wrongTwinPicks: attempts.reduce(
        (total, a) => total + a.wrongTwin.filter((t) => t === row.name).length,
        0,
      ),
    };
  });

  const requests: RequestFigures[] = results.map(({ request, attempts: mine }) => ({
    id: request.id,
    text: request.text,
    tools: toolsOf(request),
    needsSearch: mine[0]?.needsSearch ?? toolsOf(request).some(isDiscoverable),
    passRate: passes(mine),
    searchRate: searches(mine),
    meanInputTokens: meanKnown(mine.map((a) => a.inputTokens)),
    meanOutputTokens: meanKnown(mine.map((a) => a.outputTokens)),
    meanLatencyMs: mean(mine.map((a) => a.latencyMs)),
    attempts: mine,
  }));

  const latencies = attempts.map((a) => a.latencyMs);
  return {
    format: 'toolrow-eval/1',
    model: meta.model,
    mode: meta.mode,
    runs: meta.runs,
    startedAt: meta.startedAt.toISOString(),
    finishedAt: meta.finishedAt.toISOString(),
    summary: {
      attempts: attempts.length,
      passRate: passes(attempts),
      discoverable: {
        attempts: discoverable.length,
        passRate: passes(discoverable),
        searchRate: searches(discoverable),
      },
      inline: { attempts: inline.length, passRate: passes(inline) },
      ...(large.length > 0
        ? {
            largeSchema: {
              attempts: large.length,
              passRate: passes(large),
              meanInputTokens: meanKnown(large.map((a) => a.inputTokens)),
            },
          }
        : {}),
      wrongTwinPicks: sum((a) => a.wrongTwin.length),
      unaskedWrites: sum((a) => a.unaskedWrites.length),
      refusals: sum((a) => a.refusals),
      recovered: sum((a) => a.recovered),
      errors: attempts.filter((a) => a.error !== undefined).length,
      meanSteps: mean(attempts.map((a) => a.steps)),
      meanInputTokens: meanKnown(attempts.map((a) => a.inputTokens)),
      meanOutputTokens: meanKnown(attempts.map((a) => a.outputTokens)),
      latencyP50Ms: percentile(latencies, 0.5),
      latencyP95Ms: percentile(latencies, 0.95),
    },
    tools,
    requests,
  };
}

export const percent = (value: number) => `${Math.round(value * 100)}%`;
const tokens = (value: number | null) => (value === null ? '?' : Math.round(value).toLocaleString('en-US'));

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => cell.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
}

/** The terminal summary: headline numbers, per tool, then the requests that failed. */
export function formatSummary(report: EvalReport): string {
  const s = report.summary;
  const lines = [
    `toolrow eval · ${report.model} · ${report.mode} mode · ${report.requests.length} requests × ${report.runs} run${report.runs === 1 ? '' : 's'}`,
    '',
    `passed                ${percent(s.passRate)} of ${s.attempts} attempts`,
    `  inline requests     ${percent(s.inline.passRate)} of ${s.inline.attempts}`,
    `  needing a search    ${percent(s.discoverable.passRate)} of ${s.discoverable.attempts}; searched in ${percent(s.discoverable.searchRate)}`,
    ...(s.largeSchema
      ? [
          `  on 1,000+ tables    ${percent(s.largeSchema.passRate)} of ${s.largeSchema.attempts}; ${tokens(s.largeSchema.meanInputTokens)} input tokens per attempt`,
        ]
      : []),
    `wrong-twin picks      ${s.wrongTwinPicks}   unasked writes ${s.unaskedWrites}`,
    `refusals              ${s.refusals} (${s.recovered} recovered)   run errors ${s.errors}`,
    `per attempt           ${s.meanSteps.toFixed(1)} steps · ${tokens(s.meanInputTokens)} in / ${tokens(s.meanOutputTokens)} out tokens · p50 ${s.latencyP50Ms} ms, p95 ${s.latencyP95Ms} ms`,
    '',
    table(
      ['tool', 'visibility', 'attempts', 'passed', 'searched', 'found', 'wrong twin'],
      report.tools
        .filter((tool) => tool.attempts > 0)
        .map((tool) => [
          tool.tool,
          tool.visibility,
          String(tool.attempts),
          percent(tool.passRate),
          percent(tool.searchRate),
          percent(tool.foundRate),
          String(tool.wrongTwinPicks),
        ]),
    ),
  ];
  const failed = report.requests.filter((request) => request.passRate < 1);
  if (failed.length > 0) {
    lines.push('', `failed (${failed.length}):`);
    for (const request of failed) {
      const reason = request.attempts.find((a) => !a.pass)?.reason ?? '';
      lines.push(`  ${request.id.padEnd(28)} ${percent(request.passRate).padStart(4)}  ${reason}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

export interface Change {
  what: string;
  before: number;
  after: number;
}

export interface Comparison {
  summary: Change[];
  tools: Change[];
  requests: Change[];
}

/** What got better or worse between two runs (two models, or before and after a row edit). */
export function compareReports(before: EvalReport, after: EvalReport): Comparison {
  const summary: Change[] = [
    { what: 'passed', before: before.summary.passRate, after: after.summary.passRate },
    {
      what: 'inline requests passed',
      before: before.summary.inline.passRate,
      after: after.summary.inline.passRate,
    },
    {
      what: 'search-needing requests passed',
      before: before.summary.discoverable.passRate,
      after: after.summary.discoverable.passRate,
    },
    {
      what: 'searched when needed',
      before: before.summary.discoverable.searchRate,
      after: after.summary.discoverable.searchRate,
    },
  ];
  const toolsBefore = new Map(before.tools.map((tool) => [tool.tool, tool]));
  const tools: Change[] = [];
  for (const tool of after.tools) {
    const old = toolsBefore.get(tool.tool);
    if (!old || old.attempts === 0 || tool.attempts === 0) continue;
    if (old.passRate !== tool.passRate)
      tools.push({ what: `${tool.tool} passed`, before: old.passRate, after: tool.passRate });
    if (old.searchRate !== tool.searchRate)
      tools.push({ what: `${tool.tool} searched`, before: old.searchRate, after: tool.searchRate });
  }
  const requestsBefore = new Map(before.requests.map((request) => [request.id, request]));
  const requests: Change[] = [];
  for (const request of after.requests) {
    const old = requestsBefore.get(request.id);
    if (old && old.passRate !== request.passRate)
      requests.push({ what: request.id, before: old.passRate, after: request.passRate });
  }
  const byDelta = (a: Change, b: Change) => a.after - a.before - (b.after - b.before);
  return { summary, tools: tools.sort(byDelta), requests: requests.sort(byDelta) };
}

export function formatComparison(before: EvalReport, after: EvalReport, comparison: Comparison): string {
  const row = (change: Change) => {
    const delta = Math.round((change.after - change.before) * 100);
    const mark = delta > 0 ? '▲' : delta < 0 ? '▼' : '=';
    return [
      change.what,
      percent(change.before),
      percent(change.after),
      `${mark} ${delta > 0 ? '+' : ''}${delta}`,
    ];
  };
  const lines = [
    `before: ${before.model} (${before.startedAt})`,
    `after:  ${after.model} (${after.startedAt})`,
    '',
  ];
  lines.push(table(['', 'before', 'after', 'change'], comparison.summary.map(row)));
  const worse = [...comparison.tools, ...comparison.requests].filter((c) => c.after < c.before);
  const better = [...comparison.tools, ...comparison.requests].filter((c) => c.after > c.before);
  lines.push('', `worse (${worse.length}):`);
  if (worse.length > 0) lines.push(table(['', 'before', 'after', 'change'], worse.map(row)));
  lines.push('', `better (${better.length}):`);
  if (better.length > 0) lines.push(table(['', 'before', 'after', 'change'], better.map(row)));
  return `${lines.join('\n')}\n`;
}

/** Reads a report back, refusing what `toolrow eval --json` did not write. */
export function parseReport(text: string, source: string): EvalReport {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new Error(
      `${source} is not JSON (${(error as Error).message}); pass a file written by toolrow eval --json.`,
    );
  }
  if ((value as { format?: unknown })?.format !== 'toolrow-eval/1') {
    throw new Error(
      `${source} is not a toolrow eval report (no "format": "toolrow-eval/1"); pass a file written by toolrow eval --json.`,
    );
  }
  return value as EvalReport;
}

export type { EvalRequest };
