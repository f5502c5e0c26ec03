import type { MachineEvent } from '../machines/events.ts';
import type { DeliveryStatus } from '../types/status.ts';
import type { HistoryEntry, PersistedMachineState, StoredMessage } from '../types/message.ts';
import type { WorkItem } from '../types/work.ts';

/**
 * Who holds a message's accepted attempt, whose outcome its driver will report: the worker that
 * committed the acceptance. When that worker dies, another adopts the attempt and asks the driver
 * to recover it.
 */
export type AttemptHolder = 'keep' | 'mine' | 'none';

/** One message's step in a round, applied only over the version the worker read. */
export interface MessageUpdate {
  id: number;
  /** The version the update was computed from. */
  version: number;
  status: DeliveryStatus;
  snapshot: PersistedMachineState;
  /** The message's whole work after the step (replaces what was there). */
  work: WorkItem[];
  /** Appended to the message's history, in order. */
  history: Omit<HistoryEntry, 'messageId'>[];
  attempt: AttemptHolder;
  /**
   * Keeps the message leased to the committer until this time instead of freeing it, its wake-up
   * moved there as a claim moves it: the step left a send due now, which the committer makes next
   * without claiming the message again (a scheduled message coming due, a fallback after a failed
   * step). Nobody else claims it meanwhile, and `takeHandedOver` answers it to the committer.
   */
  lease?: number | undefined;
  /**
   * The step took the message to a final status from one that was not (a Read after its Delivered
   * leaves it `delivered`, and is not this): what metrics count as a message finished. Storages
   * ignore it. Absent: told by `status` alone.
   */
  finished?: boolean | undefined;
}

/** A provider's id of an accepted attempt, so that a receipt naming only it finds the message. */
export interface ProviderIdRecord {
  driver: string;
  providerMessageId: string;
  messageId: number;
  step: number;
}

/** Everything one worker round writes, applied atomically. */
export interface Commit {
  at: number;
  /** The worker committing; updates of messages leased by another worker conflict. */
  owner: string;
  updates: MessageUpdate[];
  providerIds: ProviderIdRecord[];
  /** Durable receipts applied by `updates`: deleted, unless their message conflicted (then released). */
  receipts: Array<{ id: number; messageId: number }>;
}

/** What a commit could not apply. */
export interface CommitResult {
  /**
   * Messages whose version had moved since they were read, or that another worker holds: nothing
   * of theirs was written, the committer's lease on them was released, their receipts stay queued.
   */
  conflicts: number[];
}

/** A charge of one step, taken before the step is handed to its channel. */
export interface StepCharge {
  messageId: number;
  accountId: number;
  step: number;
  /** Micro-units, positive. */
  amount: number;
  description: string;
  /**
   * The amount is not the step's stored price (an SMS priced again at send on its text as sent):
   * the charge also writes it as `steps[step].cost`, so the step shows what was charged.
   */
  reprices?: boolean;
}

/**
 * `charged`: the balance covered it, and the wallet, balance, the message's cost and its charged
 * step were written together; `already`: the step was charged before (a retry, or a send repeated
 * after a crash), nothing written; `insufficient_funds`: nothing written.
 */
export type StepChargeResult = 'charged' | 'already' | 'insufficient_funds';

/** A receipt waiting in the durable inbox for a worker to apply it. */
export interface QueuedReceipt {
  messageId: number;
  event: MachineEvent;
  /** Human detail of a failure. */
  detail: string | null;
  /** The driver that reported it. */
  driver: string | null;
  at: number;
}

/** A receipt naming only the provider's id, kept until the acceptance that records the id commits. */
export interface OrphanReceipt {
  driver: string;
  providerMessageId: string;
  outcome: 'delivered' | 'read' | 'failed';
  failure: string | null;
  detail: string | null;
  at: number;
}

/**
 * What the engine's workers do with messages: claim the due ones, write rounds, charge steps,
 * take receipts from the inbox, and recover each other's work. Every method is one transaction.
 */
