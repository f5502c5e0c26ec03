import { createRoundLoop, inboundPayloadOf, nextWebhookRetryDelay } from '@spillway/core/adapter';
import type { AccountStorage, Clock, InboundStorage } from '@spillway/core';
import type { ClaimedDelivery, DeliveryOutcome } from '@spillway/core/storage';
import type { LookupAddress } from 'node:dns';
import { guardedPost, UrlRefusedError } from './guarded-post.ts';
import { signWebhook } from './sign-webhook.ts';
import { getWebhookSecret } from './webhook-secret.ts';

/** Longest part of a receiver's `Location` kept in a delivery's error. */
const LOCATION_MAX = 500;

/**
 * The error of an attempt answered with a 301, 302 or 303, which `guardedPost` does not follow:
 * a failed attempt, retried at the backoff times like any other, whose error tells the client why.
 */
function notFollowed(status: number, url: string, location: string): string {
  const where = location.length > LOCATION_MAX ? `${location.slice(0, LOCATION_MAX)}...` : location;
  return `HTTP ${status} from ${url}: the receiver redirected to ${where}; webhooks follow only 307 and 308 redirects, which keep the POST and its body`;
}

/** Options of {@link createWebhookDeliveryWorker}. */
export interface WebhookDeliveryWorkerOptions {
  storage: InboundStorage & Pick<AccountStorage, 'getSetting' | 'setSettingIfAbsent'>;
  /** The engine's clock: due times, signatures' timestamps and the call timeout use it. */
  clock: Clock;
  /** Let callbacks reach loopback and private addresses (`SPILLWAY_ALLOW_PRIVATE_URLS`). @default false */
  allowPrivateUrls?: boolean;
  /** An attempt succeeds on a 2xx within this. @default 10000 */
  timeoutMs?: number;
  /** A claimed delivery whose worker vanished is handed out again after this. @default 60000 */
  leaseMs?: number;
  /** Deliveries claimed by one round. @default 50 */
  batchSize?: number;
  /**
   * Calls in flight at most. A round claims only what fits, and does not wait for its calls: a
   * receiver that answers slowly (or not at all, until the timeout) holds one slot, not the others'
   * deliveries. @default 200
   */
  concurrency?: number;
  /** Longest wait between rounds while started, so deliveries queued by other processes go out. @default 1000 */
  pollMs?: number;
  /** @default 3 */
  maxRedirects?: number;
  /** Errors the worker survives (a storage hiccup). @default console.error */
  onError?: (error: unknown) => void;
  /** Resolver of callback hosts, for tests. @default node:dns lookup */
  resolve?: (hostname: string) => Promise<LookupAddress[]>;
  /** Observes every attempt once it ended (metrics: `createWebhookMetrics`). */
  onAttempt?: (attempt: WebhookAttempt) => void;
}

/**
 * How a delivery attempt ended: `delivered` (a 2xx), `failed_attempt` (retried at its backoff
 * time), or `given_up` (no attempt left, or a URL that may not be called).
 */
export type WebhookAttemptOutcome = 'delivered' | 'failed_attempt' | 'given_up';

/** One delivery attempt as {@link WebhookDeliveryWorkerOptions.onAttempt} sees it: plain data, which a thread can post. */
export interface WebhookAttempt {
  outcome: WebhookAttemptOutcome;
  /**
   * Wall time of the call to the receiver, redirects included, seconds; absent when no call was
   * made (the account's signing secret could not be read).
   */
  seconds?: number;
}

const OUTCOME_OF: Readonly<Record<DeliveryOutcome['status'], WebhookAttemptOutcome>> = {
  delivered: 'delivered',
  retry: 'failed_attempt',
  failed: 'given_up',
};

/** The worker {@link createWebhookDeliveryWorker} answers. */
export interface WebhookDeliveryWorker {
  /** Starts delivering in the background (idempotent). */
  start(): void;
  /** Stops and waits for the round and the calls in flight. */
  stop(): Promise<void>;
  /** Wakes the loop: a delivery was queued. */
  notify(): void;
  /** Runs rounds and their calls until none is due at the clock's current time (tests, with a fake clock). */
  drain(): Promise<void>;
}

