import type { AnyStateMachine } from 'xstate';
import type { AttemptHolder, MessageUpdate } from '../ports/work-storage.ts';
import type { HistoryEntry, PersistedMachineState, StoredMessage } from '../types/message.ts';
import type { WorkItem } from '../types/work.ts';
import type { MachineAdvancer } from './advance.ts';
import { historyOf } from './history.ts';
import type { PendingEvent } from './pending-event.ts';
import { isReceiptEvent, noteReport, receiptRepeat, reportedStatus, type AttemptReports } from './receipt-repeats.ts';
import { hasStateLeaf } from './state-leaf.ts';

/** Whether the machine waits for the outcome (or the read) of an attempt a channel accepted. */
export function awaitsOutcome(value: PersistedMachineState['value']): boolean {
  return hasStateLeaf(value, 'awaiting') || hasStateLeaf(value, 'reading');
}

export interface MessageStepInput {
  message: StoredMessage;
  machine: { key: string; machine: AnyStateMachine };
  /** The events to apply, in the order they happened. */
  events: PendingEvent[];
  /** The message's work once the items consumed by this step are taken out. */
  work: WorkItem[];
  now: number;
  advancer: MachineAdvancer;
  defaultTtlSeconds: number;
  /**
   * What each step's latest attempt has reported, read from the message's history: needed only
   * when a receipt may repeat one (see `receiptRepeat`). The step takes it over: it notes the
   * round's own reports in it, so that a receipt repeated within the round is a repeat too.
   */
  reports?: AttemptReports | undefined;
}

/**
 * Applies a message's events to its machine and answers what the round writes for it: the next
 * state, the work the machine's actions ask for (sends now, timers at their due times, timers
 * cancelled), and the history entries. Outcomes reported by channels are always recorded, even
 * late ones; the rest only when they moved the machine (see `historyOf`). A receipt that repeats
 * what its step's attempt already reported (providers repeat receipts: webhooks are at-least-once)
 * changes nothing and is not recorded again.
 *
 * Answers null when a receipt may be such a repeat and only the history tells (`receiptRepeat`)
 * while `input.reports` is not given: the caller reads the history (`attemptReports`) and steps
 * the message again with it.
 */
export function stepMessage(input: MessageStepInput): MessageUpdate | null {
  const { message, now, advancer } = input;
  const { key, machine } = input.machine;
  let state = message.snapshot;
  let status = message.status;
  let work = input.work;
  let accepted = false;
  const history: Omit<HistoryEntry, 'messageId'>[] = [];
  // The reports as this step goes: a receipt repeated within the round is a repeat too.
  const reports = input.reports;
  const entry = (step: number, status: HistoryEntry['status'], at: number, error: string | null, item?: PendingEvent) => {
    const channel = message.steps[step]?.channel ?? message.steps[0]?.channel ?? 'sms';
    const h: Omit<HistoryEntry, 'messageId'> = { step, channel, status, at, error };
    // A failover's member names the attempt; receipts and provider ids stay filed under the failover.
    const driver = item?.carrier ?? item?.driver;
    if (driver) h.driver = driver;
    if (item?.providerMessageId) h.providerMessageId = item.providerMessageId;
    history.push(h);
    if (reports) noteReport(reports, step, status);
  };

  for (const item of input.events) {
    const next = advancer.next(key, machine, state, item.event);
    // A send's own result (rank 0) is never a repeat: each answers a send.
    if (item.rank === 1 && isReceiptEvent(item.event)) {
      let repeat = receiptRepeat(item.event, state, status, next.changed);
      if (repeat === 'unknown') {
        if (!reports) return null;
        repeat = reports.get(item.event.step)?.has(reportedStatus(item.event)) ? 'repeat' : 'new';
      }
      if (repeat === 'repeat') continue;
    }
    const stepIndex = 'step' in item.event ? item.event.step : Number(state.context['step'] ?? 0);
    const recorded = historyOf(item.event, next.changed, item.detail);
    if (recorded) entry(stepIndex, recorded.status, item.at, recorded.error, item);
    if (!next.changed) continue;
    if (item.event.type === 'ACCEPTED') accepted = true;
    state = next.state;
    status = next.status;
    for (const action of next.actions) {
      switch (action.type) {
        case 'send':
          work = [...work, { kind: 'send', step: action.params.step, dueAt: now }];
          break;
        case 'armTimer': {
          const { timer, step, seconds } = action.params;
          const ttl = seconds ?? message.steps[step]?.ttl ?? input.defaultTtlSeconds;
          work = [...work, { kind: 'event', event: { type: 'TIMER', step, timer }, dueAt: now + ttl * 1000 }];
          break;
        }
        case 'cancelTimers': {
          const step = action.params.step;
          work = work.filter((w) => !(w.kind === 'event' && w.event.type === 'TIMER' && (step === undefined || w.event.step === step)));
          break;
        }
        case 'note':
          entry(action.params.step, action.params.status, now, action.params.error ?? null);
          break;
      }
    }
  }
  const awaiting = status === 'processing' && awaitsOutcome(state.value);
  const attempt: AttemptHolder = !awaiting ? 'none' : accepted ? 'mine' : 'keep';
  return { id: message.id, version: message.version, status, snapshot: state, work, history, attempt };
}
