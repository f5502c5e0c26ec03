import { describe, expect, it } from 'vitest';
import { MAX_WEBHOOK_ATTEMPTS, WEBHOOK_RETRY_DELAYS_MS, nextWebhookRetryDelay } from './webhook-backoff.ts';

describe('webhook backoff', () => {
  it('waits 10 s, 30 s, 2 min, 10 min, 1 h, then longer, growing', () => {
    expect([1, 2, 3, 4, 5].map(nextWebhookRetryDelay)).toEqual([10_000, 30_000, 120_000, 600_000, 3_600_000]);
    for (let i = 1; i < WEBHOOK_RETRY_DELAYS_MS.length; i++)
      expect(WEBHOOK_RETRY_DELAYS_MS[i]!).toBeGreaterThanOrEqual(WEBHOOK_RETRY_DELAYS_MS[i - 1]!);
  });

  it('gives up after the last attempt, about a day after the first', () => {
    expect(nextWebhookRetryDelay(MAX_WEBHOOK_ATTEMPTS - 1)).not.toBeNull();
    expect(nextWebhookRetryDelay(MAX_WEBHOOK_ATTEMPTS)).toBeNull();
    const total = WEBHOOK_RETRY_DELAYS_MS.reduce((a, b) => a + b, 0);
    expect(total).toBeGreaterThan(20 * 3_600_000);
    expect(total).toBeLessThanOrEqual(24 * 3_600_000);
  });
});
