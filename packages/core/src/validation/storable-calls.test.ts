import { describe, expect, it } from 'vitest';
import { MAX_NESTING, NESTING_MESSAGE, NUL_MESSAGE } from './nul.ts';
import { storableCalls } from './storable-calls.ts';
import { markWellFormed } from './well-formed.ts';

const NUL = '\u0000';

/** `{"a":{"a":…inner…}}`, `depth` objects deep. */
function nested(depth: number, inner: unknown): unknown {
  let value = inner;
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
}

/** A service whose methods keep the arguments they were called with; `own` is left to check itself. */
function recording() {
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
  return { calls, guarded: storableCalls(service, ['own']) };
}

describe('storableCalls', () => {
  it('rejects a call whose arguments hold U+0000 at its path, without running the method', async () => {
    const { calls, guarded } = recording();
    await expect(guarded.save(1, { items: [{ text: 'a' }, { text: `b${NUL}` }] })).rejects.toMatchObject({
      code: 'validation_failed',
      details: [{ path: 'items[1].text', message: NUL_MESSAGE }],
    });
    await expect(guarded.save(1, `x${NUL}`)).rejects.toMatchObject({ details: [{ path: 'arguments[1]' }] });
    await expect(guarded.save({ [`k${NUL}`]: 1 })).rejects.toMatchObject({ details: [{ path: `k${NUL}` }] });
    // Refused, not mended, when a lone surrogate comes before it.
    await expect(guarded.save({ first: 'a\ud800', then: `b${NUL}` })).rejects.toMatchObject({ details: [{ path: 'then' }] });
    expect(calls).toEqual([]);
  });

  it(`rejects values nested past ${MAX_NESTING} levels at the path of the first member too deep, and values that refer to themselves`, async () => {
    const { calls, guarded } = recording();
    expect(await guarded.save({ data: nested(MAX_NESTING - 1, 1) })).toBe('saved');
    await expect(guarded.save({ data: nested(MAX_NESTING, 1) })).rejects.toMatchObject({
      code: 'validation_failed',
      details: [{ path: `data${'.a'.repeat(MAX_NESTING - 1)}`, message: NESTING_MESSAGE }],
    });
    await expect(guarded.save(nested(100_000, `x${NUL}`))).rejects.toMatchObject({ details: [{ message: NESTING_MESSAGE }] });
    const loop: Record<string, unknown> = { name: 'loop' };
    loop['self'] = loop;
    await expect(guarded.save(loop)).rejects.toMatchObject({ details: [{ message: NESTING_MESSAGE }] });
    expect(calls).toEqual([[{ data: nested(MAX_NESTING - 1, 1) }]]);
  });

  it('hands each method its arguments made well-formed, without writing to the caller’s objects', async () => {
    const { calls, guarded } = recording();
    const body = { text: 'b\udc00', list: ['ok', 'c\ud800'], ['k\ud800']: 1 };
    expect(await guarded.save('a\ud800', body, 3)).toBe('saved');
    expect(calls).toEqual([['a\uFFFD', { text: 'b\uFFFD', list: ['ok', 'c\uFFFD'], ['k\uFFFD']: 1 }, 3]]);
    expect(body.text).toBe('b\udc00');
    // A well-formed argument is handed over itself, not a copy.
    const fine = { text: 'fine 😀' };
    await guarded.save(fine);
    expect(calls[1]![0]).toBe(fine);
  });

  it('takes data marked well-formed (a parsed HTTP body) as it is, yet refuses U+0000 in it', async () => {
    const { calls, guarded } = recording();
    const marked = markWellFormed({ text: 'a\ud800' });
    await guarded.save(marked);
    expect(calls[0]![0]).toBe(marked);
    await expect(guarded.save(markWellFormed({ text: NUL }))).rejects.toMatchObject({ details: [{ path: 'text' }] });
  });

  it('leaves the methods it is told check themselves, and keeps other members', async () => {
    const { calls, guarded } = recording();
    expect(await guarded.own(`y${NUL}`, 'z\ud800')).toBe('own');
    expect(calls).toEqual([[`y${NUL}`, 'z\ud800']]);
    expect(guarded.enabled).toBe(true);
  });

  // It was two wrappers, one refusing and one mending, each walking every argument.
  it('looks through each argument once', async () => {
    const { guarded } = recording();
    let walked = 0;
    const counted = <T extends object>(value: T): T =>
      new Proxy(value, {
        ownKeys: (target) => {
          walked++;
          return Reflect.ownKeys(target);
        },
      });
    await guarded.save(counted({ text: 'fine', inner: counted({ more: 'fine' }) }));
    expect(walked).toBe(2);
  });
});
