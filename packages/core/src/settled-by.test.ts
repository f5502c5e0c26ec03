import { describe, expect, it } from 'vitest';
import { createFakeClock } from './clock.ts';
import { settledBy } from './settled-by.ts';

describe('settledBy', () => {
  it('answers true once the work settles before the deadline, and clears its timer', async () => {
    const clock = createFakeClock();
    let finish!: () => void;
    const work = new Promise<void>((resolve) => (finish = resolve));
    const waiting = settledBy(work, clock.now() + 1_000, clock);
    await clock.advance(500);
    finish();
    expect(await waiting).toBe(true);
    expect(clock.pending()).toBe(0);
  });

  it('answers false at the deadline on the clock, and drops a failure of the work after it', async () => {
    const clock = createFakeClock();
    let fail!: (error: Error) => void;
    const work = new Promise<void>((_, reject) => (fail = reject));
    let answer: boolean | undefined;
    const waiting = settledBy(work, clock.now() + 1_000, clock).then((settled) => (answer = settled));
    await clock.advance(999);
    expect(answer).toBeUndefined();
    await clock.advance(1);
    await waiting;
    expect(answer).toBe(false);
    // Not an unhandled rejection: vitest would fail the run.
    fail(new Error('the storage closed under it'));
    await new Promise((resolve) => setTimeout(resolve, 0));
  });

  it('rejects as the work did when it failed before the deadline', async () => {
    const clock = createFakeClock();
    await expect(settledBy(Promise.reject(new Error('locked')), clock.now() + 1_000, clock)).rejects.toThrow('locked');
  });

  it('past the deadline, counts work that is done within a turn of the event loop, and answers false for the rest', async () => {
    const clock = createFakeClock();
    const past = clock.now() - 1;
    expect(await settledBy(Promise.resolve(), past, clock)).toBe(true);
    expect(await settledBy((async () => undefined)(), past, clock)).toBe(true);
    expect(await settledBy(new Promise(() => undefined), past, clock)).toBe(false);
    expect(await settledBy(undefined, past, clock)).toBe(true);
  });
});
