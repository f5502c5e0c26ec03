import { describe, expect, it } from 'vitest';
import { NUL_MESSAGE, refusingNul, withoutNul } from './nul.ts';

const NUL = '\u0000';

describe('refusingNul', () => {
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
  const guarded = refusingNul(service, ['own']);

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
