import type { IdleGate } from './round-loop.ts';

// Two Int32 cells of a SharedArrayBuffer: whether the workers' loop waits idle, and whether work
// was stored since its round began. Atomics are sequentially consistent, so of a loop going idle
// (set IDLE, then read MARKED) and a thread storing work (set MARKED, then take IDLE), at least one
// sees the other: either the loop runs again at once, or the storing thread wakes it.
const IDLE = 0;
const MARKED = 1;

/** Bytes of the SharedArrayBuffer that {@link sharedIdleGate} and {@link sharedWaker} share. */
export const SHARED_WAKE_BYTES = 2 * Int32Array.BYTES_PER_ELEMENT;

/** The workers' side, in the thread that runs them: the engine's `idleGate`. */
export function sharedIdleGate(buffer: SharedArrayBuffer): IdleGate {
  const cells = new Int32Array(buffer);
  return {
    roundStarted() {
      Atomics.store(cells, IDLE, 0);
      Atomics.store(cells, MARKED, 0);
    },
    mayIdle() {
      Atomics.store(cells, IDLE, 1);
      return Atomics.load(cells, MARKED) === 0;
    },
  };
}

/**
 * The storing thread's side: its engine's `onWork`. Marks that work was stored and calls `wake`
 * (post a message that calls `engine.wake()` over there) only when the loop waits idle, once per
 * idle wait.
 */
export function sharedWaker(buffer: SharedArrayBuffer, wake: () => void): () => void {
  const cells = new Int32Array(buffer);
  return () => {
    Atomics.store(cells, MARKED, 1);
    if (Atomics.compareExchange(cells, IDLE, 1, 0) === 1) wake();
  };
}
