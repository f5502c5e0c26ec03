import type { MachineEvent } from '../machines/events.ts';
import type { HistoryEntry, PersistedMachineState } from '../types/message.ts';
import type { DeliveryStatus, HistoryStatus } from '../types/status.ts';
import { hasStateLeaf } from './state-leaf.ts';

/**
 * What the latest attempt of each step has reported, by step: the statuses among `Delivered`,
 * `Read` and `Failed` in its history since the step's last `Sent` (since its start when no send
 * of it was accepted). A receipt of a status its attempt already reported is the provider
 * repeating itself.
 */
export type AttemptReports = Map<number, Set<HistoryStatus>>;

/** A receipt event: an outcome a provider reports about an attempt. */
export type ReceiptEvent = Extract<MachineEvent, { type: 'DELIVERED' | 'READ' | 'FAILED' }>;

const REPORTED: Readonly<Record<ReceiptEvent['type'], HistoryStatus>> = { DELIVERED: 'Delivered', READ: 'Read', FAILED: 'Failed' };

/** Whether `event` is of a kind receipts bring (a send's own failed answer is told apart by its rank: `PendingEvent.rank`). */
export const isReceiptEvent = (event: MachineEvent): event is ReceiptEvent =>
  event.type === 'DELIVERED' || event.type === 'READ' || event.type === 'FAILED';

/** The history status a receipt event records. */
export const reportedStatus = (event: ReceiptEvent): HistoryStatus => REPORTED[event.type];

/** Adds one history entry of step `step` to `reports`: a `Sent` opens the step's new attempt, an outcome joins it. */
export function noteReport(reports: AttemptReports, step: number, status: HistoryStatus): void {
  if (status === 'Sent') reports.set(step, new Set());
  else if (status === 'Delivered' || status === 'Read' || status === 'Failed') {
    const seen = reports.get(step);
    if (seen) seen.add(status);
    else reports.set(step, new Set([status]));
  }
}

/** The reports of each step's latest attempt, from one message's history in order. */
export function attemptReports(history: Iterable<Pick<HistoryEntry, 'step' | 'status'>>): AttemptReports {
  const reports: AttemptReports = new Map();
  for (const entry of history) noteReport(reports, entry.step, entry.status);
  return reports;
}

/**
 * Whether the receipt `event` repeats one the step's latest attempt already reported, as far as
 * the machine's state before it tells: `repeat` or `new`, or `unknown` when only the step's
 * history tells (`AttemptReports`). Rounds read the history for `unknown` receipts alone, which
 * are late or repeated ones (and the Reads of messaging API messages, whose machine a Read never
 * moves); the common receipt, the first outcome of the step a message awaits, is told without it.
 *
 * Told by the state, for the step the message is at while it runs:
 * - a failure while the step waits to retry (`retrying`), or while its retry is being sent
 *   (`sending` after a retry), repeats the failure that made it retry: counted again, it used up
 *   the retries and took the fallback (or the route's next step), charged, with no retry made.
 *   A failure of the retry itself that arrives before the send's own answer is taken for the
 *   repeat too, and the retry ends by its ttl instead: a provider reports on what it accepted;
 * - a Delivered while a cascade step waits for its read (`reading`) repeats the one that got it there;
 * - any other receipt that moves the machine is the step's first of its status.
 *
 * A receipt that moves nothing, and one about another step (a cascade whose step was delivered
 * and left unread: its repeated Delivered would supersede the step it went on to) are `unknown`.
 */
export function receiptRepeat(
  event: ReceiptEvent,
  state: PersistedMachineState,
  status: DeliveryStatus,
  changed: boolean,
): 'repeat' | 'new' | 'unknown' {
  if (status !== 'processing' || event.step !== Number(state.context['step'] ?? 0)) return 'unknown';
  if (event.type === 'FAILED') {
    const retried = Number(state.context['retries'] ?? 0) > 0;
    if (hasStateLeaf(state.value, 'retrying') || (retried && hasStateLeaf(state.value, 'sending'))) return 'repeat';
  }
  if (event.type === 'DELIVERED' && hasStateLeaf(state.value, 'reading')) return 'repeat';
  return changed ? 'new' : 'unknown';
}

/** The {@link AttemptReports} of each message of `history` (several messages' entries, each's in order). */
export function attemptReportsByMessage(
  history: Iterable<Pick<HistoryEntry, 'messageId' | 'step' | 'status'>>,
): Map<number, AttemptReports> {
  const byMessage = new Map<number, AttemptReports>();
  for (const entry of history) {
    let reports = byMessage.get(entry.messageId);
    if (!reports) byMessage.set(entry.messageId, (reports = new Map()));
    noteReport(reports, entry.step, entry.status);
  }
  return byMessage;
}
