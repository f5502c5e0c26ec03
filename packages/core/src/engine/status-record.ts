import type { ExtendedStatus, FallbackStatus, MessageStatusRecord } from '../types/api.ts';
import type { HistoryEntry, MessageStatusView } from '../types/message.ts';
import type { DeliveryStatus } from '../types/status.ts';
import { isoTime } from '../iso-time.ts';
import { fromMicros } from './money.ts';

const iso = (ms: number | null) => (ms === null ? null : isoTime(ms));

function extended(message: MessageStatusView, entries: HistoryEntry[]): ExtendedStatus[] {
  return entries.map((e) => ({
    status: e.status,
    channel: e.channel,
    attempt: e.step,
    type: message.steps[e.step]?.type ?? '',
    dt: isoTime(e.at),
    error: e.error,
    driver: e.driver ?? null,
  }));
}

/** The status of one attempt, read from its own history: its last outcome decides. */
export function attemptStatus(entries: HistoryEntry[]): DeliveryStatus | null {
  let status: DeliveryStatus | null = null;
  for (const e of entries) {
    switch (e.status) {
      case 'Sent':
        status ??= 'processing';
        break;
      case 'Delivered':
      case 'Read':
        status = 'delivered';
        break;
      case 'Failed':
        if (status !== 'delivered') status = e.error?.startsWith('permanent') ? 'permanenterror' : 'undeliverable';
        break;
      case 'Expired':
      case 'Skipped':
        if (status !== 'delivered') status = 'undeliverable';
        break;
      case 'Cancelled':
        status = 'cancelled';
        break;
      case 'Superseded':
      case 'Clicked':
        break;
    }
  }
  return status;
}

/**
 * The status record of a messaging API message (interface 2.5): the overall `deliverystatus`,
 * each fallback with its own status, and the ordered history. Money in currency units.
 */
export function buildStatusRecord(message: MessageStatusView, history: HistoryEntry[], currency: string): MessageStatusRecord {
  const primary = message.steps[0]!;
  const byStep = (step: number) => history.filter((h) => h.step === step);
  // The attempt that decided the outcome: the last one that was tried.
  const decisive = message.steps[Math.max(0, ...history.map((h) => h.step))] ?? primary;
  const record: MessageStatusRecord = {
    messagelistId: message.listId,
    messageId: message.id,
    deliverystatus: message.status,
    partscount: primary.partsCount,
    cost: fromMicros(message.cost),
    customerMessageId: message.customerMessageId,
    type: primary.type,
    from: primary.from,
    to: primary.to,
    dtExpire: iso(message.expiresAt),
    extendedStatuses: extended(message, history),
    partsCount: primary.partsCount,
    rate: fromMicros(decisive.rate),
    rateAmount: fromMicros(decisive.cost),
    rateCurrency: currency,
    billAmount: fromMicros(message.cost),
    billCurrency: currency,
  };
  if (message.steps.length > 1) {
    record.fallbacks = message.steps.slice(1).map((step, i): FallbackStatus => {
      const entries = byStep(i + 1);
      return {
        from: step.from,
        to: step.to,
        type: step.type,
        text: step.text,
        deliverystatus: attemptStatus(entries),
        partsCount: step.partsCount,
        cost: entries.some((e) => e.status === 'Sent' || e.status === 'Failed') ? fromMicros(step.cost) : 0,
        extendedStatuses: extended(message, entries),
      };
    });
  }
  return record;
}
