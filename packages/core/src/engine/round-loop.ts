import type { Clock } from '../clock.ts';

/** The pause after a first failed round, ms; it doubles with each failure in a row. */
export const FAILURE_PAUSE_MS = 100;
/** The longest pause after failed rounds, ms. */
export const FAILURE_PAUSE_MAX_MS = 5_000;

/** Options of {@link createRoundLoop}: the round to run, how long to pause after it, the clock and an error handler. */
export interface RoundLoopOptions {
  clock: Clock;
  /** One round of work; answers how many items it handled. */
  round(): Promise<number>;
  /**
   * How long to pause after a round that handled `found` items, ms. After an empty round the
   * pause is an idle wait that `notify()` cuts short; after a busy one it lets work gather.
   */
  pause(found: number): number | Promise<number>;
  onError(error: unknown): void;
}

/** A loop of rounds that never overlap, with an idle wait that new work cuts short. */
export interface RoundLoop {
  /** Runs one round after those already queued; answers how much work it found. */
  tick(): Promise<number>;
  start(): void;
  /** Stops the loop and waits for the round in flight. */
  stop(): Promise<void>;
  /** New work is there: end the idle wait. */
  notify(): void;
  /** Runs rounds until one finds nothing (tests, with a fake clock). */
  drain(): Promise<void>;
}

/** Resolves after pending I/O callbacks and timers have run (a macrotask), in Node and in browsers. */
export function yieldToEventLoop(): Promise<void> {
  const immediate = (globalThis as { setImmediate?: (fn: () => void) => unknown }).setImmediate;
  return new Promise((resolve) => (immediate ? immediate(resolve) : setTimeout(resolve, 0)));
}

/**
 * The loop shared by the engine's worker and the webhook delivery worker: rounds run one after
 * another on the injected clock, so a fake clock drives them in tests.
 */
export function createRoundLoop(options: RoundLoopOptions): RoundLoop {
  const { clock } = options;
  let chain: Promise<number> = Promise.resolve(0);
  let running = false;
  let poked = false;
  let wake: (() => void) | null = null;
  /** Ends the current pause, whichever it is: stop() never waits for one. */
  let endPause: (() => void) | null = null;
  let loopDone: Promise<void> = Promise.resolve();
  /** Rounds (or pauses worked out) that failed in a row: the loop backs off while the database is gone. */
  let failures = 0;

  const tick = (): Promise<number> => {
    chain = chain
      .then(options.round, options.round)
      .then((found) => {
        failures = 0;
        return found;
      })
      .catch((error: unknown) => {
        failures += 1;
        options.onError(error);
        return 0;
      });
    return chain;
  };

  /**
   * The pause after `failures` failures in a row: 100 ms doubling up to 5 s. Without it a round
   * that failed at once (a restarting PostgreSQL refuses every query) ran again at once, woken by
   * new work or with no pause at all (the idle pause could not be worked out either): a worker
   * logged 675 errors in 100 ms.
   */
  const backoff = () => Math.min(FAILURE_PAUSE_MAX_MS, FAILURE_PAUSE_MS * 2 ** Math.min(failures - 1, 16));

  // The clock's timers need not keep the process alive (the system clock's do not), so stop() ends
  // any pause itself: waiting for a busy round's pause, a process with nothing else alive ended
  // with the stop unfinished.
  const sleep = (ms: number, interruptible: boolean) =>
    new Promise<void>((resolve) => {
      const end = () => {
        wake = null;
        endPause = null;
        clock.clearTimeout(handle);
        resolve();
      };
      const handle = clock.setTimeout(end, ms);
      endPause = end;
      if (interruptible) wake = end;
    });

  async function loop(): Promise<void> {
    while (running) {
      poked = false;
      const found = await tick();
      if (!running) break;
      // Rounds over a synchronous database resolve without ever leaving the microtask queue:
      // yield to the event loop between rounds, so that requests and timers get their turn.
      await yieldToEventLoop();
      if (failures > 0) {
        // Not cut short by notify(): new work cannot help a database that is not there.
        if (running) await sleep(backoff(), false);
        continue;
      }
      if (found === 0 && poked) continue;
      const ms = await Promise.resolve(options.pause(found)).catch(() => {
        failures += 1;
        return backoff();
      });
      if (failures > 0) {
        if (running) await sleep(ms, false);
        continue;
      }
      // A notify() that came while the pause was worked out ends the idle wait before it begins.
      if (found === 0 && poked) continue;
      if (ms > 0 && running) await sleep(ms, found === 0);
    }
  }

  return {
    tick,
    start() {
      if (running) return;
      running = true;
      loopDone = loop();
    },
    async stop() {
      running = false;
      endPause?.();
      await loopDone;
      await chain;
    },
    notify() {
      poked = true;
      wake?.();
    },
    async drain() {
      while ((await tick()) > 0) {
        /* until a round finds nothing due */
      }
    },
  };
}
