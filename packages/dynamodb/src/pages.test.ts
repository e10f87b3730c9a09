import { describe, expect, it } from 'vitest';
import { SCAN_SEGMENTS, segmentsFor } from './pages.ts';

describe('a Scan’s segments grow with the table', () => {
  it.each([
    [0, SCAN_SEGMENTS],
    [500 * 1024 ** 2, SCAN_SEGMENTS],
    [8 * 1024 ** 3, 4],
    [20 * 1024 ** 3, 10],
    [100 * 1024 ** 3, 32],
    [10 * 1024 ** 4, 32],
  ])('%d bytes: %d segments', (bytes, segments) => {
    expect(segmentsFor(bytes)).toBe(segments);
  });
});
