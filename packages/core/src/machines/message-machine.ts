import { assign, setup } from 'xstate';
import type { FailureClass } from '../types/channel.ts';
import type { HistoryStatus } from '../types/status.ts';
import type { MachineEvent, TimerName } from './events.ts';

/**
 * Context of a message machine: small discrete values only, so that a transition is a pure
 * function of (state, context, event) and the engine can memoize it.
 */
export interface MessageMachineContext {
  /** Current attempt: 0 the primary, 1.. the fallbacks. */
  step: number;
  /** Index of the last attempt. */
  last: number;
  /** Retries of the current attempt after throttled or temporary failures. */
  retries: number;
}

export interface MessageMachineInput {
  /** Number of attempts: 1 + the number of fallbacks. */
  attempts: number;
}

/** Retries on the same channel before a throttled/temporary failure counts as undeliverable. */
export const MAX_RETRIES = 3;

const RETRYABLE: ReadonlySet<FailureClass> = new Set(['throttled', 'temporary']);

type StepEvent = Extract<MachineEvent, { step: number }>;
const isCurrent = ({ context, event }: { context: MessageMachineContext; event: MachineEvent }) =>
  'step' in event && (event as StepEvent).step === context.step;
const isExpiry = ({ context, event }: { context: MessageMachineContext; event: MachineEvent }) =>
  event.type === 'TIMER' && event.timer === 'expiry' && event.step === context.step;
const CANCEL_ALL = { type: 'cancelTimers', params: {} } as const;
const failureOf = (event: MachineEvent): FailureClass | undefined => (event.type === 'FAILED' ? event.failure : undefined);
const backoffSeconds = (retries: number) => 5 * 2 ** retries;

/**
 * The lifecycle of a messaging API message with its fallbacks (interface sections 2.1 and 3).
 * The top-level state is the `deliverystatus`. Each attempt is sent, awaits its outcome and, when
 * it fails, expires or is skipped, hands over to the next fallback; the last outcome decides.
 * Actions are descriptors the engine writes to its outbox; none has a side effect here.
 */
export const messageMachine = setup({
  types: {
    context: {} as MessageMachineContext,
    events: {} as MachineEvent,
    input: {} as MessageMachineInput,
  },
  actions: {
    send: (_, _params: { step: number }) => {},
    armTimer: (_, _params: { timer: TimerName; step: number; seconds?: number }) => {},
    cancelTimers: (_, _params: { step?: number }) => {},
    note: (_, _params: { step: number; status: HistoryStatus; error?: string }) => {},
    nextStep: assign({ step: ({ context }) => context.step + 1, retries: 0 }),
    countRetry: assign({ retries: ({ context }) => context.retries + 1 }),
  },
  guards: {
    isCurrent,
    wasSent: ({ context, event }) => 'step' in event && (event as StepEvent).step <= context.step,
    isEarlier: ({ context, event }) => 'step' in event && (event as StepEvent).step < context.step,
    isCurrentWithNext: ({ context, event }) => isCurrent({ context, event }) && context.step < context.last,
    isExpiryWithNext: ({ context, event }) => isExpiry({ context, event }) && context.step < context.last,
    canRetry: ({ context, event }) => {
      const failure = failureOf(event);
      return isCurrent({ context, event }) && failure !== undefined && RETRYABLE.has(failure) && context.retries < MAX_RETRIES;
    },
    isPermanent: ({ context, event }) => isCurrent({ context, event }) && failureOf(event) === 'permanent',
    isExpiry,
    isRetryDue: ({ context, event }) => event.type === 'TIMER' && event.timer === 'retry' && isCurrent({ context, event }),
  },
}).createMachine({
  id: 'message',
  initial: 'scheduled',
  context: ({ input }) => ({ step: 0, last: Math.max(0, input.attempts - 1), retries: 0 }),
  states: {
    scheduled: {
      on: {
        DUE: 'processing',
        CANCEL: 'cancelled',
      },
    },
    processing: {
      initial: 'sending',
      states: {
        sending: {
          entry: { type: 'send', params: ({ context }) => ({ step: context.step }) },
          on: {
            ACCEPTED: {
              guard: 'isCurrent',
              target: 'awaiting',
              actions: { type: 'armTimer', params: ({ context }) => ({ timer: 'expiry' as const, step: context.step }) },
            },
          },
        },
        awaiting: {},
        retrying: {
          on: {
            TIMER: { guard: 'isRetryDue', target: 'sending' },
          },
        },
      },
      on: {
        DELIVERED: [
          {
            guard: 'isCurrent',
            target: 'delivered',
            actions: CANCEL_ALL,
          },
          {
            // A late receipt of an earlier attempt: the recipient has the message after all.
            guard: 'isEarlier',
            target: 'delivered',
            actions: [
              CANCEL_ALL,
              {
                type: 'note',
                params: ({ context, event }) => ({
                  step: context.step,
                  status: 'Superseded' as const,
                  error: `attempt ${(event as StepEvent).step} was delivered late`,
                }),
              },
            ],
          },
        ],
        FAILED: [
          {
            guard: 'canRetry',
            target: '.retrying',
            actions: [
              'countRetry',
              {
                type: 'armTimer',
                params: ({ context, event }) => ({
                  timer: 'retry' as const,
                  step: context.step,
                  seconds: (event.type === 'FAILED' ? event.retryAfter : undefined) ?? backoffSeconds(context.retries),
                }),
              },
            ],
          },
          { guard: 'isCurrentWithNext', target: 'processing', reenter: true, actions: [CANCEL_ALL, 'nextStep'] },
          { guard: 'isPermanent', target: 'permanenterror', actions: CANCEL_ALL },
          { guard: 'isCurrent', target: 'undeliverable', actions: CANCEL_ALL },
        ],
        TIMER: [
          { guard: 'isExpiryWithNext', target: 'processing', reenter: true, actions: [CANCEL_ALL, 'nextStep'] },
          { guard: 'isExpiry', target: 'undeliverable', actions: CANCEL_ALL },
        ],
        SKIPPED: [
          { guard: 'isCurrentWithNext', target: 'processing', reenter: true, actions: [CANCEL_ALL, 'nextStep'] },
          { guard: 'isCurrent', target: 'undeliverable', actions: CANCEL_ALL },
        ],
      },
    },
    delivered: { type: 'final' },
    // Not XState-final: a late Delivered of an attempt that was sent still ends the message
    // delivered, since the recipient got it after all.
    undeliverable: { on: { DELIVERED: { guard: 'wasSent', target: 'delivered' } } },
    permanenterror: { on: { DELIVERED: { guard: 'wasSent', target: 'delivered' } } },
    cancelled: { type: 'final' },
  },
});
