/**
 * Waits between webhook delivery attempts, ms: after the n-th failed attempt the next one is due
 * `WEBHOOK_RETRY_DELAYS_MS[n - 1]` later. Ten attempts over about 23 hours, then `failed`.
 */
export const WEBHOOK_RETRY_DELAYS_MS: readonly number[] = [
  10_000, // 10 s
  30_000, // 30 s
  120_000, // 2 min
  600_000, // 10 min
  3_600_000, // 1 h
  7_200_000, // 2 h
  14_400_000, // 4 h
  28_800_000, // 8 h
  28_800_000, // 8 h
];

/** Attempts a delivery gets before it is `failed`. */
export const MAX_WEBHOOK_ATTEMPTS = WEBHOOK_RETRY_DELAYS_MS.length + 1;

/**
 * How long to wait after `attemptsMade` failed attempts, or null when the delivery has had all
 * its attempts and is given up.
 * @example nextWebhookRetryDelay(1) // 10_000
 */
export function nextWebhookRetryDelay(attemptsMade: number): number | null {
  if (!Number.isInteger(attemptsMade) || attemptsMade < 1) return WEBHOOK_RETRY_DELAYS_MS[0] ?? null;
  return WEBHOOK_RETRY_DELAYS_MS[attemptsMade - 1] ?? null;
}
