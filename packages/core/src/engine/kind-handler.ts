import type { AnyStateMachine } from 'xstate';
import type { MachineEvent } from '../machines/events.ts';
import type { OutboundAttempt } from '../ports/channel.ts';
import type { StoredMessage } from '../types/message.ts';

/** What the engine must do before handing a step to its channel. */
export interface SendPreparation {
  /** Do not send: feed this event instead (a skip, or a failure such as funds short). */
  instead?: MachineEvent;
  /** Charged for this attempt (micro-units), already taken from the wallet. */
  charged?: number;
  /** Overrides of the attempt handed to the driver (resolved variables, bot credentials). */
  attempt?: Partial<OutboundAttempt>;
}

/**
 * What differs between kinds of message (messaging API messages, cascade messages): which machine
 * runs them, and what happens right before a step is sent. The rest of the engine is shared.
 */
export interface KindHandler {
  /** The machine of a message and the key its transitions are memoized under. */
  machineFor(message: StoredMessage): Promise<{ key: string; machine: AnyStateMachine }>;
  prepareSend?(message: StoredMessage, step: number, now: number): Promise<SendPreparation>;
}
