import type { IngestResult, NewMessage } from '../ports/message-storage.ts';

/** What an adapter found of a stored message of the account carrying a batch's customerMessageId. */
export interface KnownCustomerMessage {
  id: number;
  listId: number;
  content: string;
}

/** The part of a batch message the ingest decision reads. */
export type PlannedMessage = Pick<NewMessage, 'customerMessageId' | 'content' | 'charge'>;

/** The batch is to be written: insert `fresh`, charge `required`. */
export interface IngestInsertPlan {
  action: 'insert';
  /**
   * Id of each message in batch order: replays already carry the original's id; the adapter
   * sets the fresh ones as it allocates them.
   */
  ids: number[];
  /** Batch indexes that replay an earlier message (nothing inserted), ascending. */
  replays: number[];
  /** Batch indexes to insert, ascending. */
  fresh: number[];
  /** Sum of the charges of the fresh messages, micro-units. */
  required: number;
}

/** What an ingest does: answer at once (conflict, insufficient funds, all replays) or insert. */
export type IngestPlan = { action: 'answer'; result: IngestResult } | IngestInsertPlan;

/**
 * The distinct customerMessageIds of a batch, in batch order: the ones an adapter looks up
 * (scoped to the account) to build the `known` map of {@link planIngest}.
 */
export function customerMessageIdsOf(messages: readonly PlannedMessage[]): string[] {
  const ids = new Set<string>();
  for (const m of messages) if (m.customerMessageId !== null) ids.add(m.customerMessageId);
  return [...ids];
}

/**
 * Decides an ingest from what the adapter read inside its transaction: the account's stored
 * messages by customerMessageId (`known`) and its balance.
 *
 * A customerMessageId repeated inside the batch is a conflict at every place whatever the
 * content; a known one is a replay with the same content and a conflict otherwise. Conflicts win
 * over the balance check; replays need no funds; a batch made only of replays answers the
 * original list and creates nothing.
 *
 * @example
 * const plan = planIngest({ messages: batch.messages, known, balance });
 * if (plan.action === 'answer') return plan.result;
 * // insert plan.fresh, charge plan.required, then answer { status: 'accepted', listId, ids: plan.ids, replays: plan.replays }
 */
export function planIngest(input: {
  messages: readonly PlannedMessage[];
  known: ReadonlyMap<string, KnownCustomerMessage>;
  balance: number;
}): IngestPlan {
  const { messages, known, balance } = input;
  const ids: number[] = new Array<number>(messages.length);
  const replays: number[] = [];
  const conflicts = new Set<number>();
  const seen = new Map<string, number>();

  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    const cmid = m.customerMessageId;
    if (cmid === null) continue;
    const first = seen.get(cmid);
    if (first !== undefined) {
      conflicts.add(first).add(i);
      continue;
    }
    seen.set(cmid, i);
    const existing = known.get(cmid);
    if (!existing) continue;
    if (existing.content === m.content) {
      ids[i] = existing.id;
      replays.push(i);
    } else {
      conflicts.add(i);
    }
  }
  if (conflicts.size > 0) return { action: 'answer', result: { status: 'conflict', indexes: [...conflicts].sort((a, b) => a - b) } };

  // replays is ascending: one pass splits the batch.
  const fresh: number[] = [];
  let required = 0;
  let r = 0;
  for (let i = 0; i < messages.length; i++) {
    if (replays[r] === i) {
      r++;
      continue;
    }
    fresh.push(i);
    required += messages[i]!.charge;
  }
  if (required > balance) return { action: 'answer', result: { status: 'insufficient_funds', balance, required } };

  if (messages.length > 0 && fresh.length === 0) {
    const listId = known.get(messages[0]!.customerMessageId!)!.listId;
    return { action: 'answer', result: { status: 'accepted', listId, ids, replays } };
  }
  return { action: 'insert', ids, replays, fresh, required };
}
