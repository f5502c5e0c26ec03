import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isoTime } from './iso-time.ts';

describe('isoTime', () => {
  it('writes what toISOString writes, for any time a Date holds', () => {
    fc.assert(
      fc.property(fc.integer({ min: -8.64e15, max: 8.64e15 }), (ms) => {
        expect(isoTime(ms)).toBe(new Date(ms).toISOString());
      }),
      { numRuns: 20_000 },
    );
  });

  it('writes what toISOString writes around the edges of its own path, leap days and fractions included', () => {
    const edges = [
      0, 1, 86_399_999, 86_400_000, 951_782_400_000, 951_868_799_999, 4_107_542_400_000, 253_402_300_799_999, 253_402_300_800_000, -1, 0.5,
      1_795_828_384_064.25,
    ];
    for (const ms of edges) expect(isoTime(ms)).toBe(new Date(ms).toISOString());
    // Every day of four centuries, 1970 on (leap years by the 4, 100 and 400 rules).
    for (let day = 0; day < 146_097; day++) {
      const ms = day * 86_400_000 + 45_296_789;
      expect(isoTime(ms)).toBe(new Date(ms).toISOString());
    }
  });

  it('throws as toISOString does on a time that is not one', () => {
    expect(() => isoTime(Number.NaN)).toThrow(RangeError);
    expect(() => isoTime(8.64e15 + 1)).toThrow(RangeError);
  });
});
