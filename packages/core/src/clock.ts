/** A timer handle returned by {@link Clock.setTimeout}. */
export type TimerHandle = { readonly id: number } | ReturnType<typeof setTimeout>;

/**
 * The source of time for everything in Spillway. Inject a {@link FakeClock} in tests so that
 * scheduled sends, ttl expiry and timeouts are driven by `advance()` instead of sleeping.
 */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  setTimeout(fn: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

/** The wall clock and the runtime's timers. */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => {
    const t = setTimeout(fn, ms);
    // Timers of the engine never keep a process alive on their own.
    (t as { unref?: () => void }).unref?.();
    return t;
  },
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

interface PendingTimer {
  id: number;
  at: number;
  fn: () => void;
}

/** A clock that moves only when told to. */
export interface FakeClock extends Clock {
  /** Moves time forward, running every timer that falls due on the way, in order. */
  advance(ms: number): Promise<void>;
  /** Sets the time (never backwards) and runs the timers that fell due. */
  set(at: number): Promise<void>;
  /** Timers not yet run. */
  pending(): number;
}

/**
 * Creates a {@link FakeClock} starting at `start` (ms since the epoch).
 * @default start 2026-01-01T00:00:00Z
 */
export function createFakeClock(start = Date.UTC(2026, 0, 1)): FakeClock {
  let now = start;
  let nextId = 1;
  const timers: PendingTimer[] = [];

  const runDue = async (until: number): Promise<void> => {
    for (;;) {
      timers.sort((a, b) => a.at - b.at || a.id - b.id);
      const first = timers[0];
      if (!first || first.at > until) break;
      timers.shift();
      now = Math.max(now, first.at);
      first.fn();
      // Let promise chains started by the timer settle before the next one runs.
      await new Promise((resolve) => globalThis.setTimeout(resolve, 0));
    }
    now = Math.max(now, until);
  };

  return {
    now: () => now,
    setTimeout(fn, ms) {
      const timer = { id: nextId++, at: now + Math.max(0, ms), fn };
      timers.push(timer);
      return { id: timer.id };
    },
    clearTimeout(handle) {
      const id = (handle as { id?: number }).id;
      const i = timers.findIndex((t) => t.id === id);
      if (i >= 0) timers.splice(i, 1);
    },
    advance: (ms) => runDue(now + ms),
    set: (at) => runDue(Math.max(now, at)),
    pending: () => timers.length,
  };
}