export interface WorkStorage {
  /**
   * Leases up to `limit` messages whose work is due at `now` and that no live lease holds, to
   * `owner` until `now + leaseMs`, oldest due first.
   */
  claimDue(now: number, limit: number, leaseMs: number, owner: string): Promise<StoredMessage[]>;
  /**
   * The messages among `ids` that an ingest stored leased to `owner` (a hand-over, see
   * `IngestBatch.lease`) and that this lease still holds at `now`: read, not written, so that the
   * worker takes them without a claim's write. Messages whose lease ran out, or that another
   * worker holds or this one committed meanwhile, are not answered. In no promised order.
   */
  takeHandedOver(ids: readonly number[], owner: string, now: number): Promise<StoredMessage[]>;
  /** Earliest wake-up time of an unleased message, or null when none waits. */
  nextDueAt(now: number): Promise<number | null>;
  /**
   * Applies a round: each update only over the version it read and only when the message is not
   * leased by another worker; the update clears the committer's lease, or keeps it until its
   * `lease`. Also records provider ids and deletes the applied receipts.
   */
  commit(commit: Commit): Promise<CommitResult>;
  /** Charges steps before they are sent, one result per charge in order. */
  chargeSteps(charges: StepCharge[], at: number): Promise<StepChargeResult[]>;

  /**
   * Writes receipts to the durable inbox (another process applies them) and, in the same
   * transaction, `orphans`: receipts whose provider id is not known yet (as `addOrphanReceipts`).
   */
  enqueueReceipts(receipts: QueuedReceipt[], orphans?: OrphanReceipt[]): Promise<void>;
  /** Leases up to `limit` queued receipts to `owner`, oldest first. */
  claimReceipts(now: number, limit: number, leaseMs: number, owner: string): Promise<Array<QueuedReceipt & { id: number }>>;
  /**
   * The history of each of `messageIds` that has one, each message's entries oldest first (in no
   * promised order between messages). A round reads it for the few receipts only their history
   * tells from a repeat (see the engine's `receiptRepeat`).
   */
  histories(messageIds: readonly number[]): Promise<HistoryEntry[]>;
  /** The attempts of `driver` known by these provider ids. */
  findAttempts(driver: string, providerMessageIds: string[]): Promise<Map<string, { messageId: number; step: number }>>;
  /** Keeps receipts whose provider id is not known yet. */
  addOrphanReceipts(orphans: OrphanReceipt[]): Promise<void>;
  /**
   * Moves orphan receipts whose provider id is now known into the inbox (as queued receipts), and
   * drops those older than `olderThan`. Answers how many were moved.
   */
  adoptOrphanReceipts(olderThan: number): Promise<number>;

  /** Records that `owner` is alive at `now`. */
  heartbeat(owner: string, now: number): Promise<void>;
  /** Workers other than `self` whose heartbeat is older than `now - staleMs` (or that retired). */
  deadWorkers(now: number, staleMs: number, self: string): Promise<string[]>;
  /**
   * How many workers heartbeat at `now - staleMs` or later and did not retire: the ones
   * {@link WorkStorage.deadWorkers} does not name. A process that only accepts reads it to say
   * whether anyone sends what it accepted.
   */
  liveWorkers(now: number, staleMs: number): Promise<number>;
  /** Releases the leases of `owners` (dead workers), so their messages are claimed again at once. */
  releaseLeases(owners: string[]): Promise<number>;
  /**
   * Moves up to `limit` accepted attempts held by `from` (dead workers) to `to`, and answers their
   * messages with their histories, for the driver to recover their outcomes.
   */
  adoptAttempts(from: string[], to: string, limit: number): Promise<Array<{ message: StoredMessage; history: HistoryEntry[] }>>;
  /** Forgets workers that hold nothing any more. */
  forgetWorkers(owners: string[]): Promise<void>;
  /** Marks `owner` as stopped, so others adopt what it still holds at once. */
  retireWorker(owner: string): Promise<void>;
}
