import { describe, expect, it } from 'vitest';
import type { EvalRequest } from './corpus.ts';
import { grade } from './grade.ts';

const chip: EvalRequest = {
  id: 't-chip',
  text: 'offer an export button',
  expect: ['proposeExport'],
  mustNot: ['startExport', 'stageDeleteRows'],
  namesCapability: true,
};
const multi: EvalRequest = {
  id: 't-multi',
  text: 'count then filter',
  expect: [
    ['countRows', 'runQuery'],
    ['setFilter', 'proposeSetFilter'],
  ],
  namesCapability: false,
};

describe('grade', () => {
  it('passes a refused call the model recovered from with a search, and counts both', () => {
    const result = grade(chip, [
      { tool: 'proposeExport', outcome: 'refused' },
      { tool: 'searchTools', outcome: 'ran', query: 'export button', found: ['proposeExport'] },
      { tool: 'proposeExport', outcome: 'ran' },
    ]);
    expect(result).toMatchObject({
      pass: true,
      searched: true,
      needsSearch: true,
      refusals: 1,
      recovered: 1,
    });
  });

  it('fails a refusal alone: a refused call is not a pick', () => {
    const result = grade(chip, [{ tool: 'proposeExport', outcome: 'refused' }]);
    expect(result).toMatchObject({ pass: false, refusals: 1, recovered: 0 });
    expect(result.reason).toBe(
      'expected proposeExport; its only calls were refused (proposeExport not active)',
    );
  });

  it('calls the immediate twin a wrong-twin pick and a stage call an unasked write', () => {
    const result = grade(chip, [
      { tool: 'proposeExport', outcome: 'ran' },
      { tool: 'startExport', outcome: 'ran', asked: true },
      { tool: 'stageDeleteRows', outcome: 'failed' },
    ]);
    expect(result).toMatchObject({
      pass: false,
      wrongTwin: ['startExport'],
      unaskedWrites: ['stageDeleteRows'],
    });
    expect(result.reason).toMatch(/called startExport, stageDeleteRows, which this request must not call/);
  });

  it('needs the steps in order, allowing other calls between them', () => {
    expect(
      grade(multi, [
        { tool: 'describeTable', outcome: 'ran' },
        { tool: 'runQuery', outcome: 'ran' },
        { tool: 'proposeSetFilter', outcome: 'ran' },
      ]).pass,
    ).toBe(true);
    const reversed = grade(multi, [
      { tool: 'setFilter', outcome: 'ran' },
      { tool: 'countRows', outcome: 'ran' },
    ]);
    expect(reversed.pass).toBe(false);
    expect(reversed.reason).toBe(
      'expected setFilter or proposeSetFilter (after step 1); called setFilter, countRows',
    );
    expect(reversed.needsSearch).toBe(false);
  });

  it('a report request fails when its query fails, and passes when a retry ran', () => {
    const report: EvalRequest = {
      id: 't-report',
      text: 'revenue by country',
      expect: ['runQuery'],
      namesCapability: false,
      mustRun: true,
    };
    const failed = { tool: 'runQuery', outcome: 'failed', error: 'Binder Error: no column country' } as const;
    expect(grade(report, [failed])).toMatchObject({
      pass: false,
      reason: 'runQuery failed, and the answer was its result: Binder Error: no column country',
    });
    expect(grade(report, [{ tool: 'runQuery', outcome: 'ran' }]).pass).toBe(true);
    expect(grade(report, [failed, { tool: 'runQuery', outcome: 'ran' }]).pass).toBe(true);
    // Without mustRun the same failed call is a right pick with a wrong input: the pick is graded.
    const { mustRun: _, ...pickOnly } = report;
    expect(grade(pickOnly, [failed]).pass).toBe(true);
  });

  it('fails a run that errored whatever was called', () => {
    expect(grade(chip, [{ tool: 'proposeExport', outcome: 'ran' }], 'connection refused')).toMatchObject({
      pass: false,
      reason: 'the run failed: connection refused',
    });
  });
});
