import type { AttemptRef, FailureClass, Receipt, SendResult } from '@spillway/core';

const CLASSES: readonly FailureClass[] = ['throttled', 'temporary', 'not_on_channel', 'undeliverable', 'permanent'];

function isFailureClass(value: unknown): value is FailureClass {
  return typeof value === 'string' && (CLASSES as readonly string[]).includes(value);
}

/** Seconds of a `Retry-After` header (delta-seconds or an HTTP date), if any. */
export function retryAfterSeconds(header: string | null, now: number): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.ceil(seconds);
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

/**
 * What the endpoint's answer to an attempt means: 2xx accepted (`{ "id": "..." }` is kept as the
 * provider's message id); 429 throttled with its Retry-After; 408 and 5xx temporary; other 4xx
 * permanent, unless the body names a failure class (`{ "failure": "not_on_channel" }`).
 */
export function webhookSendOutcome(status: number, body: unknown, retryAfter: string | null, now: number): SendResult {
  const obj = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const detail = typeof obj['error'] === 'string' ? obj['error'] : typeof obj['message'] === 'string' ? obj['message'] : '';
  if (status >= 200 && status < 300) {
    const id = obj['id'];
    return typeof id === 'string' || typeof id === 'number'
      ? { outcome: 'accepted', providerMessageId: String(id) }
      : { outcome: 'accepted' };
  }
  const error = `the endpoint answered ${status}${detail ? `: ${detail}` : ''}`;
  if (status === 429) {
    const after = retryAfterSeconds(retryAfter, now);
    return { outcome: 'failed', failure: 'throttled', error, ...(after !== undefined ? { retryAfter: after } : {}) };
  }
  if (status === 408 || status >= 500) return { outcome: 'failed', failure: 'temporary', error };
  return { outcome: 'failed', failure: isFailureClass(obj['failure']) ? obj['failure'] : 'permanent', error };
}

/**
 * Reads a receipt posted to the callback route:
 * `{ "messageId": 1, "step": 0 } | { "providerMessageId": "..." }` with
 * `"status": "delivered" | "read" | "failed"`, and for failures `"failure"` (a class, default
 * `undeliverable`) and `"error"`. Answers a problem (a string) for a malformed body.
 */
export function parseWebhookReceipt(body: unknown): Receipt | string {
  if (typeof body !== 'object' || body === null) return 'expected a JSON object';
  const b = body as Record<string, unknown>;
  let ref: AttemptRef;
  if (typeof b['providerMessageId'] === 'string' && b['providerMessageId']) ref = { providerMessageId: b['providerMessageId'] };
  else if (Number.isSafeInteger(b['messageId']) && Number.isSafeInteger(b['step']))
    ref = { messageId: b['messageId'] as number, step: b['step'] as number };
  else return 'expected messageId and step (integers), or providerMessageId';
  const status = b['status'];
  if (status === 'delivered' || status === 'read') return { ...ref, outcome: status };
  if (status !== 'failed') return 'status must be delivered, read or failed';
  if (b['failure'] !== undefined && !isFailureClass(b['failure'])) return `failure must be one of ${CLASSES.join(', ')}`;
  const failure = isFailureClass(b['failure']) ? b['failure'] : 'undeliverable';
  return { ...ref, outcome: 'failed', failure, error: typeof b['error'] === 'string' ? b['error'] : `failed (${failure})` };
}
