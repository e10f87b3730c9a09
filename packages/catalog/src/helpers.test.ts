import { describe, expect, it } from 'vitest';
import { nearestNames } from './helpers.ts';

describe('nearestNames', () => {
  it.each([
    ['startExprot', ['startExport']],
    ['StartExport', ['startExport']],
    ['runquery', ['runQuery']],
    ['getRows', ['getRow']],
    ['dropDatabase', []],
  ])('%s → %j', (name, want) => {
    expect(nearestNames(name, undefined, 1)).toEqual(want);
  });

  it('returns at most `limit` names, nearest first', () => {
    expect(nearestNames('cat', ['dog', 'car', 'cat', 'bat'], 2)).toEqual(['cat', 'bat']);
  });
});
