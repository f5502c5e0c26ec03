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
 * What the endpoint's answer to the `HEAD` of `check()` says about it. The probe carries no
 * signature and no body, so only an answer that shows nothing usable is at the URL fails it:
 * 404 and 410 (a wrong path: the same URL would refuse every send) and 5xx other than 501 (the
 * endpoint is failing). 405 and 501 are what a POST-only endpoint answers a method it lacks
 * (Python's http.server answers 501): it is up. 401 and 403 are an endpoint that wants the
 * signature every send carries; 2xx, 3xx and the other 4xx are an endpoint that answered.
 * Express and Hono answer 404 to HEAD on a route that has only POST: HEAD cannot tell that from
 * a wrong path, so 404 still fails and the detail names both (a probe POST could tell, but might
 * be taken for a send).
 */
export function webhookCheckOutcome(url: string, status: number): { ok: boolean; detail: string } {
  const answered = `${url} answered ${status}`;
  if (status === 405 || status === 501) return { ok: true, detail: `${answered} to HEAD: up, it takes POST only` };
  if (status === 404 || status === 410)
    return {
      ok: false,
      detail: `${answered}: nothing at this URL (is the path right?); Express and Hono answer HEAD 404 on a POST-only route too: answer HEAD there`,
    };
  if (status >= 500) return { ok: false, detail: `${answered}: the endpoint is failing` };
  if (status === 401 || status === 403) return { ok: true, detail: `${answered} to an unsigned HEAD: up, sends are signed` };
  return { ok: true, detail: answered };
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
