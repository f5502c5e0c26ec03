import type { ChannelId } from './channel.ts';
import type { DeliveryStatus, HistoryStatus } from './status.ts';
import type { WorkItem } from './work.ts';

/**
 * One channel attempt of a message: the primary item or one of its fallbacks (messaging API), or
 * one step of a cascade route. Everything the engine needs to hand the attempt to a channel.
 */
export interface StepSpec {
  channel: ChannelId;
  /** The interface's type (`sms`, `chatapp_promo`, ...) or a cascade step's kind. */
  type: string;
  from: string;
  to: string;
  text: string;
  messageData?: Record<string, unknown> | undefined;
  /** Time-to-live of this attempt in seconds; null takes the engine default. */
  ttl: number | null;
  partsCount: number;
  /** Price of this attempt in micro-units of the account currency. */
  cost: number;
  /** Price per part, micro-units. */
  rate: number;
}

/** The persisted part of a machine snapshot: its state value and small discrete context. */
export interface PersistedMachineState {
  value: string | Record<string, unknown>;
  context: Record<string, unknown>;
}

/** Which machine runs a stored message: a `message` of the messaging API or a `cascade`. */
export type MessageKind = 'message' | 'cascade';

/**
 * What a status record (and a wait for a first step) reads of a stored message: a narrow read,
 * without the machine's snapshot, work and content.
 */
export type MessageStatusView = Pick<
  StoredMessage,
  'id' | 'listId' | 'accountId' | 'kind' | 'customerMessageId' | 'steps' | 'status' | 'expiresAt' | 'cost'
>;

/** A message as stored: its steps, where its machine is, and what it has cost. */
export interface StoredMessage {
  id: number;
  listId: number;
  accountId: number;
  kind: MessageKind;
  /** Cascade messages: the GUID answered as `messageId`. */
  guid: string | null;
  /** Cascade messages: the client id answered as `trackinId`. */
  trackinId: string | null;
  customerMessageId: string | null;
  /**
   * Canonical JSON of the accepted request item, compared on `customerMessageId` replays and
   * merged with a change of a scheduled message. Empty for a messaging API message that has
   * neither a `customerMessageId` nor a scheduled start (nothing reads it; the steps carry it).
   */
  content: string;
  steps: StepSpec[];
  status: DeliveryStatus;
  snapshot: PersistedMachineState;
  /** Cascade messages: `routeId@revision` of the route the machine was compiled from. */
  routeRef: string | null;
  createdAt: number;
  updatedAt: number;
  /** When the first step is due (scheduled sends). */
  dueAt: number;
  /** When the message as a whole expires, if it has a ttl (`dtExpire`). */
  expiresAt: number | null;
  /** Total charged so far, micro-units. */
  cost: number;
  /** Kind-specific extras (cascade: referral, customerData, bot credentials reference...). */
  meta: Record<string, unknown> | null;
  /**
   * Bumped by every change of the message. A commit applies an update only over the version it
   * read, so two workers (or processes) never overwrite each other's step.
   */
  version: number;
  /** What the machine waits for: due sends and events (the message's outbox). */
  work: WorkItem[];
  /** Bit `s` is set once step `s` was charged: a step is charged at most once, even across crashes. */
  charged: number;
}

/** One entry of a message's ordered history (`extendedStatuses`). */
export interface HistoryEntry {
  messageId: number;
  step: number;
  channel: ChannelId;
  status: HistoryStatus;
  at: number;
  error: string | null;
  /** The driver that carried the attempt (`Sent`, and outcomes it reported). */
  driver?: string | undefined;
  /** The provider's id of the attempt (`Sent`), when the driver answered one. */
  providerMessageId?: string | undefined;
}
