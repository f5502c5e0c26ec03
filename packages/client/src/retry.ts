/** How the client retries answers 429 (rate limited). */
export interface RetryOptions {
  /** Retries after the first attempt; 0 turns retrying off. @default 3 */
  retries?: number;
  /** Longest wait the client accepts; a longer `Retry-After` is answered to the caller as is. @default 60000 */
  maxDelayMs?: number;
  /** Wait used when a 429 carries no `Retry-After`: doubled on each retry. @default 500 */
  baseDelayMs?: number;
}

/** Waits `ms` milliseconds; tests pass one that moves a fake clock. */
export type Sleep = (ms: number) => Promise<void>;

export const realSleep: Sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Milliseconds a `Retry-After` value asks for: delta-seconds or an HTTP date (RFC 9110 10.2.3).
 * Null when absent or unreadable.
 */
export function retryAfterMs(value: string | null, now: number = Date.now()): number | null {
  if (!value) return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

/**
 * A fetch that sends a request again when it is answered 429, after the `Retry-After` the server
 * gave (the rate limits of interface 8 always send one). Each attempt sends a clone, so a body
 * can be sent again.
 */
export function retryingFetch(
  fetch: (input: Request) => Promise<Response>,
  options: RetryOptions & { sleep?: Sleep; now?: () => number } = {},
): (input: Request) => Promise<Response> {
  const retries = options.retries ?? 3;
  const maxDelayMs = options.maxDelayMs ?? 60_000;
  const baseDelayMs = options.baseDelayMs ?? 500;
  const sleep = options.sleep ?? realSleep;
  const now = options.now ?? Date.now;
  return async (input) => {
    for (let attempt = 0; ; attempt++) {
      const res = await fetch(attempt < retries ? input.clone() : input);
      if (res.status !== 429 || attempt >= retries) return res;
      const delay = retryAfterMs(res.headers.get('retry-after'), now()) ?? baseDelayMs * 2 ** attempt;
      if (delay > maxDelayMs) return res;
      await res.body?.cancel();
      await sleep(delay);
    }
  };
}
