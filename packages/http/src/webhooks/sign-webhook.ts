import { Webhook } from 'standardwebhooks';

/** The Standard Webhooks headers of one request. */
export interface WebhookHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/**
 * Signs `body` the Standard Webhooks way. `id` stays the same across retries of one message, so
 * receivers deduplicate on it; the timestamp is the attempt's.
 *
 * @example signWebhook('whsec_...', inbound.idUuid, clock.now(), JSON.stringify(payload))
 */
export function signWebhook(secret: string, id: string, at: number, body: string): WebhookHeaders {
  const timestamp = new Date(at);
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at / 1000)),
    'webhook-signature': new Webhook(secret).sign(id, timestamp, body),
  };
}
