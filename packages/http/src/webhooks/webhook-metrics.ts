import { Counter, Histogram } from 'prom-client';
import type { Registry } from 'prom-client';
import { sharedMetric } from '../metrics.ts';
import type { WebhookAttempt, WebhookAttemptOutcome } from './delivery-worker.ts';

const OUTCOMES: readonly WebhookAttemptOutcome[] = ['delivered', 'failed_attempt', 'given_up'];

/** Seconds: a call ends by its answer, or by the timeout (10 s by default). */
const DURATION_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15, 30];

/** The webhook metrics of {@link createWebhookMetrics}. */
export interface WebhookMetrics {
  /** Counts one attempt: pass it as the delivery worker's `onAttempt`. */
  onAttempt(attempt: WebhookAttempt): void;
  /** Counts attempts observed elsewhere (a workers' thread's, posted as plain data). */
  record(attempts: readonly WebhookAttempt[]): void;
}

/**
 * Webhook delivery metrics on `registry` (incoming-message callbacks): attempts by outcome
 * (`spillway_webhook_deliveries_total`) and the time their calls took
 * (`spillway_webhook_delivery_duration_seconds`). The only label is the outcome (`delivered`,
 * `failed_attempt`, `given_up`): never a URL or an account, so the series stay three. Every
 * outcome is answered from the start, at zero, so that a rate over it needs no first failure.
 *
 * @example
 * const metrics = createWebhookMetrics(registry);
 * createWebhookDeliveryWorker({ storage, clock, onAttempt: metrics.onAttempt });
 */
export function createWebhookMetrics(registry: Registry): WebhookMetrics {
  const attempts = sharedMetric(
    registry,
    'spillway_webhook_deliveries_total',
    () =>
      new Counter({
        name: 'spillway_webhook_deliveries_total',
        help: 'Webhook delivery attempts, by outcome: delivered (a 2xx), failed_attempt (retried later), given_up (no attempt left, or a refused URL)',
        labelNames: ['outcome'] as const,
        registers: [registry],
      }),
  );
  const durations = sharedMetric(
    registry,
    'spillway_webhook_delivery_duration_seconds',
    () =>
      new Histogram({
        name: 'spillway_webhook_delivery_duration_seconds',
        help: 'Time a webhook delivery call took (redirects included, up to its timeout), in seconds, by outcome',
        labelNames: ['outcome'] as const,
        buckets: DURATION_BUCKETS,
        registers: [registry],
      }),
  );
  for (const outcome of OUTCOMES) {
    attempts.inc({ outcome }, 0);
    durations.zero({ outcome });
  }
  const onAttempt = ({ outcome, seconds }: WebhookAttempt) => {
    attempts.inc({ outcome });
    if (seconds !== undefined) durations.observe({ outcome }, seconds);
  };
  return {
    onAttempt,
    record(list) {
      for (const attempt of list) onAttempt(attempt);
    },
  };
}
