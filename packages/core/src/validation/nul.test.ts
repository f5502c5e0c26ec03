import { describe, expect, it } from 'vitest';
import { NUL_MESSAGE, refusingNul } from './nul.ts';

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
