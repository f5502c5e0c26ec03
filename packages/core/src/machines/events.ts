import type { FailureClass } from '../types/channel.ts';
import type { HistoryStatus } from '../types/status.ts';

/** Timers a machine can arm; the engine turns their durations into due times. */
export type TimerName = 'expiry' | 'read' | 'retry' | 'due';

/**
 * Events every message and cascade machine understands. `step` names the attempt an outcome
 * belongs to, so a late receipt or a stale timer is recognised as such.
 */
export type MachineEvent =
  | { type: 'DUE' }
  | { type: 'CANCEL' }
  | { type: 'ACCEPTED'; step: number }
  | { type: 'DELIVERED'; step: number }
  | { type: 'READ'; step: number }
  | { type: 'FAILED'; step: number; failure: FailureClass; retryAfter?: number }
  | { type: 'TIMER'; step: number; timer: TimerName }
  /**
   * The engine could not hand the step to its channel and moves on: no open session for a
   * session-checked chat-app step, too little time left before the deadline, no credentials for
   * a bot step, or funds short. Treated like an undeliverable outcome of the step.
   */
  | { type: 'SKIPPED'; step: number; reason: string };

/**
 * Actions machines ask the engine to carry out. They are descriptors only: the engine writes them
 * to the outbox in the same transaction as the snapshot, and workers execute them.
 */
export type EngineAction =
  | { type: 'send'; params: { step: number } }
  | { type: 'armTimer'; params: { timer: TimerName; step: number; seconds?: number } }
  | { type: 'cancelTimers'; params: { step?: number } }
  | { type: 'note'; params: { step: number; status: HistoryStatus; error?: string } };

export type EngineActionType = EngineAction['type'];
