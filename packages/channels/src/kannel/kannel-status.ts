import type { FailureClass, Receipt, SendResult } from '@spillway/core';
import { smppFailure } from '../smpp/smpp-status.ts';

/** Kannel's DLR types (the `%d` of a `dlr-url`), bits of the `dlr-mask`. */
export const DLR = {
  deliveredToPhone: 1,
  notDeliveredToPhone: 2,
  queuedOnSmsc: 4,
  deliveredToSmsc: 8,
  notDeliveredToSmsc: 16,
} as const;

/** The mask Spillway asks for: final outcomes and the SMSC's acceptance or rejection. @default 27 */
export const DEFAULT_DLR_MASK = DLR.deliveredToPhone | DLR.notDeliveredToPhone | DLR.deliveredToSmsc | DLR.notDeliveredToSmsc;

/**
 * The receipt a DLR means, or `null` for intermediate ones (queued, accepted by the SMSC). A
 * rejection by the SMSC (16) carries `NACK/<command_status>/...` in `%A` when the SMSC speaks
 * SMPP; its class is the SMPP error's.
 */
export function dlrOutcome(type: number, reply: string): Pick<Receipt, 'outcome' | 'failure' | 'error'> | null {
  if (type & DLR.deliveredToPhone) return { outcome: 'delivered' };
  if (type & DLR.notDeliveredToPhone)
    return { outcome: 'failed', failure: 'undeliverable', error: `not delivered to the phone: ${reply || 'no detail'}` };
  if (type & DLR.notDeliveredToSmsc) {
    const nack = /NACK\/(\d+)/i.exec(reply);
    const failure: FailureClass = nack ? smppFailure(Number(nack[1])).failure : 'permanent';
    return { outcome: 'failed', failure, error: `rejected by the SMSC: ${reply || 'no detail'}` };
  }
  return null;
}

/**
 * What Kannel's `sendsms` answer means. 202 is accepted (`0: Accepted for delivery`, or `3: Queued
 * for later delivery` while the SMSC is down: bearerbox keeps it); 4xx are requests Kannel will
 * never take (authorization, missing fields); 5xx and no answer are temporary.
 */
export function sendsmsOutcome(status: number, body: string): SendResult {
  const text = body.trim().slice(0, 200);
  if (status === 200 || status === 202) {
    return /^[03]:/.test(text) || text === '' || /accepted|queued|sent/i.test(text)
      ? { outcome: 'accepted' }
      : { outcome: 'failed', failure: 'temporary', error: `unexpected sendsms answer: ${text}` };
  }
  if (status >= 500) return { outcome: 'failed', failure: 'temporary', error: `Kannel answered ${status}: ${text}` };
  return { outcome: 'failed', failure: 'permanent', error: `Kannel refused the message (${status}): ${text}` };
}
