/** `deliverystatus` of the interface (section 3), plus `cancelled` for a message withdrawn while scheduled. */
export const DELIVERY_STATUSES = ['scheduled', 'processing', 'delivered', 'undeliverable', 'permanenterror', 'cancelled'] as const;
/** One of {@link DELIVERY_STATUSES}: where a message or cascade stands. */
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** Statuses that never change again. */
export function isFinalStatus(status: DeliveryStatus): boolean {
  return status !== 'scheduled' && status !== 'processing';
}

/**
 * Entries of a message's history (`extendedStatuses`). The first five are the interface's
 * listing; `Skipped`, `Superseded`, `Cancelled` and `Clicked` are Spillway's additions.
 */
export type HistoryStatus = 'Sent' | 'Delivered' | 'Read' | 'Failed' | 'Expired' | 'Skipped' | 'Superseded' | 'Cancelled' | 'Clicked';