/**
 * Delivers incoming chat-app messages to their alpha-names' callback URLs from the persisted
 * outbox: signed with the account's Standard Webhooks secret, success on a 2xx, retried with
 * backoff (`WEBHOOK_RETRY_DELAYS_MS`) until `failed`; at least once, deduplicable by `webhook-id`.
 *
 * @example
 * const webhooks = createWebhookDeliveryWorker({ storage, clock: engine.clock });
 * webhooks.start();
 */
export function createWebhookDeliveryWorker(options: WebhookDeliveryWorkerOptions): WebhookDeliveryWorker {
  const { storage, clock } = options;
  const leaseMs = options.leaseMs ?? 60_000;
  const batchSize = options.batchSize ?? 50;
  const concurrency = options.concurrency ?? 200;
  const pollMs = options.pollMs ?? 1000;
  const onError = options.onError ?? ((error: unknown) => console.error('[spillway] webhook delivery error', error));

  /** Makes one attempt; `call.seconds` is set once the receiver was called. */
  async function attempt(delivery: ClaimedDelivery, call: { seconds?: number }): Promise<DeliveryOutcome> {
    const body = JSON.stringify(inboundPayloadOf(delivery.inbound));
    let error: string;
    try {
      const secret = await getWebhookSecret(storage, delivery.accountId);
      const headers = {
        'content-type': 'application/json',
        'user-agent': 'Spillway-Webhooks/1',
        ...signWebhook(secret, delivery.inboundId, clock.now(), body),
      };
      // Wall time, not the engine clock: on a fake clock every call would take no time.
      const started = performance.now();
      const answer = await guardedPost(delivery.url, {
        body,
        headers,
        clock,
        allowPrivateUrls: options.allowPrivateUrls ?? false,
        timeoutMs: options.timeoutMs ?? 10_000,
        maxRedirects: options.maxRedirects ?? 3,
        ...(options.resolve ? { resolve: options.resolve } : {}),
      }).finally(() => (call.seconds = (performance.now() - started) / 1000));
      if (answer.status >= 200 && answer.status < 300) return { status: 'delivered' };
      error =
        answer.location === undefined
          ? `HTTP ${answer.status} from ${answer.url}`
          : notFollowed(answer.status, answer.url, answer.location);
    } catch (caught) {
      if (caught instanceof UrlRefusedError) return { status: 'failed', error: caught.message };
      error = caught instanceof Error ? caught.message : String(caught);
    }
    const made = delivery.attempts + 1;
    const delay = nextWebhookRetryDelay(made);
    if (delay === null) return { status: 'failed', error: `gave up after ${made} attempts: ${error}` };
    return { status: 'retry', dueAt: clock.now() + delay, error };
  }

  /** Calls not finished yet: a round starts them and goes on, so one slow receiver holds up no one else. */
  const inFlight = new Set<Promise<void>>();

  async function deliver(delivery: ClaimedDelivery): Promise<void> {
    const call: { seconds?: number } = {};
    const outcome = await attempt(delivery, call);
    try {
      options.onAttempt?.({ outcome: OUTCOME_OF[outcome.status], ...call });
    } catch (error) {
      onError(error);
    }
    // A failed write leaves the lease to run out: the delivery is attempted again (at least once).
    await storage.completeDelivery(delivery.id, outcome, clock.now()).catch(onError);
  }

  async function round(): Promise<number> {
    const room = Math.min(batchSize, concurrency - inFlight.size);
    if (room <= 0) return 0;
    const claimed = await storage.claimDueDeliveries(clock.now(), room, leaseMs);
    for (const delivery of claimed) {
      const call: Promise<void> = deliver(delivery)
        .catch(onError)
        .finally(() => {
          inFlight.delete(call);
          // A slot is free (and a retry may be due): the next round need not wait for the poll.
          rounds.notify();
        });
      inFlight.add(call);
    }
    return claimed.length;
  }

  const rounds = createRoundLoop({
    clock,
    round,
    onError,
    // A busy round goes on at once; an idle one waits for the poll interval or a notify.
    pause: (found) => (found > 0 ? 0 : pollMs),
  });

  const settled = async (): Promise<void> => {
    while (inFlight.size > 0) await Promise.all([...inFlight]);
  };

  return {
    start: rounds.start,
    notify: rounds.notify,
    async stop() {
      await rounds.stop();
      await settled();
    },
    async drain() {
      // Rounds no longer wait for their calls: wait for them here, then look for more work.
      do {
        await rounds.drain();
        await settled();
      } while ((await rounds.tick()) > 0 || inFlight.size > 0);
    },
  };
}
