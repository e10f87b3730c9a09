import { resolveModel } from '@toolrow/agent';
import { RESULT_TOKEN_BUDGET } from '@toolrow/tools';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CORPUS, selectRequests } from './corpus.ts';
import { buildReport } from './report.ts';
import { type RequestAttempts, runEval } from './run.ts';
import { type ChatServer, guessingModel, searchingModel, startChatServer } from './testing.ts';

describe('runEval over the real agent loop and tools', () => {
  let server: ChatServer;
  let results: RequestAttempts[];
  beforeAll(async () => {
    server = await startChatServer(guessingModel());
    const model = await resolveModel({ TOOLROW_MODEL: `openai-compatible:${server.baseURL}#guessing` });
    results = await runEval({
      model,
      requests: selectRequests(CORPUS, 'audit-log,view-filter'),
      runs: 2,
      concurrency: 2,
      orders: 100,
    });
  }, 600_000);
  afterAll(() => server?.close());

  it('sees the agent refuse an inactive tool, and the model recover with a search', () => {
    const audit = results.find((entry) => entry.request.id === 'audit-log')!;
    expect(audit.attempts.map((attempt) => attempt.run)).toEqual([0, 1]);
    for (const attempt of audit.attempts) {
      expect(attempt.calls).toEqual([
        {
          tool: 'listAuditLog',
          outcome: 'refused',
          error: expect.stringMatching(
            /^Tool 'listAuditLog' not in active set\. Call searchTools\(query='listAuditLog'\) to discover it/,
          ),
        },
        {
          tool: 'searchTools',
          outcome: 'ran',
          query: 'listAuditLog',
          found: expect.arrayContaining(['listAuditLog']),
        },
        { tool: 'listAuditLog', outcome: 'ran' },
      ]);
      expect(attempt).toMatchObject({ pass: true, refusals: 1, recovered: 1, searched: true, steps: 4 });
    }
    const report = buildReport(results, {
      model: 'guessing',
      mode: 'manual',
      runs: 2,
      startedAt: new Date(),
      finishedAt: new Date(),
    });
    expect(report.summary).toMatchObject({ attempts: 4, refusals: 2, recovered: 2, passRate: 1, errors: 0 });
  });

  it('opens the request tab in a fresh state: the filtered view is what getActiveView reads', () => {
    const view = results.find((entry) => entry.request.id === 'view-filter')!;
    expect(view.attempts.map((attempt) => attempt.calls)).toEqual([
      [{ tool: 'getActiveView', outcome: 'ran' }],
      [{ tool: 'getActiveView', outcome: 'ran' }],
    ]);
    const sent = server.requests.filter((request) =>
      request.messages.some((m) => m.role === 'user' && m.content === 'what filter is on right now'),
    );
    const answer = sent.flatMap((request) => request.messages).find((message) => message.role === 'tool');
    expect(JSON.stringify(answer?.content)).toMatch(/status = \\+"paid/);
  });
});

describe('the large sample: 1,000 more tables and one of 1,000 columns', () => {
  let server: ChatServer;
  let results: RequestAttempts[];
  const large = selectRequests(CORPUS, 'large-');
  beforeAll(async () => {
    server = await startChatServer(searchingModel());
    const model = await resolveModel({ TOOLROW_MODEL: `openai-compatible:${server.baseURL}#searching` });
    results = await runEval({ model, requests: large, concurrency: 2, orders: 100 });
  }, 600_000);
  afterAll(() => server?.close());

  it('runs every large-schema request there, each tool result within the result budget, and reports them apart', () => {
    expect(large.length).toBeGreaterThanOrEqual(6);
    expect(results.flatMap((entry) => entry.attempts).every((attempt) => attempt.pass)).toBe(true);
    const toolResults = server.requests.flatMap((request) =>
      request.messages.filter((message) => message.role === 'tool').map((message) => String(message.content)),
    );
    expect(toolResults.length).toBeGreaterThanOrEqual(large.length);
    for (const content of toolResults) expect(countTokens(content)).toBeLessThanOrEqual(RESULT_TOKEN_BUDGET);
    // What the model saw of the big lists: counts and the way to the rest, not everything.
    const seen = toolResults.join('\n');
    // 5 schemas × 200 tables, the wide one, and the sample shop's 4.
    expect(seen).toContain('"totalTables":1005');
    expect(seen).toContain('Next: describeTable');
    expect(seen).toContain('only the first');
    const report = buildReport(results, {
      model: 'searching',
      mode: 'manual',
      runs: 1,
      startedAt: new Date(),
      finishedAt: new Date(),
    });
    expect(report.summary.largeSchema).toMatchObject({ attempts: large.length, passRate: 1 });
  });
});
