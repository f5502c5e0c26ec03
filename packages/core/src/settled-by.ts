import type { Clock, TimerHandle } from './clock.ts';
import { yieldToEventLoop } from './engine/round-loop.ts';

/**
 * Waits for `work` until `deadline` (ms since the epoch on `clock`) at the latest: answers true
 * once it settled, false when the deadline came first. Work left at the deadline goes on unwaited
 * for, and a failure of it after that is dropped (a stop abandons it: it fails as what it uses
 * closes); a failure before the deadline rejects as `work` did. The timer is the clock's, so a
 * fake clock drives it.
 *
 * @example
 * const deadline = clock.now() + graceMs;
 * if (!(await settledBy(server.close(), deadline, clock))) logger.warn('requests still unanswered');
 */
export async function settledBy(work: Promise<unknown> | undefined, deadline: number, clock: Clock): Promise<boolean> {
  if (work === undefined) return true;
  let timer: TimerHandle | undefined;
  let late = false;
  const settled = work.then(
    () => true,
    (error: unknown) => {
      if (late) return false;
      throw error;
    },
  );
  const left = deadline - clock.now();
  const expired = new Promise<false>((resolve) => {
    const end = () => {
      late = true;
      resolve(false);
    };
    // Past the deadline, work gets one turn of the event loop: what is done already (a
    // synchronous close) counts as done, on a fake clock too.
    if (left <= 0) void yieldToEventLoop().then(end);
    else timer = clock.setTimeout(end, left);
  });
  try {
    return await Promise.race([settled, expired]);
  } finally {
    if (timer !== undefined) clock.clearTimeout(timer);
    // Nobody waits for it any more: its failure must not be an unhandled rejection.
    settled.catch(() => undefined);
  }
}

/**
 * What a stop gives, past its deadline, to record what is already done: the send results that
 * came back are applied, a storage closes (a commit in flight ends and is answered), a thread
 * exits. Layers of one stop that share its deadline share this window too; work still running at
 * its end is abandoned. A commit takes milliseconds unless it waits for a lock, which this does
 * not wait out.
 */
export const STOP_SETTLE_MS = 250;
