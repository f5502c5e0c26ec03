import type { MachineEvent } from '../machines/events.ts';
import type { HistoryStatus } from '../types/status.ts';

/**
 * The history entry an event leaves. Outcomes reported by channels are facts and are always
 * recorded, even when they arrive late; timers and cancellations only when they moved the machine.
 */
export function historyOf(event: MachineEvent, changed: boolean, detail?: string): { status: HistoryStatus; error: string | null } | null {
  switch (event.type) {
    case 'ACCEPTED':
      return { status: 'Sent', error: null };
    case 'DELIVERED':
      return { status: 'Delivered', error: null };
    case 'READ':
      return { status: 'Read', error: null };
    case 'FAILED':
      return { status: 'Failed', error: detail ? `${event.failure}: ${detail}` : event.failure };
    case 'SKIPPED':
      return { status: 'Skipped', error: event.reason };
    case 'TIMER':
      return changed && event.timer === 'expiry' ? { status: 'Expired', error: 'no delivery report before the ttl' } : null;
    case 'CANCEL':
      return changed ? { status: 'Cancelled', error: null } : null;
    case 'DUE':
      return null;
  }
}
