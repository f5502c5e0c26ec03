import { describe, expect, it } from 'vitest';
import { createFakeClock } from '../clock.ts';
import { createRoundLoop, type IdleGate } from './round-loop.ts';
import { SHARED_WAKE_BYTES, sharedIdleGate, sharedWaker } from './shared-wake.ts';

/** Lets the loop's promises, setImmediate yields and real timers of 0 ms run. */
const settle = async () => {
  for (let i = 0; i < 5; i += 1) await new Promise((resolve) => setTimeout(resolve, 0));
};

/** A loop whose rounds find what `work` holds (and empty it); idle waits of 250 ms, busy pauses of 2. */
function loopOver(options: { idleGate?: IdleGate; pause?: (found: number) => number | Promise<number> } = {}) {
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
    pause: options.pause ?? ((found) => (found > 0 ? 2 : 250)),
    onError: (error) => {
      throw error;
    },
    idleGate: options.idleGate,
  });
  return { clock, state, loop };
}

describe('the round loop', () => {
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
    const { state, loop } = loopOver({ pause: () => (release ? 250 : new Promise<number>((resolve) => (release = resolve))) });
    loop.start();
    await settle();
    expect(state.rounds).toBe(1);
    loop.notify();
    release!(250);
    await settle();
    expect(state.rounds).toBe(2);
    await loop.stop();
  });
});

describe('waking the workers from another thread (shared memory)', () => {
  it('wakes the loop only while it waits idle, once per idle wait', async () => {
    const buffer = new SharedArrayBuffer(SHARED_WAKE_BYTES);
    const { clock, state, loop } = loopOver({ idleGate: sharedIdleGate(buffer) });
    let wakes = 0;
    const storeWork = sharedWaker(buffer, () => {
      wakes += 1;
      loop.notify();
    });
    loop.start();
    await settle();
    expect(state.rounds).toBe(1);
    // Idle: the first store wakes it; the next ones before its round only mark.
    state.work = 3;
    storeWork();
    storeWork();
    expect(wakes).toBe(1);
    await settle();
    expect(state.rounds).toBe(2);
    // Busy (the round found work, the loop lets more gather for 2 ms): a store only marks.
    state.work = 1;
    storeWork();
    expect(wakes).toBe(1);
    await clock.advance(2);
    await settle();
    expect(state.rounds).toBe(3);
    // That round found work too: the loop is in a busy pause, which stop() waits out.
    const stopped = loop.stop();
    await clock.advance(2);
    await stopped;
  });

  it('never lets work stored during a round wait: the loop runs again instead of going idle', async () => {
    const buffer = new SharedArrayBuffer(SHARED_WAKE_BYTES);
    const gate = sharedIdleGate(buffer);
    let wakes = 0;
    const storeWork = sharedWaker(buffer, () => (wakes += 1));
    // Work stored while the round runs, after it looked: not the round's, and no wake is posted.
    gate.roundStarted();
    storeWork();
    expect(wakes).toBe(0);
    expect(gate.mayIdle()).toBe(false);
    // The next round looks after the mark: it may go idle, and a store then wakes it.
    gate.roundStarted();
    expect(gate.mayIdle()).toBe(true);
    storeWork();
    expect(wakes).toBe(1);
  });

  it('in a loop: work stored during an empty round is found by the next round without any wake', async () => {
    const buffer = new SharedArrayBuffer(SHARED_WAKE_BYTES);
    const clock = createFakeClock();
    let rounds = 0;
    let wakes = 0;
    let storeWork: () => void = () => {};
    const loop = createRoundLoop({
      clock,
      async round() {
        rounds += 1;
        // The first round looked and found nothing; then the other thread stores and marks.
        if (rounds === 1) storeWork();
        return 0;
      },
      pause: () => 250,
      onError: (error) => {
        throw error;
      },
      idleGate: sharedIdleGate(buffer),
    });
    storeWork = sharedWaker(buffer, () => (wakes += 1));
    loop.start();
    await settle();
    expect(rounds).toBe(2);
    expect(wakes).toBe(0);
    await loop.stop();
  });
});
