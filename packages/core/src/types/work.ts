import type { MachineEvent } from '../machines/events.ts';

/**
 * Work a message's machine waits for, kept on the message row (the outbox): a step to hand to
 * its channel, or an event due at a time (a timer, the scheduled start). The earliest `dueAt` is
 * the row's wake-up time, when a worker claims the message again.
 */
export type WorkItem = { kind: 'send'; step: number; dueAt: number } | { kind: 'event'; event: MachineEvent; dueAt: number };

/** When a message with `work` needs a worker next; null when it waits for nothing. */
export function wakeAtOf(work: readonly WorkItem[]): number | null {
  let wake: number | null = null;
  for (const item of work) if (wake === null || item.dueAt < wake) wake = item.dueAt;
  return wake;
}
