import type { Clock } from '../clock.ts';
import type { Commit } from '../ports/message-storage.ts';
import { isFinalStatus } from '../types/status.ts';

/**
 * Lets a caller wait until messages had a step handed to a channel (a `Sent` or `Failed`
 * history entry) or ended, as seen in the worker's commits. Bounded by a timeout on the clock.
 */
export function createFirstStepWaiter(clock: Clock) {
  const waiting = new Map<number, Set<() => void>>();
  const settle = (id: number) => {
    const set = waiting.get(id);
    if (!set) return;
    waiting.delete(id);
    for (const resolve of set) resolve();
  };

  return {
    /** Feed every commit of the worker here. */
    observe(commit: Commit): void {
      if (waiting.size === 0) return;
      for (const h of commit.history) if (h.status === 'Sent' || h.status === 'Failed') settle(h.messageId);
      for (const u of commit.updates) if (isFinalStatus(u.status)) settle(u.id);
    },
    /** Resolves when every message of `ids` was handed to a channel or ended, or after `timeoutMs`. */
    wait(ids: number[], timeoutMs: number): Promise<void> {
      const each = ids.map(
        (id) =>
          new Promise<void>((resolve) => {
            const set = waiting.get(id) ?? new Set();
            set.add(resolve);
            waiting.set(id, set);
          }),
      );
      return new Promise<void>((resolve) => {
        const timer = clock.setTimeout(() => {
          for (const id of ids) waiting.delete(id);
          resolve();
        }, timeoutMs);
        void Promise.all(each).then(() => {
          clock.clearTimeout(timer);
          resolve();
        });
      });
    },
  };
}
