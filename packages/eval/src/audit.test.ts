import { CATALOG_ROWS } from '@toolrow/catalog';
import { describe, expect, it } from 'vitest';
import { auditVisibility, NAMING_THRESHOLD, wordingNames } from './audit.ts';
import type { EvalRequest } from './corpus.ts';

describe('the visibility audit', () => {
  it('finds every discoverable row named by at least the threshold of its requests (the CI gate)', () => {
    const audit = auditVisibility();
    expect(audit.threshold).toBe(NAMING_THRESHOLD);
    expect(audit.rows.map((row) => row.tool)).toEqual(
      CATALOG_ROWS.filter((row) => row.tier !== 'loop').map((row) => row.name),
    );
    expect(audit.failing.map((row) => `${row.tool} ${row.named}/${row.requests}`)).toEqual([]);
    // What the users' wording never names must stay inline: the seed's setFilter example, in the
    // write-up's own words ("show me last month's orders") and in English, names no filter tool.
    for (const text of ['給我看上個月的訂單', '给我看上个月的订单', 'just this week'])
      expect(wordingNames({ text }, 'setFilter'), text).toBe(false);
    expect(CATALOG_ROWS.find((row) => row.name === 'setFilter')?.visibility).toBe('inline');
  });

  it('fails a discoverable row whose requests do not name it, and says what to do', () => {
    const corpus: EvalRequest[] = [
      { id: 'a', text: 'hello there, good morning', expect: ['explainQuery'], namesCapability: false },
      { id: 'b', text: 'thanks a lot!', expect: ['explainQuery'], namesCapability: false },
      { id: 'c', text: 'show me the query plan', expect: ['explainQuery'], namesCapability: true },
    ];
    expect(corpus.map((request) => wordingNames(request, 'explainQuery'))).toEqual([false, false, true]);
    const row = auditVisibility({ corpus }).rows.find((r) => r.tool === 'explainQuery');
    expect(row).toMatchObject({
      named: 1,
      requests: 3,
      recommended: 'inline',
      disagrees: true,
      failing: true,
    });
    expect(row?.note).toBe(
      'only 1 of 3 requests name it: make it inline, or add the words users type to its keywords',
    );
  });
});
