import type { AnyStateMachine } from 'xstate';
import type { MachineEvent } from '../machines/events.ts';
import type { OutboundAttempt } from '../ports/channel.ts';
import type { StoredMessage } from '../types/message.ts';

/** What the engine must do before handing a step to its channel. */
export interface SendPreparation {
  /** Do not send: feed this event instead (a skip, or a failure). */
  instead?: MachineEvent;
  /**
   * Charge this step before sending it (micro-units). The worker charges it at most once per step,
   * in one transaction with the message's cost; a balance that does not cover it skips the step.
   */
  charge?: { amount: number; description: string };
  /** Overrides of the attempt handed to the driver (resolved variables, bot credentials). */
  attempt?: Partial<OutboundAttempt>;
}

/** The machine of a message and the key its transitions are memoized under. */
export interface KindMachine {
  key: string;
  machine: AnyStateMachine;
}

/**
 * What differs between kinds of message (messaging API messages, cascade messages): which machine
 * runs them, and what happens right before a step is sent. The rest of the engine is shared.
 *
 * Either may answer at once or with a promise: a kind that needs no storage to answer (messaging
 * API messages) answers at once, and the worker does not wait a turn of promises for it for every
 * message of a round.
 */
export interface KindHandler {
  machineFor(message: StoredMessage): KindMachine | Promise<KindMachine>;
  prepareSend?(message: StoredMessage, step: number, now: number): SendPreparation | Promise<SendPreparation>;
}
