import type { NewWalletTransaction } from './account-storage.ts';
import type { DeliveryStatus } from '../types/status.ts';
import type { HistoryEntry, MessageKind, MessageStatusView, PersistedMachineState, StepSpec, StoredMessage } from '../types/message.ts';
import type { WorkItem } from '../types/work.ts';

/** A message to insert at acceptance, with the work and history its first transitions produced. */
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
  | 'work'
> {
  /** Charged at acceptance, micro-units (summed into one wallet transaction per request). */
  charge: number;
  history: Omit<HistoryEntry, 'messageId'>[];
}

/** The messages of one accepted request, stored with their charge in one transaction. */
export interface IngestBatch {
  accountId: number;
  at: number;
  messages: NewMessage[];
  /** Wallet transaction description of the acceptance charge of the request. */
  chargeDescription: string;
  /**
   * A hand-over: the messages whose work is due at `at` are stored leased to the worker `owner`
   * until `until` (their wake-up moved to `until`, as a claim moves it), so that this worker takes
   * them by id (`WorkStorage.takeHandedOver`) instead of claiming them. Which messages: see
   * `isHandedOver` in `@spillway/core/storage`.
   */
  lease?: { owner: string; until: number } | undefined;
}

/** What storing an {@link IngestBatch} answers: accepted with the ids, or nothing stored (a conflict or too low a balance). */
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

/** What `PATCH /bat/message/{id}` changes of a scheduled message. */
export interface ScheduledChange {
  steps: StepSpec[];
  content: string;
  dueAt: number;
  expiresAt: number | null;
  status: DeliveryStatus;
  snapshot: PersistedMachineState;
  work: WorkItem[];
  /**
   * The charge (negative amount) or refund (positive) of the change, written in the same
   * transaction; a charge the balance does not cover fails the change. The message's cost moves
   * by `-amount`.
   */
  wallet: Omit<NewWalletTransaction, 'accountId' | 'messageId'> | null;
  history: Omit<HistoryEntry, 'messageId'>[];
}

/** Why {@link MessageStorage.updateScheduled} changed nothing. */
export type ScheduledChangeResult = 'changed' | 'not_scheduled' | 'insufficient_funds';

/** Which messages of an account to list. */
export interface MessageQuery {
  accountId: number;
  kind?: MessageKind;
}

/** Messages and their history: acceptance, reads, and changes of scheduled messages. */
export interface MessageStorage {
  /**
   * Accepts a whole request in one transaction: customerMessageId replays and conflicts, the
   * balance check, the list, the messages with their work and history, and one wallet
   * transaction for the acceptance charges.
   */
  ingest(batch: IngestBatch): Promise<IngestResult>;
  /**
   * Accepts several requests in one transaction (group commit of requests that arrived
   * together), each decided as if alone and in order. Answers one result per batch.
   */
  ingestMany(batches: IngestBatch[]): Promise<IngestResult[]>;
  /**
   * Optional: does before the write what writing `batch` needs and the database does not decide
   * (the SQL adapters build its rows: `draftIngestRows` of `@spillway/core/storage`), so that the
   * `ingest` or `ingestMany` of the batch that follows holds the write lock less long. The engine
   * calls it before each ingest it makes (as a request joins the group commit); an ingest never
   * requires it.
   */
  prepareIngest?(batch: IngestBatch): void;
  getMessage(id: number): Promise<StoredMessage | null>;
  getMessageByGuid(guid: string): Promise<StoredMessage | null>;
  /** The newest message of an account with this cascade `trackinId`. */
  getMessageByTrackinId(accountId: number, trackinId: string): Promise<StoredMessage | null>;
  getMessages(ids: number[]): Promise<StoredMessage[]>;
  history(messageId: number): Promise<HistoryEntry[]>;
  /**
   * A message's status view with its history in one read (status records, waits for a first
   * step): the columns a status needs, not the whole row.
   */
  getMessageWithHistory(id: number): Promise<{ message: MessageStatusView; history: HistoryEntry[] } | null>;
  /** Appends history outside a transition (a short-URL click). */
  appendHistory(entries: HistoryEntry[]): Promise<void>;
  /**
   * Changes or cancels a message only while it is still `scheduled` (compare-and-set), in one
   * transaction with its wallet transaction: the message row, its work and history entries.
   */
  updateScheduled(id: number, change: ScheduledChange, at: number): Promise<ScheduledChangeResult>;
}
