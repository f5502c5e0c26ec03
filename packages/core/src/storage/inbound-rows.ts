import type { ClaimedDelivery, InboundMessage, WebhookDelivery, WebhookDeliveryStatus } from '../ports/inbound-storage.ts';

/** An `inbound_messages` row. */
export interface InboundMessageRow {
  id: string;
  account_id: number;
  alpha_name: string;
  phone_number: string;
  text: string;
  received_at: number;
}

/** A `webhook_deliveries` row, as selected by {@link WEBHOOK_DELIVERY_COLUMNS}. */
export interface WebhookDeliveryRow {
  id: number;
  inbound_id: string;
  account_id: number;
  url: string;
  status: string;
  attempts: number;
  last_error: string | null;
  due_at: number;
  created_at: number;
  delivered_at: number | null;
}

/**
 * A claimed delivery joined with its inbound message; the message's `id` and `account_id` come
 * as `m_id` and `m_account_id`, apart from the delivery's own.
 */
export type ClaimedDeliveryRow = WebhookDeliveryRow & Omit<InboundMessageRow, 'id' | 'account_id'> & { m_id: string; m_account_id: number };

/** The `webhook_deliveries` columns a {@link WebhookDeliveryRow} holds (the lease stays out). */
export const WEBHOOK_DELIVERY_COLUMNS = 'id, inbound_id, account_id, url, status, attempts, last_error, due_at, created_at, delivered_at';

/** Maps an `inbound_messages` row to the inbound message. */
export function inboundMessageFromRow(row: InboundMessageRow): InboundMessage {
  return {
    idUuid: row.id,
    accountId: row.account_id,
    alphaName: row.alpha_name,
    phoneNumber: row.phone_number,
    text: row.text,
    receivedAt: row.received_at,
  };
}

/** Maps a `webhook_deliveries` row to the delivery. */
export function webhookDeliveryFromRow(row: WebhookDeliveryRow): WebhookDelivery {
  return {
    id: row.id,
    inboundId: row.inbound_id,
    accountId: row.account_id,
    url: row.url,
    status: row.status as WebhookDeliveryStatus,
    attempts: row.attempts,
    lastError: row.last_error,
    dueAt: row.due_at,
    createdAt: row.created_at,
    deliveredAt: row.delivered_at,
  };
}

/** Maps a claimed delivery joined with its message to the claimed delivery. */
export function claimedDeliveryFromRow(row: ClaimedDeliveryRow): ClaimedDelivery {
  return { ...webhookDeliveryFromRow(row), inbound: inboundMessageFromRow({ ...row, id: row.m_id, account_id: row.m_account_id }) };
}
