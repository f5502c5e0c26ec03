import { describe, expect, it } from 'vitest';
import { newShortCode } from './short-code.ts';

describe('newShortCode', () => {
  it('answers base-62 codes of the asked length that do not repeat', () => {
    const codes = new Set(Array.from({ length: 2000 }, () => newShortCode()));
    expect(codes.size).toBe(2000);
    for (const code of codes) expect(code).toMatch(/^[0-9A-Za-z]{8}$/);
    expect(newShortCode(12)).toHaveLength(12);
  });
});
