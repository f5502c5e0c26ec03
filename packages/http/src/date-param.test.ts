import { describe, expect, it } from 'vitest';
import { dateParam } from './date-param.ts';

describe('a date query parameter', () => {
  it('reads a date-time with an offset, one without as UTC, and a date as its midnight UTC', () => {
    const at = Date.UTC(2026, 10, 28, 9, 30);
    expect(dateParam.parse('2026-11-28T09:30:00Z')).toBe(at);
    expect(dateParam.parse('2026-11-28T11:30:00+02:00')).toBe(at);
    expect(dateParam.parse('2026-11-28T09:30:00')).toBe(at);
    expect(dateParam.parse('2026-11-28T09:30:00.000')).toBe(at);
    expect(dateParam.parse('2026-11-28')).toBe(Date.UTC(2026, 10, 28));
    // Read as every time field is: seconds and the offset's colon optional.
    expect(dateParam.parse('2026-11-28T09:30')).toBe(at);
    expect(dateParam.parse('2026-11-28T12:30+0300')).toBe(at);
  });

  it('refuses anything else saying which forms it takes', () => {
    for (const bad of ['soon', '2026-13-01', '2026-02-30', '28.11.2026', '2026-11-28T25:00Z', '']) {
      const result = dateParam.safeParse(bad);
      expect(result.success, bad).toBe(false);
      expect(result.error?.issues[0]?.message).toMatch(/^must be an ISO 8601 date-time or date/);
    }
  });
});
