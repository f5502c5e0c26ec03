import { describe, expect, it } from 'vitest';
import { createFakeClock } from '../clock.ts';
import { createRoundLoop } from './round-loop.ts';

/** Lets the loop's promises, setImmediate yields and real timers of 0 ms run. */
const settle = async () => {
  for (let i = 0; i < 5; i += 1) await new Promise((resolve) => setTimeout(resolve, 0));
};

/** A loop whose rounds find what `work` holds (and empty it); idle waits of 250 ms, busy pauses of 2. */
function loopOver(pause: (found: number) => number | Promise<number> = (found) => (found > 0 ? 2 : 250)) {
  const clock = createFakeClock();
  const state = { work: 0, rounds: 0 };
  const loop = createRoundLoop({
    clock,
    async round() {
      state.rounds += 1;
      const found = state.work;
      state.work = 0;
      return found;
    },
    pause,
    onError: (error) => {
      throw error;
    },
  });
  return { clock, state, loop };
}

describe('the round loop', () => {
  it('stops at once during the pause after a busy round, without waiting for the pause to end', async () => {
    // A busy round's pause is not cut short by notify(), but stop() must not wait for it: the
    // system clock's timers do not keep a process alive, and an embedder's process with nothing
    // else alive ended while stop() waited (exit code 13, the stop never finished).
    const { state, loop } = loopOver((found) => (found > 0 ? 60_000 : 250));
    state.work = 5;
    loop.start();
    await settle();
    expect(state.rounds).toBe(1);
    let stopped = false;
    void loop.stop().then(() => (stopped = true));
    await settle();
    expect(stopped).toBe(true);
  });

  it('waits idle after an empty round until notify() cuts the wait short', async () => {
    const { state, loop } = loopOver();
    loop.start();
    await settle();
    expect(state.rounds).toBe(1);
    await settle();
    expect(state.rounds).toBe(1);
    loop.notify();
    await settle();
    expect(state.rounds).toBe(2);
    await loop.stop();
  });

  it('runs again at once when notify() comes while the idle pause is being worked out', async () => {
    let release: ((ms: number) => void) | null = null;
    // The first idle pause is worked out slowly (a storage read); later ones at once.
    const { state, loop } = loopOver(() => (release ? 250 : new Promise<number>((resolve) => (release = resolve))));
    loop.start();
    await settle();
    expect(state.rounds).toBe(1);
    loop.notify();
    release!(250);
    await settle();
    expect(state.rounds).toBe(2);
    await loop.stop();
  });

  it('lets work gather after a busy round: notify() does not cut that pause', async () => {
    const { clock, state, loop } = loopOver();
    state.work = 3;
    loop.start();
    await settle();
    expect(state.rounds).toBe(1);
    loop.notify();
    await settle();
    expect(state.rounds).toBe(1);
    await clock.advance(2);
    await settle();
    expect(state.rounds).toBe(2);
    await loop.stop();
  });

  // Regression: while PostgreSQL restarted, a worker's rounds failed at once and ran again at once
  // (woken by new work, or with no pause since the idle pause's own query failed): 675 "worker
  // error" lines in 100 ms. A failed round now waits 100 ms, doubling to 5 s, whatever notify() says.
  it('backs off after failed rounds, not cut short by notify(), and goes back to normal once a round succeeds', async () => {
    const clock = createFakeClock();
    const state = { rounds: 0, down: true, errors: 0 };
    const loop = createRoundLoop({
      clock,
      async round() {
        state.rounds += 1;
        if (state.down) throw new Error('Connection terminated unexpectedly');
        return 0;
      },
      // The idle pause reads the database too.
      pause: () => (state.down ? Promise.reject(new Error('Connection terminated unexpectedly')) : 250),
      onError: () => void (state.errors += 1),
    });
    loop.start();
    await settle();
    expect(state.rounds).toBe(1);
    for (let i = 0; i < 20; i += 1) loop.notify();
    await settle();
    expect(state.rounds).toBe(1);
    await clock.advance(99);
    expect(state.rounds).toBe(1);
    await clock.advance(1);
    await settle();
    expect(state.rounds).toBe(2);
    // 200 ms, then 400 ms.
    await clock.advance(199);
    expect(state.rounds).toBe(2);
    await clock.advance(1);
    await settle();
    expect(state.rounds).toBe(3);
    await clock.advance(400);
    await settle();
    expect(state.rounds).toBe(4);
    expect(state.errors).toBe(4);
    // Ten minutes down: the pause stays at 5 s at most.
    await clock.advance(600_000);
    await settle();
    expect(state.rounds).toBeLessThan(4 + 600_000 / 5_000 + 8);
    state.down = false;
    await clock.advance(5_000);
    await settle();
    const back = state.rounds;
    // Back to the idle wait that notify() cuts short.
    loop.notify();
    await settle();
    expect(state.rounds).toBe(back + 1);
    await loop.stop();
  });
});
