import type { MachineEvent } from '../machines/events.ts';
import type { FailureClass } from '../types/channel.ts';
import type { OrphanReceipt, QueuedReceipt } from '../ports/work-storage.ts';

/** A `receipts` row (the durable inbox), with `event` parsed. */
export interface ReceiptRow {
  id: number;
  message_id: number;
  event: MachineEvent;
  detail: string | null;
  driver: string | null;
  at: number;
}

/** Maps a parsed `receipts` row to the queued receipt. */
export function queuedReceiptFromRow(row: ReceiptRow): QueuedReceipt & { id: number } {
  return {
    id: Number(row.id),
    messageId: Number(row.message_id),
    event: row.event,
    detail: row.detail,
    driver: row.driver,
    at: Number(row.at),
  };
}

/** The inbox receipt of an orphan receipt once its provider id is known to name `step` of `messageId`. */
export function receiptOfOrphan(orphan: OrphanReceipt, messageId: number, step: number): QueuedReceipt {
  const event: MachineEvent =
    orphan.outcome === 'delivered'
      ? { type: 'DELIVERED', step }
      : orphan.outcome === 'read'
        ? { type: 'READ', step }
        : { type: 'FAILED', step, failure: (orphan.failure as FailureClass | null) ?? 'undeliverable' };
  return { messageId, event, detail: orphan.detail, driver: orphan.driver, at: orphan.at };
}
