import { describe, expect, it } from 'vitest';
import { holdsNul, nulPath, withoutNul } from './nul.ts';

const NUL = '\u0000';

describe('withoutNul', () => {
  it('puts U+FFFD in place of each U+0000 in every string and member name, nested, leaving the input as it was', () => {
    const receipt = { providerMessageId: `a${NUL}b${NUL}`, outcome: 'failed', tags: ['ok', `x${NUL}`], [`k${NUL}`]: { n: 1 } };
    expect(withoutNul(receipt)).toEqual({
      providerMessageId: 'a\uFFFDb\uFFFD',
      outcome: 'failed',
      tags: ['ok', 'x\uFFFD'],
      'k\uFFFD': { n: 1 },
    });
    expect(receipt.providerMessageId).toBe(`a${NUL}b${NUL}`);
    expect(withoutNul(`${NUL}`)).toBe('\uFFFD');
  });

  it('answers a value without U+0000 itself, not a copy', () => {
    const inbound = { channel: 'sms', text: 'STOP', at: 3, extra: null };
    expect(withoutNul(inbound)).toBe(inbound);
    expect(withoutNul(7)).toBe(7);
    expect(withoutNul(undefined)).toBeUndefined();
  });
});

/** `{"a":{"a":…inner…}}`, `depth` objects deep. */
function nested(depth: number, inner: unknown): unknown {
  let value = inner;
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
}

describe('values nested thousands of levels deep (a request body can be)', () => {
  const DEEP = 100_000;

  it('are looked through for U+0000 without overflowing the stack', () => {
    expect(holdsNul(nested(DEEP, 'fine'))).toBe(false);
    expect(holdsNul(nested(DEEP, `x${NUL}`))).toBe(true);
    expect(nulPath([nested(3, `x${NUL}`)])).toBe('[0].a.a.a');
    expect(nulPath(nested(DEEP, `x${NUL}`))).toBe('.a'.repeat(DEEP));
  });

  it('have U+0000 replaced however deep it is, the parts without it shared', () => {
    const clean = { kept: true };
    const cleaned = withoutNul({ clean, deep: nested(DEEP, `x${NUL}`) }) as { clean: unknown; deep: unknown };
    expect(cleaned.clean).toBe(clean);
    let inner = cleaned.deep;
    for (let i = 0; i < DEEP; i++) inner = (inner as { a: unknown }).a;
    expect(inner).toBe('x\uFFFD');
  });
});
