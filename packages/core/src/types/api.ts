import type { DeliveryStatus, HistoryStatus } from './status.ts';
import type { ChannelId } from './channel.ts';

/** One item of the send response (interface 2.4). */
export interface SentMessage {
  messageId: number;
  from: string;
  to: string;
  text: string;
  dtExpire: string | null;
  customerMessageId: string | null;
  partsCount: number;
  type: string;
}

/** The send response (interface 2.4). */
export interface SendResponse {
  messagelistId: number;
  messages: SentMessage[];
}

/** One entry of `extendedStatuses`. */
export interface ExtendedStatus {
  status: HistoryStatus;
  channel: ChannelId;
  /** Index of the attempt: 0 the primary, 1.. the fallbacks. */
  attempt: number;
  type: string;
  dt: string;
  error: string | null;
  /**
   * The driver that carried the attempt (`Sent`, a failure at the send) or reported the outcome;
   * with a failover, the provider that took it. Null for what the engine decided itself (a skip).
   * A Spillway addition to the interface's record.
   */
  driver: string | null;
}

/** The status of one fallback of a message. */
export interface FallbackStatus {
  from: string;
  to: string;
  type: string;
  text: string;
  /** Null while the fallback has not been used. */
  deliverystatus: DeliveryStatus | null;
  partsCount: number;
  cost: number;
  extendedStatuses: ExtendedStatus[];
}

/** The message status record (interface 2.5). */
export interface MessageStatusRecord {
  messagelistId: number;
  messageId: number;
  deliverystatus: DeliveryStatus;
  partscount: number;
  cost: number;
  customerMessageId: string | null;
  type: string;
  from: string;
  to: string;
  dtExpire: string | null;
  fallbacks?: FallbackStatus[];
  extendedStatuses: ExtendedStatus[];
  partsCount: number;
  rate: number;
  rateAmount: number;
  rateCurrency: string;
  billAmount: number;
  billCurrency: string;
}

/** `GET /bat/balance`. */
export interface BalanceResponse {
  balance: number;
  currency: string;
}
