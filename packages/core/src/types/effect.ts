import type { MachineEvent } from '../machines/events.ts';

/**
 * A unit of outbox work: `send` hands a step to its channel; `event` delivers an event (a timer
 * firing, a scheduled start) to the message's machine once it is due.
 */
export type EffectKind = 'send' | 'event';

export interface Effect {
  id: number;
  messageId: number;
  kind: EffectKind;
  step: number;
  /** For `event` effects: the event to deliver. */
  event: MachineEvent | null;
  dueAt: number;
}

export type NewEffect = Omit<Effect, 'id'>;
