import type { Route } from '@spillway/core';
import { useEffect, useMemo, useState } from 'react';
import type { ApiClient, RouteStatsView } from '../api/api-client.ts';
import { describeError } from '../api/describe-error.ts';
import { RouteCanvas } from '../canvas/RouteCanvas.tsx';
import { SidePanel } from '../layout/SidePanel.tsx';
import { trafficNotes } from './traffic-notes.ts';

const WINDOWS: [string, number][] = [
  ['last hour', 3_600_000],
  ['last 24 hours', 86_400_000],
  ['last 7 days', 7 * 86_400_000],
  ['last 30 days', 30 * 86_400_000],
];

/** What the open route's traffic was over a window: figures on each step and edge. */
export function TrafficMode({ api, route, id, revision }: { api: ApiClient; route: Route; id: string; revision: number }) {
  const [windowMs, setWindowMs] = useState(86_400_000);
  const [stats, setStats] = useState<RouteStatsView | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [reloads, setReloads] = useState(0);
  useEffect(() => {
    let stale = false;
    const until = new Date();
    api
      .routeStats(id, { revision, since: new Date(until.getTime() - windowMs).toISOString(), until: until.toISOString() })
      .then((s) => !stale && (setStats(s), setError(null)))
      .catch((e: unknown) => !stale && setError(describeError(e)));
    return () => {
      stale = true;
    };
  }, [api, id, revision, windowMs, reloads]);
  const highlight = useMemo(() => (stats ? trafficNotes(stats) : {}), [stats]);
  return (
    <>
      <main className="canvas-area">
        <RouteCanvas route={route} viewKey={`traffic:${id}`} selection={null} problems={[]} readOnly highlight={highlight} />
      </main>
      <SidePanel>
        <section className="panel-section" aria-label="Traffic">
          <h3>Traffic of revision {revision}</h3>
          <div className="row">
            <select name="window" value={windowMs} onChange={(e) => setWindowMs(Number(e.target.value))}>
              {WINDOWS.map(([name, ms]) => (
                <option key={ms} value={ms}>
                  {name}
                </option>
              ))}
            </select>
            <button type="button" onClick={() => setReloads((n) => n + 1)}>
              Refresh
            </button>
          </div>
          {error && <p className="error">{error}</p>}
          {stats && (
            <div data-testid="traffic-summary">
              <p>
                <strong>{stats.cascades}</strong> cascades · cost <strong>{stats.cost.toFixed(2)}</strong>
              </p>
              <ul>
                {Object.entries(stats.byStatus).map(([status, n]) => (
                  <li key={status}>
                    {status}: {n}
                  </li>
                ))}
              </ul>
            </div>
          )}
        </section>
      </SidePanel>
    </>
  );
}
