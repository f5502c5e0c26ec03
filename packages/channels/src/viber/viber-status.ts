import type { FailureClass, Receipt, SendResult } from '@spillway/core';

/** Viber REST API `status` codes of `send_message` (0 is ok), mapped to failure classes. */
export const VIBER_STATUSES: Readonly<Record<number, { name: string; failure: FailureClass }>> = {
  1: { name: 'invalidUrl', failure: 'permanent' },
  2: { name: 'invalidAuthToken', failure: 'permanent' },
  3: { name: 'badData', failure: 'permanent' },
  4: { name: 'missingData', failure: 'permanent' },
  5: { name: 'receiverNotRegistered', failure: 'not_on_channel' },
  6: { name: 'receiverNotSubscribed', failure: 'not_on_channel' },
  7: { name: 'publicAccountBlocked', failure: 'permanent' },
  8: { name: 'publicAccountNotFound', failure: 'permanent' },
  9: { name: 'publicAccountSuspended', failure: 'permanent' },
  10: { name: 'webhookNotSet', failure: 'permanent' },
  11: { name: 'receiverNoSuitableDevice', failure: 'not_on_channel' },
  12: { name: 'tooManyRequests', failure: 'throttled' },
  13: { name: 'apiVersionNotSupported', failure: 'permanent' },
  14: { name: 'incompatibleWithVersion', failure: 'permanent' },
};

/** What a `send_message` answer means; statuses past the documented ones are general errors, retried. */
export function viberSendOutcome(
  httpStatus: number,
  body: { status?: number; status_message?: string; message_token?: unknown } | null,
): SendResult {
  if (httpStatus >= 500 || !body || typeof body.status !== 'number') {
    return { outcome: 'failed', failure: 'temporary', error: `Viber answered HTTP ${httpStatus}` };
  }
  if (body.status === 0) {
    return body.message_token !== undefined
      ? { outcome: 'accepted', providerMessageId: String(body.message_token) }
      : { outcome: 'accepted' };
  }
  const known = VIBER_STATUSES[body.status];
  const error = `Viber status ${body.status} ${known?.name ?? 'generalError'}: ${body.status_message ?? ''}`.trim();
  return { outcome: 'failed', failure: known?.failure ?? 'temporary', error };
}

/** The receipt of a callback event (`delivered`, `seen`, `failed`), or `null` for other events. */
export function viberReceipt(event: Record<string, unknown>): Receipt | null {
  const token = event['message_token'];
  if (token === undefined || token === null) return null;
  const providerMessageId = String(token);
  switch (event['event']) {
    case 'delivered':
      return { providerMessageId, outcome: 'delivered' };
    case 'seen':
      return { providerMessageId, outcome: 'read' };
    case 'failed':
      return {
        providerMessageId,
        outcome: 'failed',
        failure: 'undeliverable',
        error: `Viber: ${typeof event['desc'] === 'string' ? event['desc'] : 'failed'}`,
      };
    default:
      return null;
  }
}
