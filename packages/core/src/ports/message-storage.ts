import type { DeliveryStatus } from '../types/status.ts';
import type { Effect, NewEffect } from '../types/effect.ts';
import type { HistoryEntry, MessageKind, PersistedMachineState, StepSpec, StoredMessage } from '../types/message.ts';

/** A message to insert at acceptance, with the effects and history its first transitions produced. */
export interface NewMessage extends Pick<
  StoredMessage,
  | 'kind'
  | 'guid'
  | 'trackinId'
  | 'customerMessageId'
  | 'content'
  | 'steps'
  | 'status'
  | 'snapshot'
  | 'routeRef'
  | 'dueAt'
  | 'expiresAt'
  | 'meta'
> {
  /** Charged at acceptance, micro-units (one wallet transaction per message when > 0). */
  charge: number;
  effects: Omit<NewEffect, 'messageId'>[];
  history: Omit<HistoryEntry, 'messageId'>[];
}

export interface IngestBatch {
  accountId: number;
  at: number;
  messages: NewMessage[];
  /** Wallet transaction description of the acceptance charges. */
  chargeDescription: string;
}

export type IngestResult =
  | {
      status: 'accepted';
      listId: number;
      /** Id of each message, in batch order; replays carry the id of the original. */
      ids: number[];
      /** Batch indexes that were idempotent replays of an earlier message (nothing inserted). */
      replays: number[];
    }
  /** Nothing stored: these batch indexes reuse a `customerMessageId` with other content. */
  | { status: 'conflict'; indexes: number[] }
  /** Nothing stored: the balance does not cover the acceptance charges. */
  | { status: 'insufficient_funds'; balance: number; required: number };

export interface MessageUpdate {
  id: number;
  /** The version the update was computed from; the update applies only over it. */
  version: number;
  status: DeliveryStatus;
  snapshot: PersistedMachineState;
  /** Added to the message's cost. */
  addCost?: number;
}

/** What a commit could not apply. */
export interface CommitResult {
  /**
   * Messages whose version had moved since they were read: nothing of theirs was written (update,
   * history, new effects, timer cancellations) and their consumed effects were released to be
   * claimed again at once, so the work is redone over the fresh state.
   */
  conflicts: number[];
}

/** What `PATCH /bat/message/{id}` changes of a scheduled message. */
export interface ScheduledChange {
  steps: StepSpec[];
  content: string;
  dueAt: number;
  expiresAt: number | null;
  status: DeliveryStatus;
  snapshot: PersistedMachineState;
  /** Added to the message's cost, micro-units (negative for a refund). */
  addCost: number;
  history: HistoryEntry[];
}

/** Everything one engine step writes, applied atomically. */
export interface Commit {
  at: number;
  updates: MessageUpdate[];
  history: HistoryEntry[];
  /** Effects consumed by this step (deleted). */
  doneEffects: number[];
  newEffects: NewEffect[];
  /** Pending `event` effects carrying TIMER events to drop, for a message (optionally one step). */
  cancelTimers: { messageId: number; step?: number }[];
}

export interface MessageQuery {
  accountId: number;
  kind?: MessageKind;
}

/** Messages, their history, and the outbox of effects. */
export interface MessageStorage {
  /**
   * Accepts a whole request in one transaction: customerMessageId replays and conflicts, the
   * balance check, the list, the messages, their charges, effects and history.
   */
  ingest(batch: IngestBatch): Promise<IngestResult>;
  getMessage(id: number): Promise<StoredMessage | null>;
  getMessageByGuid(guid: string): Promise<StoredMessage | null>;
  /** The newest message of an account with this cascade `trackinId`. */
  getMessageByTrackinId(accountId: number, trackinId: string): Promise<StoredMessage | null>;
  getMessages(ids: number[]): Promise<StoredMessage[]>;
  history(messageId: number): Promise<HistoryEntry[]>;
  /** Appends history outside a transition (a short-URL click). */
  appendHistory(entries: HistoryEntry[]): Promise<void>;
  /** Applies one engine step atomically. */
  commit(commit: Commit): Promise<CommitResult>;
  /**
   * Leases up to `limit` effects due at `now` for `leaseMs`; leased effects are not handed out
   * again until the lease runs out (a crashed worker's effects come back).
   */
  claimDueEffects(now: number, limit: number, leaseMs: number): Promise<Effect[]>;
  /** Due time of the earliest effect not leased at `now`, or null when the outbox is empty. */
  nextDueAt(now: number): Promise<number | null>;
  /**
   * Changes or cancels a message only while it is still `scheduled` (compare-and-set), in one
   * transaction: the message row, its pending `DUE` effect (moved to `dueAt`, or dropped when the
   * new status is final) and the history entries. Answers false, changing nothing, when the message
   * is no longer scheduled (a worker took it meanwhile).
   */
  updateScheduled(id: number, change: ScheduledChange, at: number): Promise<boolean>;
}
