import { describe, expect, it, vi } from 'vitest';
import type { MachineEvent } from '../machines/events.ts';
import { messageMachine } from '../machines/message-machine.ts';
import type { PersistedMachineState, StepSpec, StoredMessage } from '../types/message.ts';
import type { DeliveryStatus } from '../types/status.ts';
import { MachineAdvancer } from './advance.ts';
import { awaitsHistory, stepMessage } from './message-step.ts';
import type { PendingEvent } from './pending-event.ts';
import { attemptReports } from './receipt-repeats.ts';

const advancer = new MachineAdvancer();
const sms: StepSpec = { channel: 'sms', type: 'sms', from: 'Shop', to: '1', text: 'hi', ttl: null, partsCount: 1, cost: 1, rate: 1 };

/** A messaging API message of `attempts` steps, at `state`. */
const messageAt = (state: PersistedMachineState, status: DeliveryStatus, attempts = 2): StoredMessage =>
  ({
    id: 1,
    kind: 'message',
    steps: Array.from({ length: attempts }, () => sms),
    status,
    snapshot: state,
    work: [],
    version: 3,
  }) as unknown as StoredMessage;

/** The state `events` take a message of `attempts` steps to from its start. */
function stateAfter(events: MachineEvent[], attempts = 2): { state: PersistedMachineState; status: DeliveryStatus } {
  let step = advancer.initial('message', messageMachine, { attempts });
  for (const event of events) step = advancer.next('message', messageMachine, step.state, event);
  return { state: step.state, status: step.status };
}

/** A receipt (rank 1), or with `rank: 0` a send's own result. */
const pending = (event: MachineEvent, rank: 0 | 1 = 1, seq = 0): PendingEvent => ({ messageId: 1, event, at: 100 + seq, rank, seq });

/** A step of `events` from `at`; one that stops for the history answers null. */
function step(events: PendingEvent[], at: ReturnType<typeof stateAfter>, reports?: ReturnType<typeof attemptReports>) {
  const stepped = stepUntilHistory(events, at, reports);
  return awaitsHistory(stepped) ? null : stepped;
}

function stepUntilHistory(events: PendingEvent[], at: ReturnType<typeof stateAfter>, reports?: ReturnType<typeof attemptReports>) {
  return stepMessage({
    message: messageAt(at.state, at.status),
    machine: { key: 'message', machine: messageMachine },
    events,
    work: [],
    now: 1_000,
    advancer,
    defaultTtlSeconds: 60,
    reports,
  });
}

const TEMPORARY: MachineEvent = { type: 'FAILED', step: 0, failure: 'temporary' };

describe('stepMessage and repeated receipts', () => {
  it('tells the first receipt of the step a message awaits without its history', () => {
    const awaiting = stateAfter([{ type: 'DUE' }, { type: 'ACCEPTED', step: 0 }]);
    const update = step([pending({ type: 'DELIVERED', step: 0 })], awaiting);
    expect(update?.status).toBe('delivered');
    expect(update?.history.map((h) => h.status)).toEqual(['Delivered']);
  });

  it('drops a failure repeated while the step waits to retry, or while its retry is being sent: no retry used up', () => {
    const retrying = stateAfter([{ type: 'DUE' }, { type: 'ACCEPTED', step: 0 }, TEMPORARY]);
    expect(retrying.state.context).toMatchObject({ step: 0, retries: 1 });
    const repeated = step([pending(TEMPORARY)], retrying);
    expect(repeated).toMatchObject({ status: 'processing', snapshot: retrying.state, history: [], work: [] });

    const resending = stateAfter([{ type: 'DUE' }, { type: 'ACCEPTED', step: 0 }, TEMPORARY, { type: 'TIMER', step: 0, timer: 'retry' }]);
    expect(resending.state.value).toEqual({ processing: 'sending' });
    expect(step([pending(TEMPORARY)], resending)).toMatchObject({ snapshot: resending.state, history: [] });
    // The retry's own answer is no repeat: it fails the retry.
    const answered = step([pending(TEMPORARY, 0)], resending);
    expect(answered?.snapshot.context).toMatchObject({ retries: 2 });
    expect(answered?.history.map((h) => h.status)).toEqual(['Failed']);
  });

  it('asks for the history when only it tells a repeat, and drops what the attempt already reported', () => {
    const delivered = stateAfter([{ type: 'DUE' }, { type: 'ACCEPTED', step: 0 }, { type: 'DELIVERED', step: 0 }]);
    const read = pending({ type: 'READ', step: 0 });
    expect(step([read], delivered)).toBeNull();
    const history = [
      { step: 0, status: 'Sent' as const },
      { step: 0, status: 'Delivered' as const },
    ];
    expect(step([read], delivered, attemptReports(history))?.history.map((h) => h.status)).toEqual(['Read']);
    expect(step([read], delivered, attemptReports([...history, { step: 0, status: 'Read' }]))?.history).toEqual([]);
    // Repeated within one round: recorded once.
    expect(step([read, { ...read, seq: 1 }], delivered, attemptReports(history))?.history.map((h) => h.status)).toEqual(['Read']);
  });

  it('resumes a step stopped for the history where it stopped: no event applied twice', () => {
    const awaiting = stateAfter([{ type: 'DUE' }, { type: 'ACCEPTED', step: 0 }]);
    const events = [
      pending({ type: 'DELIVERED', step: 0 }),
      pending({ type: 'DELIVERED', step: 0 }, 1, 1),
      pending({ type: 'READ', step: 0 }, 1, 2),
    ];
    const transitions = vi.spyOn(advancer, 'next');
    try {
      const stopped = stepUntilHistory(events, awaiting);
      // The first Delivered moved the machine; the second is one only the history tells.
      expect(transitions).toHaveBeenCalledTimes(2);
      if (!awaitsHistory(stopped)) throw new Error('expected the step to stop for the history');
      const update = stopped.resume(attemptReports([{ step: 0, status: 'Sent' }]));
      expect(transitions).toHaveBeenCalledTimes(3);
      // The Delivered this step recorded before it stopped counts as reported: its repeat is dropped.
      expect(update.status).toBe('delivered');
      expect(update.history.map((h) => h.status)).toEqual(['Delivered', 'Read']);
    } finally {
      transitions.mockRestore();
    }
  });

  it("counts only the reports of a step's latest attempt: a new send opens a new one", () => {
    const reports = attemptReports([
      { step: 0, status: 'Sent' },
      { step: 0, status: 'Failed' },
      { step: 1, status: 'Sent' },
      { step: 1, status: 'Delivered' },
      { step: 0, status: 'Sent' },
      { step: 1, status: 'Superseded' },
    ]);
    expect(reports).toEqual(
      new Map([
        [0, new Set()],
        [1, new Set(['Delivered'])],
      ]),
    );
  });
});
