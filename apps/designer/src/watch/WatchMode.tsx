import type { Route } from '@spillway/core';
import { parseRouteRef } from '@spillway/core';
import { useEffect, useMemo, useState } from 'react';
import type { ApiClient } from '../api/api-client.ts';
import { ApiError } from '../api/api-client.ts';
import { describeError } from '../api/describe-error.ts';
import { RouteCanvas } from '../canvas/RouteCanvas.tsx';
import { EmptyCanvas } from '../layout/EmptyCanvas.tsx';
import { routeOrder } from '../simulation/route-order.ts';
import { SidePanel } from '../layout/SidePanel.tsx';
import { journeyOf } from './journey.ts';
import type { TestTarget } from './test-target.ts';
import { useCascadeStatus } from './useCascadeStatus.ts';
import { WatchPanel } from './WatchPanel.tsx';

/** A real cascade's journey drawn on its route, polled while it runs; test cascades run `target`. */
export function WatchMode({
  api,
  watching,
  target,
  onWatch,
}: {
  api: ApiClient;
  watching: string | null;
  target: TestTarget;
  onWatch(id: string | null): void;
}) {
  const { status, error } = useCascadeStatus(api, watching);
  const [route, setRoute] = useState<Route | null>(null);
  const [routeError, setRouteError] = useState<string | null>(null);
  const ref = status?.route ?? null;
  useEffect(() => {
    setRoute(null);
    setRouteError(null);
    const parsed = ref ? parseRouteRef(ref) : null;
    if (!parsed) return;
    let stale = false;
    api
      .getRoute(parsed.id, parsed.revision)
      .then((r) => !stale && setRoute(r))
      .catch((e: unknown) => {
        if (stale) return;
        // A deleted route's revision is refused by the server: the journey cannot be drawn, the status record still shows.
        const why = e instanceof ApiError && e.status === 404 ? 'it was not found (was the route deleted?)' : describeError(e);
        setRouteError(`The route revision ${ref} of this cascade cannot be read: ${why}`);
      });
    return () => {
      stale = true;
    };
  }, [api, ref]);
  const highlight = useMemo(() => (route && status ? journeyOf(route, status) : {}), [route, status]);
  const order = useMemo(() => (route ? routeOrder(route) : undefined), [route]);
  const panel = (
    <SidePanel>
      <WatchPanel api={api} watching={watching} status={status} order={order} error={error} target={target} onWatch={onWatch} />
    </SidePanel>
  );
  if (!watching) {
    return (
      <>
        <EmptyCanvas title="No cascade watched">
          Enter the trackinId or message GUID of a cascade on the right, or send a test cascade from there: its journey is drawn here as it
          runs.
        </EmptyCanvas>
        {panel}
      </>
    );
  }
  return (
    <>
      <main className="canvas-area">
        {route ? (
          <RouteCanvas route={route} viewKey={`watch:${ref}`} selection={null} problems={[]} readOnly highlight={highlight} />
        ) : routeError ? (
          <p className="empty error" role="alert">
            {routeError}
          </p>
        ) : error && !status ? (
          <p className="empty error">{error}</p>
        ) : (
          <p className="empty">Loading the cascade…</p>
        )}
      </main>
      {panel}
    </>
  );
}
