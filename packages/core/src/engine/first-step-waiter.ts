import type { Clock } from '../clock.ts';
import type { MessageStorage } from '../ports/message-storage.ts';
import { isFinalStatus } from '../types/status.ts';

/** How often the waiter looks at the messages it waits for. */
const POLL_MS = 20;

/**
 * Lets a caller wait until messages had a step handed to a channel (a `Sent` or `Failed`
 * history entry) or ended. It reads the storage, so it sees the work of a worker in another
 * thread or process; bounded by a timeout on the clock.
 */
export function createFirstStepWaiter(storage: Pick<MessageStorage, 'getMessageWithHistory'>, clock: Clock) {
  const wakers = new Set<() => void>();
  /**
   * Counts pokes, so that a poke that came while a waiter was reading (its commit may be newer than
   * what the read saw) makes it read again at once instead of sleeping until the next poll.
   */
  let pokes = 0;
  /** Sleeps `ms` on the clock, or until `poke()`. */
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const wake = () => {
        wakers.delete(wake);
        clock.clearTimeout(handle);
        resolve();
      };
      const handle = clock.setTimeout(wake, ms);
      wakers.add(wake);
    });

  async function settled(id: number): Promise<boolean> {
    const found = await storage.getMessageWithHistory(id);
    if (!found) return true;
    return isFinalStatus(found.message.status) || found.history.some((h) => h.status === 'Sent' || h.status === 'Failed');
  }

  return {
    /** Something was committed in this process: look again now rather than at the next poll. */
    poke(): void {
      pokes += 1;
      for (const wake of [...wakers]) wake();
    },
    /** Resolves when every message of `ids` was handed to a channel or ended, or after `timeoutMs`. */
    async wait(ids: number[], timeoutMs: number): Promise<void> {
      const deadline = clock.now() + timeoutMs;
      let open = ids;
      for (;;) {
        const seen = pokes;
        const done = await Promise.all(open.map(settled));
        open = open.filter((_, i) => !done[i]);
        if (open.length === 0 || clock.now() >= deadline) return;
        if (pokes !== seen) continue;
        await sleep(Math.min(POLL_MS, deadline - clock.now()));
      }
    },
  };
}
