import type { ApiClient, CascadeStatus } from '../api/api-client.ts';
import { ApiError } from '../api/api-client.ts';
import { describeError } from '../api/describe-error.ts';

/** Statuses after which nothing changes any more (a late delivery aside). */
const SETTLED = new Set(['delivered', 'cancelled', 'undeliverable', 'permanenterror']);

/** Polls after a settled status, for late reports. */
const SETTLED_POLLS = 3;

export interface CascadeStatusPoll {
  onStatus(status: CascadeStatus): void;
  /** A failed read; `final` when polling has stopped (no such cascade). */
  onError(message: string, final: boolean): void;
}

/**
 * Polls a cascade's status every `intervalMs` while it runs, a few times after it settles, and
 * not at all once the server answers it does not exist (404). Answers the function that stops it.
 */
export function pollCascadeStatus(
  api: Pick<ApiClient, 'cascadeStatus'>,
  id: string,
  intervalMs: number,
  { onStatus, onError }: CascadeStatusPoll,
): () => void {
  let stopped = false;
  let settledPolls = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const poll = async () => {
    try {
      const next = await api.cascadeStatus(id);
      if (stopped) return;
      onStatus(next);
      if (SETTLED.has(next.status)) settledPolls++;
    } catch (e) {
      if (stopped) return;
      if (e instanceof ApiError && e.status === 404) {
        stopped = true;
        onError(`No cascade '${id}' was found: check the trackinId or message GUID`, true);
        return;
      }
      onError(describeError(e), false);
    }
    if (!stopped && settledPolls < SETTLED_POLLS) timer = setTimeout(() => void poll(), intervalMs);
  };
  void poll();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
