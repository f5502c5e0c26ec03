import { CHANNEL_NAMES } from '../panels/channel-names.ts';
import { inRouteOrder } from './route-order.ts';
import type { ChannelId } from '@spillway/core';

export interface StatusRecordView {
  status: string;
  cost: number;
  currency: string;
  steps: { step: number; id: string; channel: string; status: string | null; error: string | null; cost: number }[];
  history: { step: number; channel: string; status: string; dt: string; error: string | null }[];
}

/** Wall-clock time, or (with `origin`) the time since the start: `+1h 02m 03.004s`. */
export function formatTime(iso: string, origin?: number): string {
  if (origin === undefined) return iso.slice(11, 23);
  const ms = Date.parse(iso) - origin;
  const s = Math.floor(ms / 1000);
  return `+${Math.floor(s / 3600)}h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m ${String(s % 60).padStart(2, '0')}.${String(ms % 1000).padStart(3, '0')}s`;
}

/**
 * The overall status, the cost so far and the history, laid out as the status endpoint answers
 * them; the steps in `order` (the route's, see `routeOrder`) when given, else as stored.
 */
export function StatusRecord({ record, origin, order }: { record: StatusRecordView; origin?: number; order?: readonly string[] }) {
  return (
    <div className="status-record">
      <p>
        Status <strong data-testid="record-status">{record.status}</strong> · cost{' '}
        <strong data-testid="record-cost">
          {record.cost.toFixed(2)} {record.currency}
        </strong>
      </p>
      <table className="record-steps" data-testid="record-steps">
        <tbody>
          {(order ? inRouteOrder(record.steps, order) : record.steps).map((s) => (
            <tr key={s.step}>
              <td>{s.id}</td>
              <td>{CHANNEL_NAMES[s.channel as ChannelId] ?? s.channel}</td>
              <td className={`st-${s.status ?? 'none'}`}>{s.status ?? '—'}</td>
              <td>{s.cost.toFixed(2)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <ol className="history" data-testid="history">
        {record.history.map((h, i) => (
          <li key={i} className={`h-${h.status.toLowerCase()}`}>
            <time>{formatTime(h.dt, origin)}</time> <span>{CHANNEL_NAMES[h.channel as ChannelId] ?? h.channel}</span>{' '}
            <strong>{h.status}</strong>
            {h.error ? <small> {h.error}</small> : null}
          </li>
        ))}
      </ol>
    </div>
  );
}
