import type { AnyStateMachine } from 'xstate';
import type { AttemptHolder, MessageUpdate } from '../ports/work-storage.ts';
import type { HistoryEntry, PersistedMachineState, StoredMessage } from '../types/message.ts';
import type { WorkItem } from '../types/work.ts';
import type { MachineAdvancer, Step } from './advance.ts';
import { historyOf } from './history.ts';
import type { PendingEvent } from './pending-event.ts';
import { isReceiptEvent, noteReport, receiptRepeat, reportedStatus, type AttemptReports } from './receipt-repeats.ts';
import { hasStateLeaf } from './state-leaf.ts';
import { isFinalStatus } from '../types/status.ts';

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
 * A step stopped at a receipt that only the message's history tells from a repeat
 * (`receiptRepeat`), with what it did so far: `resume` goes on from that receipt with the
 * history's reports (`attemptReports`), and applies no event twice. Resumed once: it goes on with
 * the step's own progress, which a second resume would find moved on.
 */
export interface StepAwaitingHistory {
  resume(reports: AttemptReports): MessageUpdate;
}

/** Where a step stopped for the history: its progress so far, and the transition of the receipt it stopped at. */
interface StepProgress {
  state: PersistedMachineState;
  status: StoredMessage['status'];
  work: WorkItem[];
  accepted: boolean;
  history: Omit<HistoryEntry, 'messageId'>[];
  /** The index in `events` of the receipt the step stopped at. */
  at: number;
  /** That receipt's transition, computed already. */
  next: Step;
}

/**
 * Applies a message's events to its machine and answers what the round writes for it: the next
 * state, the work the machine's actions ask for (sends now, timers at their due times, timers
 * cancelled), and the history entries. Outcomes reported by channels are always recorded, even
 * late ones; the rest only when they moved the machine (see `historyOf`). A receipt that repeats
 * what its step's attempt already reported (providers repeat receipts: webhooks are at-least-once)
 * changes nothing and is not recorded again.
 *
 * When a receipt may be such a repeat and only the history tells (`receiptRepeat`) while
 * `input.reports` is not given, the step stops there and answers a {@link StepAwaitingHistory}:
 * the caller reads the histories of all such messages in one batch and resumes each.
 */
export function stepMessage(input: MessageStepInput): MessageUpdate | StepAwaitingHistory {
  return walk(input, input.reports);
}

/** Whether `step` stopped for the message's history. */
export const awaitsHistory = (step: MessageUpdate | StepAwaitingHistory): step is StepAwaitingHistory => 'resume' in step;

/** The events of `input` from the start, or from where `from` stopped; stops only without `reports`. */
function walk(input: MessageStepInput, reports: AttemptReports | undefined, from?: StepProgress): MessageUpdate | StepAwaitingHistory {
  const { message, now, advancer } = input;
  const { key, machine } = input.machine;
  let state = from?.state ?? message.snapshot;
  let status = from?.status ?? message.status;
  let work = from?.work ?? input.work;
  let accepted = from?.accepted ?? false;
  const history: Omit<HistoryEntry, 'messageId'>[] = from?.history ?? [];
  // The reports as this step goes: a receipt repeated within the round is a repeat too.
  const entry = (step: number, status: HistoryEntry['status'], at: number, error: string | null, item?: PendingEvent) => {
    const channel = message.steps[step]?.channel ?? message.steps[0]?.channel ?? 'sms';
    const h: Omit<HistoryEntry, 'messageId'> = { step, channel, status, at, error };
    // A failover's member names the attempt (its send's `carrier`) and its receipts (their `driver`).
    const driver = item?.carrier ?? item?.driver;
    if (driver) h.driver = driver;
    if (item?.providerMessageId) h.providerMessageId = item.providerMessageId;
    history.push(h);
    if (reports) noteReport(reports, step, status);
  };

  const events = input.events;
  for (let i = from?.at ?? 0; i < events.length; i++) {
    const item = events[i]!;
    const next = i === from?.at ? from.next : advancer.next(key, machine, state, item.event);
    // A send's own result (rank 0) is never a repeat: each answers a send.
    if (item.rank === 1 && isReceiptEvent(item.event)) {
      let repeat = receiptRepeat(item.event, state, status, next.changed);
      if (repeat === 'unknown') {
        if (!reports) {
          const progress: StepProgress = { state, status, work, accepted, history, at: i, next };
          return {
            resume(read) {
              // The reports this step recorded before it stopped join the history's.
              for (const h of history) noteReport(read, h.step, h.status);
              // Given reports, the walk never stops.
              return walk(input, read, progress) as MessageUpdate;
            },
          };
        }
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
  const finished = isFinalStatus(status) && !isFinalStatus(message.status);
  return { id: message.id, version: message.version, status, snapshot: state, work, history, attempt, finished };
}
