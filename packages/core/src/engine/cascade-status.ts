import type { Route } from '../types/route.ts';
import type { ChannelId } from '../types/channel.ts';
import type { HistoryEntry, StoredMessage } from '../types/message.ts';
import { cascadeMetaOf } from './cascade-meta.ts';
import type { CascadeStatusRecord, CascadeStepStatus } from './cascade-types.ts';
import { isoTime as iso } from '../iso-time.ts';
import { fromMicros } from './money.ts';
import { attemptStatus } from './status-record.ts';

/**
 * A cascade step's status from its own history (`entries`, that step's only): `skipped` when the
 * engine never sent it, `expired` when its time ran out without a delivery report (the history's
 * `Expired`, the route's `expired` outcome), `superseded` when a late delivery of an earlier step
 * ended the cascade while this one was under way; otherwise the attempt's `deliverystatus`.
 * The simulation of the designer shows its steps with it too.
 */
export function cascadeStepStatus(entries: readonly HistoryEntry[]): CascadeStepStatus['status'] {
  const own = entries.filter((e) => e.status !== 'Clicked' && e.status !== 'Superseded');
  if (own.length > 0 && own.every((e) => e.status === 'Skipped')) return 'skipped';
  const status = attemptStatus(own);
  if (status === 'undeliverable' && own.at(-1)?.status === 'Expired') return 'expired';
  if (status === 'processing' && entries.some((e) => e.status === 'Superseded')) return 'superseded';
  return status;
}

/**
 * The channel that delivered last (after a `not_read` fallback: the SMS, not the unread chat),
 * else the one tried last; null when none was tried (skips and clicks are no tries: a cascade
 * whose every step was skipped names no channel).
 */
function channelOf(message: StoredMessage, history: HistoryEntry[]): ChannelId | null {
  const delivered = history.filter((e) => e.status === 'Delivered');
  const read = history.filter((e) => e.status === 'Read');
  const last = delivered[delivered.length - 1] ?? read[read.length - 1];
  if (message.status === 'delivered' && last) return last.channel;
  const tried = history.filter((e) => e.status === 'Sent' || e.status === 'Failed' || e.status === 'Expired');
  return tried[tried.length - 1]?.channel ?? null;
}

/**
 * The cascade status record (DESIGN.md: `status_guid` / `status_id`): the overall status, the
 * channel that delivered or was tried last, every route step with its status, time, error and
 * cost, and the ordered history. Never shows the stored bot credentials.
 */
export function buildCascadeStatus(
  message: StoredMessage,
  route: Route | null,
  history: HistoryEntry[],
  currency: string,
): CascadeStatusRecord {
  const meta = cascadeMetaOf(message.meta);
  const first = message.steps[0];
  const steps = message.steps.map((spec, i): CascadeStepStatus => {
    const entries = history.filter((e) => e.step === i);
    const last = entries.filter((e) => e.status !== 'Clicked').pop();
    const errored = [...entries].reverse().find((e) => e.error !== null && e.status !== 'Clicked');
    const billed = entries.some((e) => e.status === 'Sent' || e.status === 'Failed');
    const carried = entries.filter((e) => (e.status === 'Sent' || e.status === 'Failed') && e.driver).pop();
    return {
      step: i,
      id: route?.steps[i]?.id ?? spec.channel,
      channel: spec.channel,
      status: cascadeStepStatus(entries),
      dt: last ? iso(last.at) : null,
      error: errored?.error ?? null,
      cost: billed ? fromMicros(spec.cost) : 0,
      driver: carried?.driver ?? null,
    };
  });
  return {
    messageId: message.guid ?? '',
    trackinId: message.trackinId ?? '',
    status: message.status,
    channel: channelOf(message, history),
    route: message.routeRef,
    messageType: meta.messageType,
    toPhone: first?.to ?? '',
    fromName: first?.from ?? '',
    createdAt: iso(message.createdAt),
    sheduledSent: iso(message.dueAt),
    expiresAt: message.expiresAt === null ? null : iso(message.expiresAt),
    referralGuid: meta.referralGuid,
    customerData: meta.customerData,
    cost: fromMicros(message.cost),
    currency,
    steps,
    history: history.map((e) => ({
      step: e.step,
      channel: e.channel,
      status: e.status,
      dt: iso(e.at),
      error: e.error,
      driver: e.driver ?? null,
    })),
  };
}
