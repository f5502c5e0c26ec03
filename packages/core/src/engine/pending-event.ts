import type { MachineEvent } from '../machines/events.ts';
import type { Receipt } from '../ports/channel.ts';

/**
 * An event on its way to a message's machine: a send's result, a driver's receipt, a receipt
 * from the durable inbox, or a due timer. Human details stay out of the event itself, so that
 * transitions stay memoizable.
 */
export interface PendingEvent {
  messageId: number;
  event: MachineEvent;
  at: number;
  /** Human detail of a failure. */
  detail?: string | undefined;
  /** The driver that carried the attempt or reported the outcome. */
  driver?: string | undefined;
  /** The member of a composite (failover) driver that carried the send, recorded in history instead of `driver`. */
  carrier?: string | undefined;
  /** The provider's id answered with an acceptance. */
  providerMessageId?: string | undefined;
  /** 0 for a send's own result, which goes before receipts of the same moment; 1 otherwise. */
  rank: 0 | 1;
  /** Arrival order, the last tie-breaker. */
  seq: number;
  /** Acknowledges a driver's receipt once the round that applied it has committed. */
  ack?: (() => void) | undefined;
  /** Id of the receipt in the durable inbox. */
  receiptId?: number | undefined;
}

/** The machine event of a receipt about step `step`. */
export function receiptEvent(receipt: Receipt, step: number): MachineEvent {
  switch (receipt.outcome) {
    case 'delivered':
      return { type: 'DELIVERED', step };
    case 'read':
      return { type: 'READ', step };
    case 'failed':
      return { type: 'FAILED', step, failure: receipt.failure ?? 'undeliverable' };
  }
}

/** Events of one message in the order they happened: by time, a send's result first, then arrival. */
export function byOccurrence(a: PendingEvent, b: PendingEvent): number {
  return a.at - b.at || a.rank - b.rank || a.seq - b.seq;
}
