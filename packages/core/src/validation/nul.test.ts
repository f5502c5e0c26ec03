import { describe, expect, it } from 'vitest';
import { holdsNul, MAX_NESTING, NESTING_MESSAGE, NUL_MESSAGE, nulPath, refusingUnstorable, withoutNul } from './nul.ts';

const NUL = '\u0000';

describe('refusingUnstorable', () => {
  const calls: unknown[][] = [];
  const service = {
    enabled: true,
    async save(...args: unknown[]) {
      calls.push(args);
      return 'saved';
    },
    async own(...args: unknown[]) {
      calls.push(args);
      return 'own';
    },
  };
  const guarded = refusingUnstorable(service, ['own']);

  it('rejects a call whose arguments hold U+0000 at its path, without running the method', async () => {
    calls.length = 0;
    await expect(guarded.save(1, { items: [{ text: 'a' }, { text: `b${NUL}` }] })).rejects.toMatchObject({
      code: 'validation_failed',
      details: [{ path: 'items[1].text', message: NUL_MESSAGE }],
    });
    await expect(guarded.save(1, `x${NUL}`)).rejects.toMatchObject({ details: [{ path: 'arguments[1]' }] });
    await expect(guarded.save({ [`k${NUL}`]: 1 })).rejects.toMatchObject({ details: [{ path: `k${NUL}` }] });
    expect(calls).toEqual([]);
  });

  it('runs other calls as they are, leaves the methods it is told check themselves, and keeps other members', async () => {
    calls.length = 0;
    expect(await guarded.save(1, { text: 'fine' })).toBe('saved');
    expect(await guarded.own(`y${NUL}`)).toBe('own');
    expect(calls).toEqual([[1, { text: 'fine' }], [`y${NUL}`]]);
    expect(guarded.enabled).toBe(true);
  });
});

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

  it(`are refused by a guarded service past ${MAX_NESTING} levels, at the path of the first member too deep`, async () => {
    const calls: unknown[] = [];
    const guarded = refusingUnstorable({
      async save(value: unknown) {
        calls.push(value);
        return 'saved';
      },
    });
    expect(await guarded.save({ data: nested(MAX_NESTING - 1, 1) })).toBe('saved');
    await expect(guarded.save({ data: nested(MAX_NESTING, 1) })).rejects.toMatchObject({
      code: 'validation_failed',
      details: [{ path: `data${'.a'.repeat(MAX_NESTING - 1)}`, message: NESTING_MESSAGE }],
    });
    await expect(guarded.save(nested(DEEP, `x${NUL}`))).rejects.toMatchObject({ details: [{ message: NESTING_MESSAGE }] });
    // A value that refers to itself is refused too, not walked forever.
    const loop: Record<string, unknown> = { name: 'loop' };
    loop['self'] = loop;
    await expect(guarded.save(loop)).rejects.toMatchObject({ details: [{ message: NESTING_MESSAGE }] });
    expect(calls).toEqual([{ data: nested(MAX_NESTING - 1, 1) }]);
  });
});
