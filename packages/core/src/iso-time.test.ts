import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isoTime, isoTimeSchema, readIsoTime } from './iso-time.ts';

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

describe('readIsoTime', () => {
  const at = Date.UTC(2026, 11, 1, 17, 0);

  it('reads back every time isoTime writes, and the same time written at any offset', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -62_135_596_800_000, max: 253_402_300_799_999 }),
        fc.integer({ min: -(23 * 60 + 59), max: 23 * 60 + 59 }),
        (ms, offset) => {
          expect(readIsoTime(isoTime(ms), 'refuse')).toEqual({ ms });
          const local = new Date(ms + offset * 60_000).toISOString().slice(0, 23);
          const hh = String(Math.floor(Math.abs(offset) / 60)).padStart(2, '0');
          const mm = String(Math.abs(offset) % 60).padStart(2, '0');
          const sign = offset < 0 ? '-' : '+';
          if (local.startsWith('-') || local.startsWith('+')) return; // a year past 9999 or before 0000
          expect(readIsoTime(`${local}${sign}${hh}:${mm}`, 'refuse')).toEqual({ ms });
          expect(readIsoTime(`${local}${sign}${hh}${mm}`, 'refuse')).toEqual({ ms });
        },
      ),
      { numRuns: 5_000 },
    );
  });

  it('takes the ISO 8601 extended forms a client writes besides RFC 3339', () => {
    for (const text of [
      '2026-12-01T17:00:00Z',
      '2026-12-01T17:00Z',
      '2026-12-01T20:00+03:00',
      '2026-12-01T20:00+0300',
      '2026-12-01T20:00:00+0300',
      '2026-12-01T20:00:00+03',
      '2026-12-01T12:00:00.000-05:00',
      '2026-12-01T12:00:00,0-0500',
      '2026-12-01t17:00:00z',
      '2026-12-01 17:00:00Z',
      '2026-12-01T17:00:00.000000999Z',
    ]) {
      expect(readIsoTime(text, 'refuse'), text).toEqual({ ms: at });
    }
    expect(readIsoTime('2026-12-01T17:00:00.1239Z', 'refuse')).toEqual({ ms: at + 123 });
  });

  it('refuses a time without an offset, or reads it as UTC, as the field says', () => {
    expect(readIsoTime('2026-12-01T17:00:00', 'refuse')).toEqual({ error: 'no_offset' });
    expect(readIsoTime('2026-12-01T17:00', 'refuse')).toEqual({ error: 'no_offset' });
    expect(readIsoTime('2026-12-01T17:00:00', 'utc')).toEqual({ ms: at });
    expect(readIsoTime('2026-12-01T17:00', 'utc')).toEqual({ ms: at });
  });

  it('refuses a date or time that does not exist, and every other form', () => {
    expect(readIsoTime('2024-02-29T00:00Z', 'refuse')).toEqual({ ms: Date.UTC(2024, 1, 29) });
    expect(readIsoTime('2000-02-29T00:00Z', 'refuse')).toEqual({ ms: Date.UTC(2000, 1, 29) });
    for (const text of [
      '2026-02-29T00:00Z',
      '1900-02-29T00:00Z',
      '2026-04-31T00:00Z',
      '2026-13-01T00:00Z',
      '2026-00-01T00:00Z',
      '2026-12-00T00:00Z',
      '2026-12-01T24:00Z',
      '2026-12-01T23:60Z',
      '2026-12-01T23:59:60Z',
      '2026-12-01T20:00+24:00',
      '2026-12-01T20:00+03:60',
      '2026-12-01T20:00+3',
      '2026-12-01T20:00+03:0',
      '2026-12-01T20Z',
      '2026-12-01',
      '20261201T200000Z',
      '2026-12-01T20:00:00.Z',
      '2026-12-01T20:00:00.1234567890Z',
      ' 2026-12-01T20:00Z',
      '2026-12-01T20:00Z ',
      'tomorrow',
      '',
    ]) {
      expect(readIsoTime(text, 'utc'), text).toEqual({ error: 'format' });
    }
  });
});

describe('isoTimeSchema', () => {
  it('answers ms, and says why it refuses', () => {
    const schema = isoTimeSchema({ withoutOffset: 'refuse', name: 'scheduledAt' });
    expect(schema.parse('2026-12-01T20:00+0300')).toBe(Date.UTC(2026, 11, 1, 17));
    const messageOf = (value: unknown) => schema.safeParse(value).error?.issues.map((i) => i.message);
    expect(messageOf('2026-12-01T20:00:00')).toEqual([expect.stringMatching(/^scheduledAt has no offset, .*ambiguous/)]);
    for (const bad of ['2026-02-30T20:00Z', 'soon', 17, null]) {
      expect(messageOf(bad), String(bad)).toEqual([
        expect.stringMatching(/^scheduledAt must be an ISO 8601 date-time with an offset, such as /),
      ]);
    }
    expect(isoTimeSchema({ withoutOffset: 'utc' }).parse('2026-12-01T17:00')).toBe(Date.UTC(2026, 11, 1, 17));
  });
});
